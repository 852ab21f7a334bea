"""The two sides of a comparison, made from their modules: the original ``Pipeline`` as the user builds it, and
the migrated code's iterator (what ``runner`` compares and ``training_loop`` times)."""

from __future__ import annotations

from .devices import DeviceMapping, cuda_device_count
from .loading import HarnessError, find, instantiate


def built_for_timing(module, name: str, path: str, args, kwargs):
    """The original pipeline, built as the user builds it, without the harness's hooks; its device_id is
    dropped where there is no GPU (a positional one escapes the text mapping)."""
    pipe, _ = original_pipeline(module, name, path, args, kwargs, None)
    if pipe.device_id is not None and cuda_device_count() == 0:
        pipe._device_id = None
    pipe.build()
    return pipe


def migrated_iterator(module, name: str, path: str, args, kwargs):
    target = find(module, name, path)
    from nvidia.dali.pipeline import Pipeline

    obj, style = instantiate(target, args, _accepted(target, kwargs))
    if isinstance(obj, Pipeline):
        raise NotMigrated(f"{path}: {name} still builds a pipeline-mode Pipeline; it has not been unrolled into "
                           f"dynamic-mode code")
    try:
        return iter(obj), style
    except TypeError:
        raise NotMigrated(f"{path}: {name} gives a {type(obj).__name__}, which cannot be iterated") from None


# Pipeline options a migrated generator takes only where its body or callers use them (the migration drops
# them from the call sites it rewrites; the harness calls the generator the way the migrated callers do).
_PIPELINE_OPTIONS = ("num_threads", "device_id", "seed")


def _accepted(target, kwargs: dict) -> dict:
    """``kwargs`` without the pipeline options ``target`` (a migrated generator function) does not take."""
    import inspect

    if not callable(target) or not any(k in kwargs for k in _PIPELINE_OPTIONS):
        return kwargs
    try:
        params = inspect.signature(target).parameters
    except (TypeError, ValueError):
        return kwargs
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return kwargs
    return {k: v for k, v in kwargs.items() if k in params or k not in _PIPELINE_OPTIONS}


class NotMigrated(Exception):
    pass


def original_pipeline(module, name: str, path: str, args, kwargs, report):
    """The original Pipeline the module's ``name`` builds; ``report`` (a ``runner.VerifyReport``, or None)
    records the device mapping where there is no GPU."""
    from nvidia.dali.pipeline import Pipeline

    target = find(module, name, path)
    pipe, style = instantiate(target, args, kwargs)
    if not isinstance(pipe, Pipeline):
        raise HarnessError(f"{path}: {name} gives a {type(pipe).__name__}, not a DALI Pipeline")
    if report is not None and report.devices.get("mapped_to_cpu") and pipe.device_id is not None:
        report.device_mappings.append(DeviceMapping("original", 0, f"Pipeline device_id={pipe.device_id}",
                                                    "device_id=None", "set on the built Pipeline object"))
        pipe._device_id = None  # a positional device_id escapes the text rewrite; a GPU pipeline cannot build
    return pipe, style
