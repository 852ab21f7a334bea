"""Python operators inside pipelines: per sample with several outputs and one layout per output, per
batch, torch per sample (torch_python_function needs CUDA even on the CPU, so this case is text only),
DLPack per batch; a `with pipe:` block that binds the result to its function's name. A GPU Python
operator and a function= that is computed stay marked."""
import numpy as np
import torch
import torch.utils.dlpack as torch_dlpack
from nvidia.dali import fn, pipeline_def
import nvidia.dali.experimental.dynamic as ndd


def halves(image):
    width = image.shape[1] // 2
    return image[:, :width], image[:, width:]


def normalize(images):
    return [image / 255.0 for image in images]


def to_float(capsules):
    return [torch_dlpack.to_dlpack(torch_dlpack.from_dlpack(c).float()) for c in capsules]


# dali-migrate: DM230 scale_by builds part of computed_function, which stays in pipeline mode with everything that uses it: line 52: fn.python_function has no dynamic-mode counterpart: it is not migrated because its function= is not a name or a lambda: pipeline mode evaluated it once, a step would evaluate it each time; bind it to a name first
def scale_by(factor):
    return lambda image: image * factor


def callbacks(root, *, batch_size=2):
    reader = ndd.readers.File(file_root=root)
    while True:
        for jpegs, labels in reader.next_epoch(batch_size=batch_size):
            images = ndd.decoders.image(jpegs)
            left, right = tuple(ndd.as_batch([np.require(output, requirements="C") for output in outputs], layout=layout) for layout, outputs in zip(("HWC", "HW"), zip(*[halves(np.asarray(sample)) for sample in images.tensors])))
            normed = ndd.as_batch([np.require(output, requirements="C") for output in normalize([np.asarray(sample) for sample in images.tensors])])
            doubled = ndd.as_batch([(lambda t: t * 2)(sample.torch()).contiguous() for sample in images.tensors])
            floats = ndd.as_batch([torch_dlpack.from_dlpack(output).contiguous() for output in to_float([torch_dlpack.to_dlpack(sample.torch()) for sample in images.tensors])])
            yield left, right, normed, doubled, floats, labels


# dali-migrate: DM230 on_the_gpu stays in pipeline mode with everything that uses it: line 45: fn.python_function has no dynamic-mode counterpart: it is not migrated because it runs on the GPU (device="gpu"): the function gets cupy arrays or CUDA tensors on DALI's stream; call it on batch.torch() of GPU batches by hand
@pipeline_def(batch_size=2, num_threads=1, device_id=0)
def on_the_gpu(root):
    jpegs, labels = fn.readers.file(file_root=root)
    images = fn.decoders.image(jpegs, device="mixed")
    # dali-migrate: DM103 fn.python_function has no dynamic-mode counterpart: it is not migrated because it runs on the GPU (device="gpu"): the function gets cupy arrays or CUDA tensors on DALI's stream; call it on batch.torch() of GPU batches by hand
    return fn.python_function(images, function=np.fliplr, device="gpu"), labels


# dali-migrate: DM230 computed_function stays in pipeline mode with everything that uses it: line 52: fn.python_function has no dynamic-mode counterpart: it is not migrated because its function= is not a name or a lambda: pipeline mode evaluated it once, a step would evaluate it each time; bind it to a name first
@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def computed_function(root):
    jpegs, labels = fn.readers.file(file_root=root)
    images = fn.decoders.image(jpegs)
    # dali-migrate: DM103 fn.python_function has no dynamic-mode counterpart: it is not migrated because its function= is not a name or a lambda: pipeline mode evaluated it once, a step would evaluate it each time; bind it to a name first
    return fn.python_function(images, function=scale_by(3)), labels


def flip(image):
    return np.ascontiguousarray(image[::-1])


def pipe_steps(*, batch_size=2):
    reader = ndd.readers.File(file_root="images")
    while True:
        for jpegs, _ in reader.next_epoch(batch_size=batch_size):
            flip_out = ndd.as_batch([np.require(flip(np.asarray(sample)), requirements="C") for sample in ndd.decoders.image(jpegs).tensors])
            yield (flip_out,)


pipe = pipe_steps()
(flipped,) = next(pipe)


def squares(batch):
    return [sample * sample for sample in batch]


# dali-migrate: DM230 constant_input stays in pipeline mode with everything that uses it: line 75: fn.python_function has no dynamic-mode counterpart: it is not migrated because its input np.array([[1, 2], [3, 4]]) is a constant, which pipeline mode gave the function as a batch of copies (one per sample); the migrated call would hand it the array itself
@pipeline_def(batch_size=3, num_threads=1, device_id=None, exec_async=False, exec_pipelined=False)
def constant_input():
    # a constant input: pipeline mode hands the function a batch of 3 copies of the array (kept, marked)
    # dali-migrate: DM103 fn.python_function has no dynamic-mode counterpart: it is not migrated because its input np.array([[1, 2], [3, 4]]) is a constant, which pipeline mode gave the function as a batch of copies (one per sample); the migrated call would hand it the array itself
    return fn.python_function(np.array([[1, 2], [3, 4]]), function=squares, batch_processing=True)
