"""A project: main.py imports no DALI; the package's modules each need other run-time helpers."""

import sys

from data.train import train_batches
from data.val import val_sums

root = sys.argv[1]
for epoch, step, total, labels in train_batches(root, epochs=2):
    print("train", epoch, step, total, labels)
for total, labels in val_sums(root, steps=4):
    print("val", total, labels)
