"""A program that checks DALI refuses a bad pipeline: a transpose whose permutation repeats an axis fails when the
pipeline is built, and the check expects that RuntimeError at build(). A second pipeline, not checked, runs as usual."""
import numpy as np
import pytest
from nvidia.dali import fn, pipeline_def

SAMPLES = [np.arange(24, dtype=np.float32).reshape(2, 3, 4) + i for i in range(2)]


@pipeline_def(batch_size=2, num_threads=1, device_id=0)
def transposed(perm):
    data = fn.external_source(source=lambda: SAMPLES, batch=True)
    return fn.transpose(data, perm=perm)


@pipeline_def(batch_size=2, num_threads=1, device_id=0)
def halved():
    data = fn.external_source(source=lambda: SAMPLES, batch=True)
    return data * 0.5


def check_refused(perm):
    pipe = transposed(perm)
    with pytest.raises(RuntimeError) as info:
        pipe.build()
    print("refused", perm, "permutation" in str(info.value))


def main():
    check_refused([0, 0, 1])
    check_refused([2, 2, 2])
    pipe = transposed([2, 0, 1])
    pipe.build()
    (out,) = pipe.run()
    print("transposed", np.array(out.at(0)).shape, float(np.array(out.at(1)).sum()))
    other = halved()
    other.build()
    for step in range(2):
        (half,) = other.run()
        print("halved", step, [float(np.array(half.at(i)).sum()) for i in range(2)])


if __name__ == "__main__":
    main()
