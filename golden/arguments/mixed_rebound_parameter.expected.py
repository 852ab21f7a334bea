# A device parameter rebound to "mixed" inside the pipeline: its values are not all known here (callers pass
# the parameter), so "mixed" cannot be spelled "gpu" safely; the pipeline is marked, not left silently broken.
from nvidia.dali import fn, pipeline_def


# dali-migrate: DM230 decode stays in pipeline mode with everything that uses it: line 10: device=device can be "mixed", which ndd rejects (ValueError when the step runs); the variable is used other than as a device, so it is not rewritten: pass device="gpu" if device == "mixed" else device
@pipeline_def(batch_size=2, num_threads=1, device_id=0)
def decode(files, device):
    device = "mixed" if "gpu" in device.lower() else "cpu"
    jpegs, labels = fn.readers.file(files=files)
    # dali-migrate: DM115 device=device can be "mixed", which ndd rejects (ValueError when the step runs); the variable is used other than as a device, so it is not rewritten: pass device="gpu" if device == "mixed" else device
    images = fn.decoders.image(jpegs, device=device)
    return images, labels
