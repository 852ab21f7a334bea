"""Jupyter notebooks (``.ipynb``) migrate like ``.py`` files, the way ruff does it.

* The code cells are joined into one module, so cross-cell context counts (imports in cell 1, the
  pipeline in cell 2, its consumer in cell 3). Between cells sits a sentinel statement
  ``_dali_migrate_cell_<k>_``; after the passes the module is split back at the sentinels. If the
  split fails (a pass moved code across a cell boundary, or touched a placeholder), the notebook is
  reported (DM504) and left untouched: a notebook that cannot be mapped back is never written.
* IPython syntax that is not Python is masked before parsing and restored after:
  line magics and shell escapes (``%matplotlib inline``, ``!pip install x``, ``x = !ls``,
  ``obj?``) become a placeholder line ``_dali_migrate_magic_<k>_``; the code-running line magics
  ``%time``/``%timeit``/``%prun`` without options are *migrated around*: their statement stays
  visible to the passes (``%time out = pipe.run()`` -> ``%time out = next(pipe)``).
  ``%%time``, ``%%timeit``, ``%%capture`` and ``%%prun`` cells are migrated below the magic line;
  any other cell magic (``%%bash``, ``%%writefile``, ...) leaves its cell alone (DM501 when the
  cell mentions DALI). A magic whose Python code the tool cannot see but that names what the
  migration changed gets a marker above it (DM502).
* Only cell sources change: outputs, execution counts, metadata and the nbformat version are kept,
  and the JSON is written back in the file's own layout (indent, key order, escaping). A notebook
  that does not change is never rewritten.
* Findings carry ``cell`` (1-based, counting every cell, markdown included, as a reader counts
  them in the notebook) and the line within that cell. The diff has one hunk group per changed
  cell, headed ``a/nb.ipynb:cell[3]``.

Before (cell 2)::

    %%time
    pipe = classifier_pipe(root)
    !nvidia-smi
    %time images, labels = pipe.run()

After (cell 2; the pipeline itself migrates in the cell that defines it)::

    %%time
    pipe = classifier_pipe(root)
    !nvidia-smi
    %time images, labels = next(pipe)
"""

from __future__ import annotations

import ast
import difflib
import io
import json
import re
import tokenize
import warnings
from dataclasses import dataclass, field
from typing import Any

from .engine import MigrationResult, diff_headers, might_use_dali, migrate_source
from .findings import Finding, marker_text, rule
from .markers import drop_restated

CELL_MAGIC_SKIPPED = rule(
    "DM501", "cell-magic-skipped", "warning",
    "A notebook cell that starts with a cell magic other than %%time/%%timeit/%%capture/%%prun is left "
    "as it is.",
    "The body of %%bash, %%writefile, %%html ... cells is not Python the notebook runs, so the tool cannot "
    "migrate it; the cell is reported when it mentions DALI. No marker is added: the cell body is not "
    "Python, so a comment could change what it does.",
    before="%%writefile pipe.py\nimport nvidia.dali.fn as fn\n...",
    after="%%writefile pipe.py\nimport nvidia.dali.fn as fn\n...   (unchanged, reported)",
    fix="manual",
    suggestion="Migrate the written file itself (run dali-migrate on pipe.py), or move the code into a plain "
               "code cell.",
)
MAGIC_NOT_MIGRATED = rule(
    "DM502", "magic-not-migrated", "warning",
    "A line magic runs Python code the tool cannot migrate (it has options, or does not parse) and that "
    "code names something the migration changed.",
    "`%timeit -n 10 pipe.run()` still calls the pipeline-mode API after the pipeline became a dynamic-mode "
    "generator; the tool migrates `%time STMT` and `%timeit STMT` without options, not magics with options.",
    before="%timeit -n 10 pipe.run()",
    after="# dali-migrate: DM502 ...\n%timeit -n 10 pipe.run()",
    fix="manual",
    suggestion="Rewrite the magic's code by hand the way the rest of the cell was migrated "
               "(for example `pipe.run()` -> `next(pipe)`).",
)
NOTEBOOK_UNREADABLE = rule(
    "DM503", "notebook-unreadable", "error",
    "The .ipynb file is not a valid nbformat 4 notebook (bad JSON, unknown structure, or nbformat 3); "
    "it is left untouched.",
    "Only notebooks that nbformat reads as version 4 can be rewritten cell by cell safely.",
    before='train.ipynb: {"cells": [ ...   (truncated JSON, or "nbformat": 3)',
    after="train.ipynb:0:1: DM503 not a readable nbformat 4 notebook: ...   (the file is left as it is)",
    fix="manual",
    suggestion="Open and re-save the notebook in Jupyter (or `jupyter nbconvert --to notebook`) and run "
               "dali-migrate again.",
)
NOTEBOOK_UNMAPPABLE = rule(
    "DM504", "notebook-unmappable", "error",
    "The migrated code could not be split back into the notebook's cells; the notebook is left untouched.",
    "A pass moved code across a cell boundary or rewrote an IPython magic; writing such a notebook could "
    "put code in the wrong cell, so nothing is written.",
    before="(a notebook whose migrated code no longer splits at the cell boundaries it came from)",
    after="nb.ipynb:cell[2]:1:1: DM504 the migrated code cannot be split back into cells   (nothing written)",
    fix="manual",
    suggestion="Put the pipeline definition and its use in one cell (or export the notebook to a .py file), "
               "migrate that, and copy the result back.",
)
NOTEBOOK_RELAID = rule(
    "DM505", "notebook-layout", "info",
    "The notebook's JSON layout could not be reproduced byte for byte, so it is written in Jupyter's "
    "standard layout (indent 1, sorted keys).",
    "Only cell sources change in content; the layout change is the one Jupyter itself makes on save.",
    before='{  "cells": [ ...   (a hand-edited layout no json.dumps setting reproduces)',
    after='{\n "cells": [ ...   (indent 1, as Jupyter writes it; reported)',
)

CODE_CELL_MAGICS = {"time", "timeit", "capture", "prun"}  # the body below the magic line is Python
CODE_LINE_MAGICS = {"time", "timeit", "prun"}  # the rest of the line is Python code
_CELL_SENTINEL = "_dali_migrate_cell_{}_"
_MAGIC_TOKEN = "_dali_migrate_magic_{}_"
_MAGIC_TOKEN_RE = re.compile(r"_dali_migrate_magic_(\d+)_")
_LINE_RE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")
_ASSIGN_MAGIC_RE = re.compile(r"^[A-Za-z_][\w.\[\], ()*]*=\s*[!%]")
_IDENT_RE = re.compile(r"[A-Za-z_]\w*")
_PYTHON_NAMES = {"python", "python3", "ipython", "ipython3"}


def split_lines(text: str) -> list[str]:
    """Lines with their ends, split on \\n, \\r\\n and \\r only (str.splitlines also splits on \\f ...)."""
    return _LINE_RE.findall(text)


@dataclass
class _Magic:
    token: str
    original: str  # the original line, without its line end
    cell: int  # 0-based index into all cells
    line: int  # 1-based line within the cell
    code_prefix: str | None = None  # "%time " when the statement after it is migrated
    code_runs: bool = False  # a magic that runs Python code we cannot see
    indent: str = ""  # the placeholder's indentation
    header: bool = False  # a cell magic line (kept out of the module)


@dataclass
class _Part:
    cell: int  # index into the notebook's cells
    text: str  # what went into the module (masked)
    original: str  # the cell source
    start: int = 0  # 1-based module line where this part starts
    added_newline: bool = False
    skipped: bool = False  # a cell magic we do not migrate
    header: str = ""  # the lines up to a %%time/%%timeit/... line, kept out of the module
    header_magics: list = field(default_factory=list)  # a %%timeit line with code on it


@dataclass
class NotebookResult(MigrationResult):
    """A migrated notebook: ``original``/``migrated`` are the notebook files' text (JSON)."""

    cells: list[tuple[int, str, str]] = field(default_factory=list)  # (cell number, old, new), changed only

    def diff(self, context: int = 3) -> str:
        if not self.changed:
            return ""
        out = []
        for number, old, new in self.cells:
            fromfile, tofile = diff_headers(self.path, f":cell[{number}]")
            out.extend(difflib.unified_diff(
                _with_final_newline(split_lines(old)), _with_final_newline(split_lines(new)),
                fromfile=fromfile, tofile=tofile, n=context))
        return "".join(out)

    def to_dict(self, with_code: bool = False) -> dict:
        d = super().to_dict(with_code)
        d["notebook"] = True
        d["cells_changed"] = [number for number, _, _ in self.cells]
        return d


def _with_final_newline(lines: list[str]) -> list[str]:
    if lines and not lines[-1].endswith(("\n", "\r")):
        lines = [*lines[:-1], lines[-1] + "\n"]
    return lines


@dataclass
class _Notebook:
    """A notebook read for editing: its JSON, nbformat's view of it, and its code cells masked."""

    raw: dict
    nb: Any
    parts: list  # _Part per code cell
    magics: dict  # token -> _Magic
    skipped: list  # (cell number, first line) of cells whose cell magic the tool leaves alone


def _read_notebook(text: str) -> "_Notebook | tuple[str, str] | None":
    """The notebook, or (rule id, message) when it cannot be edited, or None when it is not Python."""
    try:
        raw = json.loads(text)
        import nbformat

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            nb = nbformat.reads(text, as_version=nbformat.NO_CONVERT)
        if nb.nbformat < 4:
            return NOTEBOOK_UNREADABLE.id, f"nbformat {nb.nbformat} notebook: convert it to nbformat 4 first"
        cells = raw["cells"]
        if len(cells) != len(nb.cells):
            raise ValueError("cell count differs between JSON and nbformat")
    except Exception as e:  # json, nbformat validation, odd structure: all mean "not a notebook we can edit"
        return NOTEBOOK_UNREADABLE.id, f"not a readable notebook: {type(e).__name__}: {e}"
    if _language(raw) not in _PYTHON_NAMES:
        return None
    notebook = _Notebook(raw, nb, [], {}, [])
    for index, cell in enumerate(cells):
        if cell.get("cell_type") != "code":
            continue
        source = _source_text(cell.get("source", ""))
        part = _mask_cell(index, source, notebook.magics)
        if part.skipped and might_use_dali(source):
            notebook.skipped.append((index + 1, source.lstrip().split(None, 1)[0]))
        notebook.parts.append(part)
    return notebook


def _write_cells(notebook: _Notebook, text: str, new_sources: list[str]):
    """(the notebook's new text, [(cell number, old, new)] of the changed cells, relaid) with the code
    cells' new sources, in the file's own JSON layout where one reproduces it (relaid: it did not)."""
    changed = [(part, new) for part, new in zip(notebook.parts, new_sources) if new != part.original]
    if not changed:
        return text, [], False
    cells = notebook.raw["cells"]
    for part, new in changed:
        cell = cells[part.cell]
        cell["source"] = split_lines(new) if isinstance(cell.get("source"), list) else new
    dumped = _dump_like(notebook.raw, text)
    relaid = dumped is None
    if relaid:
        import nbformat

        for part, new in changed:
            notebook.nb.cells[part.cell].source = new
        dumped = nbformat.writes(notebook.nb) + "\n"
    return dumped, [(part.cell + 1, part.original, new) for part, new in changed], relaid


def _error_in_cells(error: str, findings: list[Finding], parts: list[_Part]) -> str:
    """An error of the joined module, said with its cell; its findings' messages too."""
    where = next((f for f in findings if f.cell), None)
    message = _cell_relative(error, parts)
    if where is not None and "cell[" not in message:
        message = f"cell[{where.cell}] line {where.line}: {message}"
    for f in findings:
        f.message = _cell_relative(f.message, parts)
    return message


def migrate_notebook(text: str, path: str = "<notebook>.ipynb", helper_module: str | None = None) -> NotebookResult:
    """Migrate a notebook's text (its JSON). Never raises for bad input: errors go into the result."""
    result = NotebookResult(path=path, original=text, migrated=text)
    if not might_use_dali(text):
        return result
    notebook = _read_notebook(text)
    if notebook is None:
        return result
    if isinstance(notebook, tuple):
        return _fail(result, *notebook, None, 0)
    parts, magics = notebook.parts, notebook.magics
    extra = [Finding(rule=CELL_MAGIC_SKIPPED.id, path=path, line=1, cell=cell, fixed=False,
                     message=f"{magic} cell left as it is: its body is not Python the tool migrates")
             for cell, magic in notebook.skipped]
    if not parts:
        return result

    module = _join(parts)
    migrated = migrate_source(module, path, helper_module=helper_module)
    result.uses_dali = migrated.uses_dali
    result.helpers = migrated.helpers
    findings = [_map_finding(f, parts) for f in migrated.findings]
    if migrated.error:
        result.error = _error_in_cells(migrated.error, findings, parts)
        result.findings = findings
        return result

    try:
        new_sources = _split(migrated.migrated, parts)
        touched = _changed_identifiers(migrated.original, migrated.migrated)
        new_sources, marker_findings = _restore_magics(new_sources, parts, magics, touched, path)
    except _Unmappable as e:
        return _fail(result, NOTEBOOK_UNMAPPABLE.id, str(e), None, 0, keep=findings)

    result.findings = sorted(drop_restated(findings + extra + marker_findings),
                             key=lambda f: (f.cell or 0, f.line, f.column, f.rule))
    dumped, result.cells, relaid = _write_cells(notebook, text, new_sources)
    if relaid:
        result.findings.append(Finding(rule=NOTEBOOK_RELAID.id, path=path, message=NOTEBOOK_RELAID.summary))
    result.migrated = dumped
    return result


class _Unmappable(Exception):
    pass


def _fail(result, rule_id, message, cell, line, keep=()):
    result.error = message
    result.migrated = result.original
    result.findings = [*keep, Finding(rule=rule_id, message=message, path=result.path, line=line, cell=cell,
                                      fixed=False)]
    return result


def _language(raw: dict) -> str:
    metadata = raw.get("metadata") or {}
    name = (metadata.get("language_info") or {}).get("name") or (metadata.get("kernelspec") or {}).get("language")
    return (name or "python").lower()


def _source_text(source) -> str:
    return "".join(source) if isinstance(source, list) else source


# -- masking IPython syntax ------------------------------------------------------------------------

def _mask_cell(index: int, source: str, magics: dict[str, _Magic]) -> _Part:
    lines = split_lines(source)
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    masked = list(lines)
    candidates: dict[int, _Magic] = {}
    header_magics: list[_Magic] = []
    header = ""
    if first is not None and lines[first].lstrip().startswith("%%"):
        name = lines[first].strip()[2:].split(None, 1)[0] if lines[first].strip()[2:] else ""
        if name not in CODE_CELL_MAGICS:
            return _Part(cell=index, text="", original=source, skipped=True)
        # The cell magic line stays out of the module, so nothing a pass inserts can land above it.
        header = "".join(lines[:first + 1])
        has_args = len(lines[first].split(None, 1)) > 1
        if has_args and name != "capture":
            magic = _new_magic(magics, lines[first], index, first, code_runs=True)
            magics.pop(magic.token)
            magic.header = True
            header_magics.append(magic)
        lines = lines[first + 1:]
        masked = list(lines)
    offset = len(split_lines(header))
    continuation = False
    magic_indent = ""
    for i, line in enumerate(lines):
        if i in candidates:
            continue
        body = line.strip()
        # A "%" line inside brackets is a modulo, a "!" line inside a string is text: a line is IPython
        # syntax only where a logical line starts, as the tokenizer sees the (masked) cell above it.
        if continuation or (_looks_like_magic(body) and _complete("".join(masked[:i]))):
            candidates[i] = _new_magic(magics, line, index, i + offset)
            # A continuation line of a magic gets the placeholder at the magic's own indentation.
            masked[i] = _placeholder_line(line, candidates[i], indent=magic_indent if continuation else None)
            if not continuation:
                magic_indent = candidates[i].indent
            continuation = body.endswith("\\")
        else:
            continuation = False
    return _Part(cell=index, text="".join(masked), original=source, header=header, header_magics=header_magics)


def _looks_like_magic(body: str) -> bool:
    if not body or body.startswith("#"):
        return False
    if body.startswith(("%", "!")) or _ASSIGN_MAGIC_RE.match(body):
        return True
    if body.startswith("?") or body.endswith("?"):  # obj? and ?obj help; only when it is not Python
        try:
            compile(body, "<cell>", "exec", ast.PyCF_ONLY_AST)
        except SyntaxError:
            return True
    return False


def _new_magic(magics, line: str, cell: int, index: int, code_runs: bool = False) -> _Magic:
    token = _MAGIC_TOKEN.format(len(magics))
    original = line.rstrip("\r\n")
    stripped = original.strip()
    # `obj?` help evaluates `obj`: after a migration removed the import it names, it fails too.
    code_runs = code_runs or stripped.endswith("?") or stripped.startswith("?")
    magic = _Magic(token=token, original=original, cell=cell, line=index + 1, code_runs=code_runs)
    match = re.match(r"%(\w+)\s+(.*)$", stripped)
    if match and match.group(1) in CODE_LINE_MAGICS:
        code = match.group(2)
        if not code.startswith("-") and _parses(code):
            magic.code_prefix = f"%{match.group(1)} "
        else:
            magic.code_runs = True
    magics[token] = magic
    return magic


def _parses(code: str) -> bool:
    try:
        compile(code, "<magic>", "exec", ast.PyCF_ONLY_AST)
        return True
    except SyntaxError:
        return False


def _placeholder_line(line: str, magic: _Magic, indent: str | None = None) -> str:
    body = line.rstrip("\r\n")
    end = line[len(body):] or ""
    if indent is None:
        indent = body[:len(body) - len(body.lstrip())]
    magic.indent = indent
    if magic.code_prefix:
        code = body.strip()[len(magic.code_prefix):].lstrip()
        return f"{indent}{code}  # {magic.token}{end}"
    return f"{indent}{magic.token}{end}"


def _complete(text: str) -> bool:
    """True when ``text`` ends outside any bracket, string or backslash continuation."""
    try:
        for _ in tokenize.generate_tokens(io.StringIO(text).readline):
            pass
    except tokenize.TokenError:
        return False
    except (IndentationError, SyntaxError):
        return True  # broken code: the parse reports it
    return True


# -- joining and splitting -------------------------------------------------------------------------

def _join(parts: list[_Part]) -> str:
    chunks = []
    line = 1
    for k, part in enumerate(parts):
        if k:
            chunks.append(_CELL_SENTINEL.format(k) + "\n")
            line += 1
        part.start = line
        text = part.text
        if text and not text.endswith(("\n", "\r")):
            text += "\n"
            part.added_newline = True
        chunks.append(text)
        line += len(split_lines(text))
    return "".join(chunks)


def _split(module: str, parts: list[_Part]) -> list[str]:
    lines = split_lines(module)
    sentinels = {_CELL_SENTINEL.format(k) + "\n": k for k in range(1, len(parts))}
    pieces: list[list[str]] = [[]]
    for line in lines:
        k = sentinels.get(line)
        if k is not None:
            if k != len(pieces):
                raise _Unmappable(f"cell boundary {k} is out of order after migration")
            pieces.append([])
        elif "_dali_migrate_cell_" in line:
            raise _Unmappable("a cell boundary was moved or rewritten by the migration")
        else:
            pieces[-1].append(line)
    if len(pieces) != len(parts):
        raise _Unmappable("code moved across notebook cells: a cell boundary disappeared during migration")
    out = []
    for part, piece in zip(parts, pieces):
        text = "".join(piece)
        if part.skipped:
            if text:
                raise _Unmappable(f"code was moved into cell {part.cell + 1}, which holds a cell magic")
            out.append(part.original)
            continue
        if part.added_newline and text.endswith("\n"):
            text = text[:-1]
        out.append(text)
    return out


def _restore_magics(sources, parts, magics, touched: set[str], path):
    """Put the masked IPython lines back; add DM502 markers above code-running magics we could not see
    that name one of the ``touched`` identifiers (what the migration changed)."""
    findings = []
    seen: set[str] = set()
    out = []
    for part, text in zip(parts, sources):
        if part.skipped:
            out.append(text)
            continue
        lines = split_lines(text)
        new_lines = []
        for line in lines:
            found = _MAGIC_TOKEN_RE.findall(line)
            if not found:
                new_lines.append(line)
                continue
            token = _MAGIC_TOKEN.format(found[0])
            magic = magics.get(token)
            if len(found) != 1 or magic is None or token in seen or magic.cell != part.cell:
                raise _Unmappable("an IPython magic was moved or duplicated during migration")
            seen.add(token)
            body = line.rstrip("\r\n")
            end = line[len(body):]
            indent = body[:len(body) - len(body.lstrip())]
            if magic.code_prefix:
                suffix = f"  # {token}"
                if not body.endswith(suffix):
                    raise _Unmappable(f"the code of `{magic.original.strip()}` was restructured during migration")
                code = body[:-len(suffix)].strip()
                if not _parses(code):
                    raise _Unmappable(f"the code of `{magic.original.strip()}` no longer fits on one line")
                new_lines.append(f"{indent}{magic.code_prefix}{code}{end}")
                continue
            if body.strip() != token:
                raise _Unmappable(f"the IPython line `{magic.original.strip()}` was rewritten during migration")
            # A pass may have re-indented the block the magic sits in: shift the original line with it.
            if indent == magic.indent:
                restored = magic.original
            elif magic.original.startswith(magic.indent):
                restored = indent + magic.original[len(magic.indent):]
            else:
                restored = indent + magic.original.lstrip()
            previous = new_lines[-1].strip() if new_lines else ""
            already_marked = previous.startswith(marker_text(MAGIC_NOT_MIGRATED.id, "").strip())
            if magic.code_runs and (already_marked or set(_IDENT_RE.findall(magic.original)) & touched):
                message = (f"`{magic.original.strip()}` runs code the tool cannot migrate and it names what "
                           f"the migration changed: rewrite it by hand")
                if not already_marked:
                    new_lines.append(f"{indent}{marker_text(MAGIC_NOT_MIGRATED.id, message)}\n")
                findings.append(Finding(rule=MAGIC_NOT_MIGRATED.id, message=message, path=path,
                                        line=magic.line, cell=magic.cell + 1, fixed=False))
            new_lines.append(restored + end)
        new_lines = _restore_header(part, new_lines, touched, findings, path)
        out.append(part.header + "".join(new_lines))
    if len(seen) != len(magics):
        raise _Unmappable("an IPython magic disappeared during migration")
    return out, findings


def _restore_header(part, body_lines, touched, findings, path):
    """A ``%%timeit -n 3 setup()`` line runs code too: the DM502 marker goes right below it (a cell
    magic must stay on the cell's first line)."""
    for magic in part.header_magics:
        first = body_lines[0].strip() if body_lines else ""
        already_marked = first.startswith(marker_text(MAGIC_NOT_MIGRATED.id, "").strip())
        if already_marked or set(_IDENT_RE.findall(magic.original)) & touched:
            message = (f"`{magic.original.strip()}` runs code the tool cannot migrate and it names what "
                       f"the migration changed: rewrite it by hand")
            if not already_marked:
                body_lines = [marker_text(MAGIC_NOT_MIGRATED.id, message) + "\n", *body_lines]
            findings.append(Finding(rule=MAGIC_NOT_MIGRATED.id, message=message, path=path,
                                    line=magic.line, cell=magic.cell + 1, fixed=False))
    return body_lines


def _changed_identifiers(before: str, after: str) -> set[str]:
    names: set[str] = set()
    matcher = difflib.SequenceMatcher(None, before.splitlines(), after.splitlines(), autojunk=False)
    a, b = before.splitlines(), after.splitlines()
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            for line in a[i1:i2] + b[j1:j2]:
                if not _MAGIC_TOKEN_RE.search(line):
                    names.update(_IDENT_RE.findall(line.split("#", 1)[0]))
    return names


def _map_finding(finding: Finding, parts: list[_Part]) -> Finding:
    """A finding on the joined module, moved to its cell (lines counted from the cell's first line)."""
    if finding.file_level:
        return finding
    part = None
    for candidate in parts:
        if candidate.start <= finding.line:
            part = candidate
    if part is None:
        return finding
    shift = part.start - 1 - len(split_lines(part.header))
    finding.cell = part.cell + 1
    finding.line -= shift
    finding.end_line -= shift
    return finding


def _cell_relative(message: str, parts: list[_Part]) -> str:
    """``error at 10:4`` in the joined module -> ``error at cell[3] 2:4``."""
    def repl(match):
        probe = _map_finding(Finding(rule="", message="", line=int(match.group(1))), parts)
        return f"error at cell[{probe.cell}] {probe.line}:{match.group(2)}" if probe.cell else match.group(0)
    return re.sub(r"error at (\d+):(\d+)", repl, message)


def _dump_like(raw: dict, original: str) -> str | None:
    """Serialise ``raw`` in the layout ``original`` was written in, if one of the usual layouts
    reproduces the original byte for byte; None when none does."""
    unchanged = json.loads(original)
    for indent in (1, 2, 4, None):
        for ensure_ascii in (False, True):
            text = json.dumps(unchanged, indent=indent, ensure_ascii=ensure_ascii)
            for tail in ("\n", ""):
                if text + tail == original:
                    return json.dumps(raw, indent=indent, ensure_ascii=ensure_ascii) + tail
    return None
