"""An argument dynamic mode reads differently when its value is not a literal (data/argument_inputs.json, measured
by tools/probe_arguments.py): squeeze's axes given a parameter keeps its pipeline in pipeline mode (DM117); a literal
is a plain argument in both modes, and so is a value of an argument that reads alike (resize's size)."""

import nvidia.dali.fn as fn
from nvidia.dali import pipeline_def


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def squeezed(source, axes):
    data = fn.external_source(source=source)
    return fn.squeeze(data, axes=axes)


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def squeezed_literal(source, size):
    data = fn.external_source(source=source)
    return fn.resize(fn.squeeze(data, axes=[0]), size=size)
