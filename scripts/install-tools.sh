#!/usr/bin/env bash
# Installs the binaries the local stack runs: the Temporal CLI (dev server) and MinIO into
# .tools/bin at pinned versions, and Debian's PostgreSQL server binaries when none are found;
# compose-config (tools/compose-config) and build-context (tools/build-context), with which the
# tests check docker-compose.yml and what a Docker build of the image is sent; and the Temporal
# server and its SQL schema tool (tools/temporal-server, at the release docker-compose.yml runs)
# for the cluster test, which runs Temporal as a real server.
# Idempotent and silent when everything is already in place; `npm run tools` runs it.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TOOLS_BIN="$ROOT/.tools/bin"
VERSIONS_FILE="$ROOT/.tools/versions.txt"

# Pins. Temporal CLI tags after v1.5.1 refuse `go install`; MinIO's release tags are not semver,
# so the newest pseudo-version the module proxy serves is pinned instead.
TEMPORAL_MODULE="github.com/temporalio/cli/cmd/temporal"
TEMPORAL_VERSION="v1.5.1"
MINIO_MODULE="github.com/minio/minio"
MINIO_VERSION="v0.0.0-20260212201848-7aac2a2c5b7c"

fail() {
  echo "install-tools: $1" >&2
  shift
  for line in "$@"; do echo "  $line" >&2; done
  exit 1
}

say() { echo "install-tools: $*"; }

# The version recorded for a tool in .tools/versions.txt ("name version" lines), or empty.
recorded_version() {
  [[ -f "$VERSIONS_FILE" ]] || return 0
  awk -v name="$1" '$1 == name { print $2 }' "$VERSIONS_FILE"
}

record_version() {
  local name="$1" version="$2" tmp
  tmp="$(mktemp)"
  if [[ -f "$VERSIONS_FILE" ]]; then awk -v name="$name" '$1 != name' "$VERSIONS_FILE" > "$tmp"; fi
  echo "$name $version" >> "$tmp"
  sort "$tmp" > "$VERSIONS_FILE"
  rm -f "$tmp"
}

# The module version a Go binary was built from (`go version -m`), or empty. The binary is the
# authority: versions.txt can be stale if someone copied a binary in by hand.
built_version() {
  local binary="$1" module="$2"
  command -v go > /dev/null 2>&1 || return 0
  go version -m "$binary" 2> /dev/null | awk -v mod="$module" '$1 == "mod" && $2 == mod { print $3 }'
}

require_go() {
  command -v go > /dev/null 2>&1 || fail "Go is required to build $1 into .tools/bin, but 'go' is not on PATH." \
    "Install Go 1.23 or newer (https://go.dev/dl; Debian 12's golang-go is too old) and put it on PATH, then rerun: npm run tools"
}

# go_tool NAME MODULE_PATH MODULE_ROOT VERSION: installs NAME into .tools/bin unless it is there
# at VERSION already.
go_tool() {
  local name="$1" package="$2" module="$3" version="$4" binary="$TOOLS_BIN/$1" have
  if [[ -x "$binary" ]]; then
    have="$(built_version "$binary" "$module")"
    [[ -z "$have" ]] && have="$(recorded_version "$name")"
    if [[ "$have" == "$version" ]]; then
      [[ "$(recorded_version "$name")" == "$version" ]] || record_version "$name" "$version"
      return 0
    fi
  fi
  require_go "$name"
  mkdir -p "$TOOLS_BIN"
  say "building $name $version into .tools/bin (go install; this takes a few minutes the first time)"
  local log
  log="$(mktemp)"
  if ! GOBIN="$TOOLS_BIN" go install "$package@$version" > "$log" 2>&1; then
    tail -n 30 "$log" >&2
    rm -f "$log"
    fail "go install $package@$version failed (output above)." \
      "Check that the Go module proxy is reachable (go env GOPROXY) and that Go is recent enough, then rerun: npm run tools"
  fi
  rm -f "$log"
  [[ -x "$binary" ]] || fail "go install finished but $binary is missing." "Rerun: npm run tools"
  record_version "$name" "$version"
}

# local_go_tool NAME DIR [PACKAGE]: builds the Go program PACKAGE (default: the module's root) of
# DIR (a module of this repository) into .tools/bin, again whenever the module's source changes (a
# hash of its go.mod, go.sum and every .go file is recorded in versions.txt): its go.mod pins what
# it is built from.
local_go_tool() {
  local name="$1" dir="$ROOT/$2" package="${3:-.}" binary="$TOOLS_BIN/$1" hash
  hash="src-$(cd "$dir" && find . -name '*.go' -o -name go.mod -o -name go.sum | LC_ALL=C sort | xargs cat | sha256sum | cut -c1-16)"
  if [[ -x "$binary" && "$(recorded_version "$name")" == "$hash" ]]; then return 0; fi
  require_go "$name"
  mkdir -p "$TOOLS_BIN"
  say "building $name from $2 into .tools/bin (minutes the first time)"
  local log
  log="$(mktemp)"
  if ! (cd "$dir" && go build -o "$binary" "$package") > "$log" 2>&1; then
    tail -n 30 "$log" >&2
    rm -f "$log"
    fail "go build of $2 failed (output above)." "Check that the Go module proxy is reachable (go env GOPROXY), then rerun: npm run tools"
  fi
  rm -f "$log"
  record_version "$name" "$hash"
}

# The directory holding initdb, pg_ctl and postgres: PATH first, then Debian's versioned
# directories (newest first), matching how src/stack/tool-paths.ts looks for them.
postgres_bin_dir() {
  local pg_ctl dir
  if pg_ctl="$(command -v pg_ctl 2> /dev/null)"; then
    dir="$(dirname "$(readlink -f "$pg_ctl")")"
    if [[ -x "$dir/initdb" && -x "$dir/postgres" ]]; then echo "$dir"; return 0; fi
  fi
  for dir in $(ls -d /usr/lib/postgresql/*/bin 2> /dev/null | sort -t/ -k5 -n -r); do
    if [[ -x "$dir/pg_ctl" && -x "$dir/initdb" && -x "$dir/postgres" ]]; then echo "$dir"; return 0; fi
  done
  return 1
}

ensure_postgres() {
  postgres_bin_dir > /dev/null && return 0
  local install="apt-get update && apt-get install -y postgresql"
  if [[ "$(id -u)" != "0" ]]; then
    fail "PostgreSQL server binaries (initdb, pg_ctl, postgres) were not found on PATH or in /usr/lib/postgresql/*/bin." \
      "Install them as root, then rerun: sudo sh -c '$install'  (Debian/Ubuntu)"
  fi
  command -v apt-get > /dev/null 2>&1 || fail "PostgreSQL server binaries were not found and apt-get is not available." \
    "Install PostgreSQL 14 or newer so that initdb, pg_ctl and postgres are on PATH, then rerun: npm run tools"
  say "installing PostgreSQL from Debian packages ($install)"
  local log
  log="$(mktemp)"
  if ! { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y postgresql; } > "$log" 2>&1; then
    tail -n 30 "$log" >&2
    rm -f "$log"
    fail "apt-get install postgresql failed (output above)." "Fix the package source, then rerun: npm run tools"
  fi
  rm -f "$log"
  postgres_bin_dir > /dev/null || fail "postgresql was installed but initdb/pg_ctl/postgres are still not found." \
    "Look in /usr/lib/postgresql/*/bin; put that directory on PATH and rerun: npm run tools"
}

# Debian's Chromium, for rendering pages built by JavaScript (docs/rendering.md). Optional: without
# it the crawler renders nothing and says so once; with it `crawler crawl` renders in auto.
ensure_chromium() {
  if [[ -x /usr/lib/chromium/chromium || -n "${CRAWLER_CHROMIUM_PATH:-}" ]]; then return 0; fi
  if [[ "$(id -u)" != "0" ]] || ! command -v apt-get > /dev/null 2>&1; then
    say "no browser (/usr/lib/chromium/chromium): rendering stays off; to render, as root: apt-get install -y chromium"
    return 0
  fi
  say "installing Chromium from Debian packages (apt-get install -y chromium), for rendering"
  local log
  log="$(mktemp)"
  if ! { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium; } > "$log" 2>&1; then
    tail -n 30 "$log" >&2
    say "apt-get install chromium failed (output above): rendering stays off"
  fi
  rm -f "$log"
}

go_tool temporal "$TEMPORAL_MODULE" "github.com/temporalio/cli" "$TEMPORAL_VERSION"
go_tool minio "$MINIO_MODULE" "$MINIO_MODULE" "$MINIO_VERSION"
# `docker compose config` for the compose file's test, where no compose plugin is installed.
local_go_tool compose-config tools/compose-config
# The Temporal server (go.temporal.io/server at the release docker-compose.yml's image carries) and
# its SQL schema tool, for the cluster test (test/e2e/cluster, README "Tests").
local_go_tool temporal-server tools/temporal-server
local_go_tool temporal-sql-tool tools/temporal-server ./sql-tool
# The files `docker build` sends, by .dockerignore, for the image's test (no Docker engine here).
local_go_tool build-context tools/build-context
ensure_postgres
ensure_chromium
