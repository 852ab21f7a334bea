"""A seeded Pipeline subclass whose source, a random flip included, is another module's graph part. The random
values differ between modes; what the seed means does not: the same seed gives the same flips, another seed
others, and each sample gets a value of its own."""
import argparse

from nvidia.dali.pipeline import Pipeline

import graph_parts


class FlipPipeline(Pipeline):
    def __init__(self, root, batch_size, seed):
        super().__init__(batch_size, 2, None, seed=seed)
        self.root = root

    def define_graph(self):
        images, flips, labels = graph_parts.flipped_images(self.root, 8)
        return images, flips, labels


def flips_of(root, seed, steps=6):
    pipe = FlipPipeline(root, 4, seed=seed)
    pipe.build()
    flips, labels, shapes = [], [], set()
    for _ in range(steps):
        images, f, l = pipe.run()
        flips.append(f.as_array().ravel().tolist())
        labels.append(l.as_array().ravel().tolist())
        shapes.add(images.as_array().shape)
    return flips, labels, shapes


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("images")
    args = parser.parse_args()
    first, labels, shapes = flips_of(args.images, 7)
    again, _, _ = flips_of(args.images, 7)
    other, _, _ = flips_of(args.images, 8)
    print("labels", labels)
    print("shapes", sorted(shapes))
    print("same seed, same flips:", first == again)
    print("another seed, other flips:", first != other)
    print("a value per sample:", any(len(set(step)) > 1 for step in first))
    print("flips are 0 or 1:", all(v in (0, 1) for step in first for v in step))


if __name__ == "__main__":
    main()
