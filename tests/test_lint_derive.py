"""The DALI facts the linter derives at run time, and their recorded fallbacks."""

import inspect
import sys

import pytest

from dali_migrate import derive
from dali_migrate.lint import lint_source

H = "import nvidia.dali.experimental.dynamic as ndd\n"


@pytest.fixture
def fresh_spelling():
    derive.trace_spelling.cache_clear()
    yield
    derive.trace_spelling.cache_clear()


def test_spelling_comes_from_the_installed_next_epoch(fresh_spelling):
    ndd = pytest.importorskip("nvidia.dali.experimental.dynamic")
    params = inspect.signature(ndd.readers.File.next_epoch).parameters
    spelling, source = derive.trace_spelling()
    assert spelling in params and source.startswith("installed DALI")
    assert spelling == derive.RECORDED_TRACE_SPELLING  # the recorded default matches 2.4.0
    assert hasattr(ndd.ExternalSource, derive.SPELLINGS[spelling]["method"])
    assert hasattr(ndd, derive.SPELLINGS[spelling]["module"])


def test_falls_back_to_the_recorded_spelling_without_dali(fresh_spelling, monkeypatch):
    monkeypatch.setitem(sys.modules, "nvidia.dali.experimental.dynamic", None)  # import fails
    assert derive.trace_spelling() == ("capture", "recorded default (DALI 2.4.0)")


def test_the_reverse_when_dali_says_compile(monkeypatch):
    monkeypatch.setattr(derive, "trace_spelling", lambda: ("compile", "installed DALI 2.0"))
    text = H + "for a, b in reader.next_epoch(batch_size=2, capture=True):\n    pass\nx = ndd.capture.invariant(1)\n"
    result = lint_source(text, fix=True)
    assert result.fixed_source == text.replace("capture", "compile")
    assert [f.rule for f in result.fixed] == ["DM318", "DM318"]


def test_recorded_multi_output_ops_match_the_installed_dali():
    pytest.importorskip("nvidia.dali")
    assert derive.derive_multi_output_ops() == derive.RECORDED_MULTI_OUTPUT
