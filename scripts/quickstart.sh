#!/usr/bin/env bash
# The README's first command. On a fresh machine: installs the npm packages and the tools
# (Temporal CLI, MinIO, Postgres), starts the local stack (left running), serves a small demo web
# on loopback addresses and crawls it. Extra arguments go to `crawler crawl`.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if [[ ! -d node_modules/@temporalio/worker ]]; then
  echo "==> npm ci"
  npm ci --no-audit --no-fund
fi
bash scripts/install-tools.sh
# Compiled, every later `crawler` command starts in about two thirds of the time (bin/compiled-entry.js).
npm run -s build -- --if-stale
exec node bin/run-ts.js scripts/quickstart.ts "$@"
