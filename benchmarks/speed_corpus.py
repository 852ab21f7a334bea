"""A realistic DALI corpus for speed.py: DALI pipelines (all styles) inside ordinary training scripts.

Each file: a docstring, stdlib/numpy imports, one of three DALI import styles, 3-6 blocks of plain
training code (config dataclass, numpy model, LR schedule, checkpoint I/O, meters, metrics), 2-4
pipelines of random styles (`@pipeline_def`, a `Pipeline` subclass with legacy `ops.*`, a factory
function filling `with pipe:`), their consumers far from them (`DALIGenericIterator` with
`reader_name`, `build()`/`run()` loops using the TensorList API) and an argparse `main()`. About a
third of the lines are DALI code; the rest is what surrounds it in real projects.
"""
import random

IMPORTS = [
    "import nvidia.dali.fn as fn\nimport nvidia.dali.ops as ops\nimport nvidia.dali.types as types\n"
    "from nvidia.dali import Pipeline, pipeline_def\n"
    "from nvidia.dali.plugin.pytorch import DALIGenericIterator, LastBatchPolicy\n",
    "from nvidia.dali import fn, ops, types, pipeline_def\nfrom nvidia.dali.pipeline import Pipeline\n"
    "import nvidia.dali.math as dmath\n"
    "from nvidia.dali.plugin.pytorch import DALIGenericIterator, LastBatchPolicy\n",
    "import nvidia.dali as dali\nimport nvidia.dali.fn as fn\nimport nvidia.dali.ops as ops\n"
    "import nvidia.dali.types as types\nfrom nvidia.dali import Pipeline, pipeline_def\n"
    "from nvidia.dali.plugin.pytorch import DALIGenericIterator, LastBatchPolicy\n",
]

PLAIN_IMPORTS = """import argparse
import json
import logging
import math
import os
import time
from dataclasses import dataclass, field

import numpy as np
"""

AUG_OPS = ["images = fn.resize(images, resize_x={n}0, resize_y={n}0)",
           "images = fn.flip(images, horizontal=1)",
           "images = fn.rotate(images, angle={n}, fill_value=0)",
           "images = fn.brightness_contrast(images, brightness=0.{n}, contrast=1.{n})",
           "images = fn.hsv(images, hue={n}.0, saturation=1.1)",
           "images = fn.crop(images, crop=({n}0, {n}0))",
           "images = fn.cast(images, dtype=types.FLOAT)",
           "images = fn.transpose(images, perm=[2, 0, 1])"]

DEF_PIPE = '''

@pipeline_def(batch_size={bs}, num_threads={nt}, device_id=0, seed={seed})
def {name}(data_dir, crop={crop}, shard_id=0, num_shards=1):
    """Training pipeline {name}: decode, augment, normalise."""
    jpegs, labels = fn.readers.file(file_root=data_dir, shard_id=shard_id, num_shards=num_shards,
                                    random_shuffle=True, pad_last_batch=True, name="Reader")
    images = fn.decoders.image(jpegs, device="mixed", output_type=types.RGB)
{ops}
    mirror = fn.random.coin_flip(probability=0.5)
    images = fn.crop_mirror_normalize(images, dtype=types.FLOAT, output_layout="CHW",
                                      crop=(crop, crop), mean=MEAN, std=STD, mirror=mirror)
    return images, labels
'''

CLASS_PIPE = '''

class {name}(Pipeline):
    """Validation pipeline {name} (legacy ops API)."""

    def __init__(self, batch_size, num_threads, device_id, data_dir, crop={crop}):
        super().__init__(batch_size, num_threads, device_id, seed={seed})
        self.input = ops.readers.File(file_root=data_dir, random_shuffle=False)
        self.decode = ops.decoders.Image(device="mixed", output_type=types.RGB)
        self.res = ops.Resize(device="gpu", resize_x=crop, resize_y=crop)
        self.cmn = ops.CropMirrorNormalize(device="gpu", dtype=types.FLOAT, output_layout="CHW",
                                           mean=MEAN, std=STD)

    def define_graph(self):
        jpegs, labels = self.input(name="Reader")
        return self.cmn(self.res(self.decode(jpegs))), labels
'''

WITH_PIPE = '''

def {name}(data_dir, batch_size, size={crop}):
    """Probe pipeline {name}, built with `with pipe:`."""
    pipe = Pipeline(batch_size=batch_size, num_threads={nt}, device_id=0, prefetch_queue_depth=1)
    with pipe:
        jpegs, labels = fn.readers.file(file_root=data_dir, name="Reader")
        images = fn.decoders.image(jpegs, device="mixed")
        images = fn.resize(images, resize_shorter=size)
        pipe.set_outputs(images, labels)
    return pipe
'''

# consumers, far from the definitions
DEF_CONSUMER = '''

def train_{name}(args, model, optimizer, history):
    """Train on {name} through the PyTorch iterator."""
    pipe = {name}(args.data, crop=args.crop, batch_size=args.batch_size, num_threads=2, device_id=0,
                  seed=args.seed)
    pipe.build()
    loader = DALIGenericIterator([pipe], ["images", "labels"], reader_name="Reader",
                                 last_batch_policy=LastBatchPolicy.PARTIAL, auto_reset=True)
    for epoch in range(args.epochs):
        started = time.time()
        total, count = 0.0, 0
        for step, batch in enumerate(loader):
            images, labels = batch[0]["images"], batch[0]["labels"]
            loss = model.step(images, labels, optimizer.lr)
            total += float(loss)
            count += 1
            if step % args.log_every == 0:
                log.info("epoch %d step %d loss %.4f", epoch, step, total / max(count, 1))
        optimizer.update(epoch)
        history.append({{"epoch": epoch, "loss": total / max(count, 1), "seconds": time.time() - started}})
    return history
'''

RUN_CONSUMER = '''

def evaluate_{name}(args, model):
    """Evaluate on {name} with run(), the pipeline-mode way."""
    pipe = {ctor}
    pipe.build()
    correct, seen = 0, 0
    for _ in range(args.eval_steps):
        images, labels = pipe.run()
        first = images.as_cpu().at(0)
        n = len(labels)
        predictions = model.predict(first)
        correct += int(np.sum(predictions == labels.as_cpu().as_array()))
        seen += n
    return correct / max(seen, 1)
'''

PLAIN_BLOCKS = [
    '''

@dataclass
class TrainConfig{i}:
    """Hyper-parameters of run {i}."""

    data: str = "/data/imagenet"
    epochs: int = {n}
    batch_size: int = {bs}
    crop: int = 224
    seed: int = {n}
    lr: float = 0.1
    momentum: float = 0.9
    weight_decay: float = 1e-4
    log_every: int = 50
    eval_steps: int = 10
    tags: list = field(default_factory=list)

    def to_json(self):
        return json.dumps(self.__dict__, sort_keys=True)
''',
    '''

class LinearModel{i}:
    """A tiny numpy model so that the script runs without a framework."""

    def __init__(self, features, classes, seed={n}):
        rng = np.random.default_rng(seed)
        self.weights = rng.normal(0.0, 0.01, size=(features, classes))
        self.bias = np.zeros(classes)

    def forward(self, x):
        logits = x.reshape(len(x), -1) @ self.weights + self.bias
        logits -= logits.max(axis=1, keepdims=True)
        probs = np.exp(logits)
        return probs / probs.sum(axis=1, keepdims=True)

    def step(self, x, y, lr):
        probs = self.forward(x)
        loss = -np.log(probs[np.arange(len(y)), y] + 1e-9).mean()
        grad = probs
        grad[np.arange(len(y)), y] -= 1
        self.weights -= lr * x.reshape(len(x), -1).T @ grad / len(x)
        self.bias -= lr * grad.mean(axis=0)
        return loss

    def predict(self, x):
        return self.forward(x).argmax(axis=1)
''',
    '''

class CosineSchedule{i}:
    """Learning rate with warm-up and cosine decay."""

    def __init__(self, base_lr, epochs, warmup={n}):
        self.base_lr = base_lr
        self.epochs = epochs
        self.warmup = warmup
        self.lr = base_lr

    def update(self, epoch):
        if epoch < self.warmup:
            self.lr = self.base_lr * (epoch + 1) / self.warmup
        else:
            progress = (epoch - self.warmup) / max(1, self.epochs - self.warmup)
            self.lr = 0.5 * self.base_lr * (1 + math.cos(math.pi * progress))
        return self.lr
''',
    '''

def save_checkpoint_{i}(path, model, epoch, history):
    """Write weights and history next to each other."""
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    np.savez(path + ".npz", weights=model.weights, bias=model.bias)
    with open(path + ".json", "w") as f:
        json.dump({{"epoch": epoch, "history": history}}, f, indent=2)
    log.info("saved checkpoint %s (epoch %d)", path, epoch)


def load_checkpoint_{i}(path, model):
    if not os.path.exists(path + ".npz"):
        return 0, []
    data = np.load(path + ".npz")
    model.weights, model.bias = data["weights"], data["bias"]
    with open(path + ".json") as f:
        meta = json.load(f)
    return meta["epoch"] + 1, meta["history"]
''',
    '''

class AverageMeter{i}:
    """Running average of a metric."""

    def __init__(self, name, fmt=":.4f"):
        self.name = name
        self.fmt = fmt
        self.reset()

    def reset(self):
        self.val = 0.0
        self.avg = 0.0
        self.sum = 0.0
        self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count

    def __str__(self):
        return ("{{name}} {{val" + self.fmt + "}} ({{avg" + self.fmt + "}})").format(**self.__dict__)
''',
    '''

def accuracy_{i}(output, target, topk=(1, {n})):
    """Top-k accuracy of a batch of scores."""
    maxk = max(topk)
    pred = np.argsort(-output, axis=1)[:, :maxk]
    correct = pred == target.reshape(-1, 1)
    results = []
    for k in topk:
        results.append(100.0 * correct[:, :k].any(axis=1).mean())
    return results
''',
]

MAIN = '''

def parse_args(argv=None):
    parser = argparse.ArgumentParser(description="train a model on DALI pipelines")
    parser.add_argument("data")
    parser.add_argument("--epochs", type=int, default={n})
    parser.add_argument("--batch-size", type=int, default={bs})
    parser.add_argument("--crop", type=int, default=224)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--lr", type=float, default=0.1)
    parser.add_argument("--log-every", type=int, default=50)
    parser.add_argument("--eval-steps", type=int, default=10)
    parser.add_argument("--out", default="checkpoints/run")
    return parser.parse_args(argv)


def main(argv=None):
    logging.basicConfig(level=logging.INFO)
    args = parse_args(argv)
{calls}
    log.info("done")


if __name__ == "__main__":
    main()
'''


def generate_scripts(count, seed=0):
    rng = random.Random(seed)
    files = []
    for i in range(count):
        header = f'"""Training script {i}: DALI input pipelines inside an ordinary training program."""\n\n'
        header += PLAIN_IMPORTS + "\n" + IMPORTS[i % len(IMPORTS)]
        header += "\nlog = logging.getLogger(__name__)\n"
        header += "MEAN = [0.485 * 255, 0.456 * 255, 0.406 * 255]\nSTD = [0.229 * 255, 0.224 * 255, 0.225 * 255]\n"
        blocks, consumers, calls = [], [], []
        plain = rng.sample(range(len(PLAIN_BLOCKS)), rng.randint(3, len(PLAIN_BLOCKS)))
        for k in plain:
            blocks.append(PLAIN_BLOCKS[k].format(i=i, n=rng.randint(2, 9), bs=rng.choice([32, 64, 128])))
        styles = [rng.choice(["def", "class", "with"]) for _ in range(rng.randint(2, 4))]
        for j, style in enumerate(styles):
            values = dict(bs=rng.choice([8, 16, 32]), nt=rng.choice([2, 4]), seed=rng.randint(1, 99),
                          crop=rng.choice([160, 192, 224]))
            if style == "def":
                name = f"train_pipe_{i}_{j}"
                ops = "\n".join("    " + rng.choice(AUG_OPS).format(n=rng.randint(2, 9))
                                for _ in range(rng.randint(2, 6)))
                blocks.append(DEF_PIPE.format(name=name, ops=ops, **values))
                consumers.append(DEF_CONSUMER.format(name=name))
                calls.append(f"    history = train_{name}(args, model, schedule, [])")
            elif style == "class":
                name = f"ValPipe{i}_{j}"
                blocks.append(CLASS_PIPE.format(name=name, **values))
                consumers.append(RUN_CONSUMER.format(
                    name=name, ctor=f"{name}(args.batch_size, 2, 0, args.data, crop=args.crop)"))
                calls.append(f"    log.info('accuracy %.3f', evaluate_{name}(args, model))")
            else:
                name = f"make_probe_{i}_{j}"
                blocks.append(WITH_PIPE.format(name=name, **values))
                consumers.append(RUN_CONSUMER.format(name=name, ctor=f"{name}(args.data, args.batch_size)"))
                calls.append(f"    log.info('probe %.3f', evaluate_{name}(args, model))")
        rng.shuffle(blocks)
        calls = ["    model = LinearModel(3 * args.crop * args.crop, 1000, seed=args.seed)",
                 "    schedule = Schedule(args.lr, args.epochs)"] + calls
        main = MAIN.format(n=rng.randint(2, 9), bs=rng.choice([32, 64]), calls="\n".join(calls))
        files.append(header + "".join(blocks) + "".join(consumers) + main)
    return files
