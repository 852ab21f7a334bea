"""Imports: add ``import nvidia.dali.experimental.dynamic as ndd``; drop pipeline-mode imports
that the migrated code no longer uses (``nvidia.dali.types`` stays while enums are used).

Before::

    import nvidia.dali.fn as fn
    import nvidia.dali.types as types

    images = ndd.resize(images, interp_type=types.INTERP_LINEAR)

After::

    import nvidia.dali.types as types
    import nvidia.dali.experimental.dynamic as ndd

    images = ndd.resize(images, interp_type=types.INTERP_LINEAR)

Only imports of DALI's pipeline-mode modules are ever removed, and only when no name they bind is
referenced any more, where the original referenced it (an import the original marks as kept for its effect, with
``noqa`` or a leading underscore, stays). This pass runs last.
"""

from __future__ import annotations

import re

import libcst as cst

from ..findings import rule
from ..names import DALI, NDD, dotted, import_bindings, module_name
from .base import MigrationTransformer, Pass, names_in
from .import_guards import find_guard, insert_guarded
from ..source import parse_statement
from ..walk import mentioning, walk

IMPORTS = rule(
    "DM100", "imports", "info",
    "Adds the dynamic-mode import and removes pipeline-mode imports that are no longer used.",
    "Migrated code imports nvidia.dali.experimental.dynamic as ndd; fn, ops, pipeline_def and Pipeline are pipeline-mode API.",
    before="import nvidia.dali.fn as fn\nfrom nvidia.dali import pipeline_def",
    after="import nvidia.dali.experimental.dynamic as ndd",
)

NDD_IMPORT = "import nvidia.dali.experimental.dynamic as ndd"

# Pipeline-mode modules and names whose imports may be dropped once unused.
_REMOVABLE_PREFIXES = (
    "nvidia.dali.fn", "nvidia.dali.ops", "nvidia.dali.math", "nvidia.dali.pipeline",
    "nvidia.dali.Pipeline", "nvidia.dali.pipeline_def", "nvidia.dali.plugin.pytorch",
    "nvidia.dali.plugin.base_iterator", "nvidia.dali.tensors", "nvidia.dali.backend",
    "nvidia.dali.types", "nvidia.dali",
)


# DALI's test-suite helpers (dali/test/python/test_utils.py) whose uses the migration rewrites.
_TEST_HELPERS = "test_utils"
_TEST_HELPER_NAMES = frozenset({"to_array"})


def _removable(qualified: str) -> bool:
    if qualified == NDD or qualified.startswith(NDD + "."):
        return False
    return any(qualified == p or qualified.startswith(p + ".") for p in _REMOVABLE_PREFIXES)


class _References(cst.CSTVisitor):
    """Root names referenced outside import statements."""

    def __init__(self) -> None:
        self.names: set[str] = set()

    def visit_Import(self, node):
        return False

    def visit_ImportFrom(self, node):
        return False

    def visit_Name(self, node):
        self.names.add(node.value)

    def visit_Attribute(self, node):
        # `a.b.c`: only the root `a` is a reference; attribute names are not.
        root = node
        while isinstance(root, cst.Attribute):
            root = root.value
        walk(root, self)
        return False


def referenced_names(module: cst.Module) -> set[str]:
    visitor = _References()
    walk(module, visitor)
    return visitor.names


class _PruneImports(MigrationTransformer):
    def __init__(self, ctx, used: set[str]):
        super().__init__(ctx)
        self.used = used
        self.removed: list[str] = []
        self.emptied: set[int] = set()
        self._keep_alive: list[cst.CSTNode] = []  # ids in `emptied` must stay unique

    def skips(self, node_type: type) -> bool:
        # Only import statements change: expressions and the other small statements cannot hold one.
        return issubclass(node_type, cst.BaseExpression) or (
            issubclass(node_type, cst.BaseSmallStatement) and not issubclass(node_type, (cst.Import, cst.ImportFrom)))

    def relevant_names(self):
        # Only import statements change (and the blocks that hold them).
        return {"import"}

    def _keep_alias(self, local: str, qualified: str) -> bool:
        return local in self.used or self._unused_before(local) or not (
            _removable(qualified) or self._emptied_module(qualified))

    def _unused_before(self, local: str) -> bool:
        """An import the original kept for what importing does, not for the name (``import nvidia.dali.ops.transforms
        as _unused_import  # noqa: F401``): a name it never used again, said so by a ``noqa`` on its line or a
        leading underscore. The migration did not make it unused, so it stays."""
        pattern = rf"(?<![\w.]){re.escape(local)}(?!\w)"
        if len(re.findall(pattern, self.ctx.source)) > 1:
            return False
        return local.startswith("_") or any("noqa" in line for line in self.ctx.source.splitlines()
                                            if "import" in line and re.search(pattern, line))

    def _emptied_module(self, qualified: str) -> bool:
        """A module whose last uses other passes removed (``ctypes`` once the pointer copies are gone)."""
        return qualified.split(".")[0] in self.ctx.facts.get("prune_if_unused", ())

    def leave_Import(self, original_node, updated_node):
        kept = []
        for alias in updated_node.names:
            full = module_name(alias.name)
            local = alias.asname.name.value if alias.asname else full.split(".")[0]
            if self._emptied_module(full) and not self._keep_alias(local, full):
                self.removed.append(full)
                continue
            if full.startswith(DALI + ".") or full == DALI:
                if alias.asname is None and full != DALI:
                    # `import nvidia.dali.fn` binds `nvidia`: keep unless no nvidia.dali.fn use is left.
                    if self._dotted_used(full):
                        kept.append(alias)
                        continue
                    self.removed.append(full)
                    continue
                if not self._keep_alias(local, full):
                    self.removed.append(full)
                    continue
            kept.append(alias)
        return self._rebuild(updated_node, kept)

    def leave_ImportFrom(self, original_node, updated_node):
        if updated_node.relative or updated_node.module is None or isinstance(updated_node.names, cst.ImportStar):
            return updated_node
        base = module_name(updated_node.module)
        if base == _TEST_HELPERS:
            return self._prune_test_helpers(updated_node)
        if not (base == DALI or base.startswith(DALI + ".") or self._emptied_module(base)) or base == NDD:
            return updated_node
        kept = []
        for alias in updated_node.names:
            name = alias.name.value if isinstance(alias.name, cst.Name) else module_name(alias.name)
            local = alias.asname.name.value if alias.asname else name
            if self._keep_alias(local, f"{base}.{name}"):
                kept.append(alias)
            else:
                self.removed.append(f"{base}.{name}")
        return self._rebuild(updated_node, kept)

    def _prune_test_helpers(self, node):
        """``from test_utils import to_array``: DALI's test helper over pipeline outputs, which the
        tensorlist pass rewrites; the import goes once no use is left (the module's other names stay)."""
        kept = []
        for alias in node.names:
            local = alias.asname.name.value if alias.asname else alias.name.value
            if isinstance(alias.name, cst.Name) and alias.name.value in _TEST_HELPER_NAMES and local not in self.used:
                self.removed.append(f"{_TEST_HELPERS}.{alias.name.value}")
            else:
                kept.append(alias)
        return self._rebuild(node, kept)

    def _dotted_used(self, full: str) -> bool:
        return full in self.ctx.facts.get("dotted_uses", set())

    def _rebuild(self, node, kept):
        if len(kept) == len(node.names):
            return node
        if not kept:
            return cst.RemoveFromParent()
        kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        changes = {"names": kept}
        if isinstance(node, cst.ImportFrom) and node.rpar is not None and len(kept) == 1:
            changes.update(lpar=None, rpar=None)
        return node.with_changes(**changes)

    def leave_SimpleStatementLine(self, original_node, updated_node):
        # libcst silently drops an empty line together with its leading blank lines and comments;
        # keep a placeholder that the enclosing block removes, moving those lines to the next statement.
        if not updated_node.body:
            placeholder = updated_node.with_changes(body=[cst.Pass()])
            self.emptied.add(id(placeholder))
            self._keep_alive.append(placeholder)
            return placeholder
        return updated_node

    def leave_Module(self, original_node, updated_node):
        return updated_node.with_changes(body=_drop_emptied(updated_node.body, self.emptied, block=False))

    def leave_IndentedBlock(self, original_node, updated_node):
        return updated_node.with_changes(body=_drop_emptied(updated_node.body, self.emptied, block=True))

    def leave_SimpleStatementSuite(self, original_node, updated_node):
        if not updated_node.body:  # `try: import nvidia.dali.fn as fn` on one line
            return updated_node.with_changes(body=[cst.Pass()])
        return updated_node




def _is_import(statement) -> bool:
    return isinstance(statement, cst.SimpleStatementLine) and all(
        isinstance(small, (cst.Import, cst.ImportFrom)) for small in statement.body)


def _blank_prefix(lines) -> int:
    count = 0
    for line in lines:
        if line.comment is not None:
            break
        count += 1
    return count


def _drop_emptied(body, emptied: set[int], block: bool):
    """Remove statements whose imports were all pruned; their leading blank lines and comments move
    to the next statement (without stacking blank lines); an emptied block gets ``pass``."""
    if not any(id(s) in emptied for s in body):
        return body
    kept, carried, dropped = [], [], False
    for statement in body:
        if id(statement) in emptied:
            carried.extend(statement.leading_lines)
            dropped = True
            continue
        if carried:
            own = list(statement.leading_lines)
            if all(line.comment is None for line in carried):
                extra = max(0, len(carried) - _blank_prefix(own))
                carried = carried[:extra]
            statement = statement.with_changes(leading_lines=[*carried, *own])
            carried = []
        if dropped and not kept and not block and _is_import(statement):  # now the module's first import
            lines = list(statement.leading_lines)
            statement = statement.with_changes(leading_lines=lines[_blank_prefix(lines):])
        kept.append(statement)
    if not kept and block:
        kept.append(cst.SimpleStatementLine(body=[cst.Pass()], leading_lines=carried))
    return kept


class _DottedUses(cst.CSTVisitor):
    def __init__(self):
        self.uses: set[str] = set()

    def visit_Import(self, node):
        return False

    def visit_ImportFrom(self, node):
        return False

    def visit_Attribute(self, node):
        name = dotted(node)
        if name and name.startswith("nvidia."):
            parts = name.split(".")
            self.uses.update(".".join(parts[:i]) for i in range(2, len(parts) + 1))
            return False
        return True


class _Uses(_References):
    """``_References`` and ``_DottedUses`` in one walk. With the flow model, a function's parameter named like an
    import (``def twice(ops, value)``) and what reads it are not uses of the import."""

    def __init__(self, flow=None):
        super().__init__()
        self.uses: set[str] = set()
        self.flow, self.parameters = flow, set()

    def visit_Param(self, node):
        self.parameters.add(node.name)
        return True

    def visit_Name(self, node):
        if node in self.parameters or self._reads_a_parameter(node):
            return
        super().visit_Name(node)

    def _reads_a_parameter(self, node: cst.Name) -> bool:
        return self.flow is not None and self.flow.reads_a_parameter(node)

    def visit_Attribute(self, node):
        name = dotted(node)
        if name and name.startswith("nvidia."):
            parts = name.split(".")
            self.uses.update(".".join(parts[:i]) for i in range(2, len(parts) + 1))
            root = node
            while isinstance(root, cst.Attribute):
                root = root.value
            walk(root, self)
            return False
        # `a.b.c`: only the root `a` is a reference; its attribute names are not, but deeper
        # expressions (calls, subscripts) inside it are, and may hold nvidia.* names.
        root = node
        while isinstance(root, cst.Attribute):
            root = root.value
        walk(root, self)
        return False


def _top_level_and_guarded(module: cst.Module) -> list:
    """The module's top-level statements, then those of the bodies of its top-level ``try``/``if`` blocks (where a
    guarded import lives, guards.py)."""
    guarded = [inner for stmt in module.body if isinstance(stmt, (cst.Try, cst.If))
               and isinstance(stmt.body, cst.IndentedBlock) for inner in stmt.body.body]
    return [*module.body, *guarded]


def _has_ndd_import(module: cst.Module) -> bool:
    """A top-level ndd import, also one in the body of a top-level ``try``/``if`` (a guarded import, guards.py):
    once it is there, a later run must not add another at the top."""
    for stmt in _top_level_and_guarded(module):
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, cst.Import):
                    for alias in small.names:
                        if module_name(alias.name) == NDD and alias.asname and alias.asname.name.value == "ndd":
                            return True
    return False


def _insert_index(module: cst.Module, before: int | None = None) -> int:
    """After the last top-level DALI import; else after the last top-level import; else at the top. Only
    imports above ``before`` (the first statement that needs what is imported) count: in a notebook the
    last import can sit in a cell far below the first use."""
    last_dali = last_import = None
    for i, stmt in enumerate(module.body):
        if before is not None and i >= before:
            break
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for small in stmt.body:
            if isinstance(small, (cst.Import, cst.ImportFrom)):
                last_import = i
                names = [module_name(a.name) for a in small.names] if isinstance(small, cst.Import) else \
                    [module_name(small.module) if small.module else ""]
                if any(n == DALI or n.startswith(DALI + ".") for n in names):
                    last_dali = i
    if last_dali is not None:
        return last_dali + 1
    if last_import is not None:
        return last_import + 1
    # after a module docstring
    if module.body and isinstance(module.body[0], cst.SimpleStatementLine) and \
            isinstance(module.body[0].body[0], cst.Expr) and isinstance(module.body[0].body[0].value, cst.SimpleString):
        return 1 if before is None or before > 0 else 0
    return 0


def first_use(module: cst.Module, name: str, may_mention=None) -> int | None:
    """The index of the first top-level statement whose code reads ``name`` (at any depth). ``may_mention(node,
    words)`` (``MigrationContext.may_mention``): False where the node's text has none of the words (not walked)."""
    keep = mentioning(may_mention, frozenset({name}))
    return next((i for i, stmt in enumerate(module.body) if name in names_in(stmt, keep)), None)


class ImportsPass(Pass):
    name = "imports"

    def applies(self, ctx):
        return bool(ctx.facts.get("uses_ndd") or ctx.facts.get("migrated") or ctx.facts.get("add_imports"))

    def run(self, module, ctx):
        uses = _Uses(ctx.facts.get("flow"))  # one walk for both: each full-tree visit costs about a parse
        # Only some names matter here: DALI aliases (kept or pruned), ndd, and the names other passes
        # asked imports for. Unchanged subtrees whose text has none of them are skipped.
        test_helpers = {local for name in _TEST_HELPER_NAMES
                        for local in ctx.imports.local_names_for(f"{_TEST_HELPERS}.{name}")}
        emptied = {local for module in ctx.facts.get("prune_if_unused", ())
                   for local, qualified in ctx.imports.aliases.items() if qualified.split(".")[0] == module}
        wanted = frozenset(ctx.imports.dali_locals() | {"ndd", "nvidia"} | set(ctx.facts.get("add_imports") or ())
                           | test_helpers | emptied)
        walk(module, uses, keep=mentioning(ctx.may_mention, wanted))
        used = uses.names
        ctx.facts["dotted_uses"] = uses.uses
        pruner = _PruneImports(ctx, used)
        from .base import run_transformer
        module = run_transformer(module, pruner)
        if "ndd" in used and not _has_ndd_import(module):
            first = first_use(module, "ndd", ctx.may_mention)
            module = _insert_statement(module, _insert_index(module, first), NDD_IMPORT)
            ctx.report(IMPORTS.id, f"added `{NDD_IMPORT}`", line=0)
        module = _add_requested_imports(module, ctx, used)
        if ctx.facts.get("helper_import"):  # the project's helper module (unroll/helpers.py): after the DALI imports
            line, names = ctx.facts["helper_import"]
            uses = [i for i in (first_use(module, name, ctx.may_mention) for name in names) if i is not None]
            module = _insert_statement(module, _insert_index(module, min(uses) if uses else None), line.rstrip("\n"))
            ctx.report(IMPORTS.id, f"added `{line.split('  #')[0]}` (the project's helper module)", line=0)
        if pruner.removed:
            ctx.report(IMPORTS.id, "removed unused pipeline-mode imports: " + ", ".join(pruner.removed), line=0)
        return module


def request_import(ctx, local: str, statement: str) -> None:
    """Ask this pass to add ``statement`` (which binds ``local``) when the migrated code uses ``local``
    and no top-level import binds it yet. Passes that introduce ``np.`` or ``types.`` call this."""
    ctx.facts.setdefault("add_imports", {})[local] = statement


def numpy_name(ctx, names_in_use: set[str] | None = None) -> str:
    """The local name numpy is imported under, or the one ``request_numpy`` imports it as: ``np``, unless the module
    uses that name for something else (its own variable, another import, a name in code left out of the parse).
    ``names_in_use``: the module's bound names (the flow model's, when not given)."""
    for local, qualified in ctx.imports.aliases.items():
        if qualified == "numpy":
            return local
    if names_in_use is None:
        flow = ctx.facts.get("flow")
        names_in_use = {n.value for n in flow.name_scope} if flow is not None else set()
    elided = ctx.elision is not None and ctx.elision.uses_name("np")
    return "np" if "np" not in names_in_use and "np" not in ctx.imports.aliases and not elided else "numpy"


def request_numpy(ctx, local: str) -> None:
    """Import numpy as ``local`` (``numpy_name``'s answer) where the migrated code uses it."""
    request_import(ctx, local, "import numpy as np" if local == "np" else "import numpy")


def _add_requested_imports(module: cst.Module, ctx, used: set[str]) -> cst.Module:
    requested = ctx.facts.get("add_imports") or {}
    if not requested:
        return module

    bound = _top_level_bindings(module)
    for local, statement in sorted(requested.items()):
        if local not in used or local in bound:
            continue
        dali = statement.startswith(("import nvidia", "from nvidia"))
        guard = find_guard(module) if dali else None
        if guard is not None:  # DALI is imported only under a guard: so is this (guards.py)
            module = insert_guarded(module, guard, statement)
        else:
            index = _insert_index(module) if dali else _first_dali_import_index(module)
            module = _insert_statement(module, index, statement)
        bound.add(local)
        ctx.report(IMPORTS.id, f"added `{statement}`", line=0)
    return module


def _top_level_bindings(module: cst.Module) -> set[str]:
    names = set()
    for stmt in _top_level_and_guarded(module):
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, (cst.Import, cst.ImportFrom)):
                    names.update(import_bindings(small))
    return names


def _first_dali_import_index(module: cst.Module) -> int:
    """Third-party imports such as numpy go before the first top-level DALI import."""
    for i, stmt in enumerate(module.body):
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, cst.Import):
                    names = [module_name(a.name) for a in small.names]
                elif isinstance(small, cst.ImportFrom) and small.module is not None:
                    names = [module_name(small.module)]
                else:
                    continue
                if any(n == DALI or n.startswith(DALI + ".") for n in names):
                    return i
    return _insert_index(module)


def _is_import_line(statement) -> bool:
    return isinstance(statement, cst.SimpleStatementLine) and any(
        isinstance(small, (cst.Import, cst.ImportFrom)) for small in statement.body)


def _insert_statement(module: cst.Module, index: int, statement: str) -> cst.Module:
    """Insert a top-level import at ``index`` so that it joins the import group around it; where
    it follows no import (a docstring, or nothing), it takes over the blank lines before the next
    statement so that the layout of the file stays as it was."""
    body = list(module.body)
    new = parse_statement(statement + "\n")
    following = body[index] if index < len(body) else None
    previous = body[index - 1] if index > 0 else None
    if following is not None and _is_import_line(following):
        blank = _blank_prefix(following.leading_lines)
        new = new.with_changes(leading_lines=following.leading_lines[:blank])
        body[index] = following.with_changes(leading_lines=following.leading_lines[blank:])
    elif following is not None and previous is not None and not _is_import_line(previous):
        if _blank_prefix(following.leading_lines):
            new = new.with_changes(leading_lines=[cst.EmptyLine()])
    body.insert(index, new)
    return module.with_changes(body=body)
