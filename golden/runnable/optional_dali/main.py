import os
import subprocess
import sys

import data

root = sys.argv[1]
for drop_last in (False, True):
    loader = data.ArrayLoader(root, 4, drop_last)
    for epoch in range(2):
        sums = [float(batch[0]["x"].sum()) + float(batch[0]["twice"].sum()) for batch in loader]
        print("drop_last", drop_last, "epoch", epoch, len(sums), sums)
print("mean", data.mean_of([1.0, 2.0, 4.0]))
# the data module is still importable where DALI is not installed
code = "import sys; sys.modules['nvidia'] = None; import data; print('without DALI:', data.HAVE_DALI, data.mean_of([2.0, 4.0]))"
print(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=os.path.dirname(os.path.abspath(__file__))).stdout.strip())
