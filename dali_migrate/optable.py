"""The fn -> ndd operator table, generated from the installed DALI (see tools/gen_op_table.py).

The codemod reads only this JSON, so it runs where DALI is not installed.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

TABLE_PATH = Path(__file__).resolve().parent / "data" / "op_table.json"


@lru_cache(maxsize=1)
def table() -> dict:
    return json.loads(TABLE_PATH.read_text())


def dali_version() -> str:
    return table()["dali_version"]


def fn_entry(path: str) -> dict | None:
    """Entry for ``fn.<path>`` (``"readers.file"``), or None when fn has no such op."""
    return table()["fn"].get(path)


def resolve_fn(path: str) -> tuple[str | None, str | None, dict | None]:
    """``(ndd_path, replaced_by, entry)`` for ``fn.<path>``.

    ``ndd_path`` is the dynamic-mode name (``"readers.File"``) or None when there is none;
    ``replaced_by`` is the current fn path when ``path`` is a deprecated name; ``entry`` is the
    table entry of the op that is finally used.
    """
    entry = fn_entry(path)
    if entry is None:
        return None, None, None
    replaced_by = None
    seen = {path}
    while entry.get("replacement"):
        replaced_by = entry["replacement"]
        if replaced_by in seen:
            break
        seen.add(replaced_by)
        entry = fn_entry(replaced_by) or {}
    return entry.get("ndd"), replaced_by, entry


def ops_class(path: str) -> dict | None:
    """Entry for the legacy ``ops.<path>`` class (``"FileReader"``, ``"readers.File"``)."""
    return table()["ops"].get(path)


def math_names() -> frozenset[str]:
    return frozenset(table()["math"])


def is_reader(path: str) -> bool:
    _, _, entry = resolve_fn(path)
    return bool(entry) and entry.get("kind") == "reader"


@lru_cache(maxsize=1)
def _by_ndd_path() -> dict:
    index = {}
    for path, entry in table()["fn"].items():
        if entry.get("ndd") and "replacement" not in entry:
            index.setdefault(entry["ndd"], entry)
    return index


def ndd_entry(ndd_path: str) -> dict | None:
    """Entry of the op that ``ndd.<ndd_path>`` (``"readers.File"``, ``"resize"``) calls, or None."""
    return _by_ndd_path().get(ndd_path)


def dali_type_for_numpy(name: str) -> str | None:
    """``"float32"`` -> ``"FLOAT"``: the ``nvidia.dali.types`` member for a numpy scalar type name."""
    return table().get("numpy_types", {}).get(name)


ARGUMENT_INPUTS_PATH = Path(__file__).resolve().parent / "data" / "argument_inputs.json"


@lru_cache(maxsize=1)
def _argument_inputs() -> dict:
    if not ARGUMENT_INPUTS_PATH.exists():
        return {}
    return json.loads(ARGUMENT_INPUTS_PATH.read_text()).get("ops", {})


def argument_inputs_differ(ndd_path: str) -> dict:
    """``{argument: ({spelling: what happened}, [spellings run alike], the argument's DALI type name, at any batch
    size)}`` for the arguments of ``ndd.<ndd_path>`` that dynamic mode handles differently when the call site does not
    show their value is constant (a per-sample argument input instead of a scalar argument), at any batch size or
    only at those that are not a power of two (the last item False): the spellings (reprs of values) pipeline mode
    ran and dynamic mode did or did not run alike (tools/probe_arguments.py)."""
    measured = _argument_inputs().get(ndd_path, {})
    return {arg: (found["differs"], found.get("same", []), found.get("type", ""), "batch_sizes" not in found)
            for arg, found in measured.items() if found.get("verdict") == "differs"}
