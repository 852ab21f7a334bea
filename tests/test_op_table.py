"""The committed op table is what the installed DALI says; the codemod runs without DALI."""

import json
import subprocess
import sys
import textwrap

import pytest

from conftest import ROOT
from dali_migrate import optable


def _differences(committed, fresh, path=""):
    """Paths where two JSON values differ (first 20), to say what drifted."""
    if isinstance(committed, dict) and isinstance(fresh, dict):
        out = []
        for key in sorted(set(committed) | set(fresh)):
            if key not in committed:
                out.append(f"{path}{key}: only in the installed DALI")
            elif key not in fresh:
                out.append(f"{path}{key}: only in the committed table")
            else:
                out.extend(_differences(committed[key], fresh[key], f"{path}{key}."))
        return out[:20]
    return [] if committed == fresh else [f"{path.rstrip('.')}: {committed!r} != {fresh!r}"]


def test_table_matches_installed_dali():
    pytest.importorskip("nvidia.dali")
    from dali_migrate.tools.gen_op_table import build_table

    fresh = json.loads(json.dumps(build_table(), sort_keys=True))  # same normalisation as the file
    committed = json.loads(optable.TABLE_PATH.read_text())
    diffs = _differences(committed, fresh)
    assert not diffs, (
        f"dali_migrate/data/op_table.json (DALI {committed['dali_version']}) drifted from the installed "
        f"DALI {fresh['dali_version']}; regenerate it with `python -m dali_migrate.tools.gen_op_table` "
        "and review the diff:\n  " + "\n  ".join(diffs))


def test_table_knows_what_the_passes_rely_on():
    _, _, entry = optable.resolve_fn("decoders.image")
    assert entry["outputs"] == 1 and "dtype" in entry["type_args"]
    assert optable.resolve_fn("readers.file")[0] == "readers.File"
    assert optable.ndd_entry("readers.File")["kind"] == "reader"
    assert "name" not in optable.ndd_entry("readers.File")["dropped_args"]
    assert "seed" in optable.ndd_entry("random.uniform")["dropped_args"]
    assert optable.dali_type_for_numpy("float32") == "FLOAT"


_BLOCK_DALI = textwrap.dedent("""
    import importlib.abc, sys

    class BlockDali(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name == "nvidia" or name.startswith("nvidia."):
                raise ImportError(f"blocked for this test: {name}")
            return None

    sys.meta_path.insert(0, BlockDali())
    try:
        import nvidia.dali  # noqa: F401
    except ImportError:
        pass
    else:
        raise SystemExit("DALI was importable: the block did not work")

    from dali_migrate import migrate_source
    source = open(sys.argv[1], encoding="utf-8").read()
    result = migrate_source(source, "example.py")
    assert result.error is None, result.error
    assert not any(m.startswith("nvidia") for m in sys.modules), sorted(m for m in sys.modules if "nvidia" in m)
    sys.stdout.write(result.migrated)
""")


def test_codemod_runs_without_dali():
    example = ROOT / "examples" / "train_classifier.py"
    proc = subprocess.run([sys.executable, "-c", _BLOCK_DALI, str(example)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    from dali_migrate import migrate_source

    expected = migrate_source(example.read_text(), "example.py").migrated
    assert proc.stdout == expected
    assert "ndd." in proc.stdout
