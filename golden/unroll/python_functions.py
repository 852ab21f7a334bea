"""Python operators inside pipelines: per sample with several outputs and one layout per output, per
batch, torch per sample (torch_python_function needs CUDA even on the CPU, so this case is text only),
DLPack per batch; a `with pipe:` block that binds the result to its function's name. A GPU Python
operator and a function= that is computed stay marked."""
import numpy as np
import torch
import torch.utils.dlpack as torch_dlpack
import nvidia.dali.plugin.pytorch as dalitorch
from nvidia.dali import fn, pipeline_def
from nvidia.dali.pipeline import Pipeline


def halves(image):
    width = image.shape[1] // 2
    return image[:, :width], image[:, width:]


def normalize(images):
    return [image / 255.0 for image in images]


def to_float(capsules):
    return [torch_dlpack.to_dlpack(torch_dlpack.from_dlpack(c).float()) for c in capsules]


def scale_by(factor):
    return lambda image: image * factor


@pipeline_def(batch_size=2, num_threads=1, device_id=None, exec_async=False, exec_pipelined=False)
def callbacks(root):
    jpegs, labels = fn.readers.file(file_root=root)
    images = fn.decoders.image(jpegs)
    left, right = fn.python_function(images, function=halves, num_outputs=2, output_layouts=["HWC", "HW"])
    normed = fn.python_function(images, function=normalize, batch_processing=True)
    doubled = dalitorch.fn.torch_python_function(images, function=lambda t: t * 2)
    floats = fn.dl_tensor_python_function(images, function=to_float, synchronize_stream=False)
    return left, right, normed, doubled, floats, labels


@pipeline_def(batch_size=2, num_threads=1, device_id=0)
def on_the_gpu(root):
    jpegs, labels = fn.readers.file(file_root=root)
    images = fn.decoders.image(jpegs, device="mixed")
    return fn.python_function(images, function=np.fliplr, device="gpu"), labels


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def computed_function(root):
    jpegs, labels = fn.readers.file(file_root=root)
    images = fn.decoders.image(jpegs)
    return fn.python_function(images, function=scale_by(3)), labels


def flip(image):
    return np.ascontiguousarray(image[::-1])


pipe = Pipeline(batch_size=2, num_threads=1, device_id=None, exec_async=False, exec_pipelined=False)
with pipe:
    jpegs, _ = fn.readers.file(file_root="images")
    flip = fn.python_function(fn.decoders.image(jpegs), function=flip)
    pipe.set_outputs(flip)
pipe.build()
(flipped,) = pipe.run()


def squares(batch):
    return [sample * sample for sample in batch]


@pipeline_def(batch_size=3, num_threads=1, device_id=None, exec_async=False, exec_pipelined=False)
def constant_input():
    # a constant input: pipeline mode hands the function a batch of 3 copies of the array (kept, marked)
    return fn.python_function(np.array([[1, 2], [3, 4]]), function=squares, batch_processing=True)
