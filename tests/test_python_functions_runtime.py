"""Python operators (unroll/python_functions.py): the expression the migration writes for each call computes,
on real DALI 2.4.0, bit for bit what pipeline mode's operator gave: values, dtypes, layouts, how many times
and with what the function is called (per sample or per batch), and where its in-place writes go."""

import libcst as cst
import numpy as np
import pytest

ndd = pytest.importorskip("nvidia.dali.experimental.dynamic")
torch = pytest.importorskip("torch")
import torch.utils.dlpack as torch_dlpack  # noqa: E402
from nvidia.dali import fn, pipeline_def  # noqa: E402

from dali_migrate.names import ImportTable  # noqa: E402
from dali_migrate.transforms.unroll import python_functions  # noqa: E402

IMPORTS = ("import numpy as np\nimport torch\nimport nvidia.dali.fn as fn\n"
           "import nvidia.dali.plugin.pytorch as dalitorch\n")


def _samples():
    return [np.arange(12, dtype=np.int16).reshape(3, 4) * (i + 1) for i in range(3)]


def two_halves(a, b):
    return a[:, :2] + b[:, 2:], (a.astype(np.float64) * 0.5)[::-1]  # one strided result


def per_batch(images):
    assert isinstance(images, list)
    return [image.sum(axis=0) for image in reversed(images)]


def add_in_place(a):
    a += 100
    return a


def capsules_doubled(capsules):
    assert isinstance(capsules, list)
    return [torch_dlpack.to_dlpack(torch_dlpack.from_dlpack(c).to(torch.float32) * 2) for c in capsules]


def torch_per_sample(t):
    assert isinstance(t, torch.Tensor) and t.dim() == 2
    return t.flip(0) * 3


# the argument text of the call, as the user wrote it over the input `x` (and `y`)
CALLS = {
    "per_sample_two_outputs": ("fn.python_function(x, y, function=two_halves, num_outputs=2)", 2),
    "per_batch_layout": ('fn.python_function(x, function=per_batch, batch_processing=True, output_layouts="W")', 1),
    "in_place_then_read": ("fn.python_function(x, function=add_in_place)", 1),
    "dlpack_per_batch": ("fn.dl_tensor_python_function(x, function=capsules_doubled)", 1),
    "layouts_per_output": ('fn.python_function(x, y, function=two_halves, num_outputs=2, output_layouts=["AB", "CD"])', 2),
}


def _pipeline(call: str, count: int, read_after=False):
    @pipeline_def(batch_size=3, num_threads=1, device_id=None, exec_async=False, exec_pipelined=False)
    def pipe():
        x = fn.external_source(source=lambda: _samples(), layout="HW")
        x = x * 1  # an operator's output buffer, as the functions of real pipelines get
        y = x * 2
        out = eval(call)
        outs = list(out) if count > 1 else [out]
        return (*outs, x * 1) if read_after else tuple(outs)

    p = pipe()
    p.build()
    return p.run()


def _migrated(call: str, count: int, read_after=False):
    module = cst.parse_module(IMPORTS)
    imports = ImportTable.from_module(module)
    found = python_functions.rewrite(imports, cst.parse_expression(call), "np")
    assert found is not None, python_functions.unsupported_reason(imports, cst.parse_expression(call))
    code = module.code_for_node(found)
    x = ndd.as_batch(_samples(), layout="HW") * 1
    y = x * 2
    out = eval(code, {**globals(), "ndd": ndd, "np": np, "torch": torch, "x": x, "y": y})
    outs = list(out) if count > 1 else [out]
    return (*outs, x * 1) if read_after else tuple(outs), code


@pytest.mark.parametrize("name", sorted(CALLS))
def test_the_migrated_call_computes_what_the_operator_did(name):
    call, count = CALLS[name]
    read_after = name == "in_place_then_read"
    before = _pipeline(call, count, read_after)
    after, code = _migrated(call, count, read_after)
    assert len(before) == len(after)
    for tl, batch in zip(before, after):
        assert tl.layout() == (batch.layout or ""), code
        assert len(tl) == batch.batch_size
        for i in range(len(tl)):
            expected, got = np.array(tl[i]), np.array(batch.tensors[i])
            assert expected.dtype == got.dtype and expected.shape == got.shape, code
            assert expected.tobytes() == got.tobytes(), code


def test_an_in_place_write_reaches_the_operators_after_it_in_both_modes():
    """Pipeline mode hands the function the input operator's buffer: `a += 100` shows in what reads it later."""
    call, count = CALLS["in_place_then_read"]
    for outputs in (_pipeline(call, count, True), _migrated(call, count, True)[0]):
        later = outputs[-1]
        first = np.array(later[0] if hasattr(later, "layout") and callable(later.layout) else later.tensors[0])
        assert first.tolist() == (_samples()[0] + 100).tolist()


@pytest.mark.parametrize("call, reason", [
    ('fn.python_function(x, function=f, device="gpu")', "runs on the GPU"),
    ("fn.python_function(x, function=make(3))", "not a name or a lambda"),
    ("fn.python_function(x, function=f, num_outputs=n)", "num_outputs"),
    ('fn.python_function(x, y, function=f, num_outputs=2, output_layouts=["A"])', "one per output"),
    ("fn.python_function(*xs, function=f)", "through * or **"),
    ("fn.python_function(function=f)", "no inputs"),
])
def test_what_stays_marked_says_why(call, reason):
    imports = ImportTable.from_module(cst.parse_module(IMPORTS))
    node = cst.parse_expression(call)
    assert python_functions.rewrite(imports, node, "np") is None
    assert reason in python_functions.unsupported_reason(imports, node)


def test_dlpack_needs_torch_in_the_module():
    imports = ImportTable.from_module(cst.parse_module("import nvidia.dali.fn as fn\n"))
    node = cst.parse_expression("fn.dl_tensor_python_function(x, function=f)")
    assert "does not import torch" in python_functions.unsupported_reason(imports, node)
    imports = ImportTable.from_module(cst.parse_module("import nvidia.dali.fn as fn\nimport torch.utils.dlpack as tdl\n"))
    code = cst.Module([]).code_for_node(python_functions.rewrite(imports, node, "np"))
    assert "tdl.to_dlpack(sample.torch())" in code and "tdl.from_dlpack(output)" in code


def test_torch_python_function_is_called_per_sample_on_torch_tensors():
    """Text only: torch_python_function creates a torch.cuda.Stream when it is called, so pipeline mode needs
    CUDA even for device="cpu" (RuntimeError here). Its class default is batch_processing=False (the fn
    wrapper's signature says True; docs/dali-facts.md), so the migration calls the function per sample."""
    imports = ImportTable.from_module(cst.parse_module(IMPORTS))
    node = cst.parse_expression("dalitorch.fn.torch_python_function(x, function=torch_per_sample)")
    code = cst.Module([]).code_for_node(python_functions.rewrite(imports, node, "np"))
    assert code == "ndd.as_batch([torch_per_sample(sample.torch()).contiguous() for sample in x.tensors])"
    x = ndd.as_batch(_samples(), layout="HW")
    got = eval(code, {**globals(), "ndd": ndd, "x": x})
    assert [np.array(t).tolist() for t in got.tensors] == [(s[::-1] * 3).tolist() for s in _samples()]


def test_numpy_is_imported_under_a_free_name_when_the_module_binds_np_to_something_else():
    """The function call's numpy is the module's numpy, never its own ``np`` (here a string): pipeline and
    migrated generator give the same batch."""
    from dali_migrate import migrate_source

    source = (
        "import nvidia.dali.fn as fn\nfrom nvidia.dali import pipeline_def\nfrom numpy import arange, int32\n\n"
        "np = 'not numpy'\n\n\ndef double(a):\n    return a * 2\n\n\n"
        "@pipeline_def(batch_size=2, num_threads=1, device_id=None, exec_async=False, exec_pipelined=False)\n"
        "def pipe():\n    x = fn.external_source(source=lambda: [arange(3, dtype=int32), arange(3, dtype=int32) + 1])\n"
        "    return fn.python_function(x * 1, function=double)\n\n\n"
        "p = pipe()\np.build()\nout = p.run()[0]\nshapes = out.shape()\n")
    result = migrate_source(source, "np_taken.py")
    assert "numpy.require(" in result.migrated and "\nimport numpy\n" in result.migrated, result.migrated
    original, migrated = {}, {}
    exec(compile(source, "np_taken.py", "exec"), original)
    exec(compile(result.migrated, "np_taken.py", "exec"), migrated)
    assert migrated["np"] == "not numpy"
    assert [np.asarray(t).tolist() for t in migrated["out"].tensors] == \
        [original["out"].at(i).tolist() for i in range(2)] == [[0, 2, 4], [2, 4, 6]]


def test_dlpack_through_an_import_of_a_torch_package_above_it():
    """``from torch import utils``: the capsules are made with ``utils.dlpack``, and the batch is the operator's."""
    header = "import nvidia.dali.fn as fn\nfrom torch import utils\n"
    call, count = CALLS["dlpack_per_batch"]
    node = cst.parse_expression(call)
    code = cst.Module([]).code_for_node(python_functions.rewrite(ImportTable.from_module(cst.parse_module(header)),
                                                                 node, "np"))
    assert "utils.dlpack.to_dlpack(sample.torch())" in code, code
    namespace = {**globals(), "ndd": ndd, "x": ndd.as_batch(_samples(), layout="HW") * 1}
    exec(header, namespace)
    got = eval(code, namespace)
    (expected,) = _pipeline(call, count)
    assert [np.array(t).tobytes() for t in got.tensors] == [np.array(expected[i]).tobytes() for i in range(3)]
