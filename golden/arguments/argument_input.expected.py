"""An argument dynamic mode reads differently when its value is not a literal (data/argument_inputs.json, measured
by tools/probe_arguments.py): squeeze's axes given a parameter keeps its pipeline in pipeline mode (DM117); a literal
is a plain argument in both modes, and so is a value of an argument that reads alike (resize's size)."""

import inspect
import nvidia.dali.fn as fn
from nvidia.dali import pipeline_def
import nvidia.dali.experimental.dynamic as ndd


# dali-migrate: DM117 squeezed stays in pipeline mode: axes=axes on ndd.squeeze: dynamic mode passes a value its call site does not show to be constant as a per-sample argument input, and with a value like [0] it does not run alike (RuntimeError: Assert on "has_axes + has_axis_names == 1" failed: Missing argument ``axes`` or ``axis_names``. (input: float32 (1, 4, 1))); pipeline mode took it as a plain argument
@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def squeezed(source, axes):
    data = fn.external_source(source=source)
    return fn.squeeze(data, axes=axes)


def squeezed_literal(source, size, *, batch_size=2):
    source_2 = source
    source_2 = source_2() if inspect.isgeneratorfunction(source_2) else source_2
    source_2_next = iter(source_2).__next__ if hasattr(source_2, '__iter__') else None
    source_2_takes_info = source_2_next is None and len(inspect.signature(source_2).parameters) > 0
    source_2_step = 0  # the iteration in the epoch, as pipeline mode counted it
    while True:
        try:
            data = source_2_next() if source_2_next else source_2(source_2_step) if source_2_takes_info else source_2()
        except StopIteration:
            return  # the source is exhausted: pipe.run() raised StopIteration from here on
        source_2_step += 1
        data = ndd.as_batch(data)
        yield (ndd.resize(ndd.squeeze(data, axes=[0]), size=size),)
