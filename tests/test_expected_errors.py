"""Pipelines inside code that expects their errors (DM238, units.ERROR_EXPECTED; docs/dali-facts.md, "Where a pipeline's
errors surface"): the facts the rule stands on, checked against the installed DALI, and the rule on small programs."""

import numpy as np
import pytest

from dali_migrate import migrate_source

SAMPLES = [np.zeros((4, 5, 3), np.uint8)] * 2


def _pipeline(op):
    from nvidia.dali import fn, pipeline_def

    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def pipe():
        return op(fn, fn.external_source(lambda: SAMPLES, batch=True))

    return pipe


def _stage(pipe):
    """Where pipeline mode raises: 'construct', 'build' or 'run' (None: nowhere), and the error."""
    try:
        made = pipe()
    except Exception as error:  # noqa: BLE001 - which one is the point
        return "construct", error
    for stage, call in (("build", made.build), ("run", made.run)):
        try:
            call()
        except Exception as error:  # noqa: BLE001
            return stage, error
    return None, None


def test_pipeline_mode_raises_at_build_or_run_where_dynamic_mode_raises_at_the_call():
    import nvidia.dali.experimental.dynamic as ndd

    bad_permutation = lambda m, x: m.transpose(x, perm=[0, 0, 1])  # noqa: E731
    too_many_axes = lambda m, x: m.expand_dims(x, axes=[4])  # noqa: E731
    stage, error = _stage(_pipeline(bad_permutation))
    assert stage == "build" and isinstance(error, RuntimeError)
    assert "Error in CPU operator `nvidia.dali.fn.transpose`" in str(error)  # the prefix a glob may match
    stage, run_error = _stage(_pipeline(too_many_axes))
    assert stage == "run" and isinstance(run_error, RuntimeError)
    for op, pipeline_error in ((bad_permutation, error), (too_many_axes, run_error)):
        with pytest.raises(RuntimeError) as raised:
            op(ndd, ndd.as_batch(SAMPLES)).evaluate()
        assert "Error in CPU operator" not in str(raised.value)  # another message: only the operator's own text
        assert str(raised.value).splitlines()[0] in str(pipeline_error)


def test_an_unknown_argument_is_a_key_error_in_pipeline_mode_and_a_type_error_in_dynamic_mode():
    import nvidia.dali.experimental.dynamic as ndd

    stage, error = _stage(_pipeline(lambda m, x: m.flip(x, bogus=1)))
    assert stage == "construct" and type(error) is KeyError
    with pytest.raises(TypeError):
        ndd.flip(ndd.as_batch(SAMPLES), bogus=1)


CHECKED = '''\
import numpy as np
import pytest
from nvidia.dali import fn, pipeline_def

BATCHES = [[np.zeros((2, 3), np.float32)] * 2]


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def checked():
    return fn.external_source(source=BATCHES, batch=True) * 2


def test():
    pipe = checked()
    {check}
        {call}
'''


@pytest.mark.parametrize("check, call, kept", [
    ("with pytest.raises(RuntimeError):", "pipe.build()", True),
    ("with pytest.raises(RuntimeError, match='x'):", "pipe.run()", True),
    ("try:", "pipe.run()\n    except RuntimeError:\n        pass", True),
    ("try:", "pipe.build()\n    except StopIteration:\n        pass", True),  # a build: the error comes elsewhere
    ("try:", "pipe.run()\n    except StopIteration:\n        pass", False),  # the generator ends at the same step
    ("try:", "pipe.run()\n    except KeyboardInterrupt:\n        pass", False),  # no pipeline raises it
    ("try:", "pipe.run()\n    finally:\n        pass", False),  # observes nothing
])
def test_a_pipeline_inside_an_error_check_stays(check, call, kept):
    result = migrate_source(CHECKED.format(check=check, call=call), "checked.py")
    assert result.error is None
    assert ("DM238" in {f.rule for f in result.findings}) == kept
    assert ("def checked(" in result.migrated and "@pipeline_def" in result.migrated) == kept
