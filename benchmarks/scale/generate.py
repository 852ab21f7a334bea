"""Generate a repository of about N Python modules shaped like a company's DALI code (issue 33).

The shapes are those of real repositories (DALI's own tests, the corpus), written here from scratch:

* a package ``data`` whose ``__init__.py`` re-exports pipeline factories of its modules;
* ``data/base.py``: a ``Pipeline`` subclass the pipeline modules derive from (a class hierarchy across modules);
* per group of modules (``g`` = 0, 1, ...):
  - ``data/pipes_g.py``: a ``@pipeline_def`` named ``create_pipeline`` (the same name in every group), a factory
    ``make_pipe`` filling ``with pipe:``, a subclass of ``data.base.BasePipe``; its pipelines build their graphs
    with helpers of ``data/augment_g.py`` and of the previous group's augment module (graph helpers across
    modules); one group in four also saves ``create_pipeline`` with ``pipe.serialize()``, so that unit stays in
    pipeline mode in every module that uses it (kept and migrated units side by side);
  - ``data/augment_g.py``: graph helpers (flip, rotate, normalize) other modules' pipelines call;
  - ``data/loaders_g.py``: functions and a PyTorch iterator subclass other modules hand their pipelines to;
  - ``train_g.py``: a training script that imports the group's pipelines (by module and through the package's
    re-exports), builds and runs them, hands them to a loader module of another group;
  - ``tests/test_pipes_g.py``: a test module in DALI's style (its own ``pipe`` variables and a local
    ``create_pipeline``, check functions, generator tests) that also imports the group's pipelines;
  - ``models/net_g.py``, ``utils/metrics_g.py``: plain Python without DALI that still say ``pipe`` and
    ``create_pipeline`` in comments and names (the words that made the old project run quadratic).

``python generate.py N OUT``: writes the tree under OUT (which must not exist) and prints the module count.
Deterministic: the same N gives the same files.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

PER_GROUP = 7  # modules written per group (pipes, augment, loaders, train, test, net, metrics)

BASE = '''"""The project's base pipeline: a file reader, decoded; subclasses add their own augmentations."""

import nvidia.dali.fn as fn
from nvidia.dali import Pipeline


class BasePipe(Pipeline):
    def __init__(self, root, batch_size=4, num_threads=2, device_id=None, seed=1):
        super().__init__(batch_size, num_threads, device_id, seed=seed)
        self.root = root

    def read(self):
        jpegs, labels = fn.readers.file(file_root=self.root, random_shuffle=True, name="Reader")
        return fn.decoders.image(jpegs), labels

    def define_graph(self):
        images, labels = self.read()
        return self.augment(images), labels

    def augment(self, images):
        return images
'''

AUGMENT = '''"""Graph helpers of group {g}: what the pipelines of this group and the next one build with."""

import nvidia.dali.fn as fn
import nvidia.dali.types as types


def augment(images, angle={angle}):
    images = fn.rotate(images, angle=angle, fill_value=0)
    return fn.flip(images, horizontal=1)


def normalize(images, size={size}):
    images = fn.resize(images, resize_x=size, resize_y=size)
    return fn.crop_mirror_normalize(images, dtype=types.FLOAT, mean=[{mean}] * 3, std=[{std}] * 3)


def scale(images, factor={factor}):
    return images * factor
'''

PIPES = '''"""Pipelines of group {g}: a @pipeline_def, a factory that fills `with pipe:`, a subclass of the base."""

import nvidia.dali.fn as fn
from nvidia.dali import Pipeline, pipeline_def

from data.augment_{g} import augment, normalize
from data.augment_{prev} import scale
from data.base import BasePipe


@pipeline_def(batch_size={batch}, num_threads=2, device_id=None, seed={seed})
def create_pipeline(root, size={size}):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, name="Reader")
    images = fn.decoders.image(jpegs)
    images = normalize(augment(images), size)
    return scale(images), labels


def make_pipe(root, batch_size={batch}):
    pipe = Pipeline(batch_size=batch_size, num_threads=2, device_id=None)
    with pipe:
        jpegs, labels = fn.readers.file(file_root=root, pad_last_batch=True)
        images = fn.decoders.image(jpegs)
        pipe.set_outputs(fn.resize(images, resize_x={size}, resize_y={size}), labels)
    return pipe


class GroupPipe{g}(BasePipe):
    def augment(self, images):
        return fn.resize(images, resize_x={size}, resize_y={size})
{kept}'''

KEPT = '''

def export(root, path):
    """Saved for DALI's C++ API: this pipeline stays a pipeline-mode Pipeline."""
    pipe = create_pipeline(root)
    pipe.build()
    with open(path, "wb") as f:
        f.write(pipe.serialize())
'''

LOADERS = '''"""Data loading of group {g}: training code hands its pipelines to these."""

from nvidia.dali.plugin.pytorch import DALIGenericIterator, LastBatchPolicy


class TrainLoader(DALIGenericIterator):
    def __init__(self, pipe, size, **kw):
        super().__init__(pipe, ["images", "labels"], size=size, auto_reset=True, **kw)

    def __next__(self):
        out = super().__next__()[0]
        return out["images"], out["labels"]


def make_loader(pipes, reader_name="Reader"):
    return DALIGenericIterator(pipes, ["images", "labels"], reader_name=reader_name,
                               last_batch_policy=LastBatchPolicy.PARTIAL)


def run_steps(pipe, steps):
    pipe.build()
    return [pipe.run() for _ in range(steps)]
'''

TRAIN = '''"""Training script of group {g}."""

import sys

from data import make_pipe_{g}
from data.loaders_{other} import TrainLoader, run_steps
from data.pipes_{g} import GroupPipe{g}, create_pipeline


def train(root, epochs={epochs}):
    pipe = create_pipeline(root, {size})
    loader = TrainLoader(pipe, {size2})
    seen = []
    for epoch in range(epochs):
        for images, labels in loader:
            seen.append((epoch, tuple(images.shape), labels.view(-1).tolist()))
    return seen


def validate(root):
    pipe = GroupPipe{g}(root, batch_size={batch})
    pipe.build()
    return [pipe.run() for _ in range({steps})]


def padded(root):
    return run_steps(make_pipe_{g}(root), {steps})


if __name__ == "__main__":
    print(train(sys.argv[1]))
    print(len(validate(sys.argv[1])), len(padded(sys.argv[1])))
'''

TEST = '''"""Tests of group {g}, in DALI's test-suite style."""

import numpy as np
import nvidia.dali.fn as fn
from nvidia.dali import pipeline_def

from data.pipes_{g} import create_pipeline as group_pipeline

test_data_root = "/data/images"


@pipeline_def(batch_size={batch}, num_threads=2, device_id=None)
def create_pipeline(shape, value):
    data = fn.external_source(source=lambda info: np.full(shape, value + info.idx_in_epoch, dtype=np.float32),
                              batch=False)
    return fn.{op}(data{op_args})


def check_values(shape, value):
    pipe = create_pipeline(shape, value)
    pipe.build()
    for _ in range({steps}):
        (out,) = pipe.run()
        assert out.as_array().shape[0] == {batch}


def test_values():
    for shape in [(2, 3), (4, 4)]:
        for value in [{value}, {value2}]:
            yield check_values, shape, value


def test_group_pipeline():
    pipe = group_pipeline(test_data_root)
    pipe.build()
    images, labels = pipe.run()
    assert len(labels) == {batch}
'''

NET = '''"""A model of group {g} (no DALI here): it says pipe and create_pipeline in names and comments only."""

import math


class Net{g}:
    """Layers whose sizes the data pipe decides (create_pipeline in data.pipes_{g} sets the image size)."""

    def __init__(self, width={width}, depth={depth}):
        self.width = width
        self.depth = depth
        self.pipe = None  # the data pipe that feeds this model, set by the trainer

    def create_pipeline(self):
        # not a DALI pipeline: the order of the model's stages
        return [("conv", self.width * 2 ** i) for i in range(self.depth)]

    def parameters(self):
        return sum(w * w * 9 for _, w in self.create_pipeline())

    def flops(self, size={size}):
        return sum(w * size * size / 4 ** i for i, (_, w) in enumerate(self.create_pipeline()))


def cosine_rate(step, total, base={rate}):
    return base * 0.5 * (1 + math.cos(math.pi * step / total))
'''

METRICS = '''"""Metrics of group {g} (no DALI): the pipe of results, not of data."""


def accuracy(predictions, labels):
    pipe = list(zip(predictions, labels))
    return sum(p == t for p, t in pipe) / max(1, len(pipe))


def top_k(scores, labels, k={k}):
    hits = 0
    for row, label in zip(scores, labels):
        best = sorted(range(len(row)), key=row.__getitem__, reverse=True)[:k]
        hits += label in best
    return hits / max(1, len(labels))


class Running{g}:
    def __init__(self):
        self.total = 0.0
        self.count = 0

    def add(self, value, n=1):
        self.total += value * n
        self.count += n

    @property
    def mean(self):
        return self.total / max(1, self.count)
'''


def generate(n: int, out: Path) -> int:
    """Write about ``n`` modules under ``out``; returns how many .py files were written."""
    groups = max(1, round((n - 2) / PER_GROUP))
    rng = random.Random(n)
    files: dict[str, str] = {"data/base.py": BASE}
    exports = []
    for g in range(groups):
        size = rng.choice([32, 48, 64, 96])
        batch = rng.choice([2, 3, 4, 8])
        files[f"data/augment_{g}.py"] = AUGMENT.format(
            g=g, angle=rng.choice([5, 10, 15]), size=size, mean=rng.choice([0.0, 0.5]), std=rng.choice([1.0, 255.0]),
            factor=rng.choice([0.5, 2.0]))
        files[f"data/pipes_{g}.py"] = PIPES.format(g=g, prev=(g - 1) % groups, batch=batch, seed=g + 1, size=size,
                                                   kept=KEPT if g % 4 == 3 else "")
        files[f"data/loaders_{g}.py"] = LOADERS.format(g=g)
        files[f"train_{g}.py"] = TRAIN.format(g=g, other=(g * 7 + 3) % groups, epochs=rng.choice([1, 2]), size=size,
                                              size2=rng.choice([8, 10, 12]), batch=batch, steps=rng.choice([2, 3]))
        op, op_args = rng.choice([("flip", ", horizontal=1"), ("cast", ", dtype=types.INT32"),
                                  ("transpose", ", perm=[1, 0]"), ("reductions.sum", "")])
        test = TEST.format(g=g, batch=batch, op=op, op_args=op_args, steps=rng.choice([2, 3]),
                           value=rng.randint(0, 9), value2=rng.randint(10, 99))
        if "types." in op_args:
            test = test.replace("from nvidia.dali import pipeline_def\n",
                                "import nvidia.dali.types as types\nfrom nvidia.dali import pipeline_def\n")
        files[f"tests/test_pipes_{g}.py"] = test
        files[f"models/net_{g}.py"] = NET.format(g=g, width=rng.choice([16, 32, 64]), depth=rng.choice([3, 4, 5]),
                                                 size=size, rate=rng.choice([0.1, 0.01]))
        files[f"utils/metrics_{g}.py"] = METRICS.format(g=g, k=rng.choice([1, 5]))
        exports.append(f"from .pipes_{g} import make_pipe as make_pipe_{g}\n")
    files["data/__init__.py"] = '"""The data package: every group\'s factory, by group."""\n\n' + "".join(exports)
    for package in ("models", "utils"):
        files[f"{package}/__init__.py"] = ""
    out.mkdir(parents=True)
    for name, text in files.items():
        path = out / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return len(files)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("n", type=int, help="about how many modules")
    parser.add_argument("out", type=Path, help="the folder to create")
    args = parser.parse_args(argv)
    if args.out.exists():
        print(f"{args.out} exists: give a new folder", file=sys.stderr)
        return 2
    print(generate(args.n, args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
