"""``dali-migrate lint``: review dynamic-mode (ndd) code and fix what is safe to fix.

Public API (the CLI and the MCP server call these):

* ``lint_source(text, path="<string>", fix=False, unsafe_fixes=False) -> LintResult``
* ``lint_paths(paths, fix=False, unsafe_fixes=False) -> LintRun`` (``fix`` writes files atomically)

Rules DM301–DM320 are declared in the modules of ``dali_migrate/lint/rules/`` with their docs and
before/after examples; those examples are their tests (``tests/test_lint_rules.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import libcst as cst

from ..engine import NOT_BYTE_IDENTICAL, PARSE_ERROR, _comment_tail, might_use_dali
from ..files import SourceError, atomic_write, iter_source_files, read_source
from ..findings import Finding
from ..markers import open_markers
from ..names import ImportTable
from ..notebooks import (_error_in_cells, _join, _map_finding, _read_notebook, _restore_magics, _split,
                         _Unmappable, _write_cells)
from .core import LintResult, _ApplyFixes, run_checks
from . import rules  # noqa: F401  (importing registers the DM3xx rules)

from ..exit_codes import EXIT_CLEAN, EXIT_ERROR, EXIT_PENDING as EXIT_FINDINGS  # one set of exit codes for every command
_MAX_FIX_ROUNDS = 5


def error_result(result: LintResult, message: str, line: int = 0, rule_id: str = PARSE_ERROR.id) -> LintResult:
    """``result`` as a file that could not be linted: ``message`` (at ``line``; 0: the whole file)."""
    result.error = message
    result.findings = [Finding(rule=rule_id, message=message, path=result.path, line=line, fixed=False)]
    return result


def _syntax_error_line(text: str, fallback: int) -> int:
    """Python's own line for a syntax error (libcst can point past it, at the next token)."""
    try:
        compile(text, "<lint>", "exec", dont_inherit=True)
    except SyntaxError as e:
        return e.lineno or fallback
    except Exception:
        pass
    return fallback


def _lint_once(text: str, path: str):
    """(ctx or None, error message, error line)."""
    if not might_use_dali(text):
        return None, None, 0
    try:
        module = cst.parse_module(text)
    except cst.ParserSyntaxError as e:
        return None, f"does not parse: {e.message}", _syntax_error_line(text, e.raw_line)
    except RecursionError:
        return None, "too deeply nested for the parser", 0
    if module.code != text:
        return None, NOT_BYTE_IDENTICAL, 0
    imports = ImportTable.from_module(module)
    if not imports.uses_dali():
        return None, None, 0
    try:
        return run_checks(path, text, module, imports), None, 0
    except RecursionError:
        return None, "too deeply nested to lint (RecursionError)", 0
    except Exception as e:  # a rule bug must not hide the other files' findings
        return None, f"internal error while linting: {type(e).__name__}: {e}", 0


def lint_source(text: str, path: str = "<string>", fix: bool = False, unsafe_fixes: bool = False) -> LintResult:
    """Lint one module's text; with ``fix``, apply the safe fixes (and, with ``unsafe_fixes``, the
    unsafe ones) and lint again until nothing more can be fixed. Never raises for bad input.
    A ``path`` ending in ``.ipynb`` with a notebook's JSON as ``text`` is linted as a notebook
    (``lint_notebook``: code cells joined, findings per cell)."""
    if path.endswith(".ipynb") and text.lstrip().startswith("{"):
        return lint_notebook(text, path, fix=fix, unsafe_fixes=unsafe_fixes)
    return lint_module(text, path, fix, unsafe_fixes)


def lint_notebook(text: str, path: str = "<notebook>.ipynb", fix: bool = False, unsafe_fixes: bool = False):
    """Lint a notebook's code cells the way ``migrate`` reads them: joined into one module (so a name
    bound in one cell is known in the next), findings per cell; with ``fix``, the fixed code is split back
    into the cells and the notebook's text is in ``fixed_source``. Never raises for bad input."""
    result = LintResult(path=path, source=text)
    if not might_use_dali(text):
        return result
    notebook = _read_notebook(text)
    if notebook is None or (not isinstance(notebook, tuple) and not notebook.parts):
        return result
    if isinstance(notebook, tuple):
        return error_result(result, notebook[1], rule_id=notebook[0])
    parts = notebook.parts
    linted = lint_module(_join(parts), path, fix=fix, unsafe_fixes=unsafe_fixes)
    if linted.changed:
        try:
            new_sources = _split(linted.fixed_source, parts)
            new_sources, _ = _restore_magics(new_sources, parts, notebook.magics, set(), path)
        except _Unmappable:  # fixes that cannot be put back into the cells are not applied
            return lint_notebook(text, path)
        fixed_text, _, _ = _write_cells(notebook, text, new_sources)
        result = lint_notebook(fixed_text, path)  # what is left, at its place in the fixed cells
        result.source, result.fixed_source = text, fixed_text
        result.fixed = [_map_finding(f, parts) for f in linted.fixed]
        return result
    result.findings = [_map_finding(f, parts) for f in linted.findings]
    if linted.error:
        result.error = _error_in_cells(linted.error, result.findings, parts)
    return result


def lint_module(text: str, path: str, fix: bool = False, unsafe_fixes: bool = False) -> LintResult:
    """``lint_source`` for Python code, whatever ``path`` says."""
    result = _lint_checks(text, path, fix, unsafe_fixes)
    if not result.error:
        # Markers already in the file are open findings until a person removes them (DESIGN.md).
        result.findings = sorted([*result.findings, *open_markers(result.text, path, [])],
                                 key=lambda f: (f.line, f.column, f.rule))
    return result


def _lint_checks(text: str, path: str, fix: bool, unsafe_fixes: bool) -> LintResult:
    result = LintResult(path=path, source=text)
    ctx, error, line = _lint_once(text, path)
    tail = ""
    if error == NOT_BYTE_IDENTICAL:
        # libcst drops comment lines that end a file at an indentation no block has (a dedented "   # see ..."
        # after the last function), as migrate_source knows: lint the code before them, and keep them.
        head, tail = _comment_tail(text)
        if tail:
            ctx, error, line = _lint_once(head, path)
            text = head
    if error:
        return error_result(result, error, line)
    if ctx is None:
        return result
    result.findings = ctx.findings
    if not fix:
        return result
    allowed = ("safe", "unsafe") if unsafe_fixes else ("safe",)
    current, first_findings = text, ctx.findings
    for _ in range(_MAX_FIX_ROUNDS):
        fixes = {k: f for k, f in ctx.fixes.items() if f.safety in allowed}
        if not fixes:
            break
        new_text = ctx.module.visit(_ApplyFixes(fixes)).code
        if new_text == current:
            break
        new_ctx, error, line = _lint_once(new_text, path)
        if error or new_ctx is None:  # a fix must never break a file: keep the last good text
            break
        current, ctx = new_text, new_ctx
    result.findings = ctx.findings
    if current != text:
        result.fixed_source = current + tail
        remaining = {(f.rule, f.message) for f in ctx.findings}
        result.fixed = [f for f in first_findings if (f.rule, f.message) not in remaining]
        for f in result.fixed:
            f.fixed = True
    return result


@dataclass
class LintRun:
    files: list[LintResult] = field(default_factory=list)
    written: list[str] = field(default_factory=list)

    @property
    def findings(self) -> list[Finding]:
        return sorted((f for r in self.files for f in r.findings if not r.error),
                      key=lambda f: (f.path, f.cell or 0, f.line, f.column, f.rule))

    @property
    def errors(self) -> list[LintResult]:
        return [r for r in self.files if r.error]

    def exit_code(self) -> int:
        if self.errors:
            return EXIT_ERROR
        return EXIT_FINDINGS if self.findings else EXIT_CLEAN

    def summary(self) -> dict:
        return {"files": len(self.files), "findings": len(self.findings), "errors": len(self.errors),
                "fixed": sum(len(r.fixed) for r in self.files), "written": len(self.written)}


def lint_paths(paths, fix: bool = False, unsafe_fixes: bool = False) -> LintRun:
    """Lint every Python file and notebook under ``paths``; with ``fix``, rewrite fixed files atomically."""
    run = LintRun()
    for path in iter_source_files(paths):
        name = str(path)
        if not path.exists():
            run.files.append(error_result(LintResult(name, ""), "no such file or directory"))
            continue
        try:
            text = read_source(path)
        except (SourceError, OSError) as e:
            reason = str(e) if isinstance(e, SourceError) else f"cannot read: {e.strerror or e}"
            run.files.append(error_result(LintResult(name, ""), reason, getattr(e, "line", 0)))
            continue
        result = lint_source(text, name, fix=fix, unsafe_fixes=unsafe_fixes)
        run.files.append(result)
        if fix and result.changed:
            try:
                atomic_write(Path(path), result.fixed_source)
                run.written.append(name)
            except OSError as e:
                error_result(result, f"cannot write: {e.strerror or e}")
    return run


__all__ = ["lint_source", "lint_module", "lint_paths", "error_result", "LintResult", "LintRun", "EXIT_CLEAN", "EXIT_FINDINGS", "EXIT_ERROR"]
