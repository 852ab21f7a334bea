"""A deprecated operator where the program checks for its DeprecationWarning stays (DM118); elsewhere it is renamed."""
import nvidia.dali.fn as fn
import nvidia.dali.ops as ops
from nose_utils import assert_warns


def test_deprecation():
    with assert_warns(DeprecationWarning, glob="*deprecated*"):
        fn.transform_translation(offset=(0, 0))
    with assert_warns(DeprecationWarning, glob="*deprecated*"):
        ops.TransformTranslation(offset=(0, 0))()
    fn.transform_translation(offset=(0, 0))
