"""The pipelines a source defines, in all four styles (``@pipeline_def`` functions, ``Pipeline(...)`` filled in
``with pipe:``, ``Pipeline`` subclasses with ``define_graph``, subclasses built from legacy ``ops`` objects),
matched through imports and aliases: what ``report`` lists and verifies, and the harness offers by name."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from .names import _CANONICAL as CANONICAL_NAMES  # the same aliases the migration resolves

PIPELINE_DEF = "nvidia.dali.pipeline_def"
PIPELINE = "nvidia.dali.Pipeline"
OPS = "nvidia.dali.ops"


@dataclass
class PipelineInfo:
    """A pipeline definition found in the original code; ``name`` is what ``--pipeline`` names."""

    path: str
    name: str
    style: str  # pipeline_def | with-block | subclass | legacy-ops
    line: int
    required: list[str] = field(default_factory=list)  # parameters without a default


def _required_params(args: ast.arguments, skip_self: bool = False) -> list[str]:
    positional = [*args.posonlyargs, *args.args]
    with_default = len(args.defaults)
    names = [a.arg for a in positional[:len(positional) - with_default]]
    if skip_self and names:
        names = names[1:]
    return names + [a.arg for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is None]


class _Imports:
    """Local name -> qualified name, as ``names.ImportTable`` but over Python's ``ast``: discovery
    only needs names and line numbers, and ``ast`` parses about ten times faster than libcst with
    positions (measured: discovery took as long as the migration itself with libcst)."""

    def __init__(self, tree: ast.Module) -> None:
        self.aliases: dict[str, str] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        self.aliases[alias.asname] = alias.name
                    else:
                        root = alias.name.split(".")[0]
                        self.aliases.setdefault(root, root)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for alias in node.names:
                    if alias.name != "*":
                        self.aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"

    def qualname(self, expr: ast.expr) -> str | None:
        if isinstance(expr, ast.Call):
            expr = expr.func
        parts = []
        while isinstance(expr, ast.Attribute):
            parts.append(expr.attr)
            expr = expr.value
        if not isinstance(expr, ast.Name) or expr.id not in self.aliases:
            return None
        full = ".".join([self.aliases[expr.id], *reversed(parts)])
        return CANONICAL_NAMES.get(full, full)

    def uses_dali(self) -> bool:
        return any(q == "nvidia.dali" or q.startswith("nvidia.dali.") for q in self.aliases.values())


def _find(body: list[ast.stmt], path: str, imports: _Imports, found: list[PipelineInfo],
          function: ast.FunctionDef | None = None) -> None:
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if any(imports.qualname(d) == PIPELINE_DEF for d in node.decorator_list):
                found.append(PipelineInfo(path, node.name, "pipeline_def", node.lineno, _required_params(node.args)))
            else:
                _find(node.body, path, imports, found, node)
        elif isinstance(node, ast.ClassDef):
            if any(imports.qualname(base) == PIPELINE for base in node.bases):
                uses_ops = any(isinstance(n, ast.Call) and (imports.qualname(n) or "").startswith(OPS + ".")
                               for n in ast.walk(node))
                init = next((s for s in node.body if isinstance(s, ast.FunctionDef) and s.name == "__init__"), None)
                found.append(PipelineInfo(path, node.name, "legacy-ops" if uses_ops else "subclass", node.lineno,
                                          _required_params(init.args, skip_self=True) if init else []))
            else:
                _find(node.body, path, imports, found)
        elif isinstance(node, ast.Assign) and imports.qualname(node.value) == PIPELINE \
                and isinstance(node.value, ast.Call):
            if function is not None:  # a factory function builds the pipeline: its name is the handle
                if all(p.name != function.name for p in found):
                    found.append(PipelineInfo(path, function.name, "with-block", function.lineno,
                                              _required_params(function.args)))
            else:
                found += [PipelineInfo(path, t.id, "with-block", node.lineno) for t in node.targets
                          if isinstance(t, ast.Name)]
        else:
            for field_name in ("body", "orelse", "finalbody", "handlers"):  # if/for/while/with/try blocks
                inner = getattr(node, field_name, None)
                if isinstance(inner, list) and inner and isinstance(inner[0], (ast.stmt, ast.excepthandler)):
                    _find(inner, path, imports, found, function)


def find_pipelines(source: str, path: str) -> list[PipelineInfo]:
    """Pipelines defined in ``source``, matched through imports and aliases, in source order."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError):
        return []
    imports = _Imports(tree)
    if not imports.uses_dali():
        return []
    found: list[PipelineInfo] = []
    _find(tree.body, path, imports, found)
    return sorted(found, key=lambda p: (p.line, p.name))
