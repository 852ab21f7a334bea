"""The rewrites compute what the original computed: run both on real DALI 2.4.0 (CPU).

The pipeline-mode side runs the original code. The dynamic-mode side runs the migrated code with
``pipe.run()`` replaced by a tuple of ``ndd.as_batch(...)`` (a zero-copy view of the same outputs),
which is what the unrolled ``next(pipe)`` yields.
"""

import numpy as np
import pytest

from dali_migrate import migrate_source
from dali_migrate.transforms.imports import ImportsPass
from dali_migrate.transforms.rename import RenamePass
from dali_migrate.transforms.arguments import ArgumentsPass
from dali_migrate.transforms.tensorlist import TensorListPass

ndd = pytest.importorskip("nvidia.dali.experimental.dynamic")

PROGRAM = '''
import numpy as np
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def


@pipeline_def(batch_size=3, num_threads=1, device_id=None)
def pipe_def():
    grid = fn.constant(idata=list(range(6)), shape=[2, 3], dtype=types.INT32)
    grid = fn.reshape(grid + fn.random.uniform(range=(0, 1)) * 0, layout="HW")
    flat = fn.constant(fdata=[1.5, 2.5], shape=[2], dtype=types.FLOAT)
    return grid, flat


pipe = pipe_def()
pipe.build()
grid, flat = pipe.run()
result = {expr}
'''

EXPRESSIONS = [
    "grid.at(1)", "np.asarray(grid.at(2))", "np.array(flat.at(0))", "grid.as_cpu().at(0)",
    "len(grid)", "grid.shape()", "grid.layout()", "flat.layout()", "grid.ndim()",
    "grid.as_array()", "np.asarray(flat)", "np.array(grid)", "grid.as_tensor().shape()",
    "grid[1].shape()", "grid[0].layout()", "flat[1].layout()", "np.array(grid[2])",
    "[t.at(0) for t in pipe.run()]", "grid.layout() == 'HW'",
]


def _run(source, to_batches):
    if to_batches:
        source = source.replace("pipe.run()", "tuple(ndd.as_batch(t) for t in pipe.run())")
    namespace = {"ndd": ndd}
    exec(compile(source, "<program>", "exec"), namespace)
    return namespace["result"]


def _same(a, b):
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a), np.asarray(b)
        return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b)
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


@pytest.mark.parametrize("expr", EXPRESSIONS)
def test_tensorlist_rewrite_computes_the_same(expr):
    original = PROGRAM.format(expr=expr)
    migrated = migrate_source(original, passes=[TensorListPass(), ImportsPass()]).migrated
    assert migrated != original, "the expression was not rewritten"
    before, after = _run(original, False), _run(migrated, True)
    assert _same(before, after), (expr, before, after, migrated.splitlines()[-1])
    if isinstance(before, np.ndarray):  # at()/as_array() gave a fresh, writable copy; so must the rewrite
        assert after.flags.owndata and after.flags.writeable


@pytest.mark.parametrize("index", ["[0]", "[1, 1:]", "[:, 2]", "[-1]", "[1][::-1]"])
def test_datanode_subscript_is_per_sample_slice(index):
    source = (
        "import nvidia.dali.fn as fn\nimport nvidia.dali.types as types\nfrom nvidia.dali import pipeline_def\n\n"
        "@pipeline_def(batch_size=2, num_threads=1, device_id=None)\n"
        "def pipe_def():\n"
        "    grid = fn.constant(idata=list(range(6)), shape=[2, 3], dtype=types.INT32)\n"
        f"    return grid, grid{index}\n"
    )
    migrated = migrate_source(source, passes=[TensorListPass()]).migrated
    rewritten = migrated.splitlines()[-1].split("return grid, ")[1]
    assert ".slice[" in rewritten
    namespace = {}
    exec(source, namespace)
    pipe = namespace["pipe_def"]()
    pipe.build()
    grid, expected = pipe.run()
    got = eval(rewritten, {"grid": ndd.as_batch(grid)})
    for i in range(2):
        assert np.array_equal(np.asarray(got.select(i)), expected.at(i))


def test_argument_fixes_make_ndd_accept_the_call():
    source = (
        "import numpy as np\nimport nvidia.dali.fn as fn\n\n"
        "def graph(x):\n"
        "    y = fn.flip(x, horizontal=1, name='flip', preserve=True, bytes_per_sample_hint=64)\n"
        "    return fn.cast(y, dtype=np.float32)\n"
    )
    migrated = migrate_source(source, passes=[RenamePass(), ArgumentsPass(), ImportsPass()]).migrated
    assert "types.FLOAT" in migrated and "name=" not in migrated
    namespace = {}
    exec(migrated, namespace)
    batch = ndd.as_batch([np.arange(6, dtype=np.uint8).reshape(1, 2, 3)] * 2, layout="HWC")
    out = namespace["graph"](batch)
    assert out.dtype == ndd.float32
    assert np.array_equal(np.asarray(out.select(0)), np.arange(6).reshape(1, 2, 3)[:, ::-1].astype(np.float32))
    # and the original really fails in ndd, which is why the fixes exist
    with pytest.raises(TypeError):
        ndd.flip(batch, horizontal=1, name="flip")
    with pytest.raises(TypeError):
        ndd.cast(batch, dtype=np.float32)
    with pytest.raises(ValueError, match="mixed"):
        ndd.flip(batch, horizontal=1, device="mixed")
    with pytest.raises(TypeError):
        ndd.random.uniform(batch_size=2, seed=3)
