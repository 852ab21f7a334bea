"""Safety rules: what the tool must never do to a user's files (DESIGN.md, "Safety")."""

import os
import stat

import libcst as cst
import pytest

from dali_migrate import migrate_paths, migrate_source
from dali_migrate.files import atomic_write

MIGRATABLE = 'import nvidia.dali.fn as fn\n\n\ndef f(x):\n    return fn.flip(x, name="flip")\n'
MIGRATED = 'import nvidia.dali.experimental.dynamic as ndd\n\n\ndef f(x):\n    return ndd.flip(x)\n'
# libcst 1.9 prints `except (A, B) :` back as `except (A, B):` (checked in test_round_trip_case_is_real).
NOT_ROUND_TRIP = "import nvidia.dali.fn as fn\ntry:\n    fn.flip(1)\nexcept (ValueError, TypeError) :\n    pass\n"
DEEP_CONCAT = "import nvidia.dali.fn as fn\nx = fn.flip((" + " ".join(['"a"'] * 1000) + "))\n"


def _write(path, text):
    path.write_text(text, encoding="utf-8", newline="")
    return path


def test_migratable_case_changes():
    assert migrate_source(MIGRATABLE).migrated == MIGRATED


@pytest.mark.parametrize("source, reason, line", [
    ("import nvidia.dali.fn as fn\nx = (\n", "does not parse: '(' was never closed", 2),
    (NOT_ROUND_TRIP, "does not print this file back byte-identical", 4),
    (DEEP_CONCAT, "too deeply nested", None),  # no line: the whole file
], ids=["syntax-error", "not-round-trip", "recursion"])
def test_unsafe_input_is_reported_and_left_alone(source, reason, line):
    result = migrate_source(source, "bad.py")
    assert result.status == "error"
    assert reason in result.error
    assert result.migrated == source and not result.changed
    [finding] = result.findings
    assert finding.rule == "DM001" and not finding.fixed
    # A file-level finding points at line 1, never at line 0.
    assert (finding.line, finding.file_level) == ((1, True) if line is None else (line, False))


def test_code_libcst_cannot_handle_outside_dali_statements_is_kept_byte_for_byte():
    """Top-level statements no pass can concern never reach libcst (``elision``): a file whose only
    libcst trouble lies in such a statement is migrated, and that statement comes back unchanged."""
    cold_trouble = ("try:\n    pass\nexcept (ValueError, TypeError) :\n    pass\n\n"
                    "x = (" + " ".join(['"a"'] * 1000) + ")\n")
    result = migrate_source(MIGRATABLE + "\n" + cold_trouble, "mixed.py")
    assert result.error is None and result.changed
    assert result.migrated == MIGRATED + "\n" + cold_trouble


def test_a_file_without_a_trailing_newline_is_migrated():
    result = migrate_source(MIGRATABLE.rstrip("\n"), "no_newline.py")
    assert result.error is None
    assert result.migrated == MIGRATED.rstrip("\n")


def test_round_trip_case_is_real():
    """The non-round-trip fixture must really fail libcst's round trip, or the test above proves nothing."""
    source = "try:\n    pass\nexcept (A, B) :\n    pass\n"
    assert cst.parse_module(source).code != source


def test_bad_files_are_skipped_and_the_others_still_done(tmp_path):
    broken = _write(tmp_path / "a_broken.py", "import nvidia.dali.fn as fn\ndef f(:\n")
    latin1 = tmp_path / "b_latin1.py"
    latin1.write_bytes("import nvidia.dali.fn as fn\n# caf\xe9\nx = fn.flip(1)\n".encode("latin-1"))
    not_round_trip = _write(tmp_path / "c_roundtrip.py", NOT_ROUND_TRIP)
    deep = _write(tmp_path / "d_deep.py", DEEP_CONCAT)
    good = _write(tmp_path / "e_good.py", MIGRATABLE)
    before = {p: p.read_bytes() for p in (broken, latin1, not_round_trip, deep)}

    run = migrate_paths([tmp_path], write=True)

    errors = {os.path.basename(f.path): f.error for f in run.errors}
    assert set(errors) == {"a_broken.py", "b_latin1.py", "c_roundtrip.py", "d_deep.py"}
    assert "not UTF-8" in errors["b_latin1.py"]
    assert all(p.read_bytes() == data for p, data in before.items())
    assert good.read_text() == MIGRATED
    assert run.exit_code(wrote=True) == 2


def test_atomic_write_keeps_mode_and_leaves_no_temp_file(tmp_path):
    target = _write(tmp_path / "script.py", MIGRATABLE)
    target.chmod(0o754)
    migrate_paths([target], write=True)
    assert target.read_text() == MIGRATED
    assert stat.S_IMODE(target.stat().st_mode) == 0o754
    assert sorted(p.name for p in tmp_path.iterdir()) == ["script.py"]


def test_failed_write_leaves_the_original_and_no_temp_file(tmp_path, monkeypatch):
    target = _write(tmp_path / "script.py", MIGRATABLE)

    def refuse(*_args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", refuse)
    run = migrate_paths([target], write=True)
    assert target.read_text() == MIGRATABLE
    assert sorted(p.name for p in tmp_path.iterdir()) == ["script.py"]
    assert "No space left" in run.files[0].error and run.exit_code(wrote=True) == 2


def test_write_goes_through_a_symlink(tmp_path):
    real = _write(tmp_path / "real.py", MIGRATABLE)
    link = tmp_path / "link.py"
    link.symlink_to(real)
    atomic_write(link, MIGRATED)
    assert link.is_symlink() and real.read_text() == MIGRATED


@pytest.mark.parametrize("text", [
    "import os\nprint(os.sep)\n",
    '"""See https://docs.nvidia.com/deeplearning/dali/."""\nx = 1\n',
    "import nvidia.dali.experimental.dynamic as ndd\n\nx = ndd.as_batch([1])\n",
], ids=["no-dali", "dali-in-text-only", "already-migrated"])
def test_files_with_nothing_to_do_are_never_rewritten(tmp_path, text):
    path = _write(tmp_path / "plain.py", text)
    stamp = 1_000_000_000
    os.utime(path, (stamp, stamp))
    run = migrate_paths([tmp_path], write=True)
    assert run.written == [] and run.exit_code(wrote=True) == 0
    assert path.stat().st_mtime == stamp and path.read_text() == text


def test_second_write_changes_nothing(tmp_path):
    path = _write(tmp_path / "m.py", MIGRATABLE)
    migrate_paths([path], write=True)
    stamp = 1_000_000_000
    os.utime(path, (stamp, stamp))
    again = migrate_paths([path], write=True)
    assert again.written == [] and path.stat().st_mtime == stamp


def test_byte_order_mark_and_crlf_are_kept():
    source = "\ufeff" + MIGRATABLE.replace("\n", "\r\n")
    result = migrate_source(source)
    assert result.migrated == "\ufeff" + MIGRATED.replace("\n", "\r\n")


def test_non_utf8_is_reported_with_its_line_unless_it_cannot_be_dali(tmp_path):
    dali = tmp_path / "dali_latin1.py"
    dali.write_bytes(b"import nvidia.dali.fn as fn\n# caf\xe9\n")
    other = tmp_path / "other_latin1.py"
    other.write_bytes(b"# -*- coding: latin-1 -*-\nname = 'caf\xe9'\n")
    run = migrate_paths([tmp_path])
    by_name = {os.path.basename(f.path): f for f in run.files}
    assert by_name["other_latin1.py"].status == "no-dali"
    [finding] = by_name["dali_latin1.py"].findings
    assert finding.rule == "DM001" and finding.line == 2 and "not UTF-8" in finding.message


@pytest.mark.slow  # slow: every golden file and generated scripts, parsed twice and compared
def test_the_engine_parse_skips_validation_only_while_parsing(tmp_path):
    """source.parse_module builds the same tree as libcst's own parse (without per-node validation, which
    parsed text cannot fail), and node validation is back on after it, after a syntax error too."""
    import sys
    from pathlib import Path

    from dali_migrate.source import parse_module

    root = Path(__file__).resolve().parent.parent
    sys.path.insert(0, str(root / "benchmarks"))
    from speed_corpus import generate_scripts

    sources = [p.read_text(encoding="utf-8") for p in sorted((root / "golden").rglob("*.py"))]
    sources += generate_scripts(10)
    assert len(sources) > 50
    for source in sources:
        assert parse_module(source).deep_equals(cst.parse_module(source))
    with pytest.raises(cst.ParserSyntaxError):
        parse_module("x = (\n")
    with pytest.raises(cst.CSTValidationError):
        cst.Name("")  # validated again


def test_migrating_leaves_garbage_collection_as_the_caller_had_it():
    """migrate_source pauses the cyclic collector for the length of one file, then restores it, also
    when a pass fails and when the caller had it off."""
    import gc

    assert gc.isenabled()
    migrate_source(MIGRATABLE)
    assert gc.isenabled()
    migrate_source(NOT_ROUND_TRIP)
    assert gc.isenabled()
    gc.disable()
    try:
        migrate_source(MIGRATABLE)
        assert not gc.isenabled()
    finally:
        gc.enable()


DEFINES_PIPELINE = ("from nvidia.dali import pipeline_def, fn\n\n\n@pipeline_def(batch_size=2)\n"
                    "def p():\n    return fn.random.uniform()\n")


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_file_that_breaks_the_pre_scan_or_a_worker_is_one_error_and_the_run_goes_on(tmp_path, monkeypatch,
                                                                                      jobs):
    """One module whose project pre-scan or migration raises must not end the run (it did, with a
    traceback and no JSON, over DALI's own tests): it is reported for that file, the others are done."""
    import dali_migrate.api as api

    for name in ("a", "b", "c", "d"):
        _write(tmp_path / f"{name}.py", DEFINES_PIPELINE)
    _write(tmp_path / "main.py", "from a import p\nfrom b import p as q\nfrom c import p as r\nfrom d import p as s\n")

    def broken_scan(source, name, found):
        if name.endswith("b.py"):
            raise KeyError("boom")
        return real_scan(source, name, found)

    real_scan = api.scan_source
    monkeypatch.setattr(api, "scan_source", broken_scan)
    real_migrate = api._migrate_text

    def broken_migrate(source, name, suffix, project=None, helper_module=None):
        if name.endswith("c.py"):
            raise KeyError("bang")
        return real_migrate(source, name, suffix, project, helper_module)

    monkeypatch.setattr(api, "_migrate_text", broken_migrate)
    # Workers must inherit the broken functions: fork them (the pool picks forkserver when threads run).
    import multiprocessing

    import dali_migrate.parallel as parallel

    monkeypatch.setattr(parallel, "_context", lambda: multiprocessing.get_context("fork"))
    run = migrate_paths([str(tmp_path)], jobs=jobs)
    by_name = {os.path.basename(r.path): r for r in run.files}
    assert by_name["c.py"].status == "error" and "KeyError: 'bang'" in by_name["c.py"].error
    assert [f.rule for f in by_name["c.py"].findings] == ["DM002"]
    for name in ("a.py", "b.py", "d.py"):
        assert by_name[name].status == "migrated", by_name[name].error
    assert run.exit_code() == 2


def test_a_marker_that_quotes_multi_line_code_is_one_comment_line():
    """A marker message quoting a multi-line expression made an invalid comment (CSTValidationError,
    an internal error, on a real DALI test file): the message is folded onto the marker's line."""
    source = ("from nvidia.dali import pipeline_def, fn\n\n\n@pipeline_def(batch_size=2, num_threads=1)\n"
              "def shaped(shape):\n    data = fn.external_source(source=RandomData(\n        2, shape=shape\n"
              "    ), cycle=True, batch=False)\n    return data\n")  # a per-sample cycle= source of unknown kind: marked
    result = migrate_source(source, "ml.py")
    assert result.error is None
    markers = [line for line in result.migrated.splitlines() if "# dali-migrate: DM220" in line]
    assert markers and "RandomData( 2, shape=shape )" in markers[0]
    cst.parse_module(result.migrated)


# libcst drops comment lines that end a file at an indentation no block has (seen in a real loader: a note
# with a link, indented three spaces, after the last function).
DEDENTED_COMMENT_TAIL = ("import nvidia.dali.fn as fn\n\n\ndef f(x):\n    return fn.flip(x)\n"
                         "   #######\n   # see https://example.org/notes\n   #######\n")


def test_a_dedented_comment_tail_is_kept_and_the_code_before_it_migrates():
    import libcst

    assert libcst.parse_module(DEDENTED_COMMENT_TAIL).code != DEDENTED_COMMENT_TAIL  # the libcst behaviour is real
    result = migrate_source(DEDENTED_COMMENT_TAIL, "tail.py")
    assert result.error is None and result.original == DEDENTED_COMMENT_TAIL
    assert result.migrated == MIGRATED + "   #######\n   # see https://example.org/notes\n   #######\n"
    assert migrate_source(result.migrated, "tail.py").migrated == result.migrated  # a second run changes nothing
    # Code after the comments is not a tail: the file is still refused whole.
    assert migrate_source(NOT_ROUND_TRIP + "   # note\n", "bad.py").status == "error"
