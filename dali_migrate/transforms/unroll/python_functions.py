"""Python operators inside a pipeline step: ``fn.python_function``, ``fn.dl_tensor_python_function`` and
``plugin.pytorch.fn.torch_python_function`` (issue 15).

Dynamic mode has none of them (ndd-facts §6.2): the function is called on the data, as pipeline mode
called it (verified on DALI 2.4.0, docs/dali-facts.md). What the operator class does, not what the ``fn``
wrapper's signature shows, decides how: ``python_function`` and ``torch_python_function`` call the function
once per sample, ``dl_tensor_python_function`` once per batch (``batch_processing=`` overrides both)::

    out = fn.python_function(x, function=f)
        ->  out = ndd.as_batch([np.require(f(np.asarray(sample)), requirements="C") for sample in x.tensors])
    a, b = fn.python_function(x, y, function=g, num_outputs=2, output_layouts="HWC")
        ->  a, b = tuple(ndd.as_batch([np.require(output, requirements="C") for output in outputs], layout="HWC")
                         for outputs in zip(*[g(np.asarray(sample_1), np.asarray(sample_2)) for sample_1, sample_2 in zip(x.tensors, y.tensors)]))
    t = dalitorch.fn.torch_python_function(x, function=h)
        ->  t = ndd.as_batch([h(sample.torch()).contiguous() for sample in x.tensors])
    d = fn.dl_tensor_python_function(x, function=k)
        ->  d = ndd.as_batch([torch_dlpack.from_dlpack(output).contiguous()
                              for output in k([torch_dlpack.to_dlpack(sample.torch()) for sample in x.tensors])])

(``torch_dlpack`` as the module imports torch.utils.dlpack; without torch it stays marked).

The function gets a writable view of each sample, as pipeline mode gave it the operator's input buffer: what
it writes there the operators after it and the pipeline's outputs see (verified: ``image += 7`` in a function
changed the resize output it read, in the output and in the Python operators declared after it), and
``np.asarray``/``.torch()`` of an ndd tensor are views of its batch, read in statement order. What it
returns keeps its dtype, is made contiguous (pipeline mode copied strided arrays) and has no layout unless
``output_layouts=`` gives one. What the code does not show, or what runs on the GPU (cupy arrays, CUDA
streams), stays marked (DM103/DM105) with the reason ``unsupported_reason`` gives.
"""

from __future__ import annotations

import libcst as cst

from ...names import free_name
from ...walk import walk
from .model import AssignedNames, NameReads, code_of, expr, kwarg, literal_value

PYTHON_FUNCTIONS = {  # qualified name -> (kind, calls once per batch by default)
    "nvidia.dali.fn.python_function": ("numpy", False),
    "nvidia.dali.fn.dl_tensor_python_function": ("dlpack", True),
    "nvidia.dali.plugin.pytorch.fn.torch_python_function": ("torch", False),
}
_DROPPED = {"name", "preserve", "bytes_per_sample_hint", "synchronize_stream", "device"}
_KNOWN = _DROPPED | {"function", "num_outputs", "batch_processing", "output_layouts"}


def kind_of(imports, call: cst.Call) -> tuple[str, bool] | None:
    return PYTHON_FUNCTIONS.get(imports.qualname(call.func) or "")


DLPACK = "torch.utils.dlpack"


def _dlpack_module(imports) -> str | None:
    """How this module names torch.utils.dlpack, through the import of it or of the package nearest to it
    (``tdl`` for ``import torch.utils.dlpack as tdl``, ``utils.dlpack`` for ``from torch import utils``,
    ``torch.utils.dlpack``); None where no import of torch binds a name."""
    nearest = None
    for local in imports.local_names_for("torch"):
        qualified = imports.aliases[local]
        if (DLPACK == qualified or DLPACK.startswith(qualified + ".")) and \
                (nearest is None or len(qualified) > len(imports.aliases[nearest])):
            nearest = local
    return None if nearest is None else nearest + DLPACK[len(imports.aliases[nearest]):]


def unsupported_reason(imports, call: cst.Call) -> str | None:
    """Why this Python-operator call cannot become a plain call on the data (None: it can)."""
    found = kind_of(imports, call)
    if found is None:
        return "it is not a Python operator"
    kind, _ = found
    if any(a.star for a in call.args):
        return "its inputs or arguments come through * or **, so the tool cannot see them"
    unknown = [a.keyword.value for a in call.args if a.keyword is not None and a.keyword.value not in _KNOWN]
    if unknown:
        return f"it has arguments the migration does not know ({', '.join(unknown)})"
    inputs = [a.value for a in call.args if a.keyword is None]
    if not inputs:
        return "it has no inputs (a source of data, not a function of it: loop over the data in Python instead)"
    constant = next((i for i in inputs if _constant_input(imports, i)), None)
    if constant is not None:
        return (f"its input {code_of(constant)} is a constant, which pipeline mode gave the function as a batch of "
                f"copies (one per sample); the migrated call would hand it the array itself")
    device = kwarg(call, "device")
    if device is not None and literal_value(device) != "cpu":
        return ("it runs on the GPU (device=" + code_of(device) + "): the function gets cupy arrays or CUDA "
                "tensors on DALI's stream; call it on batch.torch() of GPU batches by hand")
    function = kwarg(call, "function")
    if not isinstance(function, (cst.Name, cst.Attribute, cst.Lambda)):
        return ("its function= is not a name or a lambda: pipeline mode evaluated it once, a step would evaluate it "
                "each time; bind it to a name first")
    outputs = literal_value(kwarg(call, "num_outputs")) if kwarg(call, "num_outputs") is not None else 1
    if not isinstance(outputs, int) or isinstance(outputs, bool) or outputs < 1:
        return "its num_outputs= is not a literal number of at least 1"
    batch = kwarg(call, "batch_processing")
    if batch is not None and not (isinstance(batch, cst.Name) and batch.value in ("True", "False")):
        return "its batch_processing= is not True or False"
    if _layouts(call) is None:
        return "its output_layouts= is not a string or a list of strings, one per output"
    if kind == "dlpack" and _dlpack_module(imports) is None:
        return ("the DLPack capsules it takes and returns are made and read with torch.utils.dlpack (ndd.as_batch "
                "does not read capsules), and this module does not import torch")
    return None


def _constant_input(imports, value) -> bool:
    """A literal or a numpy array made in place (``np.array([[1, 2]])``): no graph value, a constant node in pipeline
    mode."""
    if isinstance(value, (cst.Integer, cst.Float, cst.List, cst.Tuple)):
        return True
    return isinstance(value, cst.Call) and (imports.qualname(value.func) or "").startswith("numpy.")


def _layouts(call: cst.Call) -> list[str | None] | None:
    """The layout of each output (None where none is given), or None when the code does not show them."""
    outputs = literal_value(kwarg(call, "num_outputs")) if kwarg(call, "num_outputs") is not None else 1
    given = kwarg(call, "output_layouts")
    if given is None:
        return [None] * outputs if isinstance(outputs, int) else []
    if isinstance(given, cst.SimpleString):
        return [given.evaluated_value] * outputs
    if isinstance(given, (cst.List, cst.Tuple)) and all(isinstance(e.value, cst.SimpleString) for e in given.elements) \
            and len(given.elements) == outputs:
        return [e.value.evaluated_value for e in given.elements]
    return None


def _samples_of(batch: cst.BaseExpression) -> str:
    """``batch.tensors``: the samples of a batch, one ndd.Tensor each."""
    code = code_of(batch)
    plain = isinstance(batch, (cst.Name, cst.Attribute, cst.Call, cst.Subscript))
    return f"{code}.tensors" if plain else f"({code}).tensors"


def rewrite(imports, call: cst.Call, numpy: str) -> cst.BaseExpression | None:
    """The plain call on the data, or None (``unsupported_reason`` says why)."""
    if unsupported_reason(imports, call) is not None:
        return None
    kind, batch = kind_of(imports, call)
    if kwarg(call, "batch_processing") is not None:
        batch = kwarg(call, "batch_processing").value == "True"
    function = code_of(kwarg(call, "function"))
    if isinstance(kwarg(call, "function"), cst.Lambda):
        function = f"({function})"
    inputs = [_samples_of(a.value) for a in call.args if a.keyword is None]
    layouts = _layouts(call)
    reads = NameReads()
    walk(call, reads)
    taken = reads.names | {numpy, "ndd", "zip", "tuple"}
    dlpack = _dlpack_module(imports)

    def take(base):
        name = free_name(base, taken)
        taken.add(name)
        return name

    samples = [take("sample")] if len(inputs) == 1 else [take(f"sample_{i + 1}") for i in range(len(inputs))]
    output, outputs, layout = take("output"), take("outputs"), take("layout")
    # views of the samples, as pipeline mode gave: what the function writes there the later operators read
    given = {"numpy": lambda s: f"{numpy}.asarray({s})",
             "torch": lambda s: f"{s}.torch()",
             "dlpack": lambda s: f"{dlpack}.to_dlpack({s}.torch())"}[kind]
    back = {"numpy": lambda o: f'{numpy}.require({o}, requirements="C")',
            "torch": lambda o: f"{o}.contiguous()",
            "dlpack": lambda o: f"{dlpack}.from_dlpack({o}).contiguous()"}[kind]
    loop = (f"for {samples[0]} in {inputs[0]}" if len(inputs) == 1
            else f"for {', '.join(samples)} in zip({', '.join(inputs)})")
    if batch:  # one list of samples per input
        result = f"{function}({', '.join(f'[{given(s)} for {s} in {i}]' for s, i in zip(samples, inputs))})"
    else:
        result = f"{function}({', '.join(given(s) for s in samples)})"
    if len(layouts) == 1:
        layout_arg = f", layout={_quoted(layouts[0])}" if layouts[0] else ""
        if batch:
            return expr(f"ndd.as_batch([{back(output)} for {output} in {result}]{layout_arg})")
        return expr(f"ndd.as_batch([{back(result)} {loop}]{layout_arg})")
    per_step = result if batch else f"zip(*[{result} {loop}])"
    if len(set(layouts)) == 1:
        layout_arg = f", layout={_quoted(layouts[0])}" if layouts[0] else ""
        return expr(f"tuple(ndd.as_batch([{back(output)} for {output} in {outputs}]{layout_arg}) "
                    f"for {outputs} in {per_step})")
    return expr(f"tuple(ndd.as_batch([{back(output)} for {output} in {outputs}], layout={layout}) "
                f"for {layout}, {outputs} in zip(({', '.join(map(_quoted, layouts))}), {per_step}))")


def _quoted(layout: str | None) -> str:
    return "None" if layout is None else '"' + layout + '"'


_FUNCTION = frozenset({"function"})


class _Calls(cst.CSTVisitor):
    """The Python-operator calls of a statement whose function= is a plain name."""

    def __init__(self, imports):
        self.imports = imports
        self.functions: list[cst.Name] = []  # the function= values

    def visit_Call(self, node):
        function = kwarg(node, "function")
        if kind_of(self.imports, node) is not None and isinstance(function, cst.Name):
            self.functions.append(function)


class _RenameName(cst.CSTTransformer):
    """``old`` -> ``new`` in references (not attribute names or keywords); with ``targets_only``, only in
    assignment targets."""

    def __init__(self, old: str, new: str, targets_only=False):
        super().__init__()
        self.old, self.new, self.targets_only = old, new, targets_only
        self.keep: set[cst.Name] = set()
        self._target_depth = 0

    def visit_Attribute(self, node):
        self.keep.add(node.attr)

    def visit_Arg(self, node):
        if node.keyword is not None:
            self.keep.add(node.keyword)

    def visit_AssignTarget(self, node):
        self._target_depth += 1

    def leave_AssignTarget(self, original_node, updated_node):
        self._target_depth -= 1
        return updated_node

    def leave_Name(self, original_node, updated_node):
        if original_node.value != self.old or original_node in self.keep:
            return updated_node
        if self.targets_only and not self._target_depth:
            return updated_node
        return updated_node.with_changes(value=self.new)


def unshadow(imports, statements: list, outputs: list, may_mention=None) -> tuple[list, list, list[str]]:
    """A ``with pipe:`` block that binds a Python operator's result to its own function's name
    (``perspective = torch_python_function(x, function=perspective)``) read the function, then rebound a
    module name. In the migrated generator that name would be local from the start (UnboundLocalError):
    the block's own binding, and the reads after it, get a new name; function= keeps reading the function.
    Returns the statements, the outputs and ``"old -> new"`` for each rename. ``may_mention(node, words)``
    (``MigrationContext.may_mention``): False where the node's text has none of the words (a statement that does
    not say function= has no such call: not visited)."""
    renamed = []
    for index, statement in enumerate(statements):
        if may_mention is not None and not may_mention(statement, _FUNCTION):
            continue
        calls = _Calls(imports)
        walk(statement, calls)
        for function in calls.functions:
            old = function.value
            if old not in _bound(statement):
                continue
            reads = NameReads()
            for node in [*statements, *outputs]:
                walk(node, reads)
            new = free_name(f"{old}_out", reads.names | {n for s in statements for n in _bound(s)})
            statements[index] = statements[index].visit(_RenameName(old, new, targets_only=True))
            rest = [s.visit(_RenameName(old, new)) for s in statements[index + 1:]]
            statements[index + 1:] = rest
            outputs = [o.visit(_RenameName(old, new)) for o in outputs]
            renamed.append(f"{old} -> {new}")
    return statements, outputs, renamed


def _bound(statement) -> set[str]:
    binds = AssignedNames()
    walk(statement, binds)
    return binds.names
