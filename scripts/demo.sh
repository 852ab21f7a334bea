#!/usr/bin/env bash
# Set up (if needed) and migrate the bundled example: prints the diff and the findings.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-venv.sh
. .venv/bin/activate
set +e
dali-migrate migrate examples/
code=$?
set -e
echo "dali-migrate exited with $code (0 nothing to do, 1 changes pending or manual follow-ups, 2 errors)"
[ "$code" -le 1 ]
