import re
import sys
import warnings
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "golden"


def golden_cases():
    """Every ``golden/<group>/<case>.py`` that has a ``<case>.expected.py`` beside it."""
    cases = []
    for expected in sorted(GOLDEN.rglob("*.expected.py")):
        source = expected.with_name(expected.name.replace(".expected.py", ".py"))
        if source.exists():
            cases.append(pytest.param(source, expected, id=str(source.relative_to(GOLDEN))))
    return cases


# DALI's deprecation notices for the pipeline-mode operators the tests run on purpose (``fn.image_decoder`` in
# examples/repo, ``fn.shapes`` in tests/test_shapes_runtime.py: the migration rewrites them, so the originals
# must run). DALI raises them under its own ``simplefilter("default")``, which no filterwarnings entry of the
# pytest configuration can override, so they are dropped here; every other warning goes on to pytest.
_EXPECTED_DALI_DEPRECATIONS = re.compile(r"WARNING: `nvidia\.dali\.fn\.(image_decoder|shapes)` is now deprecated")


@pytest.fixture(autouse=True)
def _expected_dali_deprecations():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")  # record each; the filters of the run decide below
        yield
    for w in caught:
        if issubclass(w.category, DeprecationWarning) and _EXPECTED_DALI_DEPRECATIONS.match(str(w.message)):
            continue
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno, source=w.source)


@pytest.fixture(autouse=True)
def _no_stray_imports_of_tool_in_migrated(monkeypatch):
    yield
