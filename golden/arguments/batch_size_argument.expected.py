"""random_bbox_crop with input_shape/crop_shape: dynamic mode (DALI 2.4.0) fails at batch sizes that are not a
power of two, whatever the value (the probe at batch size 3 finds it): the pipeline stays, marked DM117."""
import numpy as np
from nvidia.dali import fn, pipeline_def
import nvidia.dali.experimental.dynamic as ndd


def boxes_source():
    while True:
        yield [np.array([[0.1, 0.1, 0.5, 0.5]], dtype=np.float32)] * 3


# dali-migrate: DM117 fixed_crops stays in pipeline mode: input_shape=[400, 300] on ndd.random_bbox_crop: dynamic mode creates the operator for the batch size rounded up to a power of two, and with this argument it fails at any other batch size, whatever the value (RuntimeError: Assert on "arg_view.num_samples() == batch_size" failed: Unexpected number of samples in argument `input_shape`: 3, expected: 4); pipeline mode ran it
@pipeline_def(batch_size=3, num_threads=1, device_id=None)
def fixed_crops():
    boxes = fn.external_source(source=boxes_source)
    anchor, shape, out_boxes = fn.random_bbox_crop(boxes, input_shape=[400, 300], crop_shape=[100, 50],
                                                   bbox_layout="xyXY", thresholds=[0.0])
    return anchor, shape, out_boxes


def free_crops(*, batch_size=3):
    for boxes in boxes_source():
        boxes = ndd.as_batch(boxes)
        anchor, shape, out_boxes = ndd.random_bbox_crop(boxes, aspect_ratio=[0.5, 2.0], scaling=[0.3, 1.0],
                                                       bbox_layout="xyXY", thresholds=[0.0])
        yield anchor, shape, out_boxes


pipe = fixed_crops()
pipe.build()
print(pipe.run()[1].at(0))
other = free_crops()
print(np.array(next(other)[1].select(0)).shape)
