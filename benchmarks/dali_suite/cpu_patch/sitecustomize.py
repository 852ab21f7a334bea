"""CPU start-up patch for running DALI's own tests on a machine without a GPU (benchmarks/dali_suite).

Put this folder first on PYTHONPATH; Python imports ``sitecustomize`` at start-up. It is applied the same way
to the original and to the migrated copy of DALI's tests, so it changes nothing in the comparison, only what
can run at all:

* ``Pipeline(device_id=k)`` with ``k >= 0`` (also through ``pipeline_def``, which constructs a ``Pipeline``)
  becomes ``device_id=None`` when CUDA reports no device: DALI 2.4 refuses to build a pipeline that has a
  device_id without CUDA, even one with CPU operators only.
* ``ndd.Device("gpu", k)`` (``"gpu:k"``, ``"cuda"``) is accepted without a GPU and is an inert context: entering
  it neither sets a CUDA device nor makes it the current device (so operators still default to the CPU).

Nothing is imported before the program imports DALI: the patch waits for the two modules through an import
hook, so a process that never imports DALI is not touched. Set DALI_SUITE_PATCH_OFF=1 to disable it.
"""

import importlib.abc
import inspect
import os
import sys

_TARGETS = {"nvidia.dali.pipeline", "nvidia.dali.experimental.dynamic._device"}


def _no_gpu():
    from nvidia.dali import backend

    try:
        return backend.GetCUDADeviceCount() == 0
    except Exception:  # no driver at all
        return True


def _patch_pipeline(module):
    pipeline_class = module.Pipeline
    original_init = pipeline_class.__init__

    def __init__(self, *args, **kwargs):
        # device_id is the third positional parameter (batch_size, num_threads, device_id)
        if len(args) >= 3 and isinstance(args[2], int) and args[2] >= 0 and _no_gpu():
            args = args[:2] + (None,) + args[3:]
        device_id = kwargs.get("device_id")
        if isinstance(device_id, int) and device_id >= 0 and _no_gpu():
            kwargs["device_id"] = None
        original_init(self, *args, **kwargs)

    # pipeline_def tells constructor arguments from the function's by inspect.getfullargspec(Pipeline.__init__),
    # which does not follow __wrapped__ but does read __signature__
    __init__.__signature__ = inspect.signature(original_init)
    __init__.__wrapped__ = original_init
    __init__.__doc__ = original_init.__doc__
    pipeline_class.__init__ = __init__


def _patch_device(module):
    device_class = module.Device
    original_init = device_class.__init__
    original_enter = device_class.__enter__
    original_exit = device_class.__exit__

    def __init__(self, name, device_id=None):
        if _no_gpu():
            device_type, name_id = device_class._split_device_type_and_id(name)
            if device_type in ("gpu", "cuda"):
                ordinal = device_id if device_id is not None else name_id
                self.device_type = "gpu"
                self.device_id = ordinal if ordinal is not None else 0
                self._dali_suite_inert = True
                return
        original_init(self, name, device_id)

    def __enter__(self):
        if getattr(self, "_dali_suite_inert", False):
            return self
        return original_enter(self)

    def __exit__(self, exc_type, exc_value, traceback):
        if getattr(self, "_dali_suite_inert", False):
            return None
        return original_exit(self, exc_type, exc_value, traceback)

    __init__.__signature__ = inspect.signature(original_init)
    __init__.__wrapped__ = original_init
    device_class.__init__ = __init__
    device_class.__enter__ = __enter__
    device_class.__exit__ = __exit__


_PATCHES = {"nvidia.dali.pipeline": _patch_pipeline, "nvidia.dali.experimental.dynamic._device": _patch_device}


class _Loader(importlib.abc.Loader):
    def __init__(self, loader, name):
        self._loader = loader
        self._name = name

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        self._loader.exec_module(module)
        _PATCHES[self._name](module)

    def __getattr__(self, attribute):  # get_resource_reader, is_package, ...: the real loader answers
        return getattr(self._loader, attribute)


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path, target=None):
        if fullname not in _TARGETS:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                if spec.loader is not None:
                    spec.loader = _Loader(spec.loader, fullname)
                return spec
        return None


if not os.environ.get("DALI_SUITE_PATCH_OFF"):
    sys.meta_path.insert(0, _Finder())
