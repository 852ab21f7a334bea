"""random_bbox_crop's input_shape given a value its call site does not show to be constant: dynamic mode (DALI 2.4.0)
passes it as an argument input, which the operator rejects at batch sizes that are not a power of two (the probe at
batch size 3 finds it): that pipeline stays, marked DM117. Written as a literal, it is a plain argument: migrated."""
import numpy as np
from nvidia.dali import fn, pipeline_def, types


def boxes_source():
    while True:
        yield [np.array([[0.1, 0.1, 0.5, 0.5]], dtype=np.float32)] * 3


@pipeline_def(batch_size=3, num_threads=1, device_id=None)
def fixed_crops(image_shape):
    boxes = fn.external_source(source=boxes_source)
    anchor, shape, out_boxes = fn.random_bbox_crop(boxes, input_shape=image_shape, crop_shape=[100, 50],
                                                   bbox_layout="xyXY", thresholds=[0.0])
    return anchor, shape, out_boxes


@pipeline_def(batch_size=3, num_threads=1, device_id=None, seed=5)
def drawn_crops():
    # a graph value: an argument input in both modes, which the operator rejects only where dynamic mode made it for
    # a batch of 4
    image_shape = fn.random.uniform(range=(400, 600), shape=(2,), dtype=types.INT32)
    boxes = fn.external_source(source=boxes_source)
    anchor, shape, out_boxes = fn.random_bbox_crop(boxes, input_shape=image_shape, crop_shape=[100, 50],
                                                   bbox_layout="xyXY", thresholds=[0.0])
    return anchor, shape, out_boxes


@pipeline_def(batch_size=3, num_threads=1, device_id=None)
def literal_crops():
    boxes = fn.external_source(source=boxes_source)
    anchor, shape, out_boxes = fn.random_bbox_crop(boxes, input_shape=[400, 300], crop_shape=[100, 50],
                                                   bbox_layout="xyXY", thresholds=[0.0])
    return anchor, shape, out_boxes


@pipeline_def(batch_size=3, num_threads=1, device_id=None)
def free_crops():
    boxes = fn.external_source(source=boxes_source)
    anchor, shape, out_boxes = fn.random_bbox_crop(boxes, aspect_ratio=[0.5, 2.0], scaling=[0.3, 1.0],
                                                   bbox_layout="xyXY", thresholds=[0.0])
    return anchor, shape, out_boxes


pipe = fixed_crops([400, 300])
pipe.build()
print(pipe.run()[1].at(0))
drawn = drawn_crops()
drawn.build()
print(drawn.run()[1].at(0))
literal = literal_crops()
literal.build()
print(literal.run()[1].at(0))
other = free_crops()
other.build()
print(other.run()[1].at(0).shape)
