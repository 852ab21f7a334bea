import sys

import numpy as np

from data import create_loader_pipe


def epoch(pipe, steps):
    out = []
    for _ in range(steps):
        images, labels = pipe.run()
        out.append((images.as_tensor(), labels))
    return out


if __name__ == "__main__":
    pipe = create_loader_pipe(sys.argv[1], batch_size=5, size=6)
    pipe.build()
    steps = pipe.epoch_size("Reader") // 5
    for images, labels in epoch(pipe, steps):
        arr = np.array(images)
        print(arr.shape, arr.dtype, f"{arr.mean():.5f}", np.array(labels.as_tensor()).ravel().tolist())
