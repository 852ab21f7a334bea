"""Argument fixes on dynamic-mode operator calls (runs after rename, so calls are ``ndd.*``).

Before::

    images = ndd.decoders.image(jpegs, device="mixed", name="decode")
    images = ndd.cast(images, dtype=np.float32, preserve=True)
    images = ndd.squeeze(images, axes=axes)

After::

    images = ndd.decoders.image(jpegs, device="gpu")
    images = ndd.cast(images, dtype=types.FLOAT)
    # dali-migrate: DM117 axes=axes on ndd.squeeze: ...
    images = ndd.squeeze(images, axes=axes)

Facts (checked on DALI 2.4.0, docs/dali-facts.md): ndd ops reject ``device="mixed"`` (ValueError;
``"gpu"`` selects the same mixed backend); non-reader ops reject ``name=``, ``preserve=`` and
``bytes_per_sample_hint=``, readers reject the last two and keep ``name=`` (TypeError); random ops
reject ``seed=`` (TypeError: the rename pass leaves such calls in pipeline mode, DM112); a numpy type as
``dtype`` raises TypeError in both modes while ``types.FLOAT`` works in both; an argument that may be a tensor and
whose value the call site does not show to be constant becomes a per-sample argument input in ndd, which some
operators read differently (measured per operator and spelling by ``tools/probe_arguments.py``: DM117). Which
arguments an op drops and which take a data type come from the op table generated from DALI; numpy type names map
through DALI's own ``to_numpy_type``.
"""

from __future__ import annotations

import libcst as cst

from .. import argument_inputs, optable
from ..source import code_for_node, parse_expression
from ..findings import rule
from ..names import NDD, TYPES
from .base import MigrationTransformer, Pass, names_in
from .imports import numpy_name, request_import, request_numpy
from ..walk import mentioning, walk

MIXED_TO_GPU = rule(
    "DM110", "mixed-to-gpu", "info",
    'device="mixed" becomes device="gpu" on dynamic-mode operators.',
    'ndd rejects "mixed" (ValueError: Invalid device type: mixed); "gpu" runs the op\'s mixed backend '
    "(CPU input, GPU output) when it has no pure GPU one.",
    before='images = ndd.decoders.image(jpegs, device="mixed")',
    after='images = ndd.decoders.image(jpegs, device="gpu")',
)
DROPPED_ARG = rule(
    "DM111", "dropped-arg", "info",
    "name=, preserve= and bytes_per_sample_hint= are removed where the ndd operator does not take them.",
    "Non-reader ndd ops raise TypeError on all three; readers keep name= but reject the other two. "
    "They only named graph nodes, kept them from pruning and sized buffers, none of which exists "
    "when every call runs.",
    before='images = ndd.resize(images, size=64, name="resize", preserve=True)',
    after="images = ndd.resize(images, size=64)",
)
PER_OP_SEED = rule(
    "DM112", "per-op-seed", "warning",
    "A random operator with seed= that no pipeline step the migration writes holds (a helper no rewrite gives an "
    "rng parameter, a test function's DataNode made before `with pipe:`) stays in pipeline mode: the function that "
    "calls it is left as it was, marked, and so are the pipelines it reaches.",
    "ndd random ops take rng= and raise TypeError on seed=; the unroll turns a per-op seed into an "
    "ndd.random.RNG(seed=S) made once per operator beside the loop of steps (DM205), which is the closest shape "
    "(values differ from pipeline mode, ndd-facts 2.4). Outside those steps nothing can make that RNG once: one "
    "made in a helper would restart at each call, and a renamed call would raise TypeError (docs/dali-facts.md).",
    before="def angles():\n    return fn.random.uniform(range=(-10, 10), seed=42)",
    after="# dali-migrate: DM112 angles stays as it was (pipeline mode) for its fn.random.uniform(seed=...) ...\n"
          "def angles():\n    return fn.random.uniform(range=(-10, 10), seed=42)",
    fix="manual",
    suggestion="Let the pipeline that calls it create `rng = ndd.random.RNG(seed=42)` once, beside its loop of steps, "
               "and pass rng=rng down; or keep this code in pipeline mode.",
)
NUMPY_DTYPE = rule(
    "DM113", "numpy-dtype", "info",
    "A numpy type given as a DALI data type (dtype=np.float32) becomes the DALI type (types.FLOAT).",
    "DALI 2.4.0 raises TypeError for numpy types as dtype in both modes (older DALI accepted them); "
    "nvidia.dali.types.DALIDataType values work in both.",
    before="images = ndd.cast(images, dtype=np.float32)",
    after="images = ndd.cast(images, dtype=types.FLOAT)",
)

_DEVICE_ARG = "device"

ARGUMENT_INPUT = rule(
    "DM117", "argument-input-differs", "warning",
    "An operator argument given a value its call site does not show to be constant (a variable, a parameter, an "
    "expression), where dynamic mode handles such a value differently from pipeline mode: marked (the pipeline "
    "stays in pipeline mode).",
    "Pipeline mode gives an operator every Python value as a plain argument. Dynamic mode (DALI 2.4.0) does that "
    "only where the call site shows the value is constant (a literal, a DALI enum); any other value of an argument "
    "that may be a tensor becomes a per-sample argument input, and some operators read those differently or not "
    "at all: ndd.squeeze(x, axes=axes) fails with 'Missing argument axes or axis_names'. Which arguments, and for "
    "which spellings of a value (a scalar, a list of one, a longer list), is measured on the installed DALI by "
    "tools/probe_arguments.py (data/argument_inputs.json; docs/dali-facts.md). The same probe at a batch size "
    "that is not a power of two finds argument inputs an operator rejects only there (ndd.random_bbox_crop's "
    "input_shape: dynamic mode creates the operator for the batch size rounded up to a power of two).",
    before="def squeezed(shapes, axes):\n    ...\n    return fn.squeeze(data, axes=axes)",
    after="# dali-migrate: DM117 axes=axes on ndd.squeeze: ...\nreturn fn.squeeze(data, axes=axes)",
    fix="manual",
    suggestion="Write the value as a literal at the call (axes=[1]), or keep this pipeline in pipeline mode.",
)

MIXED_VARIABLE = rule(
    "DM115", "mixed-in-variable", "warning",
    'A variable given as an operator\'s device= can hold "mixed", and the migration cannot spell it "gpu" '
    "everywhere it is used (it is printed, passed on, or also \"gpu\").",
    'ndd rejects device="mixed" (ValueError: Invalid device type: mixed) when the step runs; "gpu" selects '
    "the op's mixed backend. A variable used only as operators' devices and in comparisons with strings is "
    'rewritten ("mixed" -> "gpu" in its bindings and comparisons, DM110); so is one bound otherwise too (a '
    "parameter that `device = 'mixed' if 'gpu' in device.lower() else 'cpu'` replaces) when every read that can "
    "see its \"mixed\" is an operator's device or answers the same for \"mixed\" and \"gpu\" ('cpu' in device, "
    "device != 'cpu'). Other uses (device == 'mixed', printing it, passing it on) would see the new value.",
    before='decoder = "cpu" if cpu else "mixed"\nprint("decoding on", decoder)\n'
           "images = ndd.decoders.image(jpegs, device=decoder)",
    after='decoder = "cpu" if cpu else "mixed"\nprint("decoding on", decoder)\n'
          '# dali-migrate: DM115 device=decoder can be "mixed", which ndd rejects: ...\n'
          "images = ndd.decoders.image(jpegs, device=decoder)",
    fix="manual",
    suggestion='Pass device="gpu" if decoder == "mixed" else decoder, or keep "gpu" in the variable.',
)


FLAT_MATRIX = rule(
    "DM114", "flat-matrix", "info",
    "warp_affine(matrix=<a flat list of 6 or 12 numbers>) becomes a float32 array of the matrix's shape.",
    "Pipeline mode reshapes a flat matrix argument to 2x3 (or 3x4); dynamic mode takes the argument's shape "
    "as it is and fails an assertion on a flat one. A nested list is not always enough either (in NVIDIA's "
    "augmentation gallery it fails to build the op); a float32 array works (verified, docs/dali-facts.md).",
    before="ndd.warp_affine(images, matrix=[1, 0.2, -2, 0, 1, 1.5])",
    after="ndd.warp_affine(images, matrix=np.array([[1, 0.2, -2], [0, 1, 1.5]], dtype=np.float32))",
)

SCALAR_STATISTIC = rule(
    "DM116", "scalar-statistic", "info",
    "ndd.normalize(x, mean=m, stddev=s) with m or s held in a name or an attribute: a scalar is given the input's "
    "number of dimensions (np.reshape(m, (1,) * x.ndim)), decided at run time; an array is passed as it is.",
    "Pipeline mode takes a scalar mean/stddev in a variable. ndd 2.4.0 passes a keyword argument its call site "
    "does not show to be constant (a literal) as a per-sample tensor, and Normalize asserts that such a tensor has "
    "the input's dimensions (docs/dali-facts.md).",
    before="out = ndd.normalize(data, mean=self.mu, stddev=self.sd)",
    after="out = ndd.normalize(data, mean=np.reshape(self.mu, (1,) * data.ndim) if np.ndim(self.mu) == 0 else "
          "self.mu, stddev=...)",
)
_STATISTICS = ("mean", "stddev")


class _Arguments(MigrationTransformer):
    def __init__(self, ctx, module: cst.Module):
        super().__init__(ctx)
        self._module = module
        self._types: tuple[str, str | None] | None = None  # looked up on the first numpy dtype
        # "mixed" strings of variables that only name a DALI op's device: spelled "gpu" (device_variables)
        self._mixed, self._device_names, self._risky = device_variables(ctx)
        self._reported: set[tuple] = set()
        self._functions = 0  # how deep in function definitions

    def visit_FunctionDef(self, node):
        self._functions += 1

    def leave_FunctionDef(self, original_node, updated_node):
        self._functions -= 1
        return updated_node

    def leave_SimpleString(self, original_node, updated_node):
        found = self._mixed.get(original_node)
        if found is None:
            return updated_node
        name, why, scope = found
        if (scope, name) not in self._reported:  # once per variable
            self._reported.add((scope, name))
            self.report(MIXED_TO_GPU.id, f'{name}: "mixed" -> "gpu" {why} (ndd rejects "mixed")', original_node)
        return _same_quotes(updated_node, "gpu")

    @property
    def _types_name(self) -> str:
        if self._types is None:
            self._types = _types_local(self.ctx, self._module)
        return self._types[0]

    @property
    def _types_import(self) -> str | None:
        self._types_name  # noqa: B018 -- fills self._types
        return self._types[1]

    def _matrix(self, value, rows: int) -> cst.BaseExpression:
        """A flat matrix as a float32 array of its shape: ``np.array([[...], [...]], dtype=np.float32)`` for
        a literal, ``np.asarray(M, dtype=np.float32).reshape(2, 3)`` for a name (a nested list can fail to
        build the op, docs/dali-facts.md)."""
        np_name = numpy_name(self.ctx)
        request_numpy(self.ctx, np_name)
        width = rows + 1
        numbers = _numbers(value)
        if numbers is not None:
            elements = [e.value for e in numbers]
            nested = "[" + ", ".join("[" + ", ".join(code_for_node(v) for v in elements[r * width:(r + 1) * width]) + "]"
                                     for r in range(rows)) + "]"
            return parse_expression(f"{np_name}.array({nested}, dtype={np_name}.float32)")
        return parse_expression(f"{np_name}.asarray({code_for_node(value)}, dtype={np_name}.float32)"
                                f".reshape({rows}, {width})")

    def _shaped_statistic(self, call: cst.Call, arg: cst.Arg):
        """``np.reshape(m, (1,) * x.ndim) if np.ndim(m) == 0 else m`` for ``normalize(x, mean=m)`` where ``m`` and
        the input ``x`` are names or attributes (read twice), else None."""
        data = call.args[0].value if call.args and call.args[0].keyword is None and not call.args[0].star else None
        from .unroll.constants import repeatable

        if data is None or not repeatable(data) or not repeatable(arg.value):
            return None
        np_name = numpy_name(self.ctx)
        request_numpy(self.ctx, np_name)
        value, ndim = code_for_node(arg.value), f"{code_for_node(data)}.ndim"
        return parse_expression(f"{np_name}.reshape({value}, (1,) * {ndim}) if {np_name}.ndim({value}) == 0 "
                                f"else {value}")

    def _flat_matrix(self, value) -> int | None:
        """Rows of a flat 2D (6 numbers) or 3D (12 numbers) matrix given as a literal, or as a name bound
        only to one; None otherwise (a nested list, a Batch of per-sample matrices, ...)."""
        found = _numbers(value)
        if found is None and isinstance(value, cst.Name):
            from ..context import needs_whole_file

            needs_whole_file(self.ctx, {value.value})  # its value is in a statement elision left out
            flow = self.ctx.facts.get("flow")
            bound = flow.single_value(value) if flow is not None else None
            found = _numbers(bound) if bound is not None else None
        if found is None:
            return None
        return {6: 2, 12: 3}.get(len(found))

    def relevant_names(self):
        # Only calls that resolve to ndd (through an import or the ndd name earlier passes wrote), and the
        # variables that name their device.
        return self.ctx.imports.dali_locals() | {"ndd"} | self._device_names | ({"mixed"} if self._mixed else set())

    def leave_Call(self, original_node, updated_node):
        qualname = self.ctx.imports.qualname(original_node.func)
        if qualname is None or not qualname.startswith(NDD + "."):
            return updated_node
        ndd_path = qualname[len(NDD) + 1:]
        entry = optable.ndd_entry(ndd_path)
        if entry is None:
            return updated_node
        dropped = set(entry.get("dropped_args", ()))
        type_args = set(entry.get("type_args", ()))
        differ = optable.argument_inputs_differ(ndd_path)
        new_args, removed_last, changed = [], None, False
        for index, (original_arg, arg) in enumerate(zip(original_node.args, updated_node.args)):
            keyword = arg.keyword.value if arg.keyword is not None else None
            if keyword == "seed" and "seed" in dropped:
                if self._functions:  # a helper: pipeline mode ran it once per graph, migrated it runs each step
                    self.mark(PER_OP_SEED.id, f"seed= on ndd.{ndd_path} raises TypeError, and an ndd.random.RNG(seed="
                              "...) made in this function would restart at each call (a pipeline ran a helper once, "
                              "when it defined its graph; migrated, it runs every step): let its caller create "
                              "rng = ndd.random.RNG(seed=...) once and pass rng=rng", original_arg)
                else:
                    self.mark(PER_OP_SEED.id, f"seed= on ndd.{ndd_path} raises TypeError: create "
                              "rng = ndd.random.RNG(seed=...) once and pass rng=rng", original_arg)
            elif keyword in dropped:
                self.report(DROPPED_ARG.id, f"removed {keyword}= from ndd.{ndd_path} (not accepted in dynamic mode)",
                            original_arg)
                changed = True
                if index == len(original_node.args) - 1:
                    removed_last = arg
                continue
            elif keyword == _DEVICE_ARG and original_arg.value in self._risky:
                self.mark(MIXED_VARIABLE.id, f'device={original_arg.value.value} can be "mixed", which ndd rejects '
                          f'(ValueError when the step runs); the variable is used other than as a device, so it is '
                          f'not rewritten: pass device="gpu" if {original_arg.value.value} == "mixed" else '
                          f'{original_arg.value.value}', original_arg)
            elif keyword == _DEVICE_ARG and _without_mixed(arg.value) is not None:
                self.report(MIXED_TO_GPU.id, f'device="mixed" -> device="gpu" on ndd.{ndd_path}', original_arg)
                arg = arg.with_changes(value=_without_mixed(arg.value))
                changed = True
            elif keyword == "matrix" and ndd_path == "warp_affine" and self._flat_matrix(arg.value) is not None:
                rows = self._flat_matrix(arg.value)
                self.report(FLAT_MATRIX.id, f"matrix={code_for_node(arg.value)} (a flat list) -> a {rows} x {rows + 1} "
                            f"float32 array on ndd.{ndd_path}: dynamic mode needs the matrix's shape", original_arg)
                arg = arg.with_changes(value=self._matrix(arg.value, rows))
                changed = True
            elif keyword in _STATISTICS and ndd_path == "normalize" and \
                    (shaped := self._shaped_statistic(updated_node, arg)) is not None:
                self.report(SCALAR_STATISTIC.id, f"{keyword}={code_for_node(arg.value)} on ndd.normalize: a scalar gets "
                            f"the input's dimensions at run time (ndd passes it as a per-sample tensor)", original_arg)
                arg = arg.with_changes(value=shaped)
                changed = True
            elif keyword in type_args:
                value = self._dali_type(arg.value, ndd_path, keyword)
                if value is not None:
                    arg = arg.with_changes(value=value)
                    changed = True
            elif keyword in differ and not argument_inputs.rewritten_elsewhere(ndd_path, keyword) and (
                    why := argument_inputs.reason(keyword, original_arg.value, code_for_node(original_arg.value),
                                                  ndd_path, differ[keyword], self.ctx.facts.get("flow"),
                                                  self.ctx.imports)):
                self.mark(ARGUMENT_INPUT.id, why, original_arg)
            new_args.append(arg)
        if not changed:
            return updated_node
        if removed_last is not None and new_args:
            new_args[-1] = new_args[-1].with_changes(comma=removed_last.comma)
        return updated_node.with_changes(args=new_args)

    def _dali_type(self, value, ndd_path, keyword):
        if isinstance(value, (cst.List, cst.Tuple)):
            elements, changed = [], False
            for element in value.elements:
                new = self._dali_type(element.value, ndd_path, keyword) if isinstance(element, cst.Element) else None
                if new is not None:
                    element = element.with_changes(value=new)
                    changed = True
                elements.append(element)
            return value.with_changes(elements=elements) if changed else None
        qualname = self.ctx.imports.qualname(value)
        if qualname is None or not qualname.startswith("numpy."):
            return None
        dali_name = optable.dali_type_for_numpy(qualname[len("numpy."):])
        if dali_name is None:
            return None
        if self._types_import:
            request_import(self.ctx, self._types_name, self._types_import)
        self.report(NUMPY_DTYPE.id, f"{keyword}={qualname.replace('numpy.', 'np.')} -> "
                    f"{self._types_name}.{dali_name} on ndd.{ndd_path}", value)
        return cst.Attribute(value=cst.Name(self._types_name), attr=cst.Name(dali_name)).with_changes(
            lpar=value.lpar, rpar=value.rpar)


def _numbers(value):
    """The elements of a flat list or tuple literal of numbers, else None."""
    if isinstance(value, (cst.List, cst.Tuple)) and value.elements and all(
            isinstance(e, cst.Element) and isinstance(_unsigned(e.value), (cst.Integer, cst.Float))
            for e in value.elements):
        return value.elements
    return None


def _unsigned(expr):
    return expr.expression if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus) else expr


def _without_mixed(expr):
    """The device expression with every "mixed" it can evaluate to spelled "gpu" (a literal, or a branch
    of a conditional expression: ``"cpu" if c else "mixed"``), or None when it has none."""
    if _is_string(expr, "mixed"):
        return _same_quotes(expr, "gpu")
    if isinstance(expr, cst.IfExp):
        body, orelse = _without_mixed(expr.body), _without_mixed(expr.orelse)
        if body is None and orelse is None:
            return None
        return expr.with_changes(body=body or expr.body, orelse=orelse or expr.orelse)
    return None


def _is_text(expr) -> bool:
    return isinstance(expr, cst.SimpleString) and isinstance(expr.evaluated_value, str)


def _is_string(expr, text: str) -> bool:
    return isinstance(expr, cst.SimpleString) and expr.evaluated_value == text


def _same_quotes(expr: cst.SimpleString, text: str) -> cst.SimpleString:
    prefix, quote = expr.prefix, expr.quote
    return expr.with_changes(value=f"{prefix}{quote}{text}{quote}")


def device_variables(ctx) -> tuple[dict, set[str], set]:
    """The "mixed" string literals to spell "gpu" for variables that only name a DALI operator's device, as
    ``decoder_device = 'cpu' if dali_cpu else 'mixed'`` ... ``fn.decoders.image(jpegs, device=decoder_device)``
    in NVIDIA's ResNet-50 example: ndd rejects "mixed" (its "gpu" runs the mixed backend), and a rewrite of
    the ``device=`` argument cannot see the value. Per variable (the flow model's binding scope): every
    binding is a plain assignment of a string or a conditional expression of strings, one of them "mixed"
    and none "gpu"; every read is a ``device=`` argument of a DALI operator or a comparison (``==``/``!=``)
    with a string. Then "mixed" becomes "gpu" in its bindings and in those comparisons: the variable's
    values map one to one, so every comparison answers as before. A variable bound otherwise too (a parameter
    that ``device = 'mixed' if 'gpu' in device.lower() else 'cpu'`` replaces) or read otherwise still gets
    "gpu" in those bindings when every read they can reach is a ``device=`` or answers the same for both
    (``_mixed_seen_only_alike``). ``{SimpleString: (variable, why, scope id)}``, the variables' names, and the
    ``device=`` Names of variables that can be "mixed" but are used otherwise too (marked, DM115)."""
    flow = ctx.facts.get("flow")
    if flow is None or "mixed" not in (getattr(ctx, "source", None) or "mixed"):
        return {}, set(), set()  # (most modules: no walk)
    # What is read below is about the Names of variables given as device=: their bindings, comparisons and device=
    # arguments, all in subtrees whose text says the variable's name. A device= argument is in a call whose text says
    # device, so those come first (most modules spell the device out, and have none), with what a variable named
    # device needs; a variable of another name, walked for again.
    uses = _DeviceUses(ctx.imports)
    walk(flow.module, uses, mentioning(ctx.may_mention, _DEVICE_WORDS))  # read-only: no rebuild
    if not uses.device_args:
        return {}, set(), set()
    variables = frozenset(n.value for n in uses.device_args)
    if not variables <= _DEVICE_WORDS:
        uses = _DeviceUses(ctx.imports)
        walk(flow.module, uses, mentioning(ctx.may_mention, variables | _DEVICE_WORDS))
    groups: dict[tuple, list] = {}
    for name in flow.name_scope:
        owner = flow.binding_scope(name)
        if owner is not None:
            groups.setdefault((id(owner), name.value), []).append(name)
    found: dict = {}
    names: set[str] = set()
    risky: set = set()
    for (owner_id, var), nodes in groups.items():
        if not any(n in uses.device_args for n in nodes):
            continue
        owner = flow.binding_scope(nodes[0])
        sources = owner.bindings.get(var, [])
        targets = [n for n in nodes if n in uses.assigned]
        strings = [_strings(uses.assigned[n]) for n in targets]
        all_strings = len(targets) == len(sources) and all(s[0] == "expr" for s in sources) and not any(
            s is None for s in strings)
        values = [s for group in strings if group for s in group]
        if not any(s.evaluated_value == "mixed" for s in values):
            continue
        if all_strings and not any(s.evaluated_value == "gpu" for s in values) and all(
                n in uses.device_args or n in uses.compared or n in uses.assigned for n in nodes):
            rewritten = values + [uses.compared[n] for n in nodes if n in uses.compared]
            why = "where it is bound and compared: it only names the device of DALI operators"
        else:
            # bound some other way too (a parameter it replaces, a loop, a computed value), or also "gpu", or
            # read otherwise: "mixed" can still be spelled "gpu" in its bindings when every read that can see
            # one is an operator's device or answers the same for both ('cpu' in device)
            rewritten = _mixed_seen_only_alike(flow, uses, sources, nodes)
            if rewritten is None:
                risky |= {n for n in nodes if n in uses.device_args}
                continue
            why = ("where it is bound: every read that can see it is the device of a DALI operator or answers the "
                   "same for both")
        from ..context import needs_whole_file

        needs_whole_file(ctx, {var})  # a binding in a statement elision left out: the whole file, please
        for node in rewritten:
            if node.evaluated_value == "mixed":
                found[node] = (var, why, owner_id)
        names.add(var)
    return found, names, risky


def _mixed_seen_only_alike(flow, uses, sources, nodes) -> list | None:
    """The "mixed" literals of a variable's plain string bindings (``device = 'mixed' if 'gpu' in device
    else 'cpu'``, which replaces a parameter), when every read that one of those bindings can reach (the flow
    model's order, reaching.py) is a DALI operator's ``device=`` or a use that answers the same for "mixed" and
    "gpu" (``'cpu' in device``, ``device != 'cpu'``); else None. Reads that see only other bindings (the
    parameter in that binding's own condition) keep their values."""
    mixed: dict[int, list] = {}
    for index, source in enumerate(sources):
        strings = _strings(source[1]) if source[0] == "expr" and source[1] is not None else None
        literals = [s for s in strings or () if s.evaluated_value == "mixed"]
        if literals:
            mixed[index] = literals
    assigned = {id(uses.assigned[n]) for n in nodes if n in uses.assigned}
    if not mixed or any(id(sources[index][1]) not in assigned for index in mixed):
        return None  # a "mixed" not bound by a plain `name = ...` (unpacked, say): not followed
    for node in nodes:
        if node in uses.assigned:
            continue  # a binding's own target
        seen = flow.reaching_bindings(node)
        if (seen is None or not seen.isdisjoint(mixed)) and node not in uses.device_args and node not in uses.alike:
            return None
    return [literal for literals in mixed.values() for literal in literals]


def _strings(expr) -> list | None:
    """The string literals a string or a conditional expression of strings can be, else None."""
    if isinstance(expr, cst.SimpleString) and isinstance(expr.evaluated_value, str):
        return [expr]
    if isinstance(expr, cst.IfExp):
        body, orelse = _strings(expr.body), _strings(expr.orelse)
        return body + orelse if body is not None and orelse is not None else None
    return None


_DEVICE_WORDS = frozenset({_DEVICE_ARG})


class _DeviceUses(cst.CSTVisitor):
    """Names given as ``device=`` to DALI operators (fn, ops, ndd), compared with a string, or assigned."""

    def __init__(self, imports):
        super().__init__()
        self.imports = imports
        self.device_args: set = set()
        self.compared: dict = {}  # Name -> the string it is compared with
        self.alike: set = set()  # Names in a comparison that answers the same for "mixed" and "gpu"
        self.assigned: dict = {}  # Name -> the value assigned to it

    def visit_Call(self, node):
        qualname = self.imports.qualname(node.func) or ""
        if not qualname.startswith(("nvidia.dali.fn.", "nvidia.dali.ops.", NDD + ".")):
            return
        for arg in node.args:
            if arg.keyword is not None and arg.keyword.value == _DEVICE_ARG and isinstance(arg.value, cst.Name):
                self.device_args.add(arg.value)

    def visit_Comparison(self, node):
        if len(node.comparisons) != 1:
            return
        operator = node.comparisons[0].operator
        left, right = node.left, node.comparisons[0].comparator
        if isinstance(operator, (cst.In, cst.NotIn)):
            if isinstance(right, cst.Name) and _is_text(left):  # 'cpu' in device
                if (left.evaluated_value in "mixed") == (left.evaluated_value in "gpu"):
                    self.alike.add(right)
            elif isinstance(left, cst.Name) and isinstance(right, (cst.Tuple, cst.List, cst.Set)) and all(
                    isinstance(e, cst.Element) and _is_text(e.value) for e in right.elements):  # device in ('cpu',)
                options = {e.value.evaluated_value for e in right.elements}
                if ("mixed" in options) == ("gpu" in options):
                    self.alike.add(left)
            return
        if isinstance(operator, (cst.Is, cst.IsNot)):
            for name, other in ((left, right), (right, left)):
                if isinstance(name, cst.Name) and isinstance(other, cst.Name) and other.value == "None":
                    self.alike.add(name)
            return
        if not isinstance(operator, (cst.Equal, cst.NotEqual)):
            return
        for name, other in ((left, right), (right, left)):
            if isinstance(name, cst.Name) and isinstance(other, cst.SimpleString):
                self.compared[name] = other
                if other.evaluated_value not in ("mixed", "gpu"):
                    self.alike.add(name)

    def visit_Assign(self, node):
        if len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
            self.assigned[node.targets[0].target] = node.value


def _types_local(ctx, module) -> tuple[str, str | None]:
    """The name nvidia.dali.types is bound to, or the name to import it as (and the import)."""
    for local, qualified in ctx.imports.aliases.items():
        if qualified == TYPES:
            return local, None
    local = "types" if "types" not in names_in(module) else "dali_types"
    return local, f"import nvidia.dali.types as {local}"


class ArgumentsPass(Pass):
    name = "arguments"

    def applies(self, ctx):
        return bool(ctx.facts.get("uses_ndd")) or any(q == NDD for q in ctx.imports.aliases.values())

    def run(self, module, ctx):
        from .base import run_transformer
        return run_transformer(module, _Arguments(ctx, module))
