"""The training loop: consumes the decorated pipeline for a few steps."""

import sys

from loaders.decorated import decorated_pipe


def train(root, steps=3):
    pipe = decorated_pipe(root, 32)
    pipe.build()
    for step in range(steps):
        images, labels = pipe.run()
        print(step, images.as_cpu().at(0).shape, labels.at(0))


if __name__ == "__main__":
    train(sys.argv[1])
