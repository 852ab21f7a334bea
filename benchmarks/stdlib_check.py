"""`migrate --check` over this machine's CPython standard library: no crash, no proposed change.

    python benchmarks/stdlib_check.py                        # as users run it (gates on)
    python benchmarks/stdlib_check.py --mode parse           # parse + round-trip check of every file
    python benchmarks/stdlib_check.py --mode passes --limit 60  # every pass on a spread sample
    python benchmarks/stdlib_check.py --mode elision         # elision's split and restore on every file

Prints files, seconds, files/s and what happened to the files. Exit status 1 when any file crashed
the tool or got a proposed change. site-packages is not part of the standard library and is left out.
"""

from __future__ import annotations

import argparse
import re
import sys
import sysconfig
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from dali_migrate.api import migrate_file, migrate_paths  # noqa: E402
from dali_migrate.engine import migrate_source  # noqa: E402
from dali_migrate.files import SourceError, iter_source_files, read_source  # noqa: E402


def stdlib_files(limit: int | None = None) -> list[Path]:
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    tops = sorted(p for p in stdlib.iterdir()
                  if (p.is_dir() and p.name != "site-packages") or p.suffix == ".py")
    files = list(iter_source_files(tops))
    if limit:
        step = max(1, len(files) // limit)
        files = files[::step][:limit]  # spread over the whole library, reproducibly
    return files


def check_gated(files):
    """What `dali-migrate migrate --check <stdlib>` does, in process."""
    run = migrate_paths(files)
    crashes = []  # migrate_paths never raises; a crash would have ended the run
    return run.files, crashes


def check_forced(files, passes=None):
    """Ignore the gates that normally skip non-DALI code: with ``passes=[]`` the engine only parses,
    checks the byte-identical round trip and reads the imports; with ``None`` every pass runs."""
    results, crashes = [], []
    for path in files:
        try:
            source = read_source(path)
        except (SourceError, OSError):
            results.append(migrate_file(path))
            continue
        try:
            results.append(migrate_source(source, str(path), passes=passes, force=True))
        except Exception as e:  # noqa: BLE001 -- a crash is what this benchmark looks for
            crashes.append(f"{path}: {type(e).__name__}: {e}")
    return results, crashes


def check_elision(files, hot_words=("os", "sys", "re")):
    """Elision on real code: split each file with ``hot_words`` standing in for DALI names (a mix of
    hot and cold statements), then check that the parsed text is valid Python, that every line of it
    that is not a placeholder is the file's line the map says, and that restoring the untouched text
    gives the file back byte for byte. Returns (files split, statements left out, failures)."""
    import ast

    from dali_migrate.elision import PREFIX, elide

    split = left_out = 0
    failures = []
    for path in files:
        try:
            source = read_source(path)
        except (SourceError, OSError):
            continue
        found = elide(source, set(hot_words))
        if found is None:
            continue
        split += 1
        left_out += len(found.units)
        problems = []
        try:
            ast.parse(found.text)
        except SyntaxError as e:
            problems.append(f"parsed text is not Python: line {e.lineno}: {e.msg}")
        lines, parsed = re.split(r"\r\n?|\n", source), re.split(r"\r\n?|\n", found.text)  # Python's line ends
        for number, line in enumerate(parsed, start=1):
            if not line.startswith(PREFIX) and lines[found.original_line(number) - 1] != line:
                problems.append(f"line {number} maps to line {found.original_line(number)}, which differs")
                break
        if found.restore(found.text) != source:
            problems.append("restoring does not give the file back")
        failures += [f"{path}: {p}" for p in problems]
    return split, left_out, failures


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=("gated", "parse", "passes", "elision"), default="gated",
                        help="gated: as `migrate --check`; parse: parse and round-trip every file; "
                             "passes: run every pass on every file; elision: split and restore every file")
    parser.add_argument("--limit", type=int, default=None, help="check an evenly spread sample of N files")
    args = parser.parse_args(argv)

    files = stdlib_files(args.limit)
    start = time.perf_counter()
    if args.mode == "elision":
        split, left_out, failures = check_elision(files)
        print(f"python {sys.version.split()[0]}, stdlib {sysconfig.get_paths()['stdlib']}, mode elision")
        print(f"files {len(files)}  split {split}  statements left out {left_out}  "
              f"seconds {time.perf_counter() - start:.2f}  failures {len(failures)}")
        for line in failures:
            print("  ", line)
        return 1 if failures else 0
    if args.mode == "gated":
        results, crashes = check_gated(files)
    else:
        results, crashes = check_forced(files, passes=[] if args.mode == "parse" else None)
    seconds = time.perf_counter() - start

    changed = [r.path for r in results if r.changed]
    errors = [f"{r.path}: {r.error}" for r in results if r.error]
    internal = [e for e in errors if "internal error" in e]
    statuses: dict[str, int] = {}
    for r in results:
        statuses[r.status] = statuses.get(r.status, 0) + 1
    mode = {"gated": "gated (as `migrate --check`)", "parse": "parse + round trip, every file",
            "passes": "every pass on every file, gates off"}[args.mode]
    print(f"python {sys.version.split()[0]}, stdlib {sysconfig.get_paths()['stdlib']}, mode {mode}")
    print(f"files {len(files)}  seconds {seconds:.2f}  files/s {len(files) / seconds:.1f}")
    print(f"statuses {dict(sorted(statuses.items()))}")
    print(f"crashes {len(crashes)}  internal errors {len(internal)}  proposed changes {len(changed)}  "
          f"reported errors {len(errors)}")
    for line in crashes + internal + changed:
        print("  ", line)
    for line in errors:
        if line not in internal:
            print("   reported:", line)
    return 1 if crashes or internal or changed else 0


if __name__ == "__main__":
    raise SystemExit(main())
