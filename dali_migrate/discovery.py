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
  hidden folders, so ``.dali-migrate/`` where writes keep originals ...) are skipped below a folder
  given on the command line; a file or folder named explicitly is always taken (``exclude`` still
  applies to it, so a pre-commit hook honours it).

Output is sorted and free of repeats, so runs are deterministic.

Globs are narrowed per folder (``_Lines``): a line that cannot match any entry of a folder is dropped
there and the others become tests on the entry's name where that is exact, so most entries of a large
tree cost a set lookup or a suffix test (tests/test_discovery_fast.py holds this to the plain rule:
every line's regex on the whole path, in order).
"""

from __future__ import annotations

import errno
import os
import re
import stat
import subprocess
from functools import lru_cache
from pathlib import Path

from .config import DEFAULT_INCLUDE

SKIP_DIRS = {".git", ".hg", ".svn", ".venv", "venv", "__pycache__", ".tox", ".nox", ".mypy_cache",
             ".pytest_cache", "node_modules", "build", "dist", ".eggs", ".ipynb_checkpoints"}


class Pattern:
    """One .gitignore-syntax line, matched against ``/``-separated paths relative to ``base``."""

    __slots__ = ("negated", "dir_only", "regex", "text", "glob", "anchored", "_shape")

    def __init__(self, text: str):
        self.text = text
        self.negated = text.startswith("!")
        if self.negated:
            text = text[1:]
        elif text.startswith("\\!") or text.startswith("\\#"):
            text = text[1:]
        self.dir_only = text.endswith("/")
        text = text.rstrip("/")
        self.anchored = anchored = "/" in text
        self.glob = text = text.lstrip("/")
        body = _translate(text)
        self.regex = re.compile(("" if anchored else "(?:.*/)?") + body + r"\Z", re.DOTALL)
        self._shape = None

    def matches(self, relative: str, is_dir: bool) -> bool:
        if self.dir_only and not is_dir:
            return False
        return self.regex.match(relative) is not None

    def shape(self):
        """``(depth, folder_regex, name_test)`` when no wildcard of the glob can match a ``/`` (no
        ``**``, ``[...]`` or escapes), else None. Then a path matches exactly when it has ``depth``
        slashes (depth None: any number), its folder part matches ``folder_regex`` (anchored globs
        with a folder part) and its last part matches ``name_test`` (see ``_name_test``)."""
        if self._shape is None:
            glob = self.glob
            if "**" in glob or "[" in glob or "\\" in glob:
                self._shape = ()
            else:
                folder, _, name = glob.rpartition("/")
                depth = glob.count("/") if self.anchored else None
                folder_regex = re.compile(_translate(folder) + r"/\Z", re.DOTALL) if folder else None
                self._shape = (depth, folder_regex, _name_test(name))
        return self._shape or None


def _name_test(glob: str) -> tuple[int, object]:
    """A ``/``-free glob as the cheapest test on a name: (EQUALS, text), (ENDSWITH, suffix) or
    (REGEX, compiled)."""
    if "*" not in glob and "?" not in glob:
        return (EQUALS, glob)
    if glob.startswith("*") and "*" not in glob[1:] and "?" not in glob:
        return (ENDSWITH, glob[1:])
    return (REGEX, re.compile(_translate(glob) + r"\Z", re.DOTALL))


EQUALS, ENDSWITH, REGEX, PATH_REGEX = range(4)


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


class _Lines:
    """Glob lines read once, narrowed per folder (``narrow``) to the lines that can match an entry of
    that folder, each as its cheapest test. Exact: a line is dropped only when its shape rules out
    every path of the folder (an anchored glob with another number of ``/``, or whose folder part
    does not match), and a name test replaces the regex only where the two agree on every name."""

    __slots__ = ("lines", "constant")

    def __init__(self, patterns: list[Pattern]):
        # (negated, dir_only, kind, value, depth, folder_regex)
        self.lines = []
        for p in patterns:
            shape = p.shape()
            if shape is None:
                self.lines.append((p.negated, p.dir_only, PATH_REGEX, p.regex, None, None))
            else:
                depth, folder_regex, (kind, value) = shape
                self.lines.append((p.negated, p.dir_only, kind, value, depth, folder_regex))
        # Only unanchored /-free globs: the same tests in every folder.
        self.constant = None
        if all(kind != PATH_REGEX and depth is None for _, _, kind, _, depth, _ in self.lines):
            self.constant = tuple((negated, dir_only, kind, value, "")
                                  for negated, dir_only, kind, value, _, _ in self.lines)

    def narrow(self, prefix: str) -> tuple[tuple, ...]:
        """(negated, dir_only, kind, value, prefix) for each line that can match ``prefix + name``;
        prefix is "" but for PATH_REGEX lines, so folders whose tests agree get equal tuples."""
        if self.constant is not None:
            return self.constant
        out = []
        slashes = prefix.count("/")
        for negated, dir_only, kind, value, depth, folder_regex in self.lines:
            if depth is not None:
                if depth != slashes or (folder_regex is not None and folder_regex.match(prefix) is None):
                    continue
            out.append((negated, dir_only, kind, value, prefix if kind == PATH_REGEX else ""))
        return tuple(out)


class _Rules:
    """Narrowed lines of one folder (``_Lines.narrow``, concatenated in order): ``decide`` gives the
    last matching line's verdict; without ``!`` lines ``hit`` says whether any line matches.
    ``_Rules.of`` keeps one per distinct tuple of tests (most folders of a tree share theirs)."""

    __slots__ = ("tests", "ordered", "files", "dirs")

    def __init__(self, tests: tuple[tuple, ...]):
        self.tests = tests
        self.ordered = any(t[0] for t in tests)
        self.files = self._split([t for t in tests if not t[1]])
        self.dirs = self._split(tests)

    @staticmethod
    def of(tests: tuple[tuple, ...], cache: dict) -> _Rules | None:
        """The rules for ``tests`` (None when there are none), from ``cache`` when seen before."""
        if not tests:
            return None
        rules = cache.get(tests)
        if rules is None:
            rules = cache[tests] = _Rules(tests)
        return rules

    @staticmethod
    def _split(tests):
        names = frozenset(value for _, _, kind, value, _ in tests if kind == EQUALS)
        suffixes = tuple(value for _, _, kind, value, _ in tests if kind == ENDSWITH)
        regexes = tuple(value for _, _, kind, value, _ in tests if kind == REGEX)
        paths = tuple((value, prefix) for _, _, kind, value, prefix in tests if kind == PATH_REGEX)
        return names, suffixes, regexes, paths

    def hit(self, name: str, is_dir: bool) -> bool:
        """Whether any line matches (the verdict when no line is negated)."""
        names, suffixes, regexes, paths = self.dirs if is_dir else self.files
        if name in names or name.endswith(suffixes):
            return True
        if regexes and any(r.match(name) for r in regexes):
            return True
        return bool(paths) and any(r.match(prefix + name) for r, prefix in paths)

    def decide(self, name: str, is_dir: bool, default: bool = False) -> bool:
        """The last matching line's verdict (``not negated``), ``default`` when none matches."""
        if not self.ordered:
            return True if self.hit(name, is_dir) else default
        for negated, dir_only, kind, value, prefix in reversed(self.tests):
            if dir_only and not is_dir:
                continue
            if kind == EQUALS:
                found = name == value
            elif kind == ENDSWITH:
                found = name.endswith(value)
            elif kind == REGEX:
                found = value.match(name) is not None
            else:
                found = value.match(prefix + name) is not None
            if found:
                return not negated
        return default


class _GitIgnore:
    """The .gitignore files met while walking, deepest last (they win)."""

    def __init__(self):
        self.levels: list[tuple[str, _Lines]] = []  # (folder, lines)

    def enter(self, folder: str) -> None:
        try:
            with open(os.path.join(folder, ".gitignore"), encoding="utf-8", errors="replace") as f:
                patterns = parse_patterns(f)
        except OSError:
            patterns = []
        if patterns:
            self.levels.append((folder, _Lines(patterns)))

    def rules(self, folder: str, cache: dict) -> _Rules | None:
        """Every level's lines that can match an entry of ``folder`` (None when there are none)."""
        tests = ()
        for base, lines in self.levels:
            if folder == base:
                tests += lines.narrow("")
            elif folder.startswith(base.rstrip(os.sep) + os.sep):
                relative = folder[len(base.rstrip(os.sep)) + 1:]
                tests += lines.narrow(relative.replace(os.sep, "/") + "/")
        return _Rules.of(tests, cache)


def _walk(folder: Path, gitignore: bool, include: _Lines, exclude: _Lines, prefix: str) -> list[str]:
    """Files under ``folder`` (sorted, depth first) that ``include`` takes and neither .gitignore
    nor ``exclude`` drops; globs match ``/`` paths relative to the glob root (``prefix``: the
    folder's). Paths are plain strings: this runs for every file, and pathlib objects cost more than
    the read. Each folder's glob lines are narrowed once (``_Lines.narrow``), so most entries get a
    name test or none."""
    ignore = _GitIgnore()
    resolved = folder.resolve()
    if gitignore:
        # .gitignore files above the folder (up to a filesystem root) apply too.
        for parent in reversed(resolved.parents):
            ignore.enter(str(parent))
    out: list[str] = []
    cache: dict = {}

    def visit(current: str, real: str, relative: str):
        try:
            with os.scandir(current) as listing:
                entries = {entry.name: entry for entry in listing}
        except OSError:
            entries = {}
        depth = len(ignore.levels)
        if gitignore and ".gitignore" in entries:  # no listing entry: no file to open
            ignore.enter(real)
        ignored = ignore.rules(real, cache) if ignore.levels else None
        excluded = _Rules.of(exclude.narrow(relative), cache)
        taken = _Rules.of(include.narrow(relative), cache)
        for name in sorted(entries):
            entry = entries[name]
            is_dir = entry.is_dir(follow_symlinks=False)
            if is_dir:
                if name in SKIP_DIRS or name.startswith("."):
                    continue
            elif taken is None or not taken.decide(name, False):
                continue  # include first: the cheapest test, and the one that drops most files
            if ignored and ignored.decide(name, is_dir):
                continue
            # Parent folders were checked on the way down: only the entry itself is left.
            if excluded and excluded.hit(name, is_dir):
                continue
            if is_dir:
                visit(entry.path, os.path.join(real, name), f"{relative}{name}/")
            elif _entry_is_file(entry):
                out.append(entry.path)
        del ignore.levels[depth:]

    visit(str(folder), str(resolved), prefix)
    return out


def _git_files(folder: Path) -> list[str] | None:
    """Files git would consider in ``folder`` (tracked + untracked, not ignored), as ``/`` paths
    relative to it; None outside git."""
    try:
        # A folder named explicitly that git ignores as a whole (say a Python installed under a
        # git-managed ~/.pyenv) is still wanted: walk it, with the .gitignore files inside it.
        # check-ignore answers both questions in one process: 0 ignored, 1 not ignored (so inside
        # a work tree); anything else (128 outside a work tree) is asked of rev-parse.
        ignored = subprocess.run(["git", "-C", str(folder), "check-ignore", "-q", "."],
                                 capture_output=True, timeout=30)
        if ignored.returncode == 0:
            return None
        if ignored.returncode != 1:
            inside = subprocess.run(["git", "-C", str(folder), "rev-parse", "--is-inside-work-tree"],
                                    capture_output=True, text=True, timeout=30)
            if inside.returncode != 0 or inside.stdout.strip() != "true":
                return None
        listed = subprocess.run(["git", "-C", str(folder), "ls-files", "-z", "--cached", "--others",
                                 "--exclude-standard", "--", "."], capture_output=True, timeout=120)
    except (OSError, subprocess.SubprocessError):
        return None
    if listed.returncode != 0:
        return None
    names = listed.stdout.decode("utf-8", "surrogateescape").split("\0")
    return [name for name in dict.fromkeys(names) if name]


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
    include_lines = _Lines(parse_patterns(include or DEFAULT_INCLUDE))
    exclude_patterns = parse_patterns(exclude or ())
    exclude_lines = _Lines([p for p in exclude_patterns if not p.negated])
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
        if prefix and exclude_patterns and matches_any(exclude_patterns, prefix[:-1], True):
            continue  # a folder named explicitly is excluded like a file named explicitly (both paths)
        names = _git_files(path) if respect_gitignore else None
        if names is not None:
            files = _git_candidates(path, names, prefix, include_lines, exclude_lines)
        else:
            files = _walk(path, respect_gitignore, include_lines, exclude_lines, prefix)
        for file in files:
            add(file)
    return out


def _git_candidates(folder: Path, names: list[str], prefix: str, include: _Lines, exclude: _Lines) -> list[str]:
    """The files of git's list (``/`` paths relative to ``folder``) that the globs take, in the
    order of their paths' parts (as sorting Path objects gives). Each folder's verdict (skipped,
    excluded) and narrowed glob lines are worked out once."""
    base = str(folder)
    # The strings Path(base) / name gives, without the Path objects.
    join = (lambda name: name) if base == "." else (lambda name: os.path.join(base, name))
    folders: dict[str, tuple[_Rules | None, _Rules | None] | None] = {}  # folder -> rules, None: dropped
    cache: dict = {}
    out = []
    for name in sorted(names, key=lambda name: name.split("/")):
        parent, _, leaf = name.rpartition("/")
        rules = folders.get(parent, False)
        if rules is False:
            rules = folders[parent] = _folder_rules(parent, prefix, include, exclude, cache)
        if rules is None:
            continue
        taken, excluded = rules
        if taken is None or not taken.decide(leaf, False) or (excluded and excluded.hit(leaf, False)):
            continue
        path = join(name)
        if _is_file(path):  # not: deleted but still in the index, a submodule
            out.append(path)
    return out


def _folder_rules(parent: str, prefix: str, include: _Lines, exclude: _Lines, cache: dict):
    """For files listed in ``parent`` (``/`` path below the searched folder, whose own path is
    ``prefix``): None when a skipped folder is on the way below the searched folder, or ``exclude``
    drops a folder of the whole path (as ``matches_any`` does), else (include rules, exclude rules
    or None)."""
    below = parent.split("/") if parent else []
    if any(part in SKIP_DIRS or part.startswith(".") for part in below):
        return None
    relative = ""
    for part in [*prefix.split("/")[:-1], *below]:  # every folder of the path, shallowest first
        excluded = _Rules.of(exclude.narrow(relative), cache)
        if excluded and excluded.hit(part, True):
            return None
        relative += part + "/"
    return _Rules.of(include.narrow(relative), cache), _Rules.of(exclude.narrow(relative), cache)


def _entry_is_file(entry) -> bool:
    """``entry.is_file()``, but a listed entry that cannot be looked at is taken (reported when read)."""
    try:
        return entry.is_file()
    except OSError:
        return True


def _is_file(path: str) -> bool:
    """``Path(path).is_file()`` without the Path object: False for the errors pathlib ignores. A file
    git lists but that cannot be looked at (permission denied) is taken: reading it then fails, and
    the run reports that file with its reason instead of stopping."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except ValueError:
        return False
    except OSError as e:
        if e.errno in (errno.ENOENT, errno.ENOTDIR, errno.EBADF, errno.ELOOP) or \
                getattr(e, "winerror", None) in (21, 123, 1921):
            return False
        return True
