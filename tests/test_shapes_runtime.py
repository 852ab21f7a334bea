"""fn.shapes / DataNode.shape() and DALI's test helper test_utils.to_array (transforms/tensorlist.py): what they
computed in DALI 2.4.0, and that the dynamic-mode expressions the migration writes compute the same values,
dtypes and layouts (real DALI, on samples of different shapes)."""

import numpy as np
import pytest

ndd = pytest.importorskip("nvidia.dali.experimental.dynamic")
from nvidia.dali import fn, pipeline_def, types  # noqa: E402
from nvidia.dali.backend import TensorListCPU  # noqa: E402

from dali_migrate import migrate_source  # noqa: E402

SHAPES = [(2, 3), (4, 1), (3, 5)]  # one sample each: ragged on purpose
SCALARS = [(), (), ()]


def _samples(shapes):
    return [np.arange(np.prod(s, dtype=int), dtype=np.float32).reshape(s) for s in shapes]


def _pipeline(build, shapes):
    @pipeline_def(batch_size=len(shapes), num_threads=1, device_id=None)
    def pipe():
        return build(fn.external_source(source=lambda: _samples(shapes), batch=True))

    p = pipe()
    p.build()
    return p.run()


CASES = {
    # name: (pipeline-mode expression over `x`, the ndd expression the migration writes)
    "fn.shapes": ("fn.shapes(x)", "ndd.as_batch(x.shape, dtype=ndd.int64, device=x.device)"),
    "fn.shapes dtype": ("fn.shapes(x, dtype=types.FLOAT)", "ndd.as_batch(x.shape, dtype=types.FLOAT, device=x.device)"),
    "fn.shapes cpu": ("fn.shapes(x, device='cpu')", "ndd.as_batch(x.shape, dtype=ndd.int64)"),
    "DataNode.shape": ("x.shape()", "ndd.as_batch(x.shape, dtype=ndd.int64)"),
    "DataNode.shape dtype": ("x.shape(dtype=types.INT32)", "ndd.as_batch(x.shape, dtype=types.INT32)"),
    "sliced": ("fn.slice(fn.shapes(x, dtype=types.INT32), 1, 1, axes=[0])",
               "ndd.slice(ndd.as_batch(x.shape, dtype=types.INT32, device=x.device), 1, 1, axes=[0])"),
}


@pytest.mark.parametrize("before, after, shapes", [
    pytest.param(before, after, shapes, id=f"{name}-{kind}") for name, (before, after) in CASES.items()
    for kind, shapes in (("ragged", SHAPES), ("scalars", SCALARS))
    if not (shapes is SCALARS and "slice" in before)])  # a scalar's shape is empty: nothing to slice
def test_the_ndd_expression_computes_what_the_shapes_did(before, after, shapes):
    (expected,) = _pipeline(lambda x: eval(before, {"fn": fn, "types": types, "x": x}), shapes)
    got = eval(after, {"ndd": ndd, "types": types, "x": ndd.as_batch(_samples(shapes))})
    assert str(got.dtype) == {types.INT64: "i64", types.INT32: "i32", types.FLOAT: "f32"}[expected.dtype], before
    assert (got.layout or "") == expected.layout() == ""
    assert str(got.device) == "cpu"
    assert [np.array(t).tolist() for t in got.tensors] == [np.array(expected[i]).tolist() for i in range(len(shapes))]


def test_shapes_of_gpu_data_is_gpu_data_in_pipeline_mode():
    """Why fn.shapes becomes as_batch(..., device=x.device): the operator's output is on its input's device
    (a graph built, not run: no GPU here); DataNode.shape() is on the CPU by default."""
    from nvidia.dali import Pipeline

    pipe = Pipeline(batch_size=1, num_threads=1, device_id=0)
    with pipe:
        on_gpu = fn.external_source(source=lambda: [np.zeros(2)], batch=True).gpu()
        assert fn.shapes(on_gpu).device == "gpu"
        assert fn.shapes(on_gpu, device="cpu").device == "cpu"
        assert on_gpu.shape().device == "cpu"


def _to_array(output):
    """DALI's test helper (dali/test/python/test_utils.py), as it reads for CPU outputs."""
    output = output.as_cpu()
    if isinstance(output, TensorListCPU):
        output = output.as_array()
    return np.array(output)


@pytest.mark.parametrize("dtype", [np.float32, np.uint8, np.bool_, np.int64])
def test_to_array_and_its_rewrite_give_the_same_copy(dtype):
    (tl,) = _pipeline(lambda x: fn.cast(x, dtype=types.to_dali_type(np.dtype(dtype).name)), [(2, 3)] * 3)
    expected_whole, expected_sample = _to_array(tl), _to_array(tl[1])
    batch = ndd.as_batch([np.array(tl[i]) for i in range(3)])  # the same values, as a Batch
    whole, sample = np.array(ndd.as_tensor(batch.cpu())), np.array(batch.select(1).cpu())
    for got, expected in ((whole, expected_whole), (sample, expected_sample)):
        assert got.dtype == expected.dtype and got.shape == expected.shape
        np.testing.assert_array_equal(got, expected)
    sample[...] = 0  # a copy, as to_array's np.array was
    assert np.array(batch.select(1)).any()


def test_to_array_of_a_ragged_batch_raises_in_both_modes():
    (tl,) = _pipeline(lambda x: x, SHAPES)
    with pytest.raises(RuntimeError, match="IsDenseTensor"):
        _to_array(tl)
    with pytest.raises(ValueError, match="non-uniform shape"):
        np.array(ndd.as_tensor(ndd.as_batch(_samples(SHAPES)).cpu()))


def test_the_migration_writes_those_expressions():
    source = ("import nvidia.dali.types as types\nfrom nvidia.dali import fn, pipeline_def\n"
              "from test_utils import to_array\n\n@pipeline_def(batch_size=2)\ndef pipe(root):\n"
              "    data = fn.readers.numpy(file_root=root)\n"
              "    return fn.shapes(data, dtype=types.FLOAT), data.shape()\n\n"
              "p = pipe('x')\np.build()\nsizes, more = p.run()\nprint(to_array(sizes), to_array(more[0]))\n")
    migrated = migrate_source(source, "t.py").migrated
    assert "ndd.as_batch(data.shape, dtype=types.FLOAT, device=data.device), " \
           "ndd.as_batch(data.shape, dtype=ndd.int64)" in migrated
    assert "print(np.array(ndd.as_tensor(sizes.cpu())), np.array(more.select(0).cpu()))" in migrated
    assert "dali-migrate:" not in migrated


EXPRESSION_SOURCE = '''import numpy as np
from nvidia.dali import fn, pipeline_def, types

BATCHES = [[np.arange(40 + 8 * i + 4 * k, dtype=np.float32) for i in range(3)] for k in range(2)]


@pipeline_def(batch_size=3, num_threads=1, device_id=None)
def lengths(dtype=types.INT64):
    audio = fn.external_source(source=BATCHES)
    audio_len = fn.shapes(fn.reshape(audio, shape=[-1]), dtype=dtype)
    spec = fn.spectrogram(audio, nfft=16, window_length=16, window_step=8)
    spec_len = fn.slice(fn.shapes(spec), 1, 1, axes=(0,))
    return audio_len, spec_len, fn.shapes(fn.reshape(audio, shape=[-1, 4]))
'''


@pytest.mark.parametrize("dtype", ["INT64", "INT32", "FLOAT"])
def test_an_expression_input_is_bound_to_a_name_first(tmp_path, dtype):
    """fn.shapes(<expression>) reads its input twice once migrated (shape and device), so the expression is bound to
    a fresh name in a statement before; the outputs equal the pipeline's bitwise, dtype included, and the
    migrated file has no marker."""
    import importlib.util

    from runtime import assert_bitwise_equal, output, steps_as_arrays

    result = migrate_source(EXPRESSION_SOURCE, "lengths.py")
    migrated = result.migrated
    assert "dali-migrate:" not in migrated
    assert "shapes_input = ndd.reshape(audio, shape=[-1])\n" in migrated
    assert "ndd.as_batch(shapes_input.shape, dtype=dtype, device=shapes_input.device)" in migrated
    modules = []
    for name, text in (("original", EXPRESSION_SOURCE), ("migrated", migrated)):
        (tmp_path / f"{name}_lengths.py").write_text(text)
        spec = importlib.util.spec_from_file_location(f"{name}_lengths_{dtype}", tmp_path / f"{name}_lengths.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        modules.append(module)
    original, new = modules
    pipe = original.lengths(dtype=getattr(types, dtype))
    pipe.build()
    want = steps_as_arrays([pipe.run() for _ in range(2)])
    steps = new.lengths(dtype=getattr(types, dtype))
    got = steps_as_arrays([next(steps) for _ in range(2)])
    for k in range(3):
        assert_bitwise_equal(output(want, k), output(got, k), f"output {k}")
    assert got[0][0][0].dtype == {"INT64": np.int64, "INT32": np.int32, "FLOAT": np.float32}[dtype]
    assert [a.tolist() for a in got[1][1]] == [[6], [7], [8]] and got[1][1][0].dtype == np.int64
