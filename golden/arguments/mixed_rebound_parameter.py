# A device parameter rebound to "mixed" inside the pipeline: the parameter's values are not known here (callers
# pass it), but the rebinding replaces them: every read after it sees "mixed" or "cpu", only as a device, so
# "mixed" is spelled "gpu" where it is bound (the condition still reads the parameter).
from nvidia.dali import fn, pipeline_def


@pipeline_def(batch_size=2, num_threads=1, device_id=0)
def decode(files, device):
    device = "mixed" if "gpu" in device.lower() else "cpu"
    jpegs, labels = fn.readers.file(files=files)
    images = fn.decoders.image(jpegs, device=device)
    return images, labels
