"""Constants (unroll/constants.py): what types.Constant and fn.constant computed in DALI 2.4.0, and that
the ndd expressions the migration writes compute the same values with the same types (real DALI)."""

import numpy as np
import pytest

ndd = pytest.importorskip("nvidia.dali.experimental.dynamic")
from nvidia.dali import fn, pipeline_def, types  # noqa: E402

from dali_migrate import migrate_source  # noqa: E402

BATCH = 2


def _pipeline_outputs(build):
    @pipeline_def(batch_size=BATCH, num_threads=1, device_id=None)
    def pipe():
        return build()

    p = pipe()
    p.build()
    return [o.as_array() for o in p.run()]


def _data():
    return np.arange(BATCH * 5, dtype=np.uint8).reshape(BATCH, 1, 5)


CASES = {
    # name: (pipeline-mode expression over `u8` (a uint8 batch), the ndd expression the migration writes)
    "int scalar operand": ("u8 * types.Constant(3)", "u8 * 3"),
    "float scalar operand": ("u8 * types.Constant(2.5)", "u8 * 2.5"),
    "cast scalar": ("u8 * types.Constant(255).uint8()", "u8 * ndd.tensor(255, dtype=ndd.uint8)"),
    "scalar with dtype": ("u8 + types.Constant(1, dtype=types.INT16)", "u8 + ndd.tensor(1, dtype=types.INT16)"),
    "int list node": ("u8 + types.Constant([1, 2, 3, 4, 5])",
                      "u8 + ndd.Batch.broadcast(ndd.tensor([1, 2, 3, 4, 5], dtype=ndd.int32), 2)"),
    "float list node": ("u8 * types.Constant([0.5, 1.0, 1.5, 2.0, 2.5])",
                        "u8 * ndd.Batch.broadcast(ndd.tensor([0.5, 1.0, 1.5, 2.0, 2.5], dtype=ndd.float32), 2)"),
    "fn.constant fill": ("fn.cat(fn.constant(idata=7, shape=[1, 5], dtype=types.UINT8), u8, axis=0)",
                         "ndd.cat(ndd.Batch.broadcast(ndd.tensor([[7, 7, 7, 7, 7]], dtype=types.UINT8), 2), u8, axis=0)"),
    "fn.constant fdata": ("u8 + fn.constant(fdata=[0.5] * 5)",
                          "u8 + ndd.Batch.broadcast(ndd.tensor([0.5, 0.5, 0.5, 0.5, 0.5], dtype=ndd.float32), 2)"),
}


@pytest.mark.parametrize("before, after", CASES.values(), ids=CASES.keys())
def test_the_ndd_expression_computes_what_the_constant_did(before, after):
    expected = _pipeline_outputs(lambda: eval(before, {"types": types, "fn": fn, "np": np,
                                                       "u8": fn.external_source(source=lambda: _data(), batch=True)}))
    u8 = ndd.as_batch(list(_data()))
    got = eval(after, {"ndd": ndd, "types": types, "np": np, "u8": u8})
    got = np.array(ndd.as_tensor(got))
    assert got.dtype == expected[0].dtype, before
    np.testing.assert_array_equal(got, expected[0])


@pytest.mark.parametrize("before, after", CASES.values(), ids=CASES.keys())
def test_the_migration_writes_that_expression(before, after):
    source = ("from nvidia.dali import fn, pipeline_def, types\n\n@pipeline_def(batch_size=2)\ndef pipe(root):\n"
              "    u8, labels = fn.readers.file(file_root=root)\n"
              f"    return {before}\n")
    result = migrate_source(source, "pipe.py")
    assert "dali-migrate:" not in result.migrated, result.migrated
    assert after.replace(", 2)", ", batch_size)") in result.migrated, result.migrated


RUN_TIME_VALUES = {  # values whose kind the code does not show (held in a variable): pipeline mode typed each
    "float64 array": np.linspace(0.5, 2.5, 5), "float32 array": np.linspace(0.5, 2.5, 5, dtype=np.float32),
    "int64 array": np.arange(5), "int32 array": np.arange(5, dtype=np.int32), "uint64 array": np.arange(5, dtype=np.uint64),
    "uint8 array": np.arange(5, dtype=np.uint8),
    "bool array": np.array([True, False, True, False, True]), "0-d float64": np.array(1.5),
    "int list": [1, 2, 3, 4, 5], "float list": [1, 2.5, 3, 4, 5], "bool list": [True, False, True, False, True],
    "int tuple": (1, 2, 3, 4, 5), "Python int": 3, "Python float": 1.5, "Python bool": True,
    "numpy float64": np.float64(1.5), "numpy int64": np.int64(3), "numpy float32": np.float32(1.5),
    "numpy uint8": np.uint8(3),
}


@pytest.mark.parametrize("value", RUN_TIME_VALUES.values(), ids=RUN_TIME_VALUES.keys())
def test_a_constant_typed_at_run_time_computes_what_the_constant_did(value):
    """types.Constant(value) of a value in a variable: the expression the migration writes decides its type at run
    time as pipeline mode did (arrays, lists and Python numbers narrowed to 32 bits, numpy scalars kept), alone and
    in arithmetic with a uint8 batch (which shows the type promotion)."""
    import libcst as cst

    from dali_migrate.transforms.unroll import constants

    text = constants.run_time_typed(cst.Name("value"))
    expected = _pipeline_outputs(lambda: (
        fn.external_source(source=lambda: _data(), batch=True) + types.Constant(value),
        types.Constant(value) if isinstance(value, (list, tuple)) or np.ndim(value) else
        fn.external_source(source=lambda: _data(), batch=True) * 0 + types.Constant(value)))
    tensor = eval(text, {"ndd": ndd, "np": np, "value": value})
    u8 = ndd.as_batch(list(_data()))
    got_sum = np.array(ndd.as_tensor(u8 + tensor))
    assert got_sum.dtype == expected[0].dtype
    np.testing.assert_array_equal(got_sum, expected[0])
    if isinstance(value, (list, tuple)) or np.ndim(value):  # a constant node: each sample is the value
        assert np.asarray(tensor).dtype == expected[1].dtype
        np.testing.assert_array_equal(np.asarray(tensor), expected[1][0])


def test_what_stays_marked():
    source = ("import numpy as np\nfrom nvidia.dali import fn, pipeline_def, types\n\n"
              "@pipeline_def(batch_size=2)\ndef pipe(root):\n    u8, labels = fn.readers.file(file_root=root)\n"
              "    return u8 + types.Constant(np.sum(labels)), labels + types.Constant(3, shape=[2])\n")
    result = migrate_source(source, "pipe.py")
    # a call of the step's data (not a value of the graph's definition), and shape=
    assert "DM103 types.Constant" in result.migrated and "types.Constant(np.sum(labels))" in result.migrated
    assert "types.Constant(3, shape=[2])" in result.migrated


CALLED_ONCE = """
import numpy as np
from nvidia.dali import fn, pipeline_def, types

CALLS = []


def made(kind):
    CALLS.append(kind)
    return {"ints": np.arange(5), "floats": np.linspace(0.5, 2.5, 5), "list": [1.5, 2, 3, 4, 5]}[kind]


def data():
    return np.arange(10, dtype=np.uint8).reshape(2, 1, 5)


@pipeline_def(batch_size=2, num_threads=1, device_id=None, prefetch_queue_depth=1)
def pipe():
    u8 = fn.external_source(source=data, batch=True)
    ints = types.Constant(made("ints"))
    return u8 + ints, u8 * types.Constant(made("floats")), types.Constant(made("list"), dtype=types.FLOAT) - u8
"""


def _run_module(text, steps):
    namespace = {"__name__": "called_once"}
    exec(compile(text, "called_once.py", "exec"), namespace)
    p = namespace["pipe"]()
    if hasattr(p, "build"):
        p.build()
    outs = []
    for _ in range(steps):
        step = p.run() if hasattr(p, "run") else next(p)
        outs.append([o.as_array() if hasattr(o, "as_array") else np.array(ndd.as_tensor(o)) for o in step])
    return outs, namespace["CALLS"]


def test_a_calls_value_is_made_once_and_typed_as_pipeline_mode_typed_it():
    """types.Constant(f(x)): pipeline mode called f once, when the graph was defined, and typed its value (int64 to
    int32, float64 to float32, dtype= as given); the migration calls it once, before the steps, and each step
    computes the same values with the same types (real DALI, both modes)."""
    result = migrate_source(CALLED_ONCE, "called_once.py")
    assert "dali-migrate:" not in result.migrated, result.migrated
    assert 'ints_value = made("ints")' in result.migrated
    expected, expected_calls = _run_module(CALLED_ONCE, 3)
    got, calls = _run_module(result.migrated, 3)
    assert calls == expected_calls == ["ints", "floats", "list"]
    for want_step, got_step in zip(expected, got):
        for want, have in zip(want_step, got_step):
            assert have.dtype == want.dtype
            np.testing.assert_array_equal(have, want)


def test_an_array_in_a_variable_is_typed_at_run_time():
    source = ("import numpy as np\nfrom nvidia.dali import fn, pipeline_def, types\n\nARRAY = np.arange(5)\n\n"
              "@pipeline_def(batch_size=2)\ndef pipe(root):\n    u8, labels = fn.readers.file(file_root=root)\n"
              "    return u8 + types.Constant(ARRAY)\n")
    result = migrate_source(source, "pipe.py")
    assert "dali-migrate:" not in result.migrated, result.migrated
    assert "ndd.tensor(np.asarray(ARRAY, dtype=None if isinstance(ARRAY, np.generic)" in result.migrated


def test_a_typed_constant_outside_every_step_says_so():
    """The type is shown (dtype=), but the constant is built where no migrated step is (a subclass of a pipeline
    class from elsewhere): the marker says where it is and what it becomes, not that its type is unknown."""
    source = ("import numpy as np\nimport nvidia.dali.fn as fn\nimport nvidia.dali.types as types\n"
              "from base import BasePipeline\n\n\n"
              "class Train(BasePipeline):\n    def __init__(self, size):\n        super().__init__()\n"
              "        self.crop = types.Constant(np.array(size), dtype=types.INT64)\n")
    (finding,) = [f for f in migrate_source(source, "t.py").findings if not f.fixed]
    assert finding.rule == "DM103" and "outside any pipeline step" in finding.message
    assert "ndd.tensor(np.array(size), dtype=types.INT64)" in finding.message
