"""Train for a few epochs on features a DALI pipeline computes; save the weights and a log."""

import argparse
import csv
import os

import numpy as np
from nvidia.dali import fn, pipeline_def, types

from model import LogisticModel


@pipeline_def(num_threads=2, device_id=0, seed=99)
def feature_pipe(root, side):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, seed=7, name="Reader")
    images = fn.decoders.image(jpegs, device="mixed", output_type=types.GRAY)
    images = fn.resize(images, resize_x=side, resize_y=side)
    features = fn.cast(images, dtype=types.FLOAT) / 255.0
    return fn.reshape(features, shape=[side * side]), labels


def train(args):
    pipe = feature_pipe(args.data, args.side, batch_size=args.batch)
    pipe.build()
    steps = pipe.epoch_size("Reader") // args.batch
    model = LogisticModel(args.side * args.side)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "log.csv"), "w", newline="") as f:
        log = csv.writer(f)
        log.writerow(["epoch", "step", "loss"])
        for epoch in range(args.epochs):
            losses = []
            for step in range(steps):
                features, labels = pipe.run()
                x = features.as_array().astype(np.float64)
                y = labels.as_array().reshape(-1).astype(np.float64)
                loss = model.loss_and_step(x, y, args.lr)
                losses.append(loss)
                log.writerow([epoch, step, f"{loss:.6f}"])
            print(f"epoch {epoch}: {steps} steps, mean loss {np.mean(losses):.6f}")
    np.save(os.path.join(args.out, "weights.npy"), model.w)
    print("bias", round(model.b, 6), "weight norm", round(float(np.linalg.norm(model.w)), 6))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("data")
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--batch", type=int, default=2)
    parser.add_argument("--side", type=int, default=4)
    parser.add_argument("--lr", type=float, default=0.5)
    parser.add_argument("--out", default="out")
    train(parser.parse_args())
