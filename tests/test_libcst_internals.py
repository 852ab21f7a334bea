"""The libcst internals the engine switches for speed (``CSTNode._codegen`` for the print that copies
what no pass changed, ``CSTNode.__post_init__`` for the parse without validation) are what it expects;
when a libcst release changes them, the engine falls back to plain libcst and migrates the same.

If ``test_installed_libcst_has_the_internals_the_engine_switches`` fails after a libcst upgrade: the tool
still works (slower), but read ``source.libcst_internals_problem`` and ``source.print_code`` against the
new libcst before widening the pin in pyproject.toml.
"""

from __future__ import annotations

import re
import tomllib
from importlib.metadata import version
from pathlib import Path

import libcst as cst
import pytest
from libcst._nodes.base import CSTNode

from conftest import golden_cases
from dali_migrate import migrate_source, source as source_module
from dali_migrate.files import read_source

ROOT = Path(__file__).resolve().parent.parent


def test_installed_libcst_has_the_internals_the_engine_switches():
    problem = source_module.libcst_internals_problem()
    assert problem is None, (
        f"libcst {version('libcst')}: {problem}. dali-migrate falls back to plain libcst (slower, correct); "
        f"adapt dali_migrate/source.py (print_code, parse_module) to this libcst or keep the pin in pyproject.toml.")
    assert source_module.fast_libcst()


def test_libcst_is_pinned_to_the_range_the_tests_ran_on():
    """pyproject.toml names a lower and an upper bound, and the installed libcst lies between them."""
    dependencies = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    (spec,) = [d for d in dependencies if d.startswith("libcst")]
    low, high = re.fullmatch(r"libcst>=([\d.]+),<([\d.]+)", spec).groups()
    installed = tuple(int(part) for part in version("libcst").split(".")[:3])
    assert tuple(map(int, low.split("."))) <= installed < tuple(map(int, high.split("."))), spec


def test_a_node_class_that_prints_itself_is_noticed(monkeypatch):
    monkeypatch.setattr(cst.Name, "_codegen", lambda self, state, **kwargs: None, raising=False)
    assert "override CSTNode._codegen or __post_init__: Name" in source_module.libcst_internals_problem()


def test_a_changed_signature_is_noticed(monkeypatch):
    def codegen(self, state, default_semicolon):  # no **kwargs: the engine's reusing print passes them on
        pass

    monkeypatch.setitem(source_module._ORIGINAL, "_codegen", codegen)
    assert "is not (self, state, **kwargs)" in source_module.libcst_internals_problem()


def test_validation_that_moved_out_of_post_init_is_noticed(monkeypatch):
    monkeypatch.setattr(CSTNode, "__post_init__", lambda self: None)
    monkeypatch.setitem(source_module._ORIGINAL, "__post_init__", CSTNode.__post_init__)
    assert "no longer validates" in source_module.libcst_internals_problem()


@pytest.mark.parametrize("source_path, expected_path", golden_cases()[::3])
@pytest.mark.slow  # slow: every golden case again, through another path of the engine
def test_plain_libcst_fallback_migrates_the_same(monkeypatch, source_path, expected_path):
    source = read_source(source_path)
    fast = migrate_source(source, source_path.name)
    monkeypatch.setattr(source_module, "fast_libcst", lambda: False)
    switched = []
    monkeypatch.setattr(source_module, "_switched", lambda *args: switched.append(args))  # must not be used now
    plain = migrate_source(source, source_path.name)
    assert not switched
    assert plain.migrated == fast.migrated == read_source(expected_path)
    assert [f.to_dict() for f in plain.findings] == [f.to_dict() for f in fast.findings]
