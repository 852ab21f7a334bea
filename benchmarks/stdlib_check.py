"""`migrate --check` over this machine's CPython standard library: no crash, no proposed change.

    python benchmarks/stdlib_check.py                        # as users run it (gates on)
    python benchmarks/stdlib_check.py --mode parse           # parse + round-trip check of every file
    python benchmarks/stdlib_check.py --mode passes --limit 60  # every pass on a spread sample

Prints files, seconds, files/s and what happened to the files. Exit status 1 when any file crashed
the tool or got a proposed change. site-packages is not part of the standard library and is left out.
"""

from __future__ import annotations

import argparse
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


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=("gated", "parse", "passes"), default="gated",
                        help="gated: as `migrate --check`; parse: parse and round-trip every file; "
                             "passes: run every pass on every file")
    parser.add_argument("--limit", type=int, default=None, help="check an evenly spread sample of N files")
    args = parser.parse_args(argv)

    files = stdlib_files(args.limit)
    start = time.perf_counter()
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
