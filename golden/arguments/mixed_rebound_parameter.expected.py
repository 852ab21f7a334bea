# A device parameter rebound to "mixed" inside the pipeline: the parameter's values are not known here (callers
# pass it), but the rebinding replaces them: every read after it sees "mixed" or "cpu", only as a device, so
# "mixed" is spelled "gpu" where it is bound (the condition still reads the parameter).
import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import Prefetch  # written by dali-migrate (migrate --write recreates it)


@Prefetch(depth=2)
def decode(files, device, *, batch_size=2):
    device = "gpu" if "gpu" in device.lower() else "cpu"
    reader = ndd.readers.File(files=files)
    while True:
        for jpegs, labels in reader.next_epoch(batch_size=batch_size):
            images = ndd.decoders.image(jpegs, device=device)
            yield images, labels
