// temporal-sql-tool is the server's SQL schema tool (go.temporal.io/server/cmd/tools/sql) at the
// server version go.mod pins, built from this module for the same reason as temporal-server: one
// pin for both, and a binary name of our choosing (`go install` would name it `sql`).
//
//	temporal-sql-tool --plugin postgres12 --ep HOST -p PORT -u USER --pw PASSWORD --db NAME create-database
//	temporal-sql-tool ... setup-schema -v 0.0
//	temporal-sql-tool ... update-schema -d <module>/schema/postgresql/v12/temporal/versioned
package main

import (
	"os"

	_ "go.temporal.io/server/common/persistence/sql/sqlplugin/postgresql" // the only store the crawler's stacks use
	"go.temporal.io/server/tools/sql"
)

func main() {
	if err := sql.RunTool(os.Args); err != nil {
		os.Exit(1)
	}
}
