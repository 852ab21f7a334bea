"""Seeded random operators made at each pass of a loop and a comprehension of a @pipeline_def body, a list the
loop fills, a dict it stores into and a counter it adds to. Pipeline mode ran the body once: three operators
seeded alike draw equal values, the list holds three outputs at every step. The program prints the number of
outputs, whether the passes agree, whether the values change from step to step and whether a new pipeline
repeats them, and the random crops' shapes (never the random values themselves)."""

import sys

import numpy as np
from nvidia.dali import fn, pipeline_def


@pipeline_def(batch_size=4, num_threads=1, device_id=0, seed=3)
def draws(passes):
    outs = []
    scales = {}
    count = 0
    for k in range(passes):
        outs.append(fn.random.uniform(range=(0, 1), seed=42))
        scales[k] = fn.random.uniform(range=(1, 2), seed=10 + k)
        count += 1
    flips = [fn.random.coin_flip(seed=5) for _ in range(2)]
    free = [fn.random.uniform(range=(0, 1)) for _ in range(2)]  # drawn from the pipeline's seed
    return (*outs, *flips, *free, scales[0], scales[passes - 1], outs[0] * 0 + count)


@pipeline_def(batch_size=4, num_threads=1, device_id=0)
def views(root, n_views):
    jpegs, labels = fn.readers.file(file_root=root, seed=1)
    images = fn.decoders.image(jpegs, device="mixed")
    crops = [fn.random_resized_crop(images, size=16, seed=7) for i in range(n_views)]
    return (*crops, labels)


def arrays(outputs):
    return [np.array(o.as_cpu().as_array()) for o in outputs]


def run_draws(steps):
    pipe = draws(3)
    pipe.build()
    return [arrays(pipe.run()) for _ in range(steps)]


def run_views(root, steps):
    pipe = views(root, 3)
    pipe.build()
    return [arrays(pipe.run()) for _ in range(steps)]


if __name__ == "__main__":
    steps = run_draws(3)
    for number, out in enumerate(steps):
        same, scales, flips, free, count = out[:3], out[5:7], out[3:5], out[7:9], out[9]
        print(f"step {number}: {len(out)} outputs, the seeded passes agree "
              f"{all(np.array_equal(same[0], s) for s in same[1:])}, seeds 10 and 12 agree "
              f"{np.array_equal(scales[0] - 1, scales[1] - 1)}, the flips agree {np.array_equal(*flips)}, "
              f"the unseeded passes agree {np.array_equal(*free)}, count {sorted(set(count.ravel().round(3)))}")
    print("the seeded values change from step to step",
          all(not np.array_equal(s[0], steps[0][0]) for s in steps[1:]))
    again = run_draws(3)
    print("a new pipeline repeats them", all(np.array_equal(a[0], b[0]) and np.array_equal(a[3], b[3])
                                               for a, b in zip(steps, again)))
    seen = run_views(sys.argv[1], 3)
    for number, out in enumerate(seen):
        print(f"views step {number}: {len(out)} outputs {[o.shape for o in out[:-1]]}, labels "
              f"{out[-1].ravel().tolist()}, the crops agree {all(np.array_equal(out[0], c) for c in out[1:3])}")
    print("the crops change from step to step", any(not np.array_equal(s[0], seen[0][0]) for s in seen[1:]))
