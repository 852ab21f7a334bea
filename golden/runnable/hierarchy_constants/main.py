"""A Pipeline base class that only keeps the options and has helper methods (no define_graph), and a subclass
that builds typed constants in its __init__ after super().__init__(...) (the patch shape as a constant operator
input) and reads a per-sample iterator object through external_source(num_outputs=2, dtype=[...], batch=False);
the random blend lives in a helper of another module. Each step is checked sample by sample."""

import argparse

import numpy as np
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline

from blend import maybe_augmented


class Volumes:
    """Endless per-sample source: a volume and its mask, in a fixed order that starts over at the end."""

    def __init__(self, count, size):
        generator = np.random.default_rng(7)
        self.volumes = [generator.random((1, size, size + i, size), dtype=np.float32) for i in range(count)]
        self.masks = [(volume > 0.5).astype(np.uint8) for volume in self.volumes]

    def __iter__(self):
        self.position = 0
        return self

    def __next__(self):
        volume, mask = self.volumes[self.position], self.masks[self.position]
        self.position = (self.position + 1) % len(self.volumes)
        return volume, mask


class PatchBase(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, patch, count):
        super().__init__(batch_size, num_threads, device_id, seed=11)
        self.patch = patch
        self.samples = Volumes(count, patch[0] + 2)

    def pad_crop(self, data):
        return fn.crop(data, crop=self.patch, out_of_bounds_policy="pad")

    def pair(self, volume, mask):
        return self.pad_crop(volume), self.pad_crop(mask)


class PatchPipeline(PatchBase):
    def __init__(self, batch_size, num_threads, device_id, patch, count):
        super().__init__(batch_size, num_threads, device_id, patch, count)
        self.patch_shape = types.Constant(np.array([1, *self.patch]), dtype=types.INT64)
        self.anchor = types.Constant(np.array([0, 1, 0, 1]), dtype=types.INT64)
        self.scale = types.Constant(np.array(self.patch), dtype=types.FLOAT)

    def corner(self, volume, mask):
        volume, mask = fn.slice([volume, mask], self.anchor, self.patch_shape, axis_names="CDHW",
                                out_of_bounds_policy="pad")
        return volume, mask

    def define_graph(self):
        volume, mask = fn.external_source(source=self.samples, num_outputs=2, dtype=[types.FLOAT, types.UINT8],
                                          batch=False)
        corner, corner_mask = self.corner(volume, mask)
        patch, patch_mask = self.pair(volume, mask)
        blended = maybe_augmented(0.5, patch * 2.0, patch)
        return patch, patch_mask, corner, corner_mask, blended, self.scale


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--batch", type=int, default=3)
    parser.add_argument("--steps", type=int, default=3)
    args = parser.parse_args()
    pipe = PatchPipeline(batch_size=args.batch, num_threads=2, device_id=0, patch=(4, 4, 4), count=4)
    pipe.build()
    for step in range(args.steps):
        volume, mask, corner, corner_mask, blended, scale = pipe.run()
        volume, mask, blended = volume.as_array(), mask.as_array(), blended.as_array()
        print(step, "volume", volume.shape, volume.dtype, round(float(volume.sum()), 4), "mask", mask.dtype,
              int(mask.sum()))
        shapes = [corner.at(i).shape for i in range(len(corner))]
        print(step, "corner", shapes, np.asarray(corner.at(0)).dtype,
              round(float(sum(np.asarray(corner.at(i)).sum() for i in range(len(corner)))), 4),
              int(sum(np.asarray(corner_mask.at(i)).sum() for i in range(len(corner_mask)))))
        picked = [bool(np.allclose(b, 2.0 * v) or np.allclose(b, v)) for b, v in zip(blended, volume)]
        print(step, "blended", blended.shape, blended.dtype, "each sample is one of the two:", all(picked))
        print(step, "scale", [np.asarray(scale.at(i)).tolist() for i in range(len(scale))],
              np.asarray(scale.at(0)).dtype)


if __name__ == "__main__":
    main()
