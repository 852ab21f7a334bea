"""The workspace an MCP server serves: paths under one root (everything else is refused), the pieces every
tool shares (findings as output models, size checks, the project of a call), and notebooks' code cells."""

from __future__ import annotations

import os
from pathlib import Path


from ..engine import MigrationResult
from ..files import ORIGINALS_DIR, STATE_DIR, iter_source_files, kept_original
from .models import FindingOut, MAX_FILES, MAX_SOURCE_BYTES, ToolFailure


# -- the workspace ------------------------------------------------------------------------------

class Workspace:
    """Paths under one root; everything else is refused."""

    def __init__(self, root: str | Path):
        self.root = Path(root).resolve()
        if not self.root.is_dir():
            raise ValueError(f"workspace root is not a folder: {root}")

    def inside(self, path: Path) -> bool:
        return path == self.root or self.root in path.parents

    def resolve(self, path: str) -> Path:
        if "\x00" in path:
            raise ToolFailure(f"path {path!r} contains a NUL byte; pass a plain path relative to the workspace root")
        candidate = (self.root / path).resolve()  # follows symlinks: a link out ends up outside
        if not self.inside(candidate):
            raise ToolFailure(f"path {path!r} is outside the workspace root {self.root} (or a link out of it); "
                              f"pass a path below the root, relative to it (server_info shows the root)")
        if not candidate.exists():
            raise ToolFailure(f"no such file or folder in the workspace: {path!r} (paths are relative to "
                              f"{self.root}); migrate_paths with paths=['.'] lists the DALI files")
        return candidate

    def relative(self, path: Path) -> str:
        return path.resolve().relative_to(self.root).as_posix()

    def source_files(self, paths: list[str]) -> list[Path]:
        resolved = [self.resolve(p) for p in paths]
        files = []
        for f in iter_source_files(resolved):
            real = f.resolve()
            if not self.inside(real):
                raise ToolFailure(f"{self.relative_lexically(f)} is a symbolic link that leaves the workspace root; "
                                  f"name the files or folders to use without it")
            files.append(real)
            if len(files) > MAX_FILES:
                raise ToolFailure(f"more than {MAX_FILES} source files under {paths}; pass narrower paths "
                                  f"(sub-folders or files)")
        return files

    def relative_lexically(self, path: Path) -> str:
        try:
            return Path(os.path.abspath(path)).relative_to(self.root).as_posix()
        except ValueError:
            return str(path)

    def in_state_dir(self, path: Path) -> bool:
        return (self.root / STATE_DIR) in path.parents

    def refuse_state_writes(self, paths: list[str]) -> None:
        """The kept originals are never rewritten (by a migration or lint fixes)."""
        for path in paths:
            target = self.resolve(path)
            if target == self.root / STATE_DIR or self.in_state_dir(target):
                raise ToolFailure(f"{path!r} is in {STATE_DIR}/, where writes keep the originals; write the "
                                  f"workspace files themselves (their paths without {ORIGINALS_DIR}/)")

    def kept_original(self, path: Path) -> Path | None:
        """The original a write kept of a workspace file, when the file still differs from it (a file put
        back as it was has nothing to compare with), and the kept copy is a file inside the root."""
        if self.in_state_dir(path):
            return None
        kept = kept_original(self.root, self.relative(path))
        if not (kept.is_file() and self.inside(kept.resolve())):
            return None
        return kept if kept.read_bytes() != path.read_bytes() else None


# -- shared pieces --------------------------------------------------------------------------------

def finding_out(f) -> FindingOut:
    return FindingOut(rule=f.rule, severity=f.severity, line=f.line, column=f.column, cell=f.cell, fixed=f.fixed,
                      file_level=f.file_level or None, message=f.message)


def findings_out(findings, detail: str) -> tuple[list[FindingOut], dict[str, int] | None]:
    """(findings to list, rewrites per rule): at summary only what a person must act on is listed."""
    if detail == "full":
        return [finding_out(f) for f in findings], None
    rewrites: dict[str, int] = {}
    for f in findings:
        if f.fixed:
            rewrites[f.rule] = rewrites.get(f.rule, 0) + 1
    return [finding_out(f) for f in findings if not f.fixed], dict(sorted(rewrites.items())) or None


def finding_place(f) -> str:
    return f"cell[{f.cell}] line {f.line}" if f.cell else f"line {f.line}"


def manual_lines(path: str, findings, limit: int = 5) -> list[str]:
    manual = [f for f in findings if not f.fixed]
    lines = [f"    {path} {finding_place(f)}: {f.rule} {f.message}" for f in manual[:limit]]
    if len(manual) > limit:
        lines.append(f"    ... {len(manual) - limit} more (see structured content)")
    return lines


def check_size(source: str) -> None:
    if len(source.encode("utf-8", "surrogatepass")) > MAX_SOURCE_BYTES:
        raise ToolFailure(f"source is larger than {MAX_SOURCE_BYTES} bytes; pass one module or function at a time, "
                          f"or put the file in the workspace and use the *_paths tools on it")


def refuse_error(result, filename: str) -> None:
    """A snippet that does not parse cannot be migrated or linted: say where, and what to do."""
    if result.error:
        finding = result.findings[0] if result.findings else None
        place = finding_place(finding) if finding else "line 1"
        raise ToolFailure(f"{filename} {place}: {result.error}; fix the source (it must be valid Python 3 that "
                          f"libcst can parse) and call again")


def is_notebook(name: str) -> bool:
    return name.endswith(".ipynb")


TOO_BIG = f"larger than {MAX_SOURCE_BYTES} bytes; skipped (split the file, or migrate it with the CLI)"


def too_big(path: Path) -> bool:
    return path.stat().st_size > MAX_SOURCE_BYTES


def too_big_result(rel: str) -> MigrationResult:
    result = MigrationResult(path=rel, original="", migrated="")
    result.error = TOO_BIG
    return result


def project_for(files: list[Path], read_from: dict[Path, Path] | None = None):
    """The CLI's project pre-scan: pipelines one file defines and another uses migrate on both sides.
    ``read_from``: files whose text is read elsewhere (a kept original) but scanned under their own path,
    so that module names come from where the file lives."""
    from ..files import SourceError, read_source
    from ..project import Project, scan_source

    project = Project()
    for path in files:
        if not too_big(path) and not is_notebook(path.name):
            try:
                scan_source(read_source((read_from or {}).get(path, path)), str(path), project)
            except (SourceError, OSError):
                continue  # the migration reports it
    return project


def pipelines_by_file(workspace: Workspace, project) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for p in project.pipelines.values():
        found.setdefault(workspace.relative(Path(p.path)), []).append(_signature(p))
    return found


def _signature(p) -> str:
    return f"{p.name}({', '.join(p.params)})" if p.style != "object" else p.name


def notebook_pipelines(text: str, rel: str) -> list[str] | None:
    """The pipelines a notebook's code cells define (the pre-scan, over its cells joined)."""
    from ..project import Project, scan_source

    try:
        code = notebook_cells(text, rel)
    except ToolFailure:
        return None
    project = Project()
    scan_source(NotebookCells(code, sorted(code)).text if code else "", rel, project)
    return [_signature(p) for p in project.pipelines.values()] or None


# -- notebooks' code cells -------------------------------------------------------------------------

def notebook_cells(text: str, path: str) -> dict[int, str]:
    """``{cell number: Python code}`` of a notebook's code cells, as they run without Jupyter (the way
    ``verify_program`` runs notebooks, ``harness.run_notebook``): magic and shell lines become ``pass``,
    ``%time STMT`` runs STMT, and cells under a cell magic other than %%time/%%capture are left out.
    Cell numbers count every cell, as findings do."""
    from ..harness.run_notebook import RUN_CELL_MAGICS, cell_magic, code_cells, python_of_cell

    try:
        cells = code_cells(text)
    except ValueError as e:
        raise ToolFailure(f"{path} is not a readable notebook ({e}); re-save it in Jupyter") from None
    return {number: python_of_cell(source) for number, source in cells
            if cell_magic(source) in (None, *RUN_CELL_MAGICS)}


class NotebookCells:
    """The chosen cells of a notebook joined into one module, and the way back from its lines to cells."""

    def __init__(self, code: dict[int, str], numbers: list[int]):
        self.starts: list[tuple[int, int]] = []  # (first module line, cell number)
        chunks, line = [], 1
        for number in numbers:
            text = code[number] if code[number].endswith("\n") else code[number] + "\n"
            self.starts.append((line, number))
            chunks.append(text)
            line += text.count("\n")
        self.text = "".join(chunks)

    def where(self, line: int) -> str:
        start, number = max((s for s in self.starts if s[0] <= line), default=self.starts[0])
        return f"cell[{number}] line {line - start + 1}"


