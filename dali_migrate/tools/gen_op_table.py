"""Generate ``dali_migrate/data/op_table.json`` from the installed DALI.

Run ``python -m dali_migrate.tools.gen_op_table`` after upgrading DALI and commit the result.
The codemod reads only the JSON, so it runs without DALI; ``tests/test_op_table.py`` regenerates
the table in memory and fails when it drifts from the installed DALI.

What introspection cannot know (operator names that modern DALI no longer registers at all, such
as ``ops.nvJPEGDecoder``) lives in ``REMOVED_OPS`` below, a small reviewed table.
"""

from __future__ import annotations

import inspect
import json
import re
import sys
import types
from pathlib import Path

TABLE_PATH = Path(__file__).resolve().parent.parent / "data" / "op_table.json"

# Legacy ``ops.*`` class names that DALI 2.x no longer registers, mapped to the fn path that
# replaced them. Reviewed by hand against the DALI release notes; introspection cannot know them.
REMOVED_OPS = {
    "nvJPEGDecoder": "decoders.image",
    "nvJPEGDecoderCrop": "decoders.image_crop",
    "nvJPEGDecoderSlice": "decoders.image_slice",
    "nvJPEGDecoderRandomCrop": "decoders.image_random_crop",
    "HostDecoder": "decoders.image",
    "HostDecoderCrop": "decoders.image_crop",
    "HostDecoderSlice": "decoders.image_slice",
    "HostDecoderRandomCrop": "decoders.image_random_crop",
}


def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


def _walk_fn(module, prefix, seen):
    for attr in dir(module):
        if attr.startswith("__"):
            continue
        value = getattr(module, attr)
        if isinstance(value, types.ModuleType):
            if value.__name__.startswith(module.__name__) and value.__name__ not in seen:
                seen.add(value.__name__)
                yield from _walk_fn(value, f"{prefix}{attr}.", seen)
        elif callable(value) and getattr(value, "_schema_name", None):
            yield prefix + attr, value._schema_name


def _walk_ops(module, prefix, seen):
    for attr in dir(module):
        if attr.startswith("_"):
            continue
        value = getattr(module, attr)
        if isinstance(value, types.ModuleType):
            if value.__name__.startswith(module.__name__) and value.__name__ not in seen:
                seen.add(value.__name__)
                yield from _walk_ops(value, f"{prefix}{attr}.", seen)
        elif isinstance(value, type) and getattr(value, "schema_name", None):
            yield prefix + attr, value.schema_name


def _resolve(obj, dotted: str):
    for part in dotted.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def _params(callable_obj) -> set[str]:
    try:
        sig = inspect.signature(callable_obj)
    except (TypeError, ValueError):
        return set()
    return {p.name for p in sig.parameters.values() if p.kind is not p.VAR_KEYWORD and p.name != "self"}


def build_table() -> dict:
    import nvidia.dali as dali
    import nvidia.dali.backend as backend
    import nvidia.dali.experimental.dynamic as ndd
    import nvidia.dali.fn as fn
    import nvidia.dali.math as dali_math
    import nvidia.dali.ops as ops
    import nvidia.dali.types as dali_types

    fn_entries = sorted(
        (path, schema)
        for path, schema in _walk_fn(fn, "", set())
        if not any(part.startswith("_") or part == "hidden" for part in path.split("."))
    )
    current_path_of_schema = {}
    for path, schema_name in fn_entries:
        if not backend.GetSchema(schema_name).IsDeprecated():
            current_path_of_schema.setdefault(schema_name, path)

    def describe(path: str, schema_name: str) -> dict:
        schema = backend.GetSchema(schema_name)
        entry: dict = {"schema": schema_name}
        if schema.IsDeprecated():
            target = schema.DeprecatedInFavorOf()
            entry["deprecated_in"] = schema.DeprecatedInVersion()
            entry["replacement"] = current_path_of_schema.get(target) if target else None
        # How many DataNodes a call returns: fn gives a single DataNode for exactly one output and
        # a list otherwise; None when the count depends on the arguments (e.g. resize's save_attrs).
        if schema.HasOutputFn():
            entry["outputs"] = None
        else:
            spec = backend.OpSpec(schema_name)
            entry["outputs"] = schema.CalculateOutputs(spec) + schema.CalculateAdditionalOutputs(spec)
        is_reader = path.startswith(("readers.", "experimental.readers."))
        if is_reader:
            module_path = path.rsplit(".", 1)[0]
            ndd_path = f"{module_path}.{schema.OperatorName()}"
        else:
            ndd_path = path
        ndd_obj = _resolve(ndd, ndd_path)
        if ndd_obj is None or "replacement" in entry:
            entry["ndd"] = None
        else:
            entry["ndd"] = ndd_path
            entry["kind"] = "reader" if is_reader else "function"
            # "name" is a pipeline-level argument of every fn op, not a schema argument.
            fn_args = {a for a in schema.GetArgumentNames() if not a.startswith("_")} | {"name"}
            ndd_args = _params(ndd_obj.__init__ if is_reader else ndd_obj)
            entry["dropped_args"] = sorted(fn_args - ndd_args)
            # Arguments that take a DALI data type (dtype=, dtypes=[...]): numpy types become types.X there.
            entry["type_args"] = sorted(a for a in fn_args - {"name"}
                                        if "DATA_TYPE" in str(schema.GetArgumentType(a)))
            entry["random"] = bool(schema.HasRandomStateArg())
            entry["input_less"] = schema.MinNumInput() == 0 and not is_reader
        return entry

    table_fn = {path: describe(path, schema) for path, schema in fn_entries}

    table_ops = {}
    for path, schema_name in sorted(_walk_ops(ops, "", set())):
        schema = backend.GetSchema(schema_name)
        if schema.IsDeprecated() and schema.DeprecatedInFavorOf():
            fn_path = current_path_of_schema.get(schema.DeprecatedInFavorOf())
        else:
            fn_path = current_path_of_schema.get(schema_name)
        if fn_path is None:
            fn_path = next((p for p, s in fn_entries if s == schema_name), None)
        table_ops[path] = {"schema": schema_name, "fn": fn_path}
    for name, fn_path in REMOVED_OPS.items():
        table_ops.setdefault(name, {"schema": None, "fn": fn_path, "removed": True})

    math_names = sorted(
        n for n in dir(dali_math)
        if not n.startswith("_") and callable(getattr(dali_math, n)) and hasattr(ndd.math, n)
    )
    readers = {p: e for p, e in table_fn.items() if e.get("kind") == "reader"}
    # numpy scalar type name -> DALIDataType member, inverted from DALI's own types.to_numpy_type.
    numpy_types = {}
    for member in dali_types.DALIDataType.__members__.values():
        try:
            numpy_type = dali_types.to_numpy_type(member)
        except (KeyError, TypeError):
            continue
        numpy_types[numpy_type.__name__] = member.name
        if numpy_type.__name__ == "bool":  # numpy 2 spells np.bool_ "bool"; both names exist
            numpy_types["bool_"] = member.name
    return {
        "dali_version": dali.__version__,
        "generated_by": "python -m dali_migrate.tools.gen_op_table",
        "summary": {
            "fn_ops": len(table_fn),
            "mapped": sum(1 for e in table_fn.values() if e.get("ndd")),
            "readers": len(readers),
            "random": sum(1 for e in table_fn.values() if e.get("random")),
            "legacy_ops_classes": len(table_ops),
        },
        "fn": table_fn,
        "ops": table_ops,
        "math": math_names,
        "numpy_types": dict(sorted(numpy_types.items())),
    }


def main(argv=None) -> int:
    table = build_table()
    text = json.dumps(table, indent=1, sort_keys=True) + "\n"
    if argv and "--stdout" in argv:
        sys.stdout.write(text)
    else:
        TABLE_PATH.write_text(text)
        print(f"wrote {TABLE_PATH} for DALI {table['dali_version']}: {table['summary']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
