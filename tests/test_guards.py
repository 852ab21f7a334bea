"""Guarded DALI imports (transforms/guards.py, golden/imports/guarded_*.py): the migrated module still imports
without DALI, as the original did, and computes what the original computed with DALI."""

import os
import subprocess
import sys

import numpy as np
import pytest

from dali_migrate.engine import migrate_source
from runtime import GOLDEN, pair, write_migrated

CASES = ["imports/guarded_try.py", "imports/guarded_flag.py", "imports/guarded_policy.py"]


@pytest.fixture(scope="module")
def numpy_root(tmp_path_factory):
    root = tmp_path_factory.mktemp("guarded_numpy")
    for k in range(5):
        np.save(root / f"a{k}.npy", np.arange(6, dtype=np.float32).reshape(2, 3) + k)
    return root


def _imports_without_dali(text: str, tmp_path, name: str) -> str:
    write_migrated(tmp_path / f"{name}.py", text)
    code = ("import sys; sys.modules['nvidia'] = None  # as if DALI were not installed\n"
            f"import {name}\nprint('imported', getattr({name}, 'HAVE_DALI', getattr({name}, 'DALI_AVAILABLE', None)))\n")
    environment = {**os.environ, "WITHOUT_DALI": "1"}
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          env=environment)
    return done.stdout.strip() + done.stderr.strip()


@pytest.mark.parametrize("case", CASES)
def test_migrated_module_imports_without_dali_as_the_original_did(case, tmp_path):
    source = (GOLDEN / case).read_text()
    migrated = migrate_source(source, case).migrated
    assert "dali-migrate:" not in migrated
    assert "import nvidia.dali.fn" not in migrated and "from nvidia.dali.plugin.pytorch import" not in migrated \
        and "import nvidia.dali.ops" not in migrated
    flag = "DALI_AVAILABLE" if "flag" in case else "HAVE_DALI"
    original = _imports_without_dali(source, tmp_path, "original_" + flag)
    after = _imports_without_dali(migrated, tmp_path, "migrated_" + flag)
    assert original == after == "imported False", (original, after)


def test_guarded_try_computes_the_same(numpy_root):
    original, migrated, _ = pair("imports/guarded_try.py")
    want = [float(b[0]["x"].sum()) for b in original.loader(str(numpy_root))]
    got = [float(b[0]["x"].sum()) for b in migrated.loader(str(numpy_root))]
    assert want == got and len(got) == 3


def test_guarded_flag_computes_the_same(numpy_root):
    original, migrated, _ = pair("imports/guarded_flag.py")
    assert original.total(str(numpy_root), 4) == migrated.total(str(numpy_root), 4) > 0


@pytest.mark.parametrize("drop", [False, True])
def test_guarded_policy_computes_the_same(numpy_root, drop):
    original, migrated, text = pair("imports/guarded_policy.py")
    code = text[text.index("HAVE_DALI ="):]  # the module's own code, after the helper classes it got
    assert "LastBatchPolicy" not in code and "DALIClassificationIterator" not in code
    want = [(float(b[0]["data"].sum()), float(b[0]["label"].sum())) for b in original.loader(str(numpy_root), drop)]
    got = [(float(b[0]["data"].sum()), float(b[0]["label"].sum())) for b in migrated.loader(str(numpy_root), drop)]
    assert want == got and len(got) == (2 if drop else 3)


def test_a_module_that_needs_dali_anyway_keeps_the_import_at_the_top():
    source = ("import nvidia.dali.fn as fn\n"
              "try:\n    import nvidia.dali.types as types\nexcept ImportError:\n    types = None\n\n"
              "def flip(images):\n    return fn.flip(images)\n")
    migrated = migrate_source(source, "m.py").migrated
    assert migrated.startswith("import nvidia.dali.experimental.dynamic as ndd\n")


def test_an_import_the_migration_adds_goes_under_the_guard_and_a_second_run_changes_nothing():
    """Found on a held-out datapipe module: a per-sample source needs SampleInfo; added at the top, it made the
    next run see an unguarded DALI import and add a second ndd import there."""
    source = ("import numpy as np\n\n"
              "try:\n    import nvidia.dali as dali\nexcept ImportError:\n    raise ImportError('install DALI')\n\n\n"
              "class Samples:\n    def __call__(self, info):\n        return np.full((2,), info.idx_in_epoch, np.int32)\n\n\n"
              "@dali.pipeline_def(batch_size=2, num_threads=1, device_id=None)\n"
              "def pipe():\n    data = dali.fn.external_source(source=Samples(), batch=False)\n    return data\n\n\n"
              "def first():\n    p = pipe()\n    p.build()\n    return p.run()[0].as_array()\n")
    once = migrate_source(source, "m.py").migrated
    head = once[:once.index("class ")]
    assert "dali-migrate:" not in once and "SampleInfo" in once
    assert "import nvidia.dali" not in head.split("try:")[0]  # every DALI import stays under the guard
    assert migrate_source(once, "m.py").migrated == once
