"""An operator given a list of one DataNode (an external_source with num_outputs=1, a list literal) gives what one
call gives; over a longer list, one call per element."""

import inspect
import nvidia.dali.types as types
import nvidia.dali.experimental.dynamic as ndd
from nvidia.dali.types import SampleInfo


def decoded(source, pairs, *, batch_size=2):
    source_1 = source
    source_1 = source_1() if inspect.isgeneratorfunction(source_1) else source_1
    source_1_next = iter(source_1).__next__ if hasattr(source_1, '__iter__') else None
    source_1_takes_info = source_1_next is None and len(inspect.signature(source_1).parameters) > 0
    source_1_step = 0  # the iteration in the epoch, as pipeline mode counted it
    source_2 = pairs
    source_2 = source_2() if inspect.isgeneratorfunction(source_2) else source_2
    source_2_next = iter(source_2).__next__ if hasattr(source_2, '__iter__') else None
    source_2_takes_info = source_2_next is None and len(inspect.signature(source_2).parameters) > 0
    source_2_step = 0  # the iteration in the epoch, as pipeline mode counted it
    while True:
        try:
            encoded = [list(output) for output in zip(*[source_1_next() if source_1_next else source_1(SampleInfo(source_1_step * batch_size + i, i, source_1_step, 0)) if source_1_takes_info else source_1() for i in range(batch_size)])]
        except StopIteration:
            return  # the source is exhausted: pipe.run() raised StopIteration from here on
        source_1_step += 1
        encoded = tuple(ndd.as_batch(output, dtype=types.UINT8) for output in encoded)
        arrays = ndd.decoders.numpy(encoded[0])
        halves = ndd.cast(arrays * 0.5, dtype=types.FLOAT16)
        try:
            pair = source_2_next() if source_2_next else source_2(source_2_step) if source_2_takes_info else source_2()
        except StopIteration:
            return  # the source is exhausted: pipe.run() raised StopIteration from here on
        source_2_step += 1
        pair = tuple(ndd.as_batch(output) for output in pair)
        rounded = [ndd.cast(view, dtype=types.INT32) for view in pair]
        yield arrays, halves, rounded[0], rounded[1]
