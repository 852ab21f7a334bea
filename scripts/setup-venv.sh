#!/usr/bin/env bash
# Create .venv (once) and install dali-migrate with everything its tests and harness need.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
. .venv/bin/activate
python -m pip install -q --upgrade pip >/dev/null 2>&1 || true
# torch==2.13.0 is the CPU build (a plain `torch` pulls a multi-GB CUDA build).
python -m pip install -q -e ".[test,torch,mcp,report]" 2>&1 | grep -v -E "^WARNING: Location|is ignored" || true
python -c "import dali_migrate, libcst, nvidia.dali, torch, mcp, nbformat, matplotlib" \
  || { echo "setup failed: a dependency did not install" >&2; exit 2; }
