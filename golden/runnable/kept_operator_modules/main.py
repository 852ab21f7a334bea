"""Operators handed to another module's functions, which build the pipelines that call them."""

import sys

import nvidia.dali.fn as fn
from operator_tests import apply_operator, run_operator_test

if __name__ == "__main__":
    root = sys.argv[1]
    run_operator_test(root, fn_operator=fn.reductions.max, name="max")
    run_operator_test(root, fn_operator=fn.reductions.min, name="min")
    apply_operator(root, fn.reductions.sum, steps=2)
