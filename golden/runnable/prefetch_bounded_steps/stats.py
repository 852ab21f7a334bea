"""Statistics of a batch, in a module without DALI."""


def describe(batch):
    arr = batch.as_array()
    return f"{arr.shape} mean {float(arr.mean()):.4f} max {float(arr.max()):.4f}"
