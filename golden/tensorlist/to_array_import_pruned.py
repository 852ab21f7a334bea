"""Every use of DALI's test helper to_array is rewritten, so its import goes; the module's other test helpers stay."""

import numpy as np
import nvidia.dali.fn as fn
from nvidia.dali import pipeline_def
from test_utils import get_dali_extra_path, to_array


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def labels_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root)
    return labels


pipe = labels_pipe(get_dali_extra_path())
pipe.build()
(labels,) = pipe.run()
print(np.squeeze(to_array(labels)))
