"""Which files a run over folders takes: ``.py`` and ``.ipynb`` (or the ``include`` globs), minus
``exclude`` globs, minus what git ignores.

* In a git work tree, ``.gitignore`` is respected with git's own semantics:
  ``git ls-files --cached --others --exclude-standard`` (tracked files, plus untracked files that
  no .gitignore, ``.git/info/exclude`` or global excludes file ignores).
* Elsewhere (or without git), the ``.gitignore`` files in the folders walked are read and matched
  here: blank lines and ``#`` comments, ``!`` negation, a trailing ``/`` for folders only, patterns
  with an inner ``/`` anchored to their .gitignore's folder, ``*``, ``?``, ``[...]`` and ``**``;
  deeper files win over shallower ones, the last matching line wins, and nothing under an ignored
  folder comes back. Not read outside git: ``.git/info/exclude`` and ``core.excludesFile``.
* ``include``/``exclude`` use the same glob syntax (``*.ipynb``, ``legacy/``, ``src/**/gen_*.py``),
  relative to the configuration's folder.
* The folders every tool skips (``.git``, ``.venv``, ``__pycache__``, ``build``, ``node_modules``,
  hidden folders ...) are skipped below a folder given on the command line; a file or folder named
  explicitly is always taken (``exclude`` still applies to it, so a pre-commit hook honours it).

Output is sorted and free of repeats, so runs are deterministic.
"""

from __future__ import annotations

import os
import re
import subprocess
from functools import lru_cache
from pathlib import Path

from .config import DEFAULT_INCLUDE

SKIP_DIRS = {".git", ".hg", ".svn", ".venv", "venv", "__pycache__", ".tox", ".nox", ".mypy_cache",
             ".pytest_cache", "node_modules", "build", "dist", ".eggs", ".ipynb_checkpoints"}


class Pattern:
    """One .gitignore-syntax line, matched against ``/``-separated paths relative to ``base``."""

    __slots__ = ("negated", "dir_only", "regex", "text")

    def __init__(self, text: str):
        self.text = text
        self.negated = text.startswith("!")
        if self.negated:
            text = text[1:]
        elif text.startswith("\\!") or text.startswith("\\#"):
            text = text[1:]
        self.dir_only = text.endswith("/")
        text = text.rstrip("/")
        anchored = "/" in text
        text = text.lstrip("/")
        body = _translate(text)
        self.regex = re.compile(("" if anchored else "(?:.*/)?") + body + r"\Z", re.DOTALL)

    def matches(self, relative: str, is_dir: bool) -> bool:
        if self.dir_only and not is_dir:
            return False
        return self.regex.match(relative) is not None


@lru_cache(maxsize=4096)
def _translate(glob: str) -> str:
    out = []
    i, n = 0, len(glob)
    while i < n:
        c = glob[i]
        if glob.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif glob.startswith("/**", i) and i + 3 == n:
            out.append("/.*")
            i += 3
        elif glob.startswith("**", i):
            out.append(".*")
            i += 2
        elif c == "*":
            out.append("[^/]*")
            i += 1
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "[":
            end = glob.find("]", i + 2)
            if end == -1:
                out.append(re.escape(c))
                i += 1
            else:
                inner = glob[i + 1:end]
                if inner.startswith("!"):
                    inner = "^" + inner[1:]
                out.append("[" + inner.replace("\\", "\\\\") + "]")
                i = end + 1
        elif c == "\\" and i + 1 < n:
            out.append(re.escape(glob[i + 1]))
            i += 2
        else:
            out.append(re.escape(c))
            i += 1
    return "".join(out)


def parse_patterns(lines) -> list[Pattern]:
    patterns = []
    for raw in lines:
        line = raw.rstrip("\r\n")
        if not line.strip() or line.startswith("#"):
            continue
        stripped = line.rstrip(" ")
        if stripped.endswith("\\") and len(stripped) < len(line):
            stripped += " "  # an escaped trailing space is part of the pattern
        patterns.append(Pattern(stripped))
    return patterns


def matches_any(patterns: list[Pattern], relative: str, is_dir: bool) -> bool:
    """Globs (include/exclude): any pattern matching the path or one of its parent folders."""
    parts = relative.split("/")
    for depth in range(1, len(parts) + 1):
        prefix = "/".join(parts[:depth])
        last = depth == len(parts)
        if any(p.matches(prefix, is_dir or not last) for p in patterns if not p.negated):
            return True
    return False


class _GitIgnore:
    """The .gitignore files met while walking, deepest last (they win)."""

    def __init__(self):
        self.levels: list[tuple[str, list[Pattern]]] = []  # (folder, patterns)

    def enter(self, folder: str) -> int:
        depth = len(self.levels)
        try:
            with open(os.path.join(folder, ".gitignore"), encoding="utf-8", errors="replace") as f:
                patterns = parse_patterns(f)
        except OSError:
            patterns = []
        if patterns:
            self.levels.append((folder, _compile_level(patterns)))
        return depth

    def prefixes(self, folder: str) -> list[tuple[str, list[Pattern]]]:
        """For each level, ``folder`` relative to that level's base as a ``/``-ended prefix (once per
        folder, so the per-file check is string concatenation and regex matches only)."""
        out = []
        for base, patterns in self.levels:
            if folder == base:
                out.append(("", patterns))
            elif folder.startswith(base.rstrip(os.sep) + os.sep):
                relative = folder[len(base.rstrip(os.sep)) + 1:]
                out.append((relative.replace(os.sep, "/") + "/", patterns))
        return out

    @staticmethod
    def ignored(prefixes, name: str, is_dir: bool) -> bool:
        verdict = False
        for prefix, level in prefixes:
            relative = prefix + name
            if isinstance(level, tuple):  # no negations: one regex for files, one for folders
                any_kind, dirs_too = level
                if (dirs_too if is_dir else any_kind).match(relative):
                    verdict = True
                continue
            for pattern in level:  # in order: the last matching line wins
                if pattern.matches(relative, is_dir):
                    verdict = not pattern.negated
        return verdict


def _compile_level(patterns: list[Pattern]):
    """A level without ``!`` lines is one alternation per kind of path (ignored if any line matches);
    a level with them keeps its lines, whose order matters."""
    if any(p.negated for p in patterns):
        return patterns
    files = [p.regex.pattern for p in patterns if not p.dir_only] or ["(?!)"]
    folders = [p.regex.pattern for p in patterns]
    join = lambda parts: re.compile("|".join(f"(?:{part})" for part in parts), re.DOTALL)  # noqa: E731
    return join(files), join(folders)


def _git_files(folder: Path) -> list[Path] | None:
    """Files git would consider in ``folder`` (tracked + untracked, not ignored); None outside git."""
    try:
        inside = subprocess.run(["git", "-C", str(folder), "rev-parse", "--is-inside-work-tree"],
                                capture_output=True, text=True, timeout=30)
        if inside.returncode != 0 or inside.stdout.strip() != "true":
            return None
        # A folder named explicitly that git ignores as a whole (say a Python installed under a
        # git-managed ~/.pyenv) is still wanted: walk it, with the .gitignore files inside it.
        ignored = subprocess.run(["git", "-C", str(folder), "check-ignore", "-q", "."],
                                 capture_output=True, timeout=30)
        if ignored.returncode == 0:
            return None
        listed = subprocess.run(["git", "-C", str(folder), "ls-files", "-z", "--cached", "--others",
                                 "--exclude-standard", "--", "."], capture_output=True, timeout=120)
    except (OSError, subprocess.SubprocessError):
        return None
    if listed.returncode != 0:
        return None
    names = listed.stdout.decode("utf-8", "surrogateescape").split("\0")
    return [folder / name for name in dict.fromkeys(names) if name]


def _walk(folder: Path, gitignore: bool, exclude: list[Pattern], prefix: str):
    """Files under ``folder`` (sorted, depth first) with their ``/`` paths relative to the glob root.
    Paths are plain strings: this runs for every file, and pathlib objects cost more than the read."""
    ignore = _GitIgnore()
    resolved = folder.resolve()
    if gitignore:
        # .gitignore files above the folder (up to a filesystem root) apply too.
        for parent in reversed(resolved.parents):
            ignore.enter(str(parent))

    def visit(current: str, real: str, relative: str):
        depth = ignore.enter(real) if gitignore else len(ignore.levels)
        try:
            entries = sorted(os.scandir(current), key=lambda e: e.name)
        except OSError:
            entries = []
        prefixes = ignore.prefixes(real) if ignore.levels else []
        for entry in entries:
            is_dir = entry.is_dir(follow_symlinks=False)
            if is_dir and (entry.name in SKIP_DIRS or entry.name.startswith(".")):
                continue
            if prefixes and ignore.ignored(prefixes, entry.name, is_dir):
                continue
            child = f"{relative}{entry.name}"
            # Parent folders were checked on the way down: only the entry itself is left.
            if exclude and any(p.matches(child, is_dir) for p in exclude if not p.negated):
                continue
            if is_dir:
                yield from visit(entry.path, os.path.join(real, entry.name), child + "/")
            elif entry.is_file():
                yield entry.path, child
        del ignore.levels[depth:]

    yield from visit(str(folder), str(resolved), prefix)


def _prefix(folder: Path, root: Path) -> str:
    """``folder`` relative to ``root`` as a ``/``-ended prefix ("" when it is not under root)."""
    try:
        relative = folder.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return ""
    return "" if relative == "." else relative + "/"


def discover(paths, include=DEFAULT_INCLUDE, exclude=(), respect_gitignore: bool = True,
             root: Path | None = None) -> list[str]:
    """The files a run over ``paths`` takes (as path strings), sorted per argument, each once. A path
    that does not exist is returned as it is (the caller reports it)."""
    root = Path(root) if root is not None else Path.cwd()
    include_patterns = parse_patterns(include or DEFAULT_INCLUDE)
    exclude_patterns = parse_patterns(exclude or ())
    out: list[str] = []
    seen: set[str] = set()

    paths = list(paths)
    dedupe = len(paths) > 1  # one folder's walk never yields a file twice

    def add(path):
        if dedupe:
            key = os.path.abspath(path)  # no syscalls: this runs for every file
            if key in seen:
                return
            seen.add(key)
        out.append(str(path))

    for raw in paths:
        path = Path(raw)
        if not path.is_dir():
            relative = _prefix(path.parent, root) + path.name
            if not (path.exists() and exclude_patterns and matches_any(exclude_patterns, relative, False)):
                add(path)
            continue
        prefix = _prefix(path, root)
        files = _git_files(path) if respect_gitignore else None
        if files is not None:
            candidates = []
            for file in sorted(files):
                parts = file.relative_to(path).parts
                if any(part in SKIP_DIRS or part.startswith(".") for part in parts[:-1]):
                    continue
                relative = prefix + "/".join(parts)
                if exclude_patterns and matches_any(exclude_patterns, relative, False):
                    continue
                if file.is_file():  # not: deleted but still in the index, a submodule
                    candidates.append((file, relative))
        else:
            candidates = _walk(path, respect_gitignore, exclude_patterns, prefix)
        for file, relative in candidates:
            if _included(include_patterns, relative):
                add(file)
    return out


def _included(patterns: list[Pattern], relative: str) -> bool:
    verdict = False
    for pattern in patterns:
        if pattern.matches(relative, False):
            verdict = not pattern.negated
    return verdict
