import numpy as np


def batch_stats(batch):
    """Mean and max over a batch of equally shaped samples."""
    arr = batch.as_array()
    return float(arr.mean()), float(arr.max())
