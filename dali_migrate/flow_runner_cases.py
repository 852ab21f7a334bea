"""The calls a test runner makes that a module's text does not show, for the flow model (``dataflow.py``).

Each is built from the module's own expressions, so that the model follows what a case passes: nose's test
generators (``yield check, a, b`` is the call ``check(a, b)``: ``_test_case``), and the decorators whose arguments
are the cases of the function they decorate (nose2's ``@params``, ``@parameterized.expand``,
``@pytest.mark.parametrize``: ``_parametrized_cases``). The collector (``flow_bindings.py``) adds them to the
module's calls; ``units`` asks ``parametrizes`` of a decorator.
"""

from __future__ import annotations

import libcst as cst


def _test_case(function, node: cst.Yield, any_name: bool = False) -> cst.Call | None:
    """``yield check, a, b`` in a test generator (a function named ``test...``): nose and nose2 call each yielded
    tuple's first element with the rest, ``check(a, b)``. That call, made of the yield's own expressions (it is not
    in the module's tree), lets the model follow what the test hands to ``check``: its parameters get ``a`` and
    ``b``, not unknown values from a caller it cannot see."""
    if function is None or not (any_name or function.name.startswith("test")) or not isinstance(node.value, cst.Tuple):
        return None
    elements = node.value.elements
    if not elements or not isinstance(elements[0].value, (cst.Name, cst.Attribute)) \
            or isinstance(elements[0], cst.StarredElement):
        return None
    return cst.Call(func=elements[0].value,
                    args=[cst.Arg(value=e.value, star="*" if isinstance(e, cst.StarredElement) else "")
                          for e in elements[1:]])


# Decorators whose arguments a test runner passes to the function they decorate: each case a call.
_CASE_DECORATORS = {"nose2.tools.params": "cases", "nose2.tools.such.params": "cases",
                    "nose2.tools.cartesian_params": "product", "parameterized.expand": "list",
                    "parameterized.parameterized.expand": "list", "pytest.mark.parametrize": "named"}


def parametrizes(call: cst.Call, imports) -> bool:
    """``call`` is a decorator whose arguments a test runner passes to the function it decorates (followed)."""
    return (imports.qualname(call.func) or "") in _CASE_DECORATORS


def _parametrized_cases(node: cst.FunctionDef, name: cst.Name, imports) -> list[cst.Call]:
    """The calls a test runner makes of a function decorated with its cases (nose2's ``@params((a, b), (c, d))`` and
    ``@cartesian_params([a, c], [b, d])``, ``@parameterized.expand([...])``, ``@pytest.mark.parametrize("x, y",
    [...])``): ``f(a, b)`` and ``f(c, d)``, made of the decorator's own expressions like ``_test_case``'s, so that its
    parameters get the cases' values (an operator named in a table of cases reaches the pipelines they run)."""
    found = []
    params = [p.name.value for p in node.params.params]
    for decorator in node.decorators:
        call = decorator.decorator
        if not isinstance(call, cst.Call) or any(a.star for a in call.args):
            continue
        qualname = imports.qualname(call.func) or ""
        how = _CASE_DECORATORS.get(qualname)
        if how is None:
            continue
        values = [a.value for a in call.args if a.keyword is None]

        def elements(expr):
            return [e.value for e in expr.elements] if isinstance(expr, (cst.List, cst.Tuple)) else None

        if how == "cases" or how == "list":
            cases = values if how == "cases" else elements(values[0]) if values else None
            for case in cases or ():
                listed = elements(case) if isinstance(case, cst.Tuple) else None
                found.append(cst.Call(func=name, args=[cst.Arg(value=v) for v in (listed or [case])]))
        elif how == "product":
            for position, options in enumerate(values):
                if position < len(params):
                    found.extend(cst.Call(func=name, args=[cst.Arg(value=v, keyword=cst.Name(params[position]))])
                                 for v in elements(options) or ())
        elif len(values) == 2 and isinstance(values[0], cst.SimpleString):
            names = [n.strip() for n in values[0].evaluated_value.split(",") if n.strip()]
            for case in elements(values[1]) or ():
                listed = elements(case) if len(names) > 1 else [case]
                if listed and len(listed) == len(names):
                    found.append(cst.Call(func=name, args=[cst.Arg(value=v, keyword=cst.Name(n))
                                                           for n, v in zip(names, listed)]))
    return found
