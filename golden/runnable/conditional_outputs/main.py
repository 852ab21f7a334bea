"""A data generator whose pipeline returns masks only when they are available (a Python flag the
pipeline function closes over), and a second one whose serving variant returns one cast output."""

import sys

import numpy as np
from nvidia.dali import fn, pipeline_def, types


def make_pipeline(root, mask_available):
    @pipeline_def(batch_size=3, num_threads=2, device_id=0)
    def generator_pipeline():
        jpegs, labels = fn.readers.file(file_root=root, name="images")
        images = fn.decoders.image(jpegs, device="mixed", output_type=types.RGB)
        images = fn.resize(images, resize_x=10, resize_y=6)
        masks = fn.cast(labels, dtype=types.FLOAT) * 0.5
        if mask_available:
            return images, masks
        else:
            return images,

    return generator_pipeline()


@pipeline_def(batch_size=2, num_threads=2, device_id=0)
def export_pipeline(root, for_server=False):
    jpegs, labels = fn.readers.file(file_root=root)
    images = fn.resize(fn.decoders.image(jpegs), resize_x=4, resize_y=4)
    if not for_server:
        return images, labels
    else:
        return fn.cast(images, dtype=types.FLOAT16)


if __name__ == "__main__":
    for mask_available in (True, False):
        pipe = make_pipeline(sys.argv[1], mask_available)
        pipe.build()
        for step in range(2):
            outputs = pipe.run()
            arrays = [o.as_cpu().as_array() for o in outputs]
            print(f"masks {mask_available} step {step}: {len(outputs)} outputs",
                  [(a.shape, str(a.dtype), float(a.astype(np.float64).sum())) for a in arrays])
    for for_server in (False, True):
        pipe = export_pipeline(sys.argv[1], for_server=for_server)
        pipe.build()
        outputs = pipe.run()
        print(f"server {for_server}: {len(outputs)} outputs", [str(o.as_array().dtype) for o in outputs])
