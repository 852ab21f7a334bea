"""Finding, reading and writing source files safely."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

SOURCE_SUFFIXES = (".py", ".ipynb")  # notebooks: see notebooks.py
# The tool's own folder in a workspace. ``originals/<path>`` keeps a file's text from before a write
# (the MCP server's ``migrate_paths(write=true)``), so it can be verified against and reviewed later.
# A hidden folder: every folder walk (here and in discovery.py) skips it.
STATE_DIR = ".dali-migrate"
ORIGINALS_DIR = f"{STATE_DIR}/originals"
_SKIP_DIRS = {".git", ".hg", ".svn", ".venv", "venv", "__pycache__", ".tox", ".nox", ".mypy_cache",
              ".pytest_cache", "node_modules", "build", "dist", ".eggs"}


class SourceError(Exception):
    """A file that cannot be read as UTF-8 text."""

    def __init__(self, message: str, line: int = 0):
        super().__init__(message)
        self.line = line


def iter_source_files(paths, suffixes=SOURCE_SUFFIXES):
    """Yield files under ``paths`` (files as given, folders recursively, sorted), each once."""
    seen = set()
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            for root, dirs, files in os.walk(path):
                dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS and not d.startswith("."))
                for name in sorted(files):
                    if name.endswith(suffixes):
                        candidate = Path(root) / name
                        if candidate not in seen:
                            seen.add(candidate)
                            yield candidate
        elif path not in seen:
            seen.add(path)
            yield path


_READ_FLAGS = os.O_RDONLY | getattr(os, "O_BINARY", 0)


def read_bytes(path: str) -> bytes:
    """The file's bytes, as ``open(path, "rb").read()`` gives them (and the same OSError), through
    os.open/os.read: no file object, no buffer, no isatty/seek calls. A scan reads every file of a
    tree, and open() costs about half as much again as the reading itself."""
    fd = os.open(path, _READ_FLAGS)
    try:
        size = os.fstat(fd).st_size
        data = os.read(fd, size + 1)  # one byte more than stat says, to see the end without a read
        if len(data) == size:
            return data  # the size stat gave, and no more: the whole file
        chunks = [data]  # grown, shrunk, or not a regular file (a pipe, /proc): read to the end
        while data:
            data = os.read(fd, max(size, 65536))
            chunks.append(data)
        return b"".join(chunks)
    finally:
        os.close(fd)


def read_source(path: Path) -> str:
    """The file's text exactly as stored (newlines untranslated)."""
    return decode_source(Path(path).read_bytes())


def decode_source(data: bytes) -> str:
    """UTF-8 text with newlines untranslated, or SourceError saying where it is not UTF-8."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise SourceError(f"not UTF-8 (byte {e.start}: {e.reason})", line) from e


def _new_file_mode() -> int:
    """The mode ``open()`` gives a new file (0o666 less the umask), not mkstemp's private 0o600."""
    umask = os.umask(0o022)
    os.umask(umask)
    return 0o666 & ~umask


def atomic_write(path: Path, text: str) -> None:
    """Write through a temporary file in the same folder and rename it over the original, so a
    crash never leaves a half-written file; the file's permission bits are kept."""
    # Write through a symbolic link to its target; replacing the link itself would cut it.
    path = Path(os.path.realpath(path))
    mode = path.stat().st_mode & 0o7777 if path.exists() else _new_file_mode()
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".dali-migrate.tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def kept_original(root: Path, relative: str) -> Path:
    """Where the original of ``relative`` (a path below ``root``) is kept when the file is written."""
    return Path(root) / ORIGINALS_DIR / relative


def state_dir(root: Path) -> Path:
    """The tool's folder in ``root``, made if needed, with its own ``.gitignore`` (``*``) so git leaves
    it alone without the user editing theirs."""
    state = Path(root) / STATE_DIR
    state.mkdir(exist_ok=True)
    ignore = state / ".gitignore"
    if not ignore.exists():
        ignore.write_text("# dali-migrate: originals kept from before its writes, scratch copies; not for version "
                          "control\n*\n", encoding="utf-8")
    return state


def keep_original(root: Path, relative: str, text: str) -> Path:
    """Keep ``text``, the file's content just before a write, as its original (with the file's mode).
    A state folder that a symbolic link leads out of ``root`` is refused (OSError): the write would land
    there."""
    target = kept_original(root, relative)
    state = Path(root).resolve() / STATE_DIR
    if state not in target.resolve().parents:
        raise OSError(f"{target} leads out of {state} (a symbolic link); remove the link")
    state_dir(root)
    target.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(target, text)
    if (Path(root) / relative).exists():
        shutil.copymode(Path(root) / relative, target)
    return target


def module_name_of(path) -> str:
    """The dotted name the module at ``path`` is imported by, the one spelling every part of the tool uses:
    ``a/b/pkg/sub/mod.py`` -> ``pkg.sub.mod`` (up to the first folder without ``__init__.py``),
    ``pkg/__init__.py`` -> ``pkg``, a file outside any package -> its stem (``train.py`` -> ``train``). A path
    not on disk has no packages to find: ``pkg/__init__.py`` there is still ``pkg``."""
    path = Path(path).resolve()
    parts = [] if path.stem == "__init__" else [path.stem]
    folder = path.parent
    while (folder / "__init__.py").exists():
        parts.insert(0, folder.name)
        folder = folder.parent
    if not parts:  # an __init__.py the disk does not show inside its package
        parts = [path.parent.name or path.stem]
    return ".".join(parts)
