"""A deprecated operator where the program checks for its DeprecationWarning stays (DM118); elsewhere it is renamed."""
import nvidia.dali.fn as fn
import nvidia.dali.ops as ops
import nvidia.dali.experimental.dynamic as ndd
from nose_utils import assert_warns


def test_deprecation():
    with assert_warns(DeprecationWarning, glob="*deprecated*"):
        # dali-migrate: DM118 fn.transform_translation is deprecated and this code checks for its warning; ndd.transforms.translation, which superseded it, gives none: it stays as it is
        fn.transform_translation(offset=(0, 0))
    with assert_warns(DeprecationWarning, glob="*deprecated*"):
        # dali-migrate: DM118 ops.TransformTranslation is deprecated and this code checks for its warning; ndd.transforms.translation, which superseded it, gives none: it stays as it is
        ops.TransformTranslation(offset=(0, 0))()
    ndd.transforms.translation(offset=(0, 0))
