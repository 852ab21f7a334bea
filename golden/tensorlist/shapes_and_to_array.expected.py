"""fn.shapes / DataNode.shape() in the graph, and DALI's test helper test_utils.to_array on the outputs."""

import numpy as np
import nvidia.dali.types as types
import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import Prefetch  # written by dali-migrate (migrate --write recreates it)
from test_utils import to_array


@Prefetch(depth=2)
def sizes_pipe(root, *, batch_size=4):
    reader = ndd.readers.File(file_root=root)
    while True:
        for jpegs, labels in reader.next_epoch(batch_size=batch_size):
            images = ndd.decoders.image(jpegs)
            sizes = ndd.as_batch(images.shape, dtype=ndd.int64, device=images.device)
            as_float = ndd.as_batch(images.shape, dtype=types.FLOAT, device=images.device)
            gpu_images = images.gpu()
            on_cpu = ndd.as_batch(gpu_images.shape, dtype=ndd.int64)
            width = ndd.slice(ndd.as_batch(images.shape, dtype=types.INT32), 1, 1, axes=[0])
            yield sizes, as_float, on_cpu, width, ndd.as_batch(images.shape, dtype=ndd.int64), labels


pipes = [sizes_pipe("images") for _ in range(2)]
for pipe in pipes:
    outputs = next(pipe)
    arrays = [np.squeeze(np.array(ndd.as_tensor(out.cpu()))) for out in outputs]
    first = np.array(outputs[0].select(0).cpu())
    mine = to_array([1, 2])  # not a pipeline output: left alone
