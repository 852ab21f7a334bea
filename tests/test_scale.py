"""Repo scale: file discovery (.gitignore, globs), pyproject config, the process pool, the cheap text
check, the progress bar and the pre-commit hook definitions."""

import io
import os
import re
import shutil
import subprocess
import time
import tomllib
from pathlib import Path

import pytest
import yaml

from dali_migrate import api, cli, engine, source as source_module
from dali_migrate.config import ConfigError, config_for
from dali_migrate.discovery import discover
from dali_migrate.parallel import Progress, run_ordered

ROOT = Path(__file__).resolve().parent.parent
DALI_FILE = "import nvidia.dali.fn as fn\n\n\ndef aug(x):\n    return fn.flip(x, horizontal=1)\n"
GITIGNORE = """\
# comments and blank lines are skipped

*.gen.py
!keep.gen.py
/top_only.py
build_out/
docs/**/draft_*.py
data/*
!data/keep/
\\#hash.py
"""
TREE = [
    "a.py", "b.ipynb", "notes.txt", "x.gen.py", "keep.gen.py", "top_only.py", "sub/top_only.py",
    "build_out/c.py", "sub/build_out/d.py", "docs/draft_1.py", "docs/guide/draft_2.py", "docs/final.py",
    "data/e.py", "data/keep/f.py", "#hash.py", "sub/deep/g.py", ".hidden/h.py", "venv/i.py",
    "sub/.gitignore:*.py\n!g.py\n", "sub/deep/g.py", "sub/other.py",
]
# `\\#hash.py` ignores "#hash.py"; sub/.gitignore ignores sub/*.py except g.py (deeper files win).
EXPECTED = ["a.py", "b.ipynb", "data/keep/f.py", "docs/final.py", "keep.gen.py", "sub/deep/g.py"]


def make_tree(root: Path):
    for entry in TREE:
        name, _, text = entry.partition(":")
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text or "x = 1\n")
    (root / ".gitignore").write_text(GITIGNORE)
    return root


def relative(files, root):
    return sorted(Path(f).relative_to(root).as_posix() for f in files)


def test_gitignore_without_git_matches_expected(tmp_path):
    root = make_tree(tmp_path / "plain")
    assert relative(discover([root], root=root), root) == EXPECTED


@pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")
def test_gitignore_matcher_agrees_with_git(tmp_path):
    root = make_tree(tmp_path / "repo")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    git_view = relative(discover([root], root=root), root)
    # The same tree outside a work tree goes through our own matcher: the same answer.
    shutil.rmtree(root / ".git")
    assert relative(discover([root], root=root), root) == git_view == EXPECTED


@pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")
def test_tracked_files_count_even_when_ignored(tmp_path):
    root = make_tree(tmp_path / "repo")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run(["git", "-C", str(root), "add", "-f", "x.gen.py"], check=True)
    assert "x.gen.py" in relative(discover([root], root=root), root)  # git's semantics, not a guess


def test_globs_and_explicit_files(tmp_path):
    root = make_tree(tmp_path / "t")
    assert relative(discover([root], include=["*.ipynb"], root=root), root) == ["b.ipynb"]
    assert relative(discover([root], exclude=["sub/", "docs/*.py"], root=root), root) == \
        ["a.py", "b.ipynb", "data/keep/f.py", "keep.gen.py"]
    assert relative(discover([root], respect_gitignore=False, include=["**/deep/*.py"], root=root), root) == \
        ["sub/deep/g.py"]
    # A file named on the command line is taken even if ignored, but exclude applies (pre-commit).
    assert relative(discover([root / "x.gen.py"], root=root), root) == ["x.gen.py"]
    assert discover([root / "x.gen.py"], exclude=["*.gen.py"], root=root) == []
    assert discover([root / "a.py", root / "a.py", root], include=["a.py"], root=root) == [str(root / "a.py")]
    # So does a folder named explicitly, inside a git work tree and outside one alike.
    assert discover([root / "sub"], exclude=["sub/"], root=root) == []
    if shutil.which("git"):
        subprocess.run(["git", "init", "-q", str(root)], check=True)
        assert discover([root / "sub"], exclude=["sub/"], root=root) == []
        assert relative(discover([root / "sub"], root=root), root) != []


def test_config_nearest_table_and_errors(tmp_path, capsys):
    project = tmp_path / "project"
    (project / "pkg" / "sub").mkdir(parents=True)
    (project / "pyproject.toml").write_text('[tool.dali-migrate]\nexclude = ["legacy/"]\njobs = 1\n')
    (project / "pkg" / "pyproject.toml").write_text('[project]\nname = "pkg"\n')  # no table: not ours
    config = config_for([project / "pkg" / "sub"])
    assert config.path == project / "pyproject.toml" and config.exclude == ["legacy/"] and config.jobs == 1
    assert config_for([tmp_path]).path is None  # no config: defaults
    bad = tmp_path / "bad.toml"
    for text, message in [('[tool.dali-migrate]\njobz = 2\n', "unknown key(s) in [tool.dali-migrate]: jobz"),
                          ('[tool.dali-migrate]\njobs = 0\n', "jobs must be a whole number"),
                          ('[tool.dali-migrate]\nexclude = "x"\n', "exclude must be a list"),
                          ('[tool.dali-migrate\n', "not valid TOML")]:
        bad.write_text(text)
        with pytest.raises(ConfigError, match=re.escape(message)):
            config_for([tmp_path], bad)
        assert cli.main(["migrate", "--config", str(bad), str(tmp_path)]) == 2
        assert str(bad) in capsys.readouterr().err


def test_config_exclude_applies_and_flags_override(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.dali-migrate]\nexclude = ["legacy/"]\ninclude = ["*.py"]\n')
    for name in ("new.py", "legacy/old.py", "nb.ipynb"):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(DALI_FILE if name.endswith(".py") else "{}")
    run = api.migrate_paths([tmp_path], jobs=1)
    assert relative([f.path for f in run.files], tmp_path) == ["new.py"]
    run = api.migrate_paths([tmp_path], jobs=1, include=["*.py", "*.ipynb"], exclude=["new.py"])
    assert relative([f.path for f in run.files], tmp_path) == ["nb.ipynb"]


def test_pool_results_are_in_input_order_and_equal_to_serial(tmp_path):
    for i in range(12):
        text = DALI_FILE.replace("aug", f"aug{i}") if i % 3 else "import os\nprint(os.sep)\n"
        (tmp_path / f"m{i:02d}.py").write_text(text)
    (tmp_path / "broken.py").write_text("import nvidia.dali.fn as fn\ndef (:\n")
    serial = api.migrate_paths([tmp_path], jobs=1)
    pooled = api.migrate_paths([tmp_path], jobs=2)
    assert [f.to_dict(with_code=True) for f in pooled.files] == [f.to_dict(with_code=True) for f in serial.files]
    assert [Path(f.path).name for f in pooled.files] == ["broken.py"] + [f"m{i:02d}.py" for i in range(12)]
    assert pooled.summary()["statuses"] == {"error": 1, "migrated": 8, "no-dali": 4}
    written = api.migrate_paths([tmp_path], write=True, jobs=2)
    assert len(written.written) == 8 and "ndd.flip" in (tmp_path / "m01.py").read_text()


def test_files_without_dali_are_never_parsed(tmp_path, monkeypatch):
    for i in range(5):
        (tmp_path / f"plain{i}.py").write_text("def f(x):\n    return x % 2\n")
    (tmp_path / "uses.py").write_text(DALI_FILE)
    parsed = []
    real_parse = source_module.cst.parse_module
    monkeypatch.setattr(source_module.cst, "parse_module", lambda text: parsed.append(text) or real_parse(text))
    run = api.migrate_paths([tmp_path], jobs=1)
    assert parsed == [DALI_FILE]
    assert [f.status for f in run.files] == ["no-dali"] * 5 + ["migrated"]


def test_progress_bar():
    stream = io.StringIO()
    bar = Progress(3, enabled=True, stream=stream)
    assert run_ordered(abs, [-1, -2, -3], jobs=1, progress=bar) == [1, 2, 3]
    bar.close()
    assert stream.getvalue().endswith("] 3/3 files\n") and "\r" in stream.getvalue()
    assert not Progress.wanted(None, io.StringIO()) and Progress.wanted(True, io.StringIO())
    quiet = io.StringIO()
    Progress(3, enabled=False, stream=quiet).close()
    assert quiet.getvalue() == ""


def test_cli_flags(tmp_path, capsys):
    for i in range(25):
        (tmp_path / f"m{i:02d}.py").write_text(DALI_FILE)
    assert cli.main(["migrate", "--check", "-j", "2", "--progress", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "] 25/25 files" in err and "25 files, 25 would change" in err
    assert cli.main(["migrate", "--check", "--exclude", "m0*.py", "--no-progress", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "15 files" in err and "] " not in err
    assert cli.main(["migrate", "-j", "0", str(tmp_path)]) == 2


def test_pre_commit_hooks_are_valid_and_name_real_commands():
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert {h["id"] for h in hooks} >= {"dali-migrate"}
    for hook in hooks:
        assert {"id", "name", "entry", "language"} <= set(hook)
        assert set(hook["types_or"]) <= {"python", "jupyter"}
        program, subcommand, *flags = hook["entry"].split()
        assert program in scripts and subcommand in cli.SUBCOMMANDS
        parser = cli._parser()
        sub = parser.add_subparsers()
        module = __import__(cli.SUBCOMMANDS[subcommand][0], fromlist=["add_arguments"])
        module.add_arguments(sub.add_parser(subcommand))
        parser.parse_args([subcommand, *flags, "some_file.py"])  # the flags exist


# -- the engine optimisations measured in benchmarks/speed.py keep exact behaviour ----------------

OPT_SOURCE = '''"""doc"""
import a.b as ab
if x:
    import c
elif y:
    from d import e as f
else:
    import g
try:
    import h
except E:
    from i import j
finally:
    import k
for q in r: import l
class C:
    @dec(1)
    def m(self, p=(1 +
                   2)):
        with z:
            import n as nn  # comment
        return f"{p!r:>{w}}" + ab.c[1:2]
match v:
    case [1, *rest]:
        import o
while 1:
    pass
else:
    import p
'''


def test_fast_positions_equal_libcst_position_provider():
    import libcst as cst

    compared = 0
    goldens = [p.read_text() for p in sorted(ROOT.glob("golden/*/*.py"))[::4]]
    for source in (OPT_SOURCE, (ROOT / "dali_migrate" / "notebooks.py").read_text(), DALI_FILE, *goldens):
        module = cst.parse_module(source)
        code, positions = source_module.print_with_positions(module)
        assert code == source
        # Every node but whitespace, comments and punctuation, which passes never point at.
        expected = {node: place for node, place in source_module._positions(module).items()
                    if type(node) not in source_module._LAYOUT_NODES}
        assert positions == expected
        compared += len(positions)
    assert compared > 1000


def test_import_walk_equals_the_import_visitor():
    import libcst as cst

    from dali_migrate.names import ImportTable, _ImportCollector

    module = cst.parse_module(OPT_SOURCE)
    walked = ImportTable.from_module(module).aliases
    visited = {}
    module.visit(_ImportCollector(visited, set()))
    assert walked == visited and len(walked) == 11


@pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")
def test_an_ignored_folder_named_explicitly_is_still_searched(tmp_path):
    repo = tmp_path / "repo"
    (repo / "versions" / "lib").mkdir(parents=True)
    (repo / "versions" / "lib" / "m.py").write_text("x = 1\n")
    (repo / "versions" / "lib" / "skip.py").write_text("x = 1\n")
    (repo / "versions" / ".gitignore").write_text("skip.py\n")
    (repo / ".gitignore").write_text("/versions/\n")
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    assert discover([repo], root=repo) == []  # git's semantics below the repo root
    folder = repo / "versions"
    assert relative(discover([folder], root=folder), folder) == ["lib/m.py"]


@pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")
def test_a_listed_file_that_cannot_be_looked_at_is_reported_not_fatal(tmp_path, monkeypatch):
    """git lists a file whose stat fails (permission denied on a folder on its way): the run goes on
    and reports that file; it used to stop with a traceback in discovery."""
    from dali_migrate import discovery

    root = tmp_path / "repo"
    (root / "locked").mkdir(parents=True)
    (root / "ok.py").write_text("import nvidia.dali.fn as fn\nx = fn.flip(1)\n")
    (root / "locked" / "pipe.py").write_text("import nvidia.dali.fn as fn\n")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    real_stat = os.stat

    def stat(path, *args, **kwargs):
        if "locked" in str(path):
            raise PermissionError(13, "Permission denied", str(path))
        return real_stat(path, *args, **kwargs)

    monkeypatch.setattr(discovery.os, "stat", stat)
    monkeypatch.setattr(api, "read_bytes", lambda name: (_ for _ in ()).throw(PermissionError(
        13, "Permission denied", name)) if "locked" in name else open(name, "rb").read())
    run = api.migrate_paths([root], jobs=1)
    by_name = {Path(f.path).name: f for f in run.files}
    assert by_name["ok.py"].changed
    assert by_name["pipe.py"].error and "ermission denied" in by_name["pipe.py"].error
    assert run.exit_code() == 2


def test_a_migrated_tree_is_freed_when_the_migration_ends():
    """Nothing of a file's tree is left in reference cycles: with the collector paused during a
    migration, a cycle would keep each tree alive until it ran (the data flow's class <-> method
    scopes and the pass walk's recursive closure did)."""
    import gc
    import sys

    import libcst as cst

    sys.path.insert(0, str(ROOT / "benchmarks"))
    from speed_corpus import generate_scripts

    sources = [p.read_text() for p in sorted(ROOT.glob("golden/*/*.py")) if not p.name.endswith(".expected.py")]
    sources += generate_scripts(4)
    for source in sources:  # warm the per-process caches first
        engine.migrate_source(source, "x.py")
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        for source in sources:
            engine.migrate_source(source, "x.py")
        gc.collect()
        kept = [o for o in gc.garbage if isinstance(o, cst.CSTNode)]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    assert kept == []


# -- project runs grow with the project, not with its square (issue 33) ---------------------------------------

KEPT_HERE = '''from nvidia.dali import fn, pipeline_def


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def create_pipeline(root):
    jpegs, labels = fn.readers.file(file_root=root)
    return labels


def export(root, path):
    pipe = create_pipeline(root)
    pipe.build()
    with open(path, "wb") as f:
        f.write(pipe.serialize())
'''
USES_IT = '''from pkg.pipes import create_pipeline

pipe = create_pipeline("/data")
pipe.build()
(labels,) = pipe.run()
'''
# Its own pipeline of the same name: it says "pipe" and "create_pipeline", and imports nothing of pkg.pipes.
SAME_NAMES = '''from nvidia.dali import fn, pipeline_def


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def create_pipeline(root):
    jpegs, labels = fn.readers.file(file_root=root, seed={k})
    return labels


pipe = create_pipeline("/data")
pipe.build()
(labels,) = pipe.run()
'''


# Stepped in a loop: its migration loads ahead (the Prefetch helper class).
NEEDS_HELPERS = '''from nvidia.dali import fn, pipeline_def


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def {name}(root):
    jpegs, labels = fn.readers.file(file_root=root)
    return labels


def steps(root, count):
    pipe = {name}(root)
    pipe.build()
    found = []
    for _ in range(count):
        (labels,) = pipe.run()
        found.append(len(labels))
    return found
'''


def _count_migrations(monkeypatch) -> dict[str, int]:
    counts: dict[str, int] = {}
    migrate_text = api._migrate_text

    def counted(source, name, *args, **kwargs):
        counts[Path(name).name] = counts.get(Path(name).name, 0) + 1
        return migrate_text(source, name, *args, **kwargs)

    monkeypatch.setattr(api, "_migrate_text", counted)
    return counts


def test_a_kept_pipeline_migrates_again_only_the_modules_that_share_it(tmp_path, monkeypatch):
    """pkg/pipes.py keeps create_pipeline (serialize()): user.py, which imports it, migrated it at first and must
    keep it too, so it is migrated again; the modules that only say the same words (their own create_pipeline,
    their own pipe) are migrated once (a scan for the kept name migrated them all again, every round)."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "pipes.py").write_text(KEPT_HERE)
    (tmp_path / "user.py").write_text(USES_IT)
    for k in range(4):
        (tmp_path / f"other_{k}.py").write_text(SAME_NAMES.format(k=k))
    counts = _count_migrations(monkeypatch)
    run = migrate_paths_jobs1(tmp_path)
    assert not run.errors
    assert counts["user.py"] == 2 and counts["pipes.py"] == 1, counts
    assert all(counts[f"other_{k}.py"] == 1 for k in range(4)), counts
    by_name = {Path(f.path).name: f for f in run.files}
    assert [m.rule for m in by_name["user.py"].manual] == ["DM230"]  # kept with the rest of its unit
    assert "another module" in by_name["user.py"].migrated
    assert all(by_name[f"other_{k}.py"].status == "migrated" for k in range(4))


def migrate_paths_jobs1(folder: Path):
    return api.migrate_paths([str(folder)], jobs=1)


def test_modules_that_need_helpers_import_them_each_migrated_once(tmp_path, monkeypatch):
    """Every module that needs the run-time helpers imports them from the helper module of its import root, each
    migrated once: the one alone under another root too (it no longer gets them inline, issue 34)."""
    for folder, names in (("shared", ("a", "b", "c")), ("alone", ("d",))):
        (tmp_path / folder).mkdir()
        for name in names:
            (tmp_path / folder / f"{name}.py").write_text(NEEDS_HELPERS.format(name=name))
    counts = _count_migrations(monkeypatch)
    run = migrate_paths_jobs1(tmp_path)
    assert not run.errors
    assert counts == {"a.py": 1, "b.py": 1, "c.py": 1, "d.py": 1}
    by_name = {Path(f.path).name: f for f in run.files}
    for name in ("a.py", "b.py", "c.py", "d.py"):
        assert "from dali_dynamic_compat import" in by_name[name].migrated and "class " not in by_name[name].migrated
    assert sorted(Path(f.path).parent.name for f in run.files if f.created) == ["alone", "shared"]


def test_word_indexes_answer_as_the_word_patterns_did():
    """The pre-scan's index of each file's words finds what a search for ``(?<!\\w)name(?!\\w)`` found."""
    texts = [("a.py", "from pkg.pipes import p  # pipes_x\n"), ("b.py", "import pipes2\nx = é_pipes + pipesé\n"),
             ("c.py", "pipes.run()\n")]
    for word in ("pipes", "pipes2", "pkg", "p", "x", "é_pipes"):
        pattern = re.compile(rf"(?<!\w){re.escape(word)}(?!\w)")
        assert [n for n, t in texts if pattern.search(t)] == [n for n, t in texts if word in set(api._WORDS(t))]
        data = [(n, t.encode()) for n, t in texts]
        if word.isascii():
            pattern = re.compile(pattern.pattern.encode())
            assert [n for n, d in data if pattern.search(d)] == \
                [n for n, d in data if word.encode() in set(api._BYTE_WORDS(d))]
    assert api._packages_reexporting({"pkg.alias": "pkg.sub.mod.name", "top": "other.f"}) == {
        "pkg": {"pkg"}, "pkg.sub": {"pkg"}, "pkg.sub.mod": {"pkg"}, "other": {""}}


def test_phases_splits_a_migration_and_puts_the_engine_back(tmp_path, capsys, monkeypatch):
    """benchmarks/phases.py: every phase of a migration gets a share, a file that needs the whole file is counted,
    and the timers come off the engine, the flow model and the passes afterwards."""
    import sys

    sys.path.insert(0, str(ROOT / "benchmarks"))
    import phases
    from dali_migrate import dataflow, source as source_module
    from dali_migrate.transforms import PASSES

    (tmp_path / "one.py").write_text((ROOT / "golden" / "runnable" / "per_sample_loader" / "main.py").read_text())
    # a pipeline handed to a name an assignment elision leaves out binds: migrated again on the whole file
    # (NeedsWholeFile; elision parses the functions and classes hot code names, not the assignments)
    (tmp_path / "two.py").write_text(
        "import nvidia.dali.fn as fn\nfrom nvidia.dali import pipeline_def\n\n\n"
        "@pipeline_def(batch_size=2, num_threads=1, device_id=None)\ndef pipe():\n"
        "    return fn.random.uniform(range=[0, 1], shape=[2])\n\n\ncheck = repr\n\n\n"
        "p = pipe()\np.build()\nprint(check(p))\n")
    before = (engine.parse_module, engine.migrate_source, dataflow.DataFlow.__init__, PASSES[0].run)
    monkeypatch.setattr(phases, "CLOCK", phases.CLOCK)  # (--cpu sets it: put back afterwards)
    assert phases.main(["--real-corpus", str(tmp_path), "--dali-heavy", "0", "--rounds", "1", "--cpu"]) == 0
    assert phases.CLOCK is time.process_time
    printed = capsys.readouterr().out
    for phase in ("parse", "print_with_spans", "flow", "flow(post)", "units", "postcheck", "pass:unroll"):
        assert re.search(rf"^  {re.escape(phase)} +\d+\.\d\dx", printed, re.M), phase
    assert "2 files:" in printed and "migrated again on the whole file: 1 files" in printed
    assert engine.parse_module is source_module.parse_module
    assert (engine.parse_module, engine.migrate_source, dataflow.DataFlow.__init__, PASSES[0].run) == before
    assert "run" not in vars(PASSES[0])


def test_speed_real_times_by_cpu_time_when_asked(tmp_path, capsys, monkeypatch):
    """benchmarks/speed.py --cpu: the rounds are timed by the process's CPU time (other jobs on a shared machine
    are not counted), and the ratio line is printed as with the wall clock."""
    import sys

    sys.path.insert(0, str(ROOT / "benchmarks"))
    import speed

    clocks = []
    monkeypatch.setattr(speed, "best", lambda funcs, rounds, clock=None: (clocks.append(clock or speed.CLOCK),
                                                                          [1.0 for f in funcs if f() or True])[1])
    (tmp_path / "one.py").write_text((ROOT / "golden" / "runnable" / "per_sample_loader" / "main.py").read_text())
    monkeypatch.setattr(speed, "CLOCK", speed.CLOCK)  # (put back afterwards)
    assert speed.main(["--only", "real", "--real-corpus", str(tmp_path), "--dali-heavy", "0", "--rounds", "1",
                       "--cpu"]) == 0
    assert clocks == [time.process_time]
    assert "0. real DALI files, migrate_source vs bare round trip per file: 1 files: median 1.00x" in capsys.readouterr().out
