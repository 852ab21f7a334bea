"""Byte-identity of single-file migrations between two checkouts (a speed change must change no output).

    python benchmarks/identity.py snapshot OUT.jsonl ROOT [ROOT ...]   # at one checkout (its own PYTHONPATH)
    python benchmarks/identity.py snapshot --shard 0/2 OUT.jsonl ROOT ...   # every 2nd file from the 1st: run shards
                                                                            # side by side, compare their union
    python benchmarks/identity.py compare BEFORE.jsonl AFTER.jsonl

``snapshot`` migrates every ``.py``/``.ipynb`` under the roots one by one, as ``migrate`` does a single
file (``api._migrate_text``: no project), and writes one JSON line per file: the path, the migrated
text's SHA-256, the error, and every finding as (rule, line, column, fixed, message). ``compare`` prints
each file whose line differs and exits 1 if any does (``compare B0.jsonl,B1.jsonl A0.jsonl,A1.jsonl`` for shards).
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path


def _files(roots: list[str]) -> list[Path]:
    found = []
    for root in roots:
        for folder, dirs, names in os.walk(root):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            found += [Path(folder) / n for n in sorted(names) if n.endswith((".py", ".ipynb"))]
    return found


def snapshot(out: str, roots: list[str], shard: int = 0, shards: int = 1) -> None:
    from dali_migrate.api import _migrate_text

    with open(out, "w") as sink:
        for path in _files(roots)[shard::shards]:
            try:
                source = path.read_text(encoding="utf-8")
            except (UnicodeDecodeError, OSError):
                continue
            result = _migrate_text(source, str(path), path.suffix)
            sink.write(json.dumps({
                "path": str(path),
                "migrated": hashlib.sha256(result.migrated.encode("utf-8", "surrogatepass")).hexdigest(),
                "error": result.error,
                "findings": [[f.rule, f.line, f.column, f.fixed, f.message] for f in result.findings],
            }) + "\n")
            sink.flush()


def compare(before: list[str], after: list[str]) -> int:
    def load(names):
        return {row["path"]: row for name in names for row in map(json.loads, Path(name).read_text().splitlines())}

    old, new = load(before), load(after)
    differ = sorted(p for p in old.keys() | new.keys() if old.get(p) != new.get(p))
    for path in differ:
        a, b = old.get(path), new.get(path)
        what = "missing" if a is None or b is None else \
            ", ".join(k for k in ("migrated", "error", "findings") if a[k] != b[k])
        print(f"{path}: {what}")
    print(f"{len(old)} before, {len(new)} after, {len(differ)} differ")
    return 1 if differ else 0


if __name__ == "__main__":
    args = sys.argv[1:]
    if args[0] == "snapshot":
        shard, shards = 0, 1
        if args[1] == "--shard":
            shard, shards = map(int, args[2].split("/"))
            args = args[2:]
        snapshot(args[1], args[2:], shard, shards)
    else:  # compare BEFORE[,BEFORE...] AFTER[,AFTER...]: shards given as comma-separated lists
        sys.exit(compare(args[1].split(","), args[2].split(",")))
