import sys

import numpy as np

from data import Dataset, first_batch

if __name__ == "__main__":
    root = sys.argv[1]
    dataset = Dataset(root)
    for step in range(3):
        values, doubled = dataset.next_batch()
        print(step, values.as_tensor().shape(), float(np.sum(values.as_tensor())), float(np.max(doubled.as_tensor())))
    values, _ = first_batch(root)
    print("first", np.array(values.as_tensor()).reshape(3, -1).sum(axis=1).tolist())
