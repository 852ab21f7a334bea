"""Unrelated real-world code: the standard library is never changed and never crashes the tool.

The whole-library run is benchmarks/stdlib_check.py (numbers in benchmarks/README.md); here the
gated run covers every file (it is fast: no file mentions DALI) and every pass is forced over a
small fixed sample, so the passes themselves meet real code.
"""

import sys
import sysconfig
from pathlib import Path

import pytest

from dali_migrate import migrate_paths
from dali_migrate.engine import migrate_source
from dali_migrate.files import read_source

STDLIB = Path(sysconfig.get_paths()["stdlib"])
SAMPLE = ["colorsys.py", "fnmatch.py", "bisect.py", "json/scanner.py"]


def test_migrate_check_over_the_whole_stdlib_changes_nothing():
    tops = [p for p in STDLIB.iterdir() if (p.is_dir() and p.name != "site-packages") or p.suffix == ".py"]
    run = migrate_paths(tops)
    assert len(run.files) > 500
    assert run.errors == [] and not any(f.changed for f in run.files)
    assert run.exit_code() == 0


@pytest.mark.parametrize("name", SAMPLE)
def test_every_pass_on_stdlib_code_changes_nothing(name):
    path = STDLIB / name
    if not path.exists():
        pytest.skip(f"{name} is not in this Python {sys.version_info[:2]}")
    source = read_source(path)
    result = migrate_source(source, str(path), force=True)
    assert result.error is None
    assert result.migrated == source
