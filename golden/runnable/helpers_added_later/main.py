"""A project: main.py imports no DALI; two modules need different run-time helpers, migrated one after the other."""

import sys

from loaders import train_batches
from evaluate import val_sums

root = sys.argv[1]
for epoch, step, total, labels in train_batches(root, epochs=2):
    print("train", epoch, step, total, labels)
for total, labels in val_sums(root, steps=4):
    print("val", total, labels)
