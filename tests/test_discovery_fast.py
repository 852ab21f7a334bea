"""The fast paths of discovery and reading select exactly what the general ones do.

discovery narrows each folder's glob lines (.gitignore, include, exclude) to the lines that can match
there, as name tests where it can (``_Lines``/``_Rules``); these tests hold it to the plain rule
(every ``Pattern.matches`` in order, the last matching line decides) on random globs and paths, and
the whole walk and the git-list path to straightforward re-implementations of the code they
replaced, on random trees with nested .gitignore files, ``!`` lines, and include/exclude globs.
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from dali_migrate.discovery import (SKIP_DIRS, Pattern, _git_candidates, _Lines, _prefix, _Rules, discover,
                                    matches_any, parse_patterns)
from dali_migrate.files import read_bytes

NAMES = ["a", "b", "ab", "a.py", "b.py", "x.gen.py", "m.ipynb", "n.txt", "#h.py", "!x.py", "d-1", "build",
         "src", "a*b", "[x]", "q?", "a\\b", "keep.py", "lib", "é.py", " s.py", "a.py ", ".hid", "venv"]
GLOBS = ["a", "b", "*.py", "*", "?", "a*", "*b", "a?.py", "*.gen.py", "a/b", "/a", "a/*.py", "/a/*/b.py",
         "src/*", "**/b", "a/**", "a/**/b.py", "**", "**/*.py", "[ab].py", "[!a]*", "\\#h.py", "\\!x.py",
         "a\\*b", "d-1", "/build", "?/b.py", "lib/a.py", "*/a.py", "/src/a/", "a/b/*", "é.py", "x*y*z",
         "*.py ", "\\ s.py", "[x]", "q?", "/*.py", "src/**/a.py", "*.p?", "*?", "a/*.p?"]


def random_line(rng: random.Random) -> str:
    line = rng.choice(GLOBS)
    if rng.random() < 0.25:
        line += "/"
    if rng.random() < 0.25:
        line = "!" + line
    return line


def plain_verdict(patterns: list[Pattern], relative: str, is_dir: bool) -> bool:
    verdict = False
    for pattern in patterns:
        if pattern.matches(relative, is_dir):
            verdict = not pattern.negated
    return verdict


def test_narrowed_rules_decide_as_every_line_in_order():
    rng = random.Random(8)
    checked = 0
    for _ in range(400):
        patterns = parse_patterns(random_line(rng) for _ in range(rng.randint(1, 6)))
        lines = _Lines(patterns)
        plain = [p for p in patterns if not p.negated]
        for _ in range(40):
            prefix = "".join(rng.choice(NAMES) + "/" for _ in range(rng.randint(0, 3)))
            name = rng.choice(NAMES)
            for is_dir in (False, True):
                rules = _Rules.of(lines.narrow(prefix), {})
                fast = rules.decide(name, is_dir) if rules else False
                assert fast == plain_verdict(patterns, prefix + name, is_dir), (patterns, prefix, name, is_dir)
                any_rules = _Rules.of(_Lines(plain).narrow(prefix), {})
                hit = any_rules.hit(name, is_dir) if any_rules else False
                assert hit == any(p.matches(prefix + name, is_dir) for p in plain)
                checked += 1
    assert checked == 400 * 40 * 2


def test_narrowing_drops_lines_and_uses_name_tests():
    lines = _Lines(parse_patterns(["/shims", "/versions", "/libexec/*.dylib", ".idea", "*.un~"]))
    tests = lines.narrow("versions/3.11.7/lib/python3.11/")  # ~/.pyenv/.gitignore, deep in versions/
    assert [(kind, value) for _, _, kind, value, _ in tests] == [(0, ".idea"), (1, ".un~")]
    assert [value for *_, value, _ in lines.narrow("libexec/")][-3:] == [
        lines.lines[2][3], ".idea", ".un~"]  # /libexec/*.dylib kept where it can match
    assert _Lines(parse_patterns(["*.py", "*.ipynb"])).constant is not None


# -- the walk against the code it replaced --------------------------------------------------------

def reference_walk(folder: Path, include, exclude, gitignore: bool, prefix: str) -> list[str]:
    """The walk before narrowing: every .gitignore line, include and exclude glob as a regex on the
    whole relative path, for every entry."""
    levels: list[tuple[str, list[Pattern]]] = []

    def enter(real: str):
        try:
            with open(os.path.join(real, ".gitignore"), encoding="utf-8", errors="replace") as f:
                patterns = parse_patterns(f)
        except OSError:
            return
        if patterns:
            levels.append((real, patterns))

    resolved = folder.resolve()
    if gitignore:
        for parent in reversed(resolved.parents):
            enter(str(parent))
    out = []

    def visit(current: str, real: str, relative: str):
        depth = len(levels)
        if gitignore:
            enter(real)
        for entry in sorted(os.scandir(current), key=lambda e: e.name):
            is_dir = entry.is_dir(follow_symlinks=False)
            if is_dir and (entry.name in SKIP_DIRS or entry.name.startswith(".")):
                continue
            ignored = False
            for base, patterns in levels:
                if real == base:
                    path = entry.name
                elif real.startswith(base.rstrip(os.sep) + os.sep):
                    path = real[len(base.rstrip(os.sep)) + 1:].replace(os.sep, "/") + "/" + entry.name
                else:
                    continue
                for pattern in patterns:
                    if pattern.matches(path, is_dir):
                        ignored = not pattern.negated
            if ignored:
                continue
            child = relative + entry.name
            if any(p.matches(child, is_dir) for p in exclude if not p.negated):
                continue
            if is_dir:
                visit(entry.path, os.path.join(real, entry.name), child + "/")
            elif entry.is_file() and plain_verdict(include, child, False):
                out.append(entry.path)
        del levels[depth:]

    visit(str(folder), str(resolved), prefix)
    return out


INCLUDES = [["*.py", "*.ipynb"], ["*.py"], ["**/a/*.py"], ["*.py", "!b.py"], ["*"], ["a/*.py", "*.ipynb"],
            ["/b.py", "src/"], ["*.py", "!src/**", "src/a.py"], ["[ab].py", "*.gen.py"]]
EXCLUDES = [[], ["site-packages/"], ["a/"], ["*.gen.py"], ["src/**/b.py"], ["!x.py", "b/"], ["/a"],
            ["a/b/"], ["t/a/"], ["build", "*.txt"], ["**/lib/"], ["?.py"]]
DIRS = ["a", "b", "src", "lib", "d-1", "build", ".hid", "venv", "q?", "[x]", "é"]
FILES = ["a.py", "b.py", "m.ipynb", "x.gen.py", "n.txt", "#h.py", "keep.py", "c.pyi", "!x.py", "a.py ", "é.py"]


def make_random_tree(root: Path, rng: random.Random) -> None:
    def fill(folder: Path, depth: int):
        folder.mkdir(parents=True, exist_ok=True)
        for name in rng.sample(FILES, rng.randint(1, 5)):
            (folder / name).write_text("x = 1\n")
        if rng.random() < 0.5:
            (folder / ".gitignore").write_text(
                "# a comment\n\n" + "".join(random_line(rng) + "\n" for _ in range(rng.randint(1, 5))))
        if depth < 3:
            for name in rng.sample(DIRS, rng.randint(0, 3)):
                fill(folder / name, depth + 1)

    fill(root, 0)


@pytest.mark.parametrize("seed", range(30))
def test_walk_selects_what_the_plain_matcher_selects(tmp_path, seed):
    rng = random.Random(seed)
    tree = tmp_path / "t"
    make_random_tree(tree, rng)
    for _ in range(6):
        include, exclude = rng.choice(INCLUDES), rng.choice(EXCLUDES)
        for root in (tree, tmp_path):  # globs relative to the folder, then to the folder above it
            for gitignore in (True, False):
                expected = reference_walk(tree, parse_patterns(include), parse_patterns(exclude), gitignore,
                                          _prefix(tree, root))
                got = discover([tree], include=include, exclude=exclude, respect_gitignore=gitignore, root=root)
                assert got == expected, (seed, include, exclude, root, gitignore)


# -- the git-list path against the code it replaced -----------------------------------------------

def reference_git(folder: Path, names: list[str], prefix: str, include, exclude) -> list[str]:
    out = []
    for file in sorted(folder / name for name in names):
        parts = file.relative_to(folder).parts
        if any(part in SKIP_DIRS or part.startswith(".") for part in parts[:-1]):
            continue
        relative = prefix + "/".join(parts)
        if exclude and matches_any(exclude, relative, False):
            continue
        if file.is_file() and plain_verdict(include, relative, False):
            out.append(str(file))
    return out


@pytest.mark.parametrize("seed", range(20))
def test_git_list_selects_what_the_plain_matcher_selects(tmp_path, seed, monkeypatch):
    rng = random.Random(seed)
    tree = tmp_path / "t"
    make_random_tree(tree, rng)
    names = sorted(os.path.relpath(os.path.join(d, f), tree).replace(os.sep, "/")
                   for d, _, files in os.walk(tree) for f in files)
    names += ["gone.py", "a/gone.py", "a"]  # deleted but still in the index; a folder (a submodule)
    rng.shuffle(names)
    for _ in range(6):
        include = parse_patterns(rng.choice(INCLUDES))
        exclude = parse_patterns(rng.choice(EXCLUDES))
        live = _Lines([p for p in exclude if not p.negated])
        for prefix in ("", "t/", "x/t/"):
            expected = reference_git(tree, names, prefix, include, exclude)
            assert _git_candidates(tree, names, prefix, _Lines(include), live) == expected
    monkeypatch.chdir(tree)  # the folder given as "."
    include, exclude = parse_patterns(["*.py"]), parse_patterns(["a/"])
    expected = reference_git(Path("."), names, "", include, exclude)
    assert _git_candidates(Path("."), names, "", _Lines(include), _Lines(exclude)) == expected
    assert expected and not any(path.startswith(("./", "a/")) for path in expected)


# -- reading ---------------------------------------------------------------------------------------

def test_read_bytes_reads_what_open_reads(tmp_path):
    for name, data in [("empty.py", b""), ("small.py", b"import os\r\n"), ("big.py", os.urandom(3_000_001))]:
        (tmp_path / name).write_bytes(data)
        assert read_bytes(str(tmp_path / name)) == data
    if os.path.exists("/proc/self/cmdline"):  # stat says 0 bytes: read to the end all the same
        with open("/proc/self/cmdline", "rb") as f:
            assert read_bytes("/proc/self/cmdline") == f.read()
    for missing, error in [(tmp_path / "nope.py", FileNotFoundError), (tmp_path, IsADirectoryError)]:
        with pytest.raises(error) as by_open:
            open(missing, "rb").read()
        with pytest.raises(error) as by_read:
            read_bytes(str(missing))
        assert by_read.value.strerror == by_open.value.strerror


def test_the_dali_check_is_bytes_containment():
    from dali_migrate.api import _says_dali

    rng = random.Random(8)
    samples = [b"", b"dali", b"dal", b"xdal", b"DALI", b"d\nali", b"nvidia.dali", b"\xff\xfedali\x00", b"ddalli"]
    samples += [bytes(rng.choice(b"dali\n.\xff") for _ in range(rng.randint(0, 40))) for _ in range(2000)]
    for data in samples:
        assert (_says_dali(data) is not None) == (b"dali" in data), data
