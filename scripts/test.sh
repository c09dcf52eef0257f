#!/usr/bin/env bash
# What `npm test` runs: make sure the stack's binaries are installed (quick when they are), check
# types and the lint rules that keep workflows deterministic and the domain pure (a size warning
# fails too: modules stay under 400 lines, functions under 80), then run every
# test project. The integration project starts its own Temporal dev server, Postgres and MinIO
# (test/support/global-stack.ts) and stops them at the end.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/install-tools.sh
echo "==> typecheck"
npm run -s typecheck
echo "==> lint"
npx eslint . --max-warnings 0
echo "==> tests"
exec npx vitest run "$@"
