"""The bundled example repo is real pipeline-mode code: every pipeline the report finds in it
builds and runs on CPU with DALI, on a handful of generated JPEGs, so a harness can verify it."""

import importlib
import os
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from dali_migrate.report import build_report

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def image_root(tmp_path_factory):
    root = tmp_path_factory.mktemp("jpegs")
    rng = np.random.default_rng(0)
    for label in ("0", "1"):
        (root / label).mkdir()
        for i in range(3):
            Image.fromarray(rng.integers(0, 255, (32, 32, 3), dtype=np.uint8)).save(root / label / f"{i}.jpg")
    return root


def test_every_example_pipeline_runs_in_pipeline_mode(image_root, monkeypatch):
    monkeypatch.chdir(ROOT)
    report = build_report(["examples/repo"], progress=False, verifier=None)
    assert len(report.pipelines) == 5
    monkeypatch.syspath_prepend(str(ROOT / "examples" / "repo"))
    for entry in report.pipelines:
        info = entry.info
        module_name = info.path[len("examples/repo/"):-3].replace("/", ".")
        module = importlib.import_module(module_name)
        assert info.required == ["root"]
        pipe = getattr(module, info.name)(str(image_root))
        pipe.build()
        images, labels = pipe.run()
        assert len(images) == len(labels) == pipe.max_batch_size, info.name
        assert set(np.asarray(labels.as_tensor()).ravel()) <= {0, 1}
    for name in [m for m in sys.modules if m == "loaders" or m.startswith("loaders.")]:
        del sys.modules[name]
