// temporal-server runs the Temporal server (go.temporal.io/server, at the version go.mod pins: the
// release docker-compose.yml's temporalio/auto-setup image carries) configured the way that image
// configures it: the server module's docker/config_template.yaml rendered from environment
// variables (DB, POSTGRES_SEEDS, DB_PORT, POSTGRES_USER, POSTGRES_PWD, DYNAMIC_CONFIG_FILE_PATH,
// the *_GRPC_PORT and *_MEMBERSHIP_PORT ports, ...) with dockerize's template functions, then
// loaded as the image's `temporal-server --env docker start` loads it. The server's own
// cmd/server is a main package and cannot be imported, hence this wrapper; its start-up mirrors
// that main.
//
//	temporal-server render -template FILE                  prints the rendered config
//	temporal-server start -template FILE -config-dir DIR [-service NAME]...
//	                                                       renders into DIR/docker.yaml and serves
//	                                                       the services named (default: all four)
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/template"
	_ "time/tzdata" // as the server's main: time zones without the system database

	"go.temporal.io/server/common/authorization"
	"go.temporal.io/server/common/config"
	"go.temporal.io/server/common/dynamicconfig"
	"go.temporal.io/server/common/headers"
	"go.temporal.io/server/common/log"
	"go.temporal.io/server/common/log/tag"
	_ "go.temporal.io/server/common/persistence/sql/sqlplugin/postgresql" // the only store the crawler's stacks use
	"go.temporal.io/server/temporal"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch os.Args[1] {
	case "render":
		err = render(os.Args[2:])
	case "start":
		err = start(os.Args[2:])
	case "version":
		fmt.Println(headers.ServerVersion)
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "temporal-server:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: temporal-server render -template FILE | start -template FILE -config-dir DIR [-service NAME]... | version")
	os.Exit(2)
}

type services []string

func (s *services) String() string     { return strings.Join(*s, ",") }
func (s *services) Set(v string) error { *s = append(*s, v); return nil }

func render(args []string) error {
	flags := flag.NewFlagSet("render", flag.ExitOnError)
	templateFile := flags.String("template", "", "the server module's docker/config_template.yaml")
	_ = flags.Parse(args)
	rendered, err := renderTemplate(*templateFile)
	if err != nil {
		return err
	}
	_, err = os.Stdout.Write(rendered)
	return err
}

func start(args []string) error {
	flags := flag.NewFlagSet("start", flag.ExitOnError)
	templateFile := flags.String("template", "", "the server module's docker/config_template.yaml")
	configDir := flags.String("config-dir", "", "folder the rendered config is written to (as docker.yaml)")
	var only services
	flags.Var(&only, "service", "a service to serve: frontend, history, matching or worker (repeatable; default: all)")
	_ = flags.Parse(args)
	if *configDir == "" {
		return errors.New("start needs -config-dir: the folder the rendered docker.yaml is written to")
	}
	if len(only) == 0 {
		only = temporal.DefaultServices
	}
	rendered, err := renderTemplate(*templateFile)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(*configDir, 0o700); err != nil {
		return err
	}
	// The rendered file holds the database password: readable by its owner only.
	if err := os.WriteFile(filepath.Join(*configDir, "docker.yaml"), rendered, 0o600); err != nil {
		return err
	}
	cfg, err := config.LoadConfig("docker", *configDir, "")
	if err != nil {
		return fmt.Errorf("loading the rendered config in %s: %w", *configDir, err)
	}

	logger := log.NewZapLogger(log.BuildZapLogger(cfg.Log))
	logger.Info("Starting.", tag.NewStringTag("server-version", headers.ServerVersion), tag.NewStringsTag("services", only))
	var dynamicConfigClient dynamicconfig.Client
	if cfg.DynamicConfigClient != nil {
		dynamicConfigClient, err = dynamicconfig.NewFileBasedClient(cfg.DynamicConfigClient, logger, temporal.InterruptCh())
		if err != nil {
			return fmt.Errorf("dynamic config %s: %w", cfg.DynamicConfigClient.Filepath, err)
		}
	} else {
		dynamicConfigClient = dynamicconfig.NewNoopClient()
	}
	authorizer, err := authorization.GetAuthorizerFromConfig(&cfg.Global.Authorization)
	if err != nil {
		return err
	}
	claimMapper, err := authorization.GetClaimMapperFromConfig(&cfg.Global.Authorization, logger)
	if err != nil {
		return err
	}
	audienceMapper, err := authorization.GetAudienceMapperFromConfig(&cfg.Global.Authorization)
	if err != nil {
		return err
	}
	server, err := temporal.NewServer(
		temporal.ForServices(only),
		temporal.WithConfig(cfg),
		temporal.WithDynamicConfigClient(dynamicConfigClient),
		temporal.WithLogger(logger),
		temporal.InterruptOn(temporal.InterruptCh()),
		temporal.WithAuthorizer(authorizer),
		temporal.WithClaimMapper(func(*config.Config) authorization.ClaimMapper { return claimMapper }),
		temporal.WithAudienceGetter(func(*config.Config) authorization.JWTAudienceMapper { return audienceMapper }),
	)
	if err != nil {
		return fmt.Errorf("creating the server: %w", err)
	}
	// Start blocks until an interrupt (SIGINT, SIGTERM) stops the services.
	return server.Start()
}

// renderTemplate renders the config template as the image's entrypoint does with dockerize:
// `.Env.NAME` is the environment variable (absent: no value), `default VALUE FALLBACK` gives
// FALLBACK only for an absent variable.
func renderTemplate(file string) ([]byte, error) {
	if file == "" {
		return nil, errors.New("-template is required: the server module's docker/config_template.yaml")
	}
	source, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	tpl, err := template.New(filepath.Base(file)).Funcs(dockerizeFuncs).Parse(string(source))
	if err != nil {
		return nil, fmt.Errorf("parsing %s: %w", file, err)
	}
	env := map[string]string{}
	for _, entry := range os.Environ() {
		if name, value, ok := strings.Cut(entry, "="); ok {
			env[name] = value
		}
	}
	var rendered bytes.Buffer
	if err := tpl.Execute(&rendered, struct{ Env map[string]string }{env}); err != nil {
		return nil, fmt.Errorf("rendering %s: %w", file, err)
	}
	return rendered.Bytes(), nil
}

// The functions of dockerize's templates that config_template.yaml calls, with their semantics.
var dockerizeFuncs = template.FuncMap{
	"default": func(args ...interface{}) (string, error) {
		if len(args) != 2 {
			return "", fmt.Errorf("default takes a value and a fallback, got %d arguments", len(args))
		}
		if args[0] != nil {
			return fmt.Sprint(args[0]), nil
		}
		fallback, ok := args[1].(string)
		if !ok {
			return "", errors.New("default's fallback is not a string")
		}
		return fallback, nil
	},
	"lower": strings.ToLower,
	"upper": strings.ToUpper,
	"split": strings.Split,
	"trim":  strings.TrimSpace,
}
