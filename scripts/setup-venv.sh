#!/usr/bin/env bash
# Create .venv (once) and install dali-migrate into it.
#   bash scripts/setup-venv.sh          everything the tests and the harness need (DALI, torch, TensorFlow, JAX, ...)
#   bash scripts/setup-venv.sh demo     only what the demo runs: the package with libcst and nbformat (seconds)
# The install is editable, so code changes need no reinstall: it runs again only when what it reads
# changed (pyproject.toml, this script, the checkout's place) or a module it installs is missing.
# Each kind keeps its own stamp, so the demo's light install never stands in for the tests' full one.
set -euo pipefail
cd "$(dirname "$0")/.."
kind=${1:-test}
case "$kind" in
  demo) modules="dali_migrate libcst nbformat"; stamp=.venv/.dali-migrate-demo ;;
  test) modules="dali_migrate libcst nvidia.dali torch mcp nbformat matplotlib jsonschema tensorflow jax nvidia.dali_tf_plugin"
        stamp=.venv/.dali-migrate-install ;;
  *) echo "usage: scripts/setup-venv.sh [test|demo]" >&2; exit 2 ;;
esac
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
. .venv/bin/activate
want="$( { cat pyproject.toml scripts/setup-venv.sh; pwd; } | { sha256sum 2>/dev/null || shasum -a 256; } | cut -d' ' -f1)"
installed() {  # every module is there (found, not imported: importing torch and DALI takes seconds)
  python -c "import importlib.util as u, os, sys
found = {m: u.find_spec(m) for m in sys.argv[1:]}
here = found['dali_migrate'] and os.path.dirname(os.path.dirname(found['dali_migrate'].origin)) == os.getcwd()
sys.exit(not (all(found.values()) and here))" $modules >/dev/null 2>&1
}
imports_ok() {
  python -c "import $(echo $modules | tr ' ' ',')" >/dev/null 2>&1
}
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && installed; then
  exit 0
fi
quiet() { grep -v -E "^WARNING: Location|is ignored" || true; }
python -m pip install -q --upgrade pip >/dev/null 2>&1 || true
if [ "$kind" = demo ]; then
  # The migration needs only libcst and nbformat (pyproject.toml's dependencies); DALI, torch, TensorFlow
  # and JAX are extras, so this is a few MB.
  python -m pip install -q -e . 2>&1 | quiet
else
  # torch==2.13.0 is the CPU build (a plain `torch` pulls a multi-GB CUDA build).
  python -m pip install -q -e ".[test,torch,mcp,report,frameworks]" 2>&1 | quiet
  # DALI's TensorFlow plugin builds against the TensorFlow installed above (the golden programs run it),
  # so it must see this venv: pip 25.3 and newer build in an isolated environment by default, where the
  # plugin finds no TensorFlow and fails ("Tensorflow installation not found").
  python -m pip install -q setuptools wheel 2>&1 | quiet
  python -m pip install -q --no-build-isolation nvidia-dali-tf-plugin-cuda120==2.4.0 2>&1 | quiet
fi
imports_ok || { echo "setup failed: a dependency did not install" >&2; exit 2; }
echo "$want" > "$stamp"
