"""Passes skip code that cannot concern them; what they skip keeps its identity, and the output is
exactly what a full walk of every pass gives."""

from __future__ import annotations

import sys
from pathlib import Path

import libcst as cst
import pytest

from dali_migrate import engine
from dali_migrate.context import MigrationContext
from dali_migrate.transforms import PASSES, base
from dali_migrate.transforms.base import Pass

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
from speed_corpus import generate_scripts  # noqa: E402

FAR_CONSUMER = '''\
import json

import nvidia.dali.fn as fn
from nvidia.dali import pipeline_def


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def my_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root)
    return fn.decoders.image(jpegs), labels


def helper(values):
    """Plain code: no pass has anything to do here."""
    return json.dumps(sorted(values))


class Meter:
    def __init__(self):
        self.total = 0


def main():
    p = my_pipe("/data")
    p.build()
    images, labels = p.run()
    first = images.as_cpu().at(0)
    return json.dumps([len(labels)]), first


if __name__ == "__main__":
    main()
'''

STAR_IMPORT = '''\
from nvidia.dali.fn import *
from nvidia.dali import pipeline_def
import nvidia.dali.fn as fn


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def star_pipe():
    jpegs, labels = readers.file(file_root="/data")
    return decoders.image(jpegs), fn.cast(labels, dtype=7)


def other():
    return readers.file(file_root="/x")
'''


class _Record(Pass):
    """Keeps the module it is given (first: the parsed module; last: the migrated one)."""

    name = "record"

    def __init__(self):
        self.modules = []

    def run(self, module, ctx):
        self.modules.append(module)
        return module


def test_cold_statements_are_not_parsed_and_far_consumers_are_migrated():
    first, last = _Record(), _Record()
    result = engine.migrate_source(FAR_CONSUMER, "far.py", passes=[first, *PASSES, last])
    assert result.error is None
    parsed, migrated = first.modules[0], last.modules[0]
    by_name = {s.name.value: s for s in parsed.body if isinstance(s, (cst.FunctionDef, cst.ClassDef))}
    kept = [s for s in migrated.body if isinstance(s, (cst.FunctionDef, cst.ClassDef))]
    # helper and Meter concern no pass and no hot code names them: libcst never parses them (a placeholder
    # line that binds their names stands in), and their text comes back byte for byte.
    assert "helper" not in by_name and "Meter" not in by_name
    assert "_dali_migrate_elided_1 = helper = ..." in parsed.code
    assert "_dali_migrate_elided_2 = Meter = ..." in parsed.code
    for name in ("def helper(values):", "class Meter:"):
        start = FAR_CONSUMER.index(name)
        block = FAR_CONSUMER[start:FAR_CONSUMER.index("\n\n\n", start)]
        assert block in result.migrated
    # my_pipe is hot: parsed, and rebuilt by the passes; statements left unchanged keep identity.
    assert "my_pipe" in by_name and not any(s is by_name["my_pipe"] for s in kept)
    # main() mentions DALI nowhere, but calls my_pipe: it is migrated all the same.
    assert "p.build()" not in result.migrated
    assert "images, labels = next(p)" in result.migrated
    assert "np.array(images.cpu().select(0))" in result.migrated
    assert not any(s is by_name["main"] for s in kept)


def _without_gating(monkeypatch):
    from dali_migrate import elision
    monkeypatch.setattr(elision, "elide", lambda source, words, project=None, hot_together=(): None)
    monkeypatch.setattr(MigrationContext, "may_mention", lambda self, node, names: True)
    monkeypatch.setattr(base, "cold_statements", lambda module, ctx, words, hot_together=(): set())
    import dali_migrate.transforms.unroll as unroll
    monkeypatch.setattr(unroll, "cold_statements", lambda module, ctx, words, hot_together=(): set())


SOURCES = {p.name: p.read_text() for p in sorted(ROOT.glob("golden/*/*.py")) if not p.name.endswith(".expected.py")}
SOURCES.update({f"script{i}": s for i, s in enumerate(generate_scripts(8, seed=11))})
SOURCES.update({"far_consumer": FAR_CONSUMER, "star_import": STAR_IMPORT})


@pytest.mark.parametrize("name", sorted(SOURCES))
@pytest.mark.slow  # slow: every golden case again, through another path of the engine
def test_gating_changes_nothing(name, monkeypatch):
    """Same text, same findings with every pass walking every node."""
    gated = engine.migrate_source(SOURCES[name], name)
    with monkeypatch.context() as patch:
        _without_gating(patch)
        full = engine.migrate_source(SOURCES[name], name)
    assert gated.error is None and full.error is None
    assert gated.migrated == full.migrated
    assert [f.to_dict() for f in gated.findings] == [f.to_dict() for f in full.findings]


def test_star_imported_names_are_left_as_without_gating():
    """Names from `from nvidia.dali.fn import *` resolve through no import alias, in any pass, so
    gating cannot change them: they stay as they are (the explicit fn.cast is migrated)."""
    result = engine.migrate_source(STAR_IMPORT, "star.py")
    assert "readers.file(file_root=\"/x\")" in result.migrated
    assert "ndd.cast(" in result.migrated


HANDED_CLASS = '''\
import nvidia.dali.ops as ops
from nvidia.dali.pipeline import Pipeline


class Pipe(Pipeline):
    def __init__(self, batch_size, num_threads, device_id):
        super().__init__(batch_size, num_threads, device_id)
        self.input = ops.readers.File(file_root="/data")

    def define_graph(self):
        jpegs, labels = self.input(name="Reader")
        return labels


def bench(pipe_type, steps):
    pipe = pipe_type(4, 2, None)
    pipe.build()
    for _ in range(steps):
        pipe.run()


def main():
    for kind in [Pipe]:
        bench(kind, 3)
'''


def test_a_pipeline_class_handed_to_a_plain_function_is_followed_there():
    """``bench`` mentions no DALI name, so elision would leave it out; the class handed to it makes the file read
    whole, and its pipe.run() is migrated (it was left in pipeline mode, unmarked)."""
    result = engine.migrate_source(HANDED_CLASS, "bench.py")
    bench = result.migrated[result.migrated.index("def bench"):]
    assert "pipe.run()" not in bench and "pipe.build()" not in bench
    assert "        next(pipe)\n" in bench
