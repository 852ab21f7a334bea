import sys
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


@pytest.fixture(autouse=True)
def _no_stray_imports_of_tool_in_migrated(monkeypatch):
    yield
