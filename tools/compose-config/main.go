// compose-config resolves and validates compose files as `docker compose config` does, with the
// library that command is built on (compose-spec/compose-go): the Compose schema, interpolation,
// extends and anchors. The machine that runs our tests has the docker client but no compose
// plugin, and docker/compose itself refuses `go install` (its go.mod has exclude directives).
//
//	compose-config [--env-file F]... [FILE...]   prints the resolved project as YAML; exits 1 naming what is invalid
//
// --env-file reads variables from F as `docker compose --env-file F` does (instead of .env).
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/compose-spec/compose-go/v2/cli"
)

func main() {
	var files, envFiles []string
	for args := os.Args[1:]; len(args) > 0; args = args[1:] {
		if args[0] == "--env-file" && len(args) > 1 {
			envFiles = append(envFiles, args[1])
			args = args[1:]
			continue
		}
		files = append(files, args[0])
	}
	if len(files) == 0 {
		files = []string{"docker-compose.yml"}
	}
	options, err := cli.NewProjectOptions(files, cli.WithWorkingDirectory("."), cli.WithOsEnv, cli.WithEnvFiles(envFiles...), cli.WithDotEnv)
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
