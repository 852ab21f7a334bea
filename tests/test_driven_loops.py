"""Issue 15, real code migrates fully: pipelines driven by hand outside iterator classes, legacy ops.Compose chains,
and a module that holds an iterator class over pipelines and no pipeline of its own. Text checks first (fast), then
the migrated code run on the installed DALI against the original."""

from __future__ import annotations

import re
import textwrap

import numpy as np
import pytest

from dali_migrate import migrate_paths, migrate_source
from dali_migrate.project import scan_project

# The corpus check's LEFT patterns: pipeline-mode API that must not stay in a file without a marker.
LEFT = [r"\.build\(\)", r"\.run\(\)", r"\.schedule_run\(", r"\.share_outputs\(", r"\.release_outputs\(",
        r"\.as_array\(", r"\.as_cpu\(", r"\.at\(", r"feed_ndarray\(", r"\bops\.[A-Z]"]


def _left(text: str) -> list[str]:
    """The patterns in the user's code (the classes dali-migrate writes into a module left out)."""
    blocks = re.split(r"(?m)^(?=\S)", text)
    user = "".join(b for b in blocks if not (b.startswith("class ") and "Written by dali-migrate." in b))
    code = "\n".join(line.split("#")[0] for line in user.splitlines())
    return [pattern for pattern in LEFT if re.search(pattern, code)]


def _golden(*parts: str) -> str:
    from runtime import GOLDEN

    return GOLDEN.joinpath(*parts).read_text()


# -- 3. a module with an iterator class over pipelines and no pipeline of its own ------------------------------------

def test_a_module_without_pipelines_adapts_share_outputs_instead_of_leaving_it():
    """It imported DALI (feed_ndarray) and used share_outputs on a parameter: the unroll pass did not run for a module
    without a pipeline, so the tensorlist pass rewrote .as_tensor() and left build/schedule_run/share_outputs in a file
    without a marker. Now the parameter is adapted and every pipeline call goes."""
    result = migrate_source(_golden("unroll", "wrapper_module_shared.py"), "loader.py")
    assert result.error is None and "# dali-migrate:" not in result.migrated
    assert not _left(result.migrated), _left(result.migrated)
    assert "        pipelines = ReaderStream.adapt(pipelines)  # nvidia.dali Pipelines or migrated ones" in result.migrated
    assert "images, labels = next(pipe)" in result.migrated
    assert "    pipe = ReaderStream.adapt(pipe)" in result.migrated  # epoch_steps(pipe, reader): a computed name
    assert "return pipe.epoch_size(reader) // pipe.max_batch_size" in result.migrated
    assert [f.rule for f in result.findings].count("DM242") == 2
    assert migrate_source(result.migrated, "loader.py").migrated == result.migrated


def test_run_and_metadata_alone_tell_a_parameter_holds_pipelines():
    """A class that only calls run() and reads max_batch_size/epoch_size("Reader") adapts its parameter too (run() and
    build() alone would not: any object has them); its listified form (x if isinstance(x, ...) else [x]) is a list."""
    result = migrate_source(_golden("unroll", "wrapper_module_run.py"), "dali_iter.py")
    assert "# dali-migrate:" not in result.migrated and not _left(result.migrated)
    assert "images, labels = next(p)" in result.migrated
    plain = textwrap.dedent('''\
        import nvidia.dali.types as types


        def drive(worker):
            worker.build()
            return worker.run()
    ''')
    assert migrate_source(plain, "w.py").migrated == plain  # nothing tells worker is a pipeline: left alone


def test_build_and_run_together_tell_beside_the_modules_own_pipelines():
    """build() and run() on one parameter, in a module that defines pipelines the migration turns into generators:
    the helper adapts its parameter (left alone it would get those generators); only one of the two, or both in a
    module with no pipeline of its own (above), is left alone."""
    source = textwrap.dedent('''\
        from nvidia.dali import fn, pipeline_def


        @pipeline_def(batch_size=2, num_threads=1, device_id=None)
        def pipe_of_ones():
            return fn.ones(shape=[2])


        def drive(worker):
            worker.build()
            return worker.run()


        def only_built(worker):
            worker.build()
            return worker
    ''')
    migrated = migrate_source(source, "w.py").migrated
    assert "worker = ReaderStream.adapt(worker)" in migrated and "return next(worker)" in migrated
    assert migrated.count("ReaderStream.adapt") == 1 and "def only_built(worker):\n    worker.build()" in migrated


def test_pre_scan_lists_the_iterator_classes_of_a_module_without_pipelines():
    from runtime import GOLDEN

    found = scan_project([GOLDEN / "runnable" / "wrapper_module_project"]).iterator_wrappers
    assert found == {"dali_iter.DaliIterator": frozenset({0, "pipelines"}),
                     "dali_iter.SharedIterator": frozenset({0, "pipelines"}),
                     "dali_iter.batch_count": frozenset({0, "pipe"})}


def test_a_project_hands_its_pipelines_to_the_module_and_both_migrate(tmp_path):
    from runtime import GOLDEN

    for name in ("main.py", "dali_iter.py"):
        (tmp_path / name).write_text((GOLDEN / "runnable" / "wrapper_module_project" / name).read_text())
    run = migrate_paths([str(tmp_path)], write=True, jobs=1)
    open_findings = [f.message for r in run.files for f in r.findings if not f.fixed]
    assert not open_findings, open_findings
    for name in ("main.py", "dali_iter.py"):
        assert not _left((tmp_path / name).read_text()), name
    assert "DM241" in {f.rule for r in run.files for f in r.findings}
    again = migrate_paths([str(tmp_path)], write=False, jobs=1)
    assert all(r.migrated == r.original for r in again.files if r.original)


def test_the_module_migrated_alone_gives_what_it_gave_over_both_kinds_of_pipeline(tmp_path):
    """Real DALI: the migrated iterator module over nvidia.dali Pipelines (a caller left in pipeline mode) and over
    migrated pipelines (the caller migrated) gives the original module's batches over the original pipelines."""
    torch = pytest.importorskip("torch")
    from runtime import GOLDEN, load, make_images, on_cpu

    root = str(make_images(tmp_path / "images"))
    folder = GOLDEN / "runnable" / "wrapper_module_project"
    module, caller = (folder / "dali_iter.py").read_text(), (folder / "main.py").read_text()
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "dali_iter.py").write_text(module)
    (tmp_path / "p" / "main.py").write_text(caller)
    migrate_paths([str(tmp_path / "p")], write=True, jobs=1)
    migrated_main = (tmp_path / "p" / "main.py").read_text()
    helper = (tmp_path / "p" / "dali_dynamic_compat.py").read_text()
    alone = migrate_source(module, "dali_iter.py").migrated
    original = load(on_cpu(module), "dali_iter_original")
    migrated = load(on_cpu(alone), "dali_iter_migrated")
    import sys
    import types as pytypes

    compat = load(helper, "dali_dynamic_compat")
    sys.modules["dali_dynamic_compat"] = compat
    sys.modules["dali_iter"] = migrated
    try:
        pipelines_then = load(on_cpu(caller.split("if __name__")[0]), "main_original")
        pipelines_now = load(on_cpu(migrated_main.split("if __name__")[0]), "main_migrated")
    finally:
        sys.modules.pop("dali_dynamic_compat")
        sys.modules.pop("dali_iter")
    assert isinstance(pipelines_now, pytypes.ModuleType)

    def batches(iterator_module, pipe_module, epochs=2):
        make = pipe_module.reader_pipe
        loader = iterator_module.DaliIterator([make(root, shard_id=s, num_shards=2) for s in range(2)])
        out = [(len(loader), loader.size, loader.batch_size)]
        for _ in range(epochs):
            out += [[(b[0].numpy().copy(), b[1].numpy().copy()) for b in step] for step in loader]
        shared = iterator_module.SharedIterator([make(root, shard_id=1, num_shards=2), make(root)], 4)
        out += [[[c.numpy().copy() for c in copies] for copies in step] for step in shared]
        out.append(iterator_module.batch_count(make(root, shard_id=1, num_shards=2), "Reader"))
        return out

    def same(a, b):
        if isinstance(a, np.ndarray):
            assert a.dtype == b.dtype and np.array_equal(a, b)
        elif isinstance(a, (list, tuple)):
            assert len(a) == len(b)
            for x, y in zip(a, b):
                same(x, y)
        else:
            assert a == b

    expected = batches(original, pipelines_then)
    same(expected, batches(migrated, pipelines_then))  # nvidia.dali Pipelines, adapted at run time
    same(expected, batches(migrated, pipelines_now))  # the caller's migrated pipelines (ReaderStreams)
    assert torch is not None


# -- 1. pipelines driven by hand in plain functions -------------------------------------------------------------------

def test_a_training_loop_of_plain_functions_migrates():
    result = migrate_source(_golden("unroll", "scheduled_loop_functions.py"), "train.py")
    assert "# dali-migrate:" not in result.migrated and not _left(result.migrated), _left(result.migrated)
    assert "outs = [next(p) for p in pipes]" in result.migrated
    assert "out.copy_(tensor.torch())" in result.migrated


def test_feed_ndarray_on_another_stream_stays_marked():
    """cuda_stream=torch.cuda.current_stream() is where copy_ copies anyway; any other stream is not written."""
    source = textwrap.dedent('''\
        import torch
        from nvidia.dali import fn, pipeline_def
        from nvidia.dali.plugin.pytorch import feed_ndarray


        @pipeline_def(batch_size=2, num_threads=1, device_id=None)
        def pipe(root):
            jpegs, labels = fn.readers.file(file_root=root)
            return labels


        def copy(root, out, stream):
            p = pipe(root)
            p.build()
            (labels,) = p.run()
            feed_ndarray(labels.as_tensor(), out, cuda_stream=stream)
    ''')
    result = migrate_source(source, "s.py")
    assert "# dali-migrate: DM" in result.migrated and "feed_ndarray(labels.as_tensor(), out, cuda_stream=stream)" \
        in result.migrated


def test_the_scheduled_loop_runs_as_before(tmp_path):
    """Real DALI: the golden program's functions, migrated, print what the original printed."""
    pytest.importorskip("torch")
    import contextlib
    import io

    from runtime import load, make_images, on_cpu

    root = str(make_images(tmp_path / "images"))
    source = _golden("runnable", "scheduled_training_loop", "main.py")
    migrated = migrate_source(source, "main.py").migrated
    assert "# dali-migrate:" not in migrated and not _left(migrated)
    printed = []
    for text, name in ((source, "loop_original"), (migrated, "loop_migrated")):
        module = load(on_cpu(text).split("if __name__")[0], name)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            module.train(root)
            print(module.evaluate(root))
        printed.append(out.getvalue())
    assert printed[0] == printed[1] and printed[0].count("train") == 6


# -- 2. legacy ops.Compose ----------------------------------------------------------------------------------------

COMPOSED = textwrap.dedent('''\
    import nvidia.dali.ops as ops
    import nvidia.dali.types as types
    from nvidia.dali.pipeline import Pipeline


    class Composed(Pipeline):
        def __init__(self, root, batch_size, crop):
            super().__init__(batch_size, 1, None, seed=3)
            self.input = ops.readers.File(file_root=root)
            self.decode = ops.decoders.Image(device="cpu")
            self.aug = ops.Compose([ops.Compose([ops.Resize(resize_x=crop + 4, resize_y=crop + 2),
                                                 ops.CropMirrorNormalize(crop=(crop, crop), dtype=types.FLOAT,
                                                                         mean=[10.0], std=[3.0])]),
                                    ops.Flip(horizontal=1)])
            self.one = ops.Compose([ops.Cast(dtype=types.INT32)])

        def define_graph(self):
            jpegs, labels = self.input(name="Reader")
            images = self.decode(jpegs)
            return self.aug(images), self.one(labels)
''')


def test_compose_becomes_one_chain_of_ndd_calls():
    """A Compose inside the list is flattened, as _CompoundOp flattens it."""
    result = migrate_source(COMPOSED, "composed.py")
    assert "# dali-migrate:" not in result.migrated and not _left(result.migrated), result.migrated
    assert ("self.aug = lambda *inputs, **kwargs: ndd.flip(ndd.crop_mirror_normalize(ndd.resize(*inputs, "
            "resize_x=crop + 4, resize_y=crop + 2, **kwargs), crop=(crop, crop), dtype=types.FLOAT, mean=[10.0], "
            "std=[3.0]), horizontal=1)") in result.migrated
    assert "self.one = lambda *inputs, **kwargs: ndd.cast(*inputs, dtype=types.INT32, **kwargs)" in result.migrated


def test_compose_chain_gives_the_pipeline_outputs_bit_for_bit(tmp_path):
    """Real DALI (CPU): the chain's steps equal pipeline mode's, each op on the output of the one before."""
    from runtime import load, make_images

    root = str(make_images(tmp_path / "images"))
    migrated = load(migrate_source(COMPOSED, "composed.py").migrated, "composed_migrated")
    original = load(COMPOSED, "composed_original")
    import nvidia.dali.experimental.dynamic as ndd

    pipe = original.Composed(root, 3, 8)
    pipe.build()
    stream = migrated.Composed(root, 3, 8)
    for _ in range(4):
        expected = [out.as_array() for out in pipe.run()]
        got = [np.asarray(ndd.as_tensor(batch)) for batch in next(stream)]
        for want, have in zip(expected, got):
            assert want.dtype == have.dtype and want.shape == have.shape and np.array_equal(want, have)
    assert expected[0].shape == (3, 3, 8, 8) and expected[1].dtype == np.int32
