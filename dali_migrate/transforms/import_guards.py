"""Where a module imports DALI only under a guard (a top-level ``try``/``except ImportError`` or ``if``/``else``),
and how to add a DALI import under it: read by the guards pass and by the imports pass, which puts the ndd import
there (guards.py says why). Imports nothing of the passes.
"""

from __future__ import annotations

import libcst as cst

from ..names import DALI, import_bindings, module_name
from ..source import parse_statement
from ..walk import walk


_IMPORT_ERRORS = {"ImportError", "ModuleNotFoundError", "Exception", "BaseException"}


def _dali_import(statement) -> list[str] | None:
    """The names a top-level ``import nvidia.dali...``/``from nvidia.dali... import`` line binds, else None."""
    if not isinstance(statement, cst.SimpleStatementLine):
        return None
    names = []
    for small in statement.body:
        if isinstance(small, cst.Import):
            modules = [module_name(a.name) for a in small.names]
        elif isinstance(small, cst.ImportFrom) and small.module is not None and not small.relative:
            modules = [module_name(small.module)]
        else:
            return None
        if not all(m == DALI or m.startswith(DALI + ".") for m in modules):
            return None
        names += import_bindings(small)
    return names


def _catches_import_error(handler: cst.ExceptHandler) -> bool:
    kind = handler.type
    if kind is None:
        return True
    kinds = [e.value for e in kind.elements] if isinstance(kind, cst.Tuple) else [kind]
    return any(isinstance(k, cst.Name) and k.value in _IMPORT_ERRORS for k in kinds)


class _DaliImports(cst.CSTVisitor):
    def __init__(self):
        self.names: set[str] = set()

    def visit_SimpleStatementLine(self, node):
        self.names |= set(_dali_import(node) or ())
        return False


def _dali_names_within(block) -> set[str]:
    """The names DALI imports bind anywhere in ``block`` (``if NEW_API: from nvidia.dali... import X`` too)."""
    found = _DaliImports()
    walk(block, found)
    return found.names


class Guard:
    """A top-level ``try``/``if`` whose own body imports DALI, with the branch that runs without DALI."""

    def __init__(self, index: int, node, fallback: cst.IndentedBlock | None, bound: set[str]):
        self.index, self.node, self.fallback, self.bound = index, node, fallback, bound

    @property
    def body(self) -> list:
        return list(self.node.body.body)

    def last_dali_import(self) -> int:
        return max(i for i, s in enumerate(self.body) if _dali_import(s) is not None)


def find_guard(module: cst.Module) -> Guard | None:
    """The one guard that holds every top-level DALI import of the module; None when a DALI import stands
    unguarded (the module needs DALI anyway) or there is no guard."""
    found = None
    for index, statement in enumerate(module.body):
        if _dali_import(statement) is not None:
            return None
        if isinstance(statement, (cst.Try, cst.If)) and isinstance(statement.body, cst.IndentedBlock):
            if not any(_dali_import(inner) is not None for inner in statement.body.body):
                continue
            bound = _dali_names_within(statement.body)
            if isinstance(statement, cst.Try):
                if not statement.handlers or not any(_catches_import_error(h) for h in statement.handlers):
                    continue
                fallback = next((h.body for h in statement.handlers if _catches_import_error(h)), None)
            else:
                fallback = statement.orelse.body if isinstance(statement.orelse, cst.Else) else None
            if found is not None:
                return None  # two guards: which one the ndd import belongs to is not clear
            found = Guard(index, statement, fallback if isinstance(fallback, cst.IndentedBlock) else None, bound)
    return found


def insert_guarded(module: cst.Module, guard: Guard, statement: str) -> cst.Module:
    """``statement`` (a DALI import) added to the guard's body after its last DALI import."""
    body = guard.body
    body.insert(guard.last_dali_import() + 1, parse_statement(statement + "\n"))
    statements = list(module.body)
    statements[guard.index] = guard.node.with_changes(body=guard.node.body.with_changes(body=body))
    return module.with_changes(body=statements)
