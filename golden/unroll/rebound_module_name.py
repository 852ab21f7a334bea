"""A `with pipe:` block at module level that reads a name of the module and binds it again when a flag asks
for it: pipeline mode ran the block once, so every pipe.run() drew a new angle; each step of the generator
starts again from the module's value (the generator would otherwise make the name a local of its own)."""

from nvidia.dali import Pipeline, fn

RANDOM_ANGLE = True
angle = 10.0

pipe = Pipeline(batch_size=4, num_threads=1, device_id=None, seed=2)
with pipe:
    data = fn.random.uniform(range=(0, 1), shape=[2])
    if RANDOM_ANGLE:
        angle = fn.random.uniform(range=(-30, 30))
    pipe.set_outputs(data * 0 + angle)
pipe.build()
angles = [pipe.run() for _ in range(3)]
