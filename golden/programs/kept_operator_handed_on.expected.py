"""Operators handed to a function of another module (run_operator_test builds its pipeline there): the tool
cannot see whether that pipeline migrates, so the operators stay as they were, marked; the ndd operators beside
them are dynamic mode already."""

import nvidia.dali.fn as fn
import nvidia.dali.experimental.dynamic as ndd
from operator_tests import run_operator_test


def test_random_bbox_crop():
    # dali-migrate: DM231 fn.random_bbox_crop (a pipeline-mode operator) is passed to run_operator_test, which dali-migrate cannot follow: the pipeline that calls it there may stay in pipeline mode, so it stays as it is
    run_operator_test(
        fn_operator=fn.random_bbox_crop,
        ndd_operator=ndd.random_bbox_crop,
        num_inputs=2,
    )


def test_flip():
    # dali-migrate: DM230 fn.flip(...) is called by a pipeline, which stays in pipeline mode with everything that uses it, so it stays as it is: line 20: op (a pipeline-mode operator) is passed to run_operator_test, which dali-migrate cannot follow: the pipeline that calls it there may stay in pipeline mode, so it stays as it is
    op = fn.flip
    # dali-migrate: DM231 op (a pipeline-mode operator) is passed to run_operator_test, which dali-migrate cannot follow: the pipeline that calls it there may stay in pipeline mode, so it stays as it is
    run_operator_test(fn_operator=op, ndd_operator=ndd.flip)
