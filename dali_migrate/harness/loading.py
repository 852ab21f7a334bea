"""Load a file as a module, and resolve ``--pipeline NAME`` in it.

A file is executed as a module named ``dali_migrate_verify_<side>_<n>``, never as ``__main__``,
so its ``if __name__ == "__main__":`` block does not run. Its folder goes on ``sys.path`` while it
loads, so that sibling imports work as they do for the user.

NAME resolves (the contract in BRIEF/DESIGN) to a function (called with the arguments), a class
(instantiated with them) or an object (used as is). The original must give a ``Pipeline``; the
migrated one an iterable yielding one tuple of ``ndd.Batch`` per ``pipe.run()``.
"""

from __future__ import annotations

import ast
import inspect
import itertools
import json
import sys
import types
from pathlib import Path
from typing import Any

_counter = itertools.count()


class HarnessError(Exception):
    """A problem with the input (file, name, arguments) that the user must fix: exit code 2."""


def parse_call_args(text: str | None) -> tuple[list, dict]:
    """``--args`` JSON: ``{"args": [...], "kwargs": {...}}``, or a plain list (positional) or dict (keyword)."""
    if not text:
        return [], {}
    try:
        value = json.loads(text)
    except json.JSONDecodeError as e:
        raise HarnessError(f"--args is not valid JSON: {e}") from None
    if isinstance(value, list):
        return value, {}
    if isinstance(value, dict):
        if set(value) <= {"args", "kwargs"} and value:
            args, kwargs = value.get("args", []), value.get("kwargs", {})
            if not isinstance(args, list) or not isinstance(kwargs, dict):
                raise HarnessError('--args: "args" must be a list and "kwargs" an object')
            return args, kwargs
        return [], value
    raise HarnessError("--args must be a JSON list, object, or {\"args\": [...], \"kwargs\": {...}}")


def load_module(source: str, path: str, side: str) -> types.ModuleType:
    """Execute ``source`` as a fresh module whose ``__file__`` is ``path``."""
    name = f"dali_migrate_verify_{side}_{next(_counter)}"
    module = types.ModuleType(name)
    module.__file__ = str(path)
    folder = str(Path(path).resolve().parent)
    try:
        code = compile(source, str(path), "exec")
    except SyntaxError as e:
        raise HarnessError(f"{path}:{e.lineno}: does not parse: {e.msg}") from None
    sys.modules[name] = module  # dataclasses, pickling and typing look modules up here
    added = folder not in sys.path
    if added:
        sys.path.insert(0, folder)
    try:
        provide_helper_module(source)
        exec(code, module.__dict__)
    except Exception as e:
        sys.modules.pop(name, None)
        raise HarnessError(f"{path}: loading the {side} file failed: {_describe(e, path)}") from e
    finally:
        if added:
            sys.path.remove(folder)
    return module


def provide_helper_module(source: str) -> None:
    """A migrated module that imports the project's helper module (``transforms/unroll/helpers.py``) before
    ``migrate --write`` has written it (a dry run, review, report): the harness provides the module the write
    would create, so the migration can be verified before anything is written."""
    import importlib.util
    import re

    from ..transforms.unroll import helpers

    for found in re.finditer(rf"^from ([\w.]+) import [\w, ]+  {re.escape(helpers.IMPORT_COMMENT)}$", source, re.M):
        module = found.group(1)
        try:
            present = module in sys.modules or importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):
            present = False
        if not present:
            helper = types.ModuleType(module)
            exec(compile(helpers.module_text(), f"<{module}: written by migrate --write>", "exec"), helper.__dict__)
            sys.modules[module] = helper


def _describe(error: BaseException, path: str) -> str:
    """``Type: message (line N)``, with the deepest line of ``path`` in the traceback."""
    line = None
    tb = error.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == str(path):
            line = tb.tb_lineno
        tb = tb.tb_next
    where = f" (line {line})" if line else ""
    return f"{type(error).__name__}: {error}{where}"


def module_level_names(source: str) -> set[str] | None:
    """The names ``source`` binds at module level (also inside top-level if/try/with/for blocks); None when
    that cannot be known (it does not parse, or it has ``from x import *``)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    names: set[str] = set()
    statements = list(tree.body)
    while statements:
        node = statements.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            if any(alias.name == "*" for alias in node.names):
                return None
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
            continue
        for child in ast.walk(node):
            if isinstance(child, ast.Name) and isinstance(child.ctx, ast.Store):
                names.add(child.id)
        for block in ("body", "orelse", "finalbody", "handlers"):
            inner = getattr(node, block, None)
            if isinstance(inner, list):
                statements.extend(s for s in inner if isinstance(s, ast.stmt))
    return names


def find(module: types.ModuleType, name: str, path: str) -> Any:
    if not hasattr(module, name):
        available = sorted(n for n, v in vars(module).items() if not n.startswith("_") and _could_be_pipeline(v))
        hint = f"; candidates: {', '.join(available)}" if available else ""
        raise HarnessError(f"{path}: no name {name!r} at module level{hint}")
    return getattr(module, name)


def _could_be_pipeline(value: Any) -> bool:
    if isinstance(value, types.ModuleType):
        return False
    from nvidia.dali.pipeline import Pipeline

    if not getattr(value, "__module__", "").startswith("dali_migrate_verify_"):
        return isinstance(value, Pipeline) or inspect.isgenerator(value)
    if inspect.isfunction(value):  # a @pipeline_def function, or one the migration made a generator
        return bool(getattr(value, "_is_pipeline_def", False)) or inspect.isgeneratorfunction(value)
    if inspect.isclass(value):  # a Pipeline subclass, or the iterable class it became
        return issubclass(value, Pipeline) or hasattr(value, "__iter__") or hasattr(value, "__next__")
    return False


def instantiate(target: Any, args: list, kwargs: dict) -> tuple[Any, str]:
    """Call a function, instantiate a class, or take an object; returns (result, style)."""
    if inspect.isclass(target):
        return target(*args, **kwargs), "class"
    if callable(target) and not _is_pipeline(target) and not hasattr(target, "__next__"):
        return target(*args, **kwargs), "function"
    return target, "object"


def _is_pipeline(value: Any) -> bool:
    from nvidia.dali.pipeline import Pipeline

    return isinstance(value, Pipeline)


def output_names(source: str, name: str) -> list[str]:
    """Best-effort names of the pipeline outputs, read from the original's source.

    ``return a, b`` of a function NAME (or of ``define_graph`` in a class NAME), or the
    arguments of ``X.set_outputs(a, b)``. Only plain names are used; anything else is ``output<k>``.
    """
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    returned: list[ast.expr] | None = None
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            returned = _set_outputs(node) or _returned(node)
        elif isinstance(node, ast.ClassDef) and node.name == name:
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name == "define_graph":
                    returned = _returned(item)
    if returned is None:
        returned = _set_outputs(tree, receiver=name)
    if not returned:
        return []
    return [_expr_name(e) for e in returned]


def _expr_name(expr: ast.expr) -> str:
    """``images`` -> "images"; ``labels.gpu()`` -> "labels"; anything else -> ""."""
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr in ("gpu", "cpu") \
            and not expr.args:
        expr = expr.func.value
    return expr.id if isinstance(expr, ast.Name) else ""


def _returned(func: ast.AST) -> list[ast.expr] | None:
    last = None
    for node in ast.walk(func):
        if isinstance(node, ast.Return) and node.value is not None:
            last = node.value
    if last is None:
        return None
    return list(last.elts) if isinstance(last, (ast.Tuple, ast.List)) else [last]


def _set_outputs(tree: ast.AST, receiver: str | None = None) -> list[ast.expr] | None:
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "set_outputs"
                and (receiver is None or (isinstance(node.func.value, ast.Name) and node.func.value.id == receiver))):
            return list(node.args)
    return None


def still_pipeline_mode(source: str, name: str) -> str | None:
    """Why NAME in ``source`` is still defined the pipeline-mode way, or None.

    Checked before running: a ``@pipeline_def`` body that already calls ndd ops fails inside the
    pipeline's graph definition with a confusing error, where "not migrated yet" is the truth.
    """
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            for deco in node.decorator_list:
                target = deco.func if isinstance(deco, ast.Call) else deco
                if _last_name(target) == "pipeline_def":
                    return f"{name} is still decorated with @pipeline_def (line {deco.lineno})"
        elif isinstance(node, ast.ClassDef) and node.name == name:
            for base in node.bases:
                if _last_name(base) == "Pipeline":
                    return f"{name} still subclasses Pipeline (line {node.lineno})"
        elif isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            if isinstance(node.value, ast.Call) and _last_name(node.value.func) == "Pipeline":
                return f"{name} is still a Pipeline(...) object (line {node.lineno})"
    return None


def _last_name(expr: ast.expr) -> str:
    if isinstance(expr, ast.Attribute):
        return expr.attr
    return expr.id if isinstance(expr, ast.Name) else ""
