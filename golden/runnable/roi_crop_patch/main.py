"""A Pipeline subclass that crops a patch around each volume's object: random_object_bbox gives the object's box,
roi_random_crop a window of the patch's shape that holds it (crop_shape=[1, *self.patch_size], a list built from an
attribute, which dynamic mode passes as an argument input), and fn.slice cuts image and label with a types.Constant
shape. The windows are random; what the program prints is not: each window holds its object whole."""

import numpy as np
from nvidia.dali import Pipeline, fn, types


def volumes(batch_size, steps):
    """Per step, a batch of (image, label) volumes of shape (1, 12, 12, 12) with one cube of foreground each."""
    rng = np.random.default_rng(3)
    for step in range(steps):
        images, labels = [], []
        for i in range(batch_size):
            label = np.zeros((1, 12, 12, 12), np.uint8)
            start = rng.integers(1, 7, size=3)
            label[0, start[0]:start[0] + 3, start[1]:start[1] + 3, start[2]:start[2] + 3] = 1
            images.append((label * (step + i + 1)).astype(np.float32))
            labels.append(label)
        yield images, labels


class PatchPipeline(Pipeline):
    def __init__(self, batch_size, patch_size, steps):
        super().__init__(batch_size=batch_size, num_threads=1, device_id=None, seed=11)
        self.patch_size = patch_size
        self.data = volumes(batch_size, steps)
        self.crop_shape = types.Constant(np.array(self.patch_size), dtype=types.INT64)

    def _biased_crop(self, image, label):
        roi_start, roi_end = fn.segmentation.random_object_bbox(label, background=0, format="start_end",
                                                                foreground_prob=1.0)
        anchor = fn.roi_random_crop(label, roi_start=roi_start, roi_end=roi_end, crop_shape=[1, *self.patch_size])
        anchor = fn.slice(anchor, 1, 3, axes=[0])
        image, label = fn.slice([image, label], anchor, self.crop_shape, axis_names="DHW",
                                out_of_bounds_policy="pad")
        return image, label, roi_start, roi_end, anchor

    def define_graph(self):
        image, label = fn.external_source(source=self.data, num_outputs=2, dtype=[types.FLOAT, types.UINT8],
                                          layout=["CDHW", "CDHW"])
        return self._biased_crop(image, label)


def main():
    pipe = PatchPipeline(batch_size=3, patch_size=(6, 6, 6), steps=2)
    pipe.build()
    for step in range(2):
        images, labels, starts, ends, anchors = pipe.run()
        for i in range(3):
            image, label = np.array(images.at(i)), np.array(labels.at(i))
            start, end, anchor = np.array(starts.at(i)), np.array(ends.at(i)), np.array(anchors.at(i))
            holds = bool(np.all(anchor <= start[1:]) and np.all(anchor + 6 >= end[1:]))
            print(f"step {step} sample {i}: patch {image.shape} {label.shape}, object {(end - start).tolist()}, "
                  f"window holds it: {holds}, foreground kept {int(label.sum())} of 27, "
                  f"image sum {float(image.sum()):.1f}")


if __name__ == "__main__":
    main()
