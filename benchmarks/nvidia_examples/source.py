"""Read NVIDIA's docs examples from the user's DALI repository, at run time.

The repository is given by the user: a checkout (files are read from its working tree) or any git
repository, bare or not, read at a commit (``--commit``, or always for a bare repository). Nothing
of it is stored in this project. A notebook pair is a folder under ``docs/examples`` that holds both
``pipeline_mode.ipynb`` and the hand-written ``dynamic_mode.ipynb``.

Blobs can be missing from a partial clone or a size-limited mirror: such a file reads as ``None``
and the example is reported as not available, not as a failure of the tool.
"""

from __future__ import annotations

import posixpath
import subprocess
from dataclasses import dataclass
from pathlib import Path

EXAMPLES = "docs/examples"
PIPELINE = "pipeline_mode.ipynb"
DYNAMIC = "dynamic_mode.ipynb"
SHARED_DATA = f"{EXAMPLES}/data"  # the examples' own small data (images, one wav), in the repository


class SourceError(Exception):
    pass


@dataclass
class Entry:
    path: str  # posix, relative to the repository root
    size: int | None
    link: str | None = None  # the target of a symbolic link, as stored
    object_id: str | None = None  # git blob id (git sources)


class DaliRepo:
    """Files of a DALI repository: its working tree, or one commit of its git history."""

    def __init__(self, path, commit: str | None = None) -> None:
        self.path = Path(path)
        if not self.path.exists():
            raise SourceError(f"{path}: no such folder")
        self.git_dir = self._git_dir()
        self.commit = None
        if commit is not None or (self.git_dir is not None and not (self.path / EXAMPLES).is_dir()):
            if self.git_dir is None:
                raise SourceError(f"{path}: not a git repository, so --commit cannot be read")
            self.commit = self._git("rev-parse", "--verify", f"{commit or 'HEAD'}^{{commit}}").strip()
        elif not (self.path / EXAMPLES).is_dir():
            raise SourceError(f"{path}: no {EXAMPLES} folder (give the root of a DALI checkout)")
        self._entries = self._list()

    # -- where the files come from -------------------------------------------------------------

    def _git_dir(self) -> str | None:
        for candidate in (self.path / ".git", self.path):
            if (candidate / "HEAD").exists() and (candidate / "objects").is_dir():
                return str(candidate)
        return None

    def _git(self, *args: str, binary: bool = False):
        proc = subprocess.run(["git", "--git-dir", self.git_dir, *args], capture_output=True)
        if proc.returncode != 0:
            raise SourceError(f"git {' '.join(args)}: {proc.stderr.decode(errors='replace').strip()}")
        return proc.stdout if binary else proc.stdout.decode()

    def describe(self) -> str:
        return f"{self.path} at {self.commit[:12]}" if self.commit else f"{self.path} (working tree)"

    def _list(self) -> dict[str, Entry]:
        entries: dict[str, Entry] = {}
        if self.commit:
            listing = self._git("ls-tree", "-r", "-l", "-z", self.commit, "--", EXAMPLES, binary=True)
            for record in listing.split(b"\0"):
                if not record:
                    continue
                meta, name = record.split(b"\t", 1)
                mode, kind, object_id, size = meta.decode().split()
                if kind != "blob":
                    continue
                path = name.decode()
                entry = Entry(path, int(size) if size.isdigit() else None, object_id=object_id)
                if mode == "120000":
                    entry.link = self._blob(object_id)
                    entry.link = entry.link.decode() if entry.link is not None else None
                entries[path] = entry
        else:
            base = self.path / EXAMPLES
            for file in sorted(base.rglob("*")):
                if file.is_dir() and not file.is_symlink():
                    continue
                rel = file.relative_to(self.path).as_posix()
                link = str(Path(file).readlink()) if file.is_symlink() else None
                entries[rel] = Entry(rel, None if link else file.stat().st_size, link)
        return entries

    def _blob(self, object_id: str) -> bytes | None:
        proc = subprocess.run(["git", "--git-dir", self.git_dir, "cat-file", "blob", object_id],
                              capture_output=True)
        return proc.stdout if proc.returncode == 0 else None

    # -- reading --------------------------------------------------------------------------------

    def files_under(self, folder: str) -> list[str]:
        prefix = folder.rstrip("/") + "/"
        return sorted(p for p in self._entries if p.startswith(prefix))

    def resolve(self, path: str, depth: int = 0) -> str:
        """Follow symbolic links (relative ones, inside the repository) to the file they name."""
        entry = self._entries.get(path)
        if entry is None or entry.link is None or depth > 8:
            return path
        return self.resolve(posixpath.normpath(posixpath.join(posixpath.dirname(path), entry.link)), depth + 1)

    def read(self, path: str) -> bytes | None:
        """The bytes of ``path`` (links followed); None where the file or its blob is missing."""
        path = self.resolve(path)
        entry = self._entries.get(path)
        if entry is None or entry.link is not None:
            return None
        if self.commit:
            return self._blob(entry.object_id)
        try:
            return (self.path / path).read_bytes()
        except OSError:
            return None

    def pairs(self) -> list[str]:
        """Folders (relative to docs/examples) holding both notebooks, sorted."""
        found = []
        for path in self._entries:
            if path.endswith("/" + PIPELINE):
                folder = posixpath.dirname(path)
                if f"{folder}/{DYNAMIC}" in self._entries:
                    found.append(posixpath.relpath(folder, EXAMPLES))
        return sorted(found)

    def extract_example(self, example: str, project: Path, notebook: str = PIPELINE) -> list[str]:
        """Write the example's folder (one of its notebooks, ``pipeline_mode.ipynb`` by default, and
        the small files beside it, links followed, no other notebook) and the examples' shared data
        folder into ``project`` with the repository's layout. Returns the files that could not be read."""
        folder = f"{EXAMPLES}/{example}"
        wanted = [f"{folder}/{notebook}"]
        wanted += [p for p in self.files_under(folder)
                   if posixpath.dirname(p) == folder and not p.endswith(".ipynb")]
        wanted += [p for p in self.files_under(SHARED_DATA) if not p.endswith(".ipynb")]
        missing = []
        for path in wanted:
            data = self.read(path)
            if data is None:
                missing.append(path)
                continue
            target = project / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        return missing
