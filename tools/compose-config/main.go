// compose-config resolves and validates compose files as `docker compose config` does, with the
// library that command is built on (compose-spec/compose-go): the Compose schema, interpolation,
// extends and anchors. The machine that runs our tests has the docker client but no compose
// plugin, and docker/compose itself refuses `go install` (its go.mod has exclude directives).
//
//	compose-config [FILE...]   prints the resolved project as YAML; exits 1 naming what is invalid
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/compose-spec/compose-go/v2/cli"
)

func main() {
	files := os.Args[1:]
	if len(files) == 0 {
		files = []string{"docker-compose.yml"}
	}
	options, err := cli.NewProjectOptions(files, cli.WithWorkingDirectory("."), cli.WithOsEnv, cli.WithDotEnv)
	if err != nil {
		fail(err)
	}
	project, err := options.LoadProject(context.Background())
	if err != nil {
		fail(err)
	}
	resolved, err := project.MarshalYAML()
	if err != nil {
		fail(err)
	}
	os.Stdout.Write(resolved)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "compose-config:", err)
	os.Exit(1)
}
