"""Elision is transparent: every file migrates to the same text and findings with elision as on the whole file.

    PYTHONPATH=$PWD python benchmarks/transparency.py [--shard 0/2] [--again] ROOT [ROOT ...]

Migrates each ``.py``/``.ipynb`` under the roots as ``identity.py`` does (``api._migrate_text``, no project) twice:
with elision wherever it leaves anything out (``elision.worth_eliding`` answering True: ``migrate`` elides only
where that leaves out enough to pay for itself), and with ``elision.elide`` answering None (the whole file parsed, as
``tests/test_elision.py::test_elision_changes_nothing`` does). Prints each file whose text, error or findings
differ, how many files were migrated again on the whole file after an elided first attempt
(``context.NeedsWholeFile`` and the other fallbacks), and exits 1 if any file differs.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from unittest.mock import patch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from dali_migrate import elision, engine  # noqa: E402
from dali_migrate.api import _migrate_text  # noqa: E402
from identity import _files  # noqa: E402


def _outcome(result) -> tuple:
    return result.migrated, result.error, [f.to_dict() for f in result.findings]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shard", default="0/1", help="K/N: every N-th file from the K-th")
    parser.add_argument("--again", action="store_true", help="also name the files migrated again on the whole file")
    parser.add_argument("roots", nargs="+")
    args = parser.parse_args(argv)
    shard, shards = map(int, args.shard.split("/"))
    whole = engine._migrate_parsed
    again: list[str] = []

    def counting(result, source, path, passes, force, project=None, elide=True, helper_module=None):
        if not elide:
            again.append(path)
        return whole(result, source, path, passes, force, project, elide, helper_module)

    compared = differ = 0
    paths = [p for root in args.roots for p in ([Path(root)] if Path(root).is_file() else _files([root]))]
    for path in paths[shard::shards]:
        try:
            source = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        with patch.object(engine, "_migrate_parsed", counting), \
                patch.object(elision, "worth_eliding", lambda *args, **kwargs: True):
            elided = _outcome(_migrate_text(source, str(path), path.suffix))
        with patch.object(elision, "elide", lambda *args, **kwargs: None):
            whole_file = _outcome(_migrate_text(source, str(path), path.suffix))
        compared += 1
        if elided != whole_file:
            differ += 1
            what = [k for k, a, b in zip(("migrated", "error", "findings"), elided, whole_file) if a != b]
            print(f"{path}: {', '.join(what)}", flush=True)
    if args.again:
        for path in sorted(set(again)):
            print(f"migrated again on the whole file: {path}")
    print(f"{compared} files, {differ} differ; migrated again on the whole file after elision: "
          f"{len(set(again))} files")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
