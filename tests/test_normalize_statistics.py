"""fn.normalize with mean/stddev in variables (arguments.py, DM116): the migrated pipeline computes what the
pipeline did for scalar statistics (Python and numpy) and for arrays with the input's dimensions (real DALI)."""

import numpy as np
import pytest

pytest.importorskip("nvidia.dali.experimental.dynamic")

from runtime import GOLDEN, load, on_cpu  # noqa: E402

from dali_migrate import migrate_source  # noqa: E402


def _from_file(text, path):
    """The module from a real file: ndd's call-site analysis reads the source to find literal arguments (code
    exec'd from a string has none, so even mean=1.0 would be a per-sample tensor there)."""
    import importlib.util

    path.write_text(text)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module

CASES = {
    "python scalars": (1.5, 2.0),
    "numpy scalars": (np.float32(1.5), np.float64(2.0)),
    "arrays of the input's dimensions": (np.arange(4, dtype=np.float32).reshape(1, 4), np.full((1, 4), 2.0)),
}


@pytest.mark.parametrize("mean, stddev", CASES.values(), ids=CASES.keys())
def test_statistics_in_variables_normalize_as_the_pipeline_did(mean, stddev, tmp_path):
    source = (GOLDEN / "arguments/normalize_statistics.py").read_text()
    text = migrate_source(source, "normalize_statistics.py").migrated
    original = load(on_cpu(source), "normalize_statistics_original")
    migrated = _from_file(on_cpu(text), tmp_path / "normalize_statistics_migrated.py")
    assert "dali-migrate:" not in text
    assert "np.reshape(stats.mean, (1,) * data.ndim) if np.ndim(stats.mean) == 0 else stats.mean" in text
    assert "mean=1.0, stddev=2.0" in text  # a literal is a scalar argument in ndd already
    stats = original.Stats(mean, stddev)
    pipe = original.normalized(stats, mean, stddev)
    pipe.build()
    expected = [np.array(out.as_tensor()) for out in pipe.run()]
    steps = migrated.normalized(migrated.Stats(mean, stddev), mean, stddev)
    got = [np.array(out.as_tensor()) if hasattr(out, "as_tensor") else np.stack([np.asarray(t) for t in out.tensors])
           for out in next(steps)]
    for want, have in zip(expected, got):
        assert have.dtype == want.dtype
        np.testing.assert_allclose(have, want, rtol=1e-6)
