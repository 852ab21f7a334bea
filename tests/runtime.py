"""Run an original pipeline-mode program and its migrated twin on the CPU and compare what they yield.

Small on purpose (the differential harness in dali_migrate/harness is the general tool): tiny
generated JPEGs, device mapped to the CPU, both programs loaded from source text as modules.
"""

from __future__ import annotations

import re
import types
from pathlib import Path

import numpy as np

from dali_migrate import migrate_source

GOLDEN = Path(__file__).resolve().parent.parent / "golden"


def make_images(root: Path, count: int = 10, classes: int = 2, size: int = 32, seed: int = 0) -> Path:
    """``count`` noise JPEGs (size x size, each different) in ``classes`` label folders."""
    from PIL import Image

    rng = np.random.default_rng(seed)
    for i in range(count):
        folder = root / f"class_{i % classes}"
        folder.mkdir(parents=True, exist_ok=True)
        pixels = rng.integers(0, 256, (size, size + 4 * (i % 3), 3), dtype=np.uint8)
        Image.fromarray(pixels).save(folder / f"img_{i:03d}.jpg", quality=90)
    return root


def make_program_data(root: Path) -> dict[str, str]:
    """The data the golden programs (golden/runnable) read, by the placeholder their commands use:
    ``{images}`` 10 JPEGs in 2 class folders, ``{numpy}`` 6 float32 .npy arrays (4x5, values i*20..i*20+19),
    ``{filelist}`` a file list (``relative/path.jpg label``) over ``{images}`` with 3 labels."""
    root = Path(root)
    images = make_images(root / "images", count=10, classes=2)
    arrays = root / "numpy"
    arrays.mkdir(parents=True, exist_ok=True)
    for i in range(6):
        np.save(arrays / f"arr_{i:03d}.npy", (np.arange(20, dtype=np.float32) + 20 * i).reshape(4, 5) / 8)
    files = sorted(p.relative_to(images).as_posix() for p in images.rglob("*.jpg"))
    filelist = root / "filelist.txt"
    filelist.write_text("".join(f"{rel} {i % 3}\n" for i, rel in enumerate(files)))
    return {"images": str(images), "numpy": str(arrays), "filelist": str(filelist)}


_CPU = [
    (re.compile(r'device\s*=\s*"(mixed|gpu)"'), 'device="cpu"'),
    (re.compile(r"device\s*=\s*'(mixed|gpu)'"), 'device="cpu"'),
    (re.compile(r"device_id\s*=\s*0\b"), "device_id=None"),
    (re.compile(r"\.gpu\(\)"), ""),
]


def on_cpu(text: str) -> str:
    """The program with every GPU request turned into the CPU (this machine has no GPU)."""
    for pattern, replacement in _CPU:
        text = pattern.sub(replacement, text)
    return text


def write_migrated(path: Path, text: str) -> None:
    """A migrated module written to ``path``, with the helper module it imports beside it, as migrate --write
    writes them (the helpers it imports, nothing else)."""
    from dali_migrate.transforms.unroll import helpers

    path.write_text(text)
    names = {name for _, found in helpers.imported_names(text, helpers.DEFAULT_MODULE) for name in found}
    if names:
        (path.parent / f"{helpers.DEFAULT_MODULE}.py").write_text(helpers.module_text(names))


def load(text: str, name: str) -> types.ModuleType:
    """``text`` run as the module ``name``; the helper module it imports (dali_dynamic_compat), as migrate --write
    would write it."""
    from dali_migrate.harness.loading import provide_helper_module

    provide_helper_module(text)
    module = types.ModuleType(name)
    module.__file__ = f"<{name}>"
    exec(compile(text, f"<{name}>", "exec"), module.__dict__)
    return module


def pair(golden_path: str) -> tuple[types.ModuleType, types.ModuleType, str]:
    """(original module, migrated module, migrated text) for ``golden/<golden_path>``, on the CPU."""
    source = (GOLDEN / golden_path).read_text()
    result = migrate_source(source, golden_path)
    assert result.error is None, result.error
    migrated = result.migrated
    assert "dali_migrate" not in migrated
    stem = golden_path.replace("/", "_").removesuffix(".py")
    return load(on_cpu(source), stem + "_original"), load(on_cpu(migrated), stem + "_migrated"), migrated


def samples(value) -> list[np.ndarray]:
    """Per-sample arrays of a pipeline TensorList, an ndd Batch or a torch tensor."""
    if hasattr(value, "select") and hasattr(value, "batch_size"):  # ndd.Batch
        return [np.asarray(value.select(i)) for i in range(value.batch_size)]
    if hasattr(value, "at") and hasattr(value, "as_tensor"):  # TensorListCPU
        return [np.asarray(value.at(i)) for i in range(len(value))]
    if hasattr(value, "numpy"):  # torch.Tensor
        return list(value.detach().cpu().numpy())
    raise TypeError(f"cannot read samples of {type(value).__name__}")


def steps_as_arrays(steps) -> list[list[list[np.ndarray]]]:
    """[step][output][sample] arrays for a list of pipe.run() / next(pipe) results."""
    return [[samples(output) for output in step] for step in steps]


def assert_bitwise_equal(original, migrated, what: str) -> int:
    """Same number of samples, same shapes and dtypes, identical bytes. Returns the sample count."""
    assert len(original) == len(migrated), f"{what}: {len(original)} vs {len(migrated)} samples"
    for i, (a, b) in enumerate(zip(original, migrated)):
        assert a.shape == b.shape, f"{what}[{i}]: shape {a.shape} vs {b.shape}"
        assert a.dtype == b.dtype, f"{what}[{i}]: dtype {a.dtype} vs {b.dtype}"
        assert a.tobytes() == b.tobytes(), f"{what}[{i}]: values differ (max abs diff " \
                                           f"{np.max(np.abs(a.astype(np.float64) - b.astype(np.float64)))})"
    return len(original)


def output(steps, index) -> list[np.ndarray]:
    """All samples of output ``index`` over the steps, in order."""
    return [sample for step in steps for sample in step[index]]
