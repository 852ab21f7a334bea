"""Dynamic mode reads the source of the line that calls an operator (``ndd._source_analysis.constant_kwargs``) to
tell literal arguments from run-time ones (docs/dali-facts.md, "Literal operator arguments need the caller's source").
Migrated code must therefore run from a file, or from cells registered in ``linecache`` as Jupyter and
``dali_migrate.harness.run_notebook`` do: without the source, ``ndd.normalize(x, mean=1.0, stddev=2.0)`` fails."""
import subprocess
import sys

PROGRAM = (
    "import numpy as np\n"
    "import nvidia.dali.experimental.dynamic as ndd\n"
    "x = ndd.as_batch([np.arange(6, dtype=np.float32).reshape(2, 3)] * 2)\n"
    "print(np.asarray(ndd.normalize(x, mean=1.0, stddev=2.0).select(0)).tolist())\n"
)


def test_literal_arguments_are_constants_when_the_source_is_a_file(tmp_path):
    script = tmp_path / "normalize.py"
    script.write_text(PROGRAM)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "[[-0.5, 0.0, 0.5], [1.0, 1.5, 2.0]]"


def test_without_the_source_a_scalar_mean_reaches_normalize_as_a_tensor_and_fails():
    done = subprocess.run([sys.executable, "-c", PROGRAM], capture_output=True, text=True, timeout=300)
    assert done.returncode != 0
    assert "Normalization parameters' shape must have extent of 1" in done.stderr
