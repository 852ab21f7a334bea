"""Which operator arguments dynamic mode handles differently when their value is not a literal.

Run ``python -m dali_migrate.tools.probe_arguments`` after upgrading DALI and commit the result
(``dali_migrate/data/argument_inputs.json``). The codemod reads only the JSON.

Why: pipeline mode gives every Python value of an argument to the operator as a plain (scalar) argument. Dynamic
mode (DALI 2.4.0, ``_op_builder.build_fn_wrapper``) does that only where the call site shows the value is constant
(a literal, a DALI enum, a local bound once to an immutable literal: ``_source_analysis.constant_kwargs``); any
other value of an argument that may be a tensor (``schema.IsTensorArgument``) becomes a per-sample *argument
input*. Some operators read such an input differently or not at all: ``ndd.squeeze(x, axes=axes)`` with ``axes`` a
parameter fails with "Missing argument axes or axis_names" where ``fn.squeeze(x, axes=axes)`` works.

How: for every operator that has an ndd function and every tensor argument, the probe finds an input the
operator accepts (a few generic candidates: images, 1-D and 2-D arrays) and the spellings of a value pipeline mode
accepts (the schema's default, and generic scalars, lists and enums of the argument's type), runs
``fn.op(x, arg=value)`` in a pipeline and ``ndd.op(x, **{arg: value})`` (a call site that hides the value, as a
variable does), and compares the outputs (for random operators: shapes and types, the values differ by design).
Each pair is ``same``, ``differs`` (with the first spelling that differs and what happened) or ``not exercised``
(no input or value pipeline mode accepted was found: nothing is claimed).

Two batch sizes, 2 and 3: dynamic mode creates an operator for ``max_batch_size`` rounded up to a power of two
(``_op_builder._next_pow2``), and an operator that expects an argument input of that many samples fails only where
the batch size is not a power of two (``random_bbox_crop``'s ``input_shape``: "Unexpected number of samples in
argument `input_shape`: 3, expected: 4"). Such a difference is recorded with ``"batch_sizes": "not a power of two"``
(docs/dali-facts.md).
"""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path

TABLE_PATH = Path(__file__).resolve().parent.parent / "data" / "argument_inputs.json"

BATCH = 2  # the batch size of one probe process (--batch N); main() runs every operator at BATCH_SIZES
BATCH_SIZES = (2, 3)


def _inputs(np):
    """Candidate data for an operator's inputs: (description, samples, layout)."""
    rng = np.random.default_rng(5)
    return [
        ("uint8 HWC image", [rng.integers(0, 255, (8, 8, 3), dtype=np.uint8) for _ in range(BATCH)], "HWC"),
        ("float32 HWC image", [rng.random((8, 8, 3), dtype=np.float32) for _ in range(BATCH)], "HWC"),
        ("float32 1-D", [rng.random((16,), dtype=np.float32) for _ in range(BATCH)], ""),
        ("float32 2-D", [rng.random((4, 4), dtype=np.float32) for _ in range(BATCH)], "HW"),
        ("float32 (1, 4, 1)", [rng.random((1, 4, 1), dtype=np.float32) for _ in range(BATCH)], ""),
        ("float32 points", [rng.random((4, 2), dtype=np.float32) for _ in range(BATCH)], ""),
        ("int32 1-D", [rng.integers(0, 4, (4,), dtype=np.int32) for _ in range(BATCH)], ""),
        ("float32 CHW image", [rng.random((3, 8, 8), dtype=np.float32) for _ in range(BATCH)], "CHW"),
        ("uint8 FHWC video", [rng.integers(0, 255, (2, 8, 8, 3), dtype=np.uint8) for _ in range(BATCH)], "FHWC"),
    ]


def _default(schema, arg):
    if not schema.HasArgumentDefaultValue(arg):
        return None
    text = schema.GetArgumentDefaultValueString(arg)
    try:
        value = json.loads(text.replace(", ]", "]").replace("'", '"'))
    except ValueError:
        return None
    return value


def _spellings(schema, arg, dali_types):
    """Values pipeline mode may accept for ``arg``, as users spell them (scalars and lists)."""
    kind = str(schema.GetArgumentType(arg)).rsplit(".", 1)[-1]
    default = _default(schema, arg)
    found = []
    if kind in ("FLOAT", "INT32", "INT64"):
        found = [default, 1, 2, 0.5] if kind == "FLOAT" else [default, 1, 0, 2]
    elif kind == "_FLOAT_VEC":
        found = [default if default else None, [4.0, 4.0], [0.5, 0.5], [1.0], 4.0, 0.5, [0.5, 0.5, 0.5],
                 [1.0, 0.0, 0.0, 0.0, 1.0, 0.0]]
    elif kind in ("_INT32_VEC", "_INT64_VEC"):
        found = [default if default else None, [0], [1], 0, [0, 1], [4, 4], [2]]
    elif kind == "INTERP_TYPE":
        found = [dali_types.INTERP_LINEAR, dali_types.INTERP_NN]
    elif kind == "BOOL":
        found = [True, False]
    return [v for v in found if v is not None and v != []]


def _required(schema, tested, dali_types):
    """A value for each required argument other than ``tested`` (its first spelling)."""
    out = {}
    for arg in schema.GetArgumentNames():
        if arg == tested or arg.startswith("_") or schema.IsArgumentOptional(arg):
            continue
        spellings = _spellings(schema, arg, dali_types)
        if not spellings:
            return None
        out[arg] = spellings[0]
    return out


class _Probe:
    def __init__(self):
        import numpy as np
        import nvidia.dali.experimental.dynamic as ndd
        import nvidia.dali.fn as fn
        import nvidia.dali.types as dali_types
        from nvidia.dali import pipeline_def

        self.np, self.ndd, self.fn, self.types, self.pipeline_def = np, ndd, fn, dali_types, pipeline_def

    def _resolve(self, root, path):
        for part in path.split("."):
            root = getattr(root, part)
        return root

    def pipeline(self, path, inputs, kwargs):
        """The outputs of ``fn.<path>(inputs..., **kwargs)`` in a pipeline (numpy arrays), or raises."""
        fn, np = self.fn, self.np
        op = self._resolve(fn, path)

        @self.pipeline_def(batch_size=BATCH, num_threads=1, device_id=None, seed=7, prefetch_queue_depth=1)
        def pipe():
            nodes = [fn.external_source(source=[samples], layout=layout or None, cycle=True)
                     for samples, layout in inputs]
            out = op(*nodes, **kwargs)
            return tuple(out) if isinstance(out, (list, tuple)) else out

        p = pipe()
        p.build()
        outs = p.run()
        return [[np.array(o.as_cpu().at(i)) for i in range(BATCH)] for o in outs]

    def dynamic(self, path, inputs, kwargs):
        """The outputs of ``ndd.<path>(inputs..., **kwargs)``: the values come through ``**`` (not constant)."""
        ndd, np = self.ndd, self.np
        op = self._resolve(ndd, path)
        batches = [ndd.as_batch(samples, layout=layout or None) for samples, layout in inputs]
        out = op(*batches, batch_size=BATCH, **kwargs)
        outs = list(out) if isinstance(out, (list, tuple)) else list(out.values()) if isinstance(out, dict) else [out]
        return [[np.array(o.select(i).cpu()) for i in range(BATCH)] for o in outs]

    def same(self, a, b, random):
        np = self.np
        if len(a) != len(b):
            return False
        for xs, ys in zip(a, b):
            for x, y in zip(xs, ys):
                if x.shape != y.shape or x.dtype != y.dtype:
                    return False
                if not random and not np.array_equal(x, y, equal_nan=True):
                    return False
        return True


def _short(error: BaseException) -> str:
    text = f"{type(error).__name__}: {error}".splitlines()
    return next((line.strip() for line in text if "Assert" in line or "Error" in line), text[0])[:200]


def _same_length(others: dict, value) -> dict:
    """The other arguments' values, a one-element list among them repeated to the tested list's length.

    Pipeline mode broadcasts a one-element list of a plain argument to every dimension and dynamic mode does not;
    measured beside a longer list, a one-element companion (``roi_start=[0]`` beside ``crop_shape=[4, 4]``) made the
    *tested* argument look different, where the difference is the companion's: a list of one is measured beside
    companions of two elements when it is the argument tested (``_beside_longer_companions``)."""
    if not isinstance(value, list) or len(value) < 2:
        return dict(others)
    return {name: other * len(value) if isinstance(other, list) and len(other) == 1 else other
            for name, other in others.items()}


def _difference(run, path, inputs, kwargs, expected, random) -> str | None:
    """What went wrong in dynamic mode with ``kwargs`` where pipeline mode gave ``expected``, or None."""
    try:
        got = run.dynamic(path, inputs, kwargs)
        return None if run.same(expected, got, random) else "different outputs"
    except Exception as error:  # noqa: BLE001 -- what dynamic mode raises is the finding
        return _short(error)


def _beside_longer_companions(run, path, inputs, kwargs, arg, random) -> str | None:
    """A one-element list of ``arg`` beside companions of two elements (``roi_start=[0]`` beside
    ``crop_shape=[4, 4]``): pipeline mode broadcasts it, dynamic mode may not. None where there is no list companion,
    pipeline mode rejects it too, or both run alike."""
    others = {name: v for name, v in kwargs.items() if name != arg}
    widened = _same_length(others, [0, 0])
    if widened == others:
        return None
    widened[arg] = kwargs[arg]
    try:
        expected = run.pipeline(path, inputs, widened)
    except Exception:  # noqa: BLE001 -- not a spelling pipeline mode runs either
        return None
    why = _difference(run, path, inputs, widened, expected, random)
    return None if why is None else f"{why} (beside {', '.join(sorted(set(widened) - {arg}))} of two elements)"


def _probe_argument(run, path, schema, arg, count, candidates, random, extras):
    """How each spelling of ``arg`` that pipeline mode runs fares in dynamic mode: ``{"same": [...], "differs":
    {spelling: what happened}}`` (reprs), and the first value both ran alike (to help the others run)."""
    required = _required(schema, arg, run.types)
    if required is None:
        return {"verdict": "not exercised"}, None
    same, differs, first = [], {}, None
    for value in _spellings(schema, arg, run.types):
        if repr(value) in differs or repr(value) in same:
            continue
        for extra in extras:
            kwargs = _same_length({**required, **extra}, value)
            kwargs[arg] = value
            for what, samples, layout in candidates:
                inputs = [(samples, layout)] * count
                try:
                    expected = run.pipeline(path, inputs, kwargs)
                except Exception:  # noqa: BLE001 -- this input or value does not suit the operator
                    continue
                why = _difference(run, path, inputs, kwargs, expected, random)
                if why is None and isinstance(value, list) and len(value) == 1:
                    why = _beside_longer_companions(run, path, inputs, kwargs, arg, random)
                if why is None:
                    same.append(repr(value))
                    first = value if first is None else first
                else:
                    differs[repr(value)] = f"{why} (input: {what})"
                break
            else:
                continue
            break
    if not same and not differs:
        return {"verdict": "not exercised"}, None
    found = {"verdict": "differs" if differs else "same", "same": same,
             "type": str(schema.GetArgumentType(arg)).rsplit(".", 1)[-1]}
    if differs:
        found["differs"] = differs
    return found, first


def probe(paths=None, progress=sys.stderr) -> dict:
    import nvidia.dali as dali
    import nvidia.dali.backend as backend

    from .. import optable

    warnings.simplefilter("ignore")
    run = _Probe()
    table = optable.table()["fn"]
    result = {}
    for path, entry in sorted(table.items()):
        if not entry.get("ndd") or entry.get("kind") == "reader" or "replacement" in entry:
            continue
        if paths is not None and path not in paths:
            continue
        schema = backend.GetSchema(entry["schema"])
        tensor_args = [a for a in schema.GetArgumentNames() if schema.IsTensorArgument(a) and not a.startswith("_")]
        if not tensor_args:
            continue
        random = bool(entry.get("random"))
        count = schema.MinNumInput()
        candidates = [c for c in _inputs(run.np)] if count else [("no input", None, None)]
        base = _required(schema, None, run.types)
        for candidate in candidates if base is not None and len(candidates) > 1 else ():
            try:  # the first input the operator takes with its required arguments alone serves every argument
                run.pipeline(path, [candidate[1:]] * count, base)
            except Exception:  # noqa: BLE001 -- not this input
                continue
            candidates = [candidate]
            break
        print(f"{path}: {len(tensor_args)} arguments, {len(candidates)} inputs", file=progress, flush=True)
        op_result = {}
        companions: dict = {}  # a value of each argument that ran the same in both modes: helps the others run
        for second_round in (False, True):
            for arg in tensor_args:
                if second_round and op_result[arg]["verdict"] != "not exercised":
                    continue
                extras = [{}] if not second_round else [{a: v} for a, v in companions.items() if a != arg]
                op_result[arg], accepted = _probe_argument(run, path, schema, arg, count, candidates, random, extras)
                if accepted is not None:  # a value both modes ran alike, whatever other spellings did
                    companions.setdefault(arg, accepted)
        result[entry["ndd"]] = op_result
    return {"dali_version": dali.__version__, "generated_by": "python -m dali_migrate.tools.probe_arguments",
            "ops": result}


def _probe_in_processes(paths, progress, timeout=180, workers=2, batch=BATCH) -> dict:
    """``probe`` of each operator in a process of its own: an operator given arguments it cannot satisfy may never
    return (DALI 2.4.0's random_bbox_crop, say), and then its arguments are not exercised."""
    import concurrent.futures
    import subprocess

    import nvidia.dali as dali
    import nvidia.dali.backend as backend

    from .. import optable

    def has_tensor_args(entry):
        schema = backend.GetSchema(entry["schema"])
        return any(schema.IsTensorArgument(a) and not a.startswith("_") for a in schema.GetArgumentNames())

    names = sorted(path for path, entry in optable.table()["fn"].items() if entry.get("ndd")
                   and entry.get("kind") != "reader" and "replacement" not in entry and (paths is None or path in paths)
                   and has_tensor_args(entry))

    def one(path):
        try:
            done = subprocess.run([sys.executable, "-m", "dali_migrate.tools.probe_arguments", "--stdout",
                                   f"--batch={batch}", path],
                                  capture_output=True, text=True, timeout=timeout)
            return path, json.loads(done.stdout)["ops"] if done.returncode == 0 else None
        except (subprocess.TimeoutExpired, ValueError):
            return path, None

    result = {}
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        for path, found in pool.map(one, names):
            print(f"{path} (batch {batch}): {'done' if found is not None else 'no answer (timed out or crashed)'}",
                  file=progress,
                  flush=True)
            if found is None:
                ndd_path = optable.fn_entry(path)["ndd"]
                result[ndd_path] = {"*": {"verdict": "not exercised", "why": "the probe did not answer in time"}}
            else:
                result.update(found)
    return {"dali_version": dali.__version__, "generated_by": "python -m dali_migrate.tools.probe_arguments",
            "ops": result}


def merge_batch_sizes(at_two: dict, at_odd: dict) -> dict:
    """One table from the probes at batch size 2 and at 3: per argument, a difference seen at 2 as it was; else one
    seen only at 3, marked ``"batch_sizes": "not a power of two"``; else the verdict at 2, or at 3 where 2 exercised
    nothing (an operator may not answer at one size: random_bbox_crop never returns at 2)."""
    merged = {}
    for op in sorted(set(at_two["ops"]) | set(at_odd["ops"])):
        two, odd = at_two["ops"].get(op, {}), at_odd["ops"].get(op, {})
        args = sorted((set(two) | set(odd)) - {"*"}) or ["*"]
        merged[op] = {}
        for arg in args:
            first = two.get(arg, two.get("*", {"verdict": "not exercised"}))
            second = odd.get(arg, odd.get("*", {"verdict": "not exercised"}))
            if first["verdict"] == "differs":
                merged[op][arg] = first
            elif second["verdict"] == "differs":
                merged[op][arg] = {**second, "batch_sizes": "not a power of two"}
            elif first["verdict"] == "not exercised":
                merged[op][arg] = second
            else:
                merged[op][arg] = first
    return {**at_two, "ops": merged}


def main(argv=None) -> int:
    argv = list(argv or [])
    global BATCH
    BATCH = next((int(a.split("=", 1)[1]) for a in argv if a.startswith("--batch=")), BATCH)
    paths = [a for a in argv if not a.startswith("-")] or None
    if "--stdout" in argv:  # one process (the operators named)
        found = probe(paths, sys.stderr)
    else:  # a process per operator and batch size (DALI logs to stderr)
        two, odd = (_probe_in_processes(paths, sys.stdout, batch=size) for size in BATCH_SIZES)
        found = merge_batch_sizes(two, odd)
    text = json.dumps(found, indent=1, sort_keys=True) + "\n"
    if "--stdout" in argv:
        sys.stdout.write(text)
    else:
        TABLE_PATH.write_text(text)
        pairs = [v for op in found["ops"].values() for v in op.values()]
        print(f"wrote {TABLE_PATH}: {len(pairs)} arguments, "
              f"{sum(v['verdict'] == 'differs' for v in pairs)} differ, "
              f"{sum(v['verdict'] == 'not exercised' for v in pairs)} not exercised")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
