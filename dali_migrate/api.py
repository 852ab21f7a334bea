"""The public Python API. The CLI and the MCP server are thin layers over these functions."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .engine import MigrationResult, migrate_source
from .files import SourceError, atomic_write, iter_source_files, read_source
from .findings import Finding
from .project import scan_project

# Exit codes (the CLI contract in DESIGN.md).
EXIT_CLEAN = 0  # nothing left to do
EXIT_PENDING = 1  # changes pending, or manual follow-ups remain
EXIT_ERROR = 2  # usage, I/O or parse errors


@dataclass
class RunResult:
    files: list[MigrationResult] = field(default_factory=list)
    written: list[str] = field(default_factory=list)

    @property
    def errors(self) -> list[MigrationResult]:
        return [f for f in self.files if f.error]

    def exit_code(self, wrote: bool = False) -> int:
        if self.errors:
            return EXIT_ERROR
        if any(f.manual for f in self.files):
            return EXIT_PENDING
        if not wrote and any(f.changed for f in self.files):
            return EXIT_PENDING
        return EXIT_CLEAN

    def summary(self) -> dict:
        statuses: dict[str, int] = {}
        for f in self.files:
            statuses[f.status] = statuses.get(f.status, 0) + 1
        return {
            "files": len(self.files),
            "changed": sum(f.changed for f in self.files),
            "written": len(self.written),
            "errors": len(self.errors),
            "manual_findings": sum(len(f.manual) for f in self.files),
            "statuses": dict(sorted(statuses.items())),
        }


def migrate_file(path: Path, display: str | None = None, project=None) -> MigrationResult:
    name = display or str(path)
    try:
        source = read_source(path)
    except (SourceError, OSError) as e:
        result = MigrationResult(path=name, original="", migrated="")
        reason = str(e) if isinstance(e, SourceError) else f"cannot read: {e.strerror or e}"
        result.error = reason
        result.findings = [Finding(rule="DM001", message=reason, path=name, fixed=False)]
        return result
    return migrate_source(source, name, project=project)


def migrate_paths(paths, write: bool = False) -> RunResult:
    """Migrate every Python file under ``paths``; write changed files only when ``write``.

    A file that fails (unreadable, unparsable, a pass error) is reported and left untouched; the
    other files are still done.
    """
    run = RunResult()
    project = scan_project(paths)  # cross-module: pipelines defined in one file, used in another
    for path in iter_source_files(paths):
        if not path.exists():
            result = MigrationResult(path=str(path), original="", migrated="")
            result.error = "no such file or directory"
            result.findings = [Finding(rule="DM001", message=result.error, path=str(path), fixed=False)]
            run.files.append(result)
            continue
        result = migrate_file(path, project=project)
        run.files.append(result)
        if write and result.changed:
            try:
                atomic_write(path, result.migrated)
                run.written.append(str(path))
            except OSError as e:
                result.error = f"cannot write: {e.strerror or e}"
    return run


__all__ = ["migrate_source", "migrate_file", "migrate_paths", "MigrationResult", "RunResult", "Finding",
           "EXIT_CLEAN", "EXIT_PENDING", "EXIT_ERROR"]
