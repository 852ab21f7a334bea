"""How a pipeline gives its outputs, and the step's ``yield`` of them.

A body ends with ``return <outputs>`` (or ``pipe.set_outputs(...)``); ``closing_returns`` takes the endings that
choose their outputs under a condition decided when the graph was defined: early returns under an ``if`` become
if/else (``early_returns_as_else``), an if/else that only returns becomes one ``return X if c else Y``
(``conditional_return``), branches that compute more first yield in each branch (``closing_branches``), and branches
that create readers set the same output variables (``_returns_joined``). ``_yield_statements`` writes the step's
yield: one output or several, as pipe.run() gave them, decided at run time where the kind of a single returned value
is not known (``returned_kinds``: what the flow model says it holds).
"""

from __future__ import annotations

import libcst as cst

from ...walk import walk
from ... import dataflow as df
from ...names import free_name
from . import rules
from .model import AssignedNames, NameReads, code_of, stmt, target_names
from .statement_facts import _ContainsCall, _Returns, _StatementFacts, _reads_and_binds


def output_elements(value: cst.BaseExpression | None) -> list[cst.BaseExpression]:
    if value is None:
        return []
    if isinstance(value, (cst.Tuple, cst.List)):
        if any(isinstance(e, cst.StarredElement) for e in value.elements):
            # `return (*views, labels)`: as many outputs as it holds when it runs, one sequence of them
            return [cst.Tuple(value.elements) if isinstance(value, cst.Tuple) else value]
        return [e.value for e in value.elements]
    return [value]


def _is_sequence(expr: cst.BaseExpression) -> bool:
    """``tuple(...)``/``list(...)``, a comprehension or a tuple/list literal: several outputs."""
    if isinstance(expr, (cst.Tuple, cst.List, cst.ListComp, cst.GeneratorExp)):
        return True
    return isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and expr.func.value in ("tuple", "list")


def returned_kinds(outputs, flow, lists: bool) -> dict[str, str]:
    """For a pipeline that returns one name: {name: 'sequence' | 'single' | 'unknown'} as the flow model sees the
    value it holds (a tuple of DataNodes, or for a Pipeline subclass's define_graph a list too, is several outputs;
    a list is an error in a pipeline function: VERIFIED, docs/dali-facts.md); a value the model does not know is
    decided when it runs. Empty where the model is not there or the outputs are not one name."""
    if flow is None or len(outputs) != 1 or not isinstance(outputs[0], cst.Name):
        return {}
    try:
        kind = flow.value_of(outputs[0])[0]
    except Exception:  # a node the flow model never saw (built by an earlier step)
        return {}
    several = kind in ("tuple:" + df.DATANODE, "tuple:" + df.TOP) or isinstance(kind, tuple) and kind[0] == "tup"
    listed = kind == df.DATANODES or isinstance(kind, tuple) and kind[0] == "seq"
    if several or listed and lists:
        found = "sequence"
    elif kind == df.DATANODE:
        found = "single"
    else:
        found = "unknown"
    return {outputs[0].value: found}


def _single_output_kind(expr: cst.BaseExpression, statements, single_names=frozenset(), known=None,
                        seen=frozenset()) -> str:
    """'sequence', 'single' or 'unknown' for a pipeline's one returned expression. pipe.run() gives one
    output per element when the pipeline returns a tuple or list, one output otherwise (``known``: what the flow
    model says a returned name holds, ``returned_kinds``)."""
    if known and isinstance(expr, cst.Name) and known.get(expr.value) == "sequence":
        return "sequence"  # the flow model knows it holds several DataNodes
    if _is_sequence(expr):
        return "sequence"
    if isinstance(expr, cst.IfExp):
        kinds = {_single_output_kind(expr.body, statements, single_names, None, seen),
                 _single_output_kind(expr.orelse, statements, single_names, None, seen)}
        return kinds.pop() if len(kinds) == 1 else "unknown"
    if isinstance(expr, cst.Name):
        if expr.value in single_names:
            return "single"  # unpacked from a reader's or an op's outputs
        values = []
        for statement in statements:
            if not isinstance(statement, cst.SimpleStatementLine):
                continue
            for small in statement.body:
                if not isinstance(small, cst.Assign):
                    continue
                for t in small.targets:
                    if isinstance(t.target, cst.Name) and t.target.value == expr.value:
                        values.append(small.value)
                    elif isinstance(t.target, (cst.Tuple, cst.List)) and expr.value in target_names(t.target):
                        return "single"  # one element of an unpacked multi-output op
        if not values or expr.value in seen:
            return "unknown"  # a parameter or a name bound elsewhere (or in terms of itself)
        # each value as if it were returned (a conditional expression of tuples, `(x,) + tuple(ys)`, a helper's
        # result): one kind for all of them, or decided when it runs
        kinds = {_single_output_kind(v, statements, single_names, None, seen | {expr.value}) for v in values}
        return kinds.pop() if len(kinds) == 1 else "unknown"
    if isinstance(expr, cst.Call) and (isinstance(expr.func, cst.Name) or _method_call(expr)):
        return "unknown"  # a helper function or method: it may return several DataNodes
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Add):
        kinds = {_single_output_kind(side, statements, single_names) for side in (expr.left, expr.right)}
        if "sequence" in kinds:
            return "sequence"  # `tuple(views) + (labels,)`: joined sequences
        if "unknown" in kinds:
            return "unknown"
    if isinstance(expr, cst.Subscript) and any(isinstance(e.slice, cst.Slice) for e in expr.slice):
        kind = _single_output_kind(expr.value, statements, single_names)
        if kind != "single":
            return kind  # `outs[:2]`: a slice of a sequence is one
    return "single"


def _method_call(call: cst.Call) -> bool:
    """``self.helper(...)``, ``super().helper(...)`` or ``Base.helper(self, ...)``: one of the class's methods."""
    func = call.func
    if not isinstance(func, cst.Attribute):
        return False
    owner = func.value
    if isinstance(owner, cst.Name) and owner.value == "self":
        return True
    if isinstance(owner, cst.Call) and isinstance(owner.func, cst.Name) and owner.func.value == "super":
        return True
    first = call.args[0] if call.args else None
    return isinstance(owner, cst.Name) and first is not None and first.keyword is None and not first.star \
        and isinstance(first.value, cst.Name) and first.value.value == "self"


def conditional_return(statements) -> cst.SimpleStatementLine | None:
    """``if cond: return X`` / ``else: return Y`` closing a pipeline function, as one ``return (X) if cond else
    (Y)``, where ``cond`` reads nothing the body binds (a pipeline argument or a closure value: pipeline mode
    decided it once, when the graph was defined; the generator decides it the same way each step). A branch that
    returns one output returns a 1-tuple (pipe.run() gave a 1-tuple either way). None for other endings."""
    last = statements[-1] if statements else None
    if not (isinstance(last, cst.If) and isinstance(last.orelse, cst.Else)):
        return None
    values = []
    for block in (last.body, last.orelse.body):
        body = block.body
        if not (len(body) == 1 and isinstance(body[0], cst.SimpleStatementLine) and len(body[0].body) == 1
                and isinstance(body[0].body[0], cst.Return) and body[0].body[0].value is not None):
            return None
        value = body[0].body[0].value
        kind = _single_output_kind(value, statements[:-1])
        if kind == "unknown":
            return None
        values.append(value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()]) if kind == "sequence"
                      else cst.Tuple([cst.Element(value, comma=cst.Comma())]))
    bound = set().union(*(_reads_and_binds(s)[1] for s in statements[:-1]))
    if _reads_and_binds(cst.Expr(last.test))[0] & bound:
        return None
    return cst.SimpleStatementLine([cst.Return(cst.IfExp(test=last.test, body=values[0], orelse=values[1]))],
                                   leading_lines=last.leading_lines)


def returned_outputs(statement) -> list | None:
    """The outputs of a ``return <outputs>`` statement, else None."""
    if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1 \
            and isinstance(statement.body[0], cst.Return) and statement.body[0].value is not None:
        return output_elements(statement.body[0].value)
    return None


def early_returns_as_else(statements) -> list:
    """``if c: ...; return X`` without an else, followed by statements that end with a return, as the ``if`` with
    those statements in its ``else`` (what the early return meant), so that ``closing_branches`` or
    ``conditional_return`` can take the body; other bodies unchanged."""
    if returned_outputs(statements[-1] if statements else None) is None:
        return list(statements)
    for i, statement in enumerate(statements[:-1]):
        if isinstance(statement, cst.If) and statement.orelse is None and statement.body.body \
                and returned_outputs(statement.body.body[-1]) is not None:
            rest = early_returns_as_else(statements[i + 1:])
            return [*statements[:i], statement.with_changes(orelse=cst.Else(body=cst.IndentedBlock(rest)))]
    return list(statements)


def closing_returns(statements, imports, report, name, refuse=None) -> tuple[list, bool]:
    """(statements, branched) for a pipeline body that gives its outputs by ``return``: early returns under a
    build-time ``if`` become if/else (``early_returns_as_else``); a closing if/else that only returns in each
    branch becomes one ``return X if c else Y`` (``conditional_return``); one whose branches compute more first
    yields in each branch (``closing_branches``; ``branched`` True), unless ``refuse(the if)``. Anything else is
    returned unchanged."""
    normalized = early_returns_as_else(statements)
    if not normalized or not isinstance(normalized[-1], cst.If):
        return list(statements), False
    original = statements[len(normalized) - 1]  # the `if` as written (its position is known)
    simple = conditional_return(normalized)
    if simple is not None:
        report(rules.UNROLL.id, f"{name}: `if {code_of(original.test)}: return ... else: return ...` -> one return "
               f"choosing its outputs by that condition", original)
        return [*normalized[:-1], simple], False
    branched = closing_branches(normalized, returned_outputs, imports)
    if branched is None or refuse is not None and refuse(branched[-1]):
        joined = _returns_joined(normalized, imports, refuse)
        if joined is not None:
            report(rules.UNROLL.id, f"{name}: `if {code_of(original.test)}:` creates readers and returns its outputs "
                   f"in each branch: each branch sets the same output variables, returned after the `if` (its readers "
                   f"are created once, under that condition)", original)
            return joined, False
        return list(statements), False
    report(rules.UNROLL.id, f"{name}: `if {code_of(original.test)}:` returns its outputs in each branch (an early "
           f"return included): each branch yields them (the condition was decided when the graph was defined)",
           original)
    return branched, True


class _AssignedOutputs(cst.CSTTransformer):
    """The last statement of each block (its ``return outputs``) assigned to ``target`` instead. Module-level: a
    class made per call keeps the trees it closes over in a reference cycle until a collection."""

    def __init__(self, blocks, names, target):
        super().__init__()
        self.blocks, self.names, self.target = blocks, names, target

    def leave_SimpleStatementLine(self, original_node, updated_node):
        if any(block.body and block.body[-1] is original_node for block in self.blocks):
            value = original_node.body[0].value
            if isinstance(value, cst.Tuple):  # (one output: the element itself)
                value = value.elements[0].value if len(self.names) == 1 else value.with_changes(lpar=[], rpar=[])
            return updated_node.with_changes(body=[cst.Assign([cst.AssignTarget(self.target)], value)])
        return updated_node


def _returns_joined(statements, imports, refuse=None) -> list | None:
    """``statements`` whose last one is an ``if``/``elif``/``else`` chain that creates a reader (an fn reader, or
    what ``refuse`` finds: a Pipeline subclass's reader object) and whose every block ends with ``return`` of
    the same number of outputs, with each return made an assignment of fresh ``output`` names and one
    ``return`` of them after the ``if``: the form whose readers ``conditional.py`` creates once, under the
    condition. None for anything else."""
    last = statements[-1] if statements else None
    if not isinstance(last, cst.If):
        return None
    calls = _ContainsCall(imports)
    walk(last, calls)
    if not calls.readers and not (refuse is not None and refuse(last)):
        return None
    blocks, node = [], last
    while isinstance(node, cst.If):
        blocks.append(node.body)
        if isinstance(node.orelse, cst.Else):
            blocks.append(node.orelse.body)
            break
        if node.orelse is None:
            return None  # a block that does not return
        node = node.orelse
    counts = set()
    for block in blocks:
        value = block.body[-1].body[0].value if block.body and returned_outputs(block.body[-1]) is not None else None
        if value is None or isinstance(value, cst.Tuple) and any(isinstance(e, cst.StarredElement)
                                                                 for e in value.elements):
            return None
        counts.add(len(value.elements) if isinstance(value, cst.Tuple) else 1)
        returns = _Returns()
        for inner in block.body[:-1]:
            walk(inner, returns)
        if returns.found:
            return None
    if len(counts) != 1:
        return None
    reads, binds = NameReads(), AssignedNames()
    for statement in statements:
        walk(statement, reads)
        walk(statement, binds)
    taken = reads.names | binds.names
    names = []
    for _ in range(counts.pop()):
        names.append(free_name("output", taken))
        taken.add(names[-1])
    target = cst.Tuple([cst.Element(cst.Name(n)) for n in names], lpar=[], rpar=[]) if len(names) > 1 else \
        cst.Name(names[0])
    joined = last.visit(_AssignedOutputs(blocks, names, target))
    ending = stmt(f"return {', '.join(names)}{',' if len(names) == 1 else ''}\n")
    return [*statements[:-1], joined, ending]


def closing_branches(statements, closing_outputs, imports) -> list | None:
    """``statements`` whose last one is an ``if``/``elif``/``else`` chain each of whose blocks ends by giving the
    pipeline's outputs (``closing_outputs(statement)``: ``pipe.set_outputs(...)``'s or a ``return``'s outputs, else
    None), with each of those closings made the step's ``yield``: ``if not has_preprocessor: ...;
    pipe.set_outputs(a, b)`` / ``else: ...; pipe.set_outputs(c, d)``. Only where every test is decided when the
    graph was defined (it calls nothing of DALI and reads nothing the body binds before it: a pipeline argument, a
    closure or ``self`` value): pipeline mode built one branch's graph, and each step takes that branch. None for
    other endings, and where a block creates a reader (``conditional.py`` creates those once, before the steps)."""
    last = statements[-1] if statements else None
    closings: dict = {}  # each closing statement: the yield that replaces it
    if not isinstance(last, cst.If) or not _closing_if(last, statements[:-1], closing_outputs, imports, closings):
        return None

    return [*statements[:-1], last.visit(_Yielding(closings))]


class _Yielding(cst.CSTTransformer):
    """Each block that ends with one of ``closings`` ends with its yields instead (closing_branches). A module-level
    class: one made per call would hold the tree in a reference cycle until the collector ran."""

    def __init__(self, closings: dict):
        super().__init__()
        self.closings = closings

    def leave_IndentedBlock(self, original_node, updated_node):
        body = list(updated_node.body)
        if body and original_node.body[-1] in self.closings:
            body[-1:] = self.closings[original_node.body[-1]]
        return updated_node.with_changes(body=body)


def _closing_if(node: cst.If, before, closing_outputs, imports, closings: dict) -> bool:
    """``node`` (after the statements ``before``) is an if/elif/else chain with build-time tests, each block ending
    with a closing or with such a chain (nested); its closings' yields are put in ``closings``."""
    bound = set().union(*(_reads_and_binds(s)[1] for s in before))
    blocks = []
    while isinstance(node, cst.If):
        calls = _ContainsCall(imports)
        walk(cst.Expr(node.test), calls)
        if calls.found or _reads_and_binds(cst.Expr(node.test))[0] & bound:
            return False
        blocks.append(node.body)
        node = node.orelse.body if isinstance(node.orelse, cst.Else) else node.orelse
    if node is None:
        return False  # no else: a run without outputs
    blocks.append(node)
    for block in blocks:
        body = block.body
        if not body:
            return False
        fact = _StatementFacts(cst.IndentedBlock(body[:-1]), imports)
        if fact.calls.readers or fact.nested_sources.found is not None or fact.returns.found:
            return False
        outputs = closing_outputs(body[-1])
        if outputs is None:
            if not (isinstance(body[-1], cst.If) and _closing_if(body[-1], [*before, *body[:-1]], closing_outputs,
                                                                 imports, closings)):
                return False
            continue
        yields = _yield_statements(outputs, [*before, *body[:-1]])
        yields[0] = yields[0].with_changes(leading_lines=[*body[-1].leading_lines, *yields[0].leading_lines])
        closings[body[-1]] = yields
    return True


def _yield_statements(outputs, statements=(), single_names=frozenset(), known=None,
                      lists=False) -> list[cst.BaseStatement]:
    """The step's yield of ``outputs``; for one output whose kind is known only at run time, decided there as
    pipeline mode decided it (a tuple is several outputs; for a Pipeline subclass, ``lists``, a list too)."""
    if len(outputs) == 1:
        kind = _single_output_kind(outputs[0], statements, single_names, known)
        if kind == "sequence":
            value: cst.BaseExpression = outputs[0] if (isinstance(outputs[0], cst.Call) and outputs[0].func.value
                                                       == "tuple") else cst.Call(cst.Name("tuple"),
                                                                                 [cst.Arg(outputs[0])])
        elif kind == "unknown":
            # Decided when it runs, as pipeline mode did: a returned tuple is several outputs.
            several = "(tuple, list)" if lists else "tuple"
            if isinstance(outputs[0], cst.Name):
                out = outputs[0].value
                return [stmt(f"yield tuple({out}) if isinstance({out}, {several}) else ({out},)\n")]
            return [cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name("outputs"))], outputs[0])]),
                    stmt(f"yield tuple(outputs) if isinstance(outputs, {several}) else (outputs,)\n")]
        else:
            value = cst.Tuple([cst.Element(outputs[0])])
    else:
        value = cst.Tuple([cst.Element(o, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
                           if i < len(outputs) - 1 else cst.Element(o) for i, o in enumerate(outputs)],
                          lpar=[], rpar=[])
    return [cst.SimpleStatementLine([cst.Expr(cst.Yield(value=value))])]
