"""Graph helper functions (transforms/unroll/graph_functions.py): a reader function inlined into the pipelines
that call it, a helper's seeded random ops given RNGs by its callers; what stays marked; and the DALI fact the
RNG-per-call-site design rests on (real DALI)."""

import numpy as np
import pytest

from dali_migrate import migrate_source

ndd = pytest.importorskip("nvidia.dali.experimental.dynamic")
from nvidia.dali import fn, pipeline_def  # noqa: E402

HEAD = "import nvidia.dali.fn as fn\nfrom nvidia.dali import pipeline_def\n\n"
PIPE = ("@pipeline_def(batch_size=2, num_threads=1, device_id=None)\ndef pipe(root):\n"
        "    jpegs, labels = {call}\n    return jpegs, labels\n\n\np = pipe('images')\np.build()\nout = p.run()\n")


def _migrate(text):
    result = migrate_source(text, "m.py")
    assert result.error is None
    return result.migrated


def test_a_reader_function_is_inlined_and_removed():
    source = HEAD + ("def read(root, shuffle=False):\n    return fn.readers.file(file_root=root, random_shuffle=shuffle)\n\n\n"
                     + PIPE.format(call="read(root)"))
    migrated = _migrate(source)
    assert "def read(" not in migrated
    assert "reader = ndd.readers.File(file_root=root, random_shuffle=False)" in migrated
    assert "dali-migrate:" not in migrated


@pytest.mark.parametrize("why, function, call", [
    ("a computed argument", "def read(r):\n    return fn.readers.file(file_root=r)\n", "read(root + '/x')"),
    ("a global the generator would shadow", "def read():\n    return fn.readers.file(file_root=batch_size)\n", "read()"),
    ("a name the pipeline binds", "def read():\n    return fn.readers.file(file_root=labels)\n", "read()"),
    ("a default that is not a literal", "def read(r=ROOT):\n    return fn.readers.file(file_root=r)\n", "read()"),
    ("more than the reader", "def read(r):\n    x = 1\n    return fn.readers.file(file_root=r)\n", "read(root)"),
])
def test_what_is_not_inlined_stays_marked(why, function, call):
    migrated = _migrate(HEAD + "ROOT = 'images'\nbatch_size = 'images'\nlabels = 'images'\n\n\n" + function
                        + "\n\n" + PIPE.format(call=call))
    assert "# dali-migrate: DM104" in migrated, why
    assert "fn.readers.file(" in migrated, why


def test_a_redefined_function_is_not_inlined():
    function = "def read(r):\n    return fn.readers.file(file_root=r)\n\n\n"
    migrated = _migrate(HEAD + function + function + PIPE.format(call="read(root)"))
    assert "# dali-migrate: DM104" in migrated


def test_a_seeded_helper_gets_one_rng_per_call():
    source = HEAD + ("def jitter(x):\n    return fn.cast(x, dtype=types.FLOAT) * fn.random.uniform(range=(0, 1), seed=3)"
                     "\n\n\n" + PIPE.format(call="fn.readers.file(file_root=root)").replace(
                         "return jpegs, labels", "return jitter(labels), jitter(labels)"))
    migrated = _migrate("import nvidia.dali.types as types\n" + source)
    assert "def jitter(x, *, rng):" in migrated
    assert "ndd.random.uniform(range=(0, 1), rng=rng, batch_size=x.batch_size)" in migrated
    assert "rng_1 = ndd.random.RNG(seed=3)" in migrated and "rng_2 = ndd.random.RNG(seed=3)" in migrated
    assert "yield jitter(labels, rng=rng_1), jitter(labels, rng=rng_2)" in migrated


def test_a_seeded_helper_called_elsewhere_stays_marked():
    source = HEAD + ("def jitter(x):\n    return fn.cast(x, dtype=types.FLOAT) * fn.random.uniform(range=(0, 1), seed=3)"
                     "\n\n\nuse = jitter\n\n\n"
                     + PIPE.format(call="fn.readers.file(file_root=root)").replace(
                         "return jpegs, labels", "return jitter(labels), labels"))
    assert "# dali-migrate: DM112" in _migrate("import nvidia.dali.types as types\n" + source)


def test_each_seeded_operator_has_its_own_stream_from_its_seed_in_both_modes():
    """Two operators with seed=7 (one helper called twice) draw the same values, step after step, and a
    second pipeline starts them again; two RNG(seed=7) objects do the same in dynamic mode (the values of
    the two modes differ: DM205)."""
    @pipeline_def(batch_size=3, num_threads=1, device_id=None)
    def twice():
        return fn.random.uniform(range=(0, 1), seed=7), fn.random.uniform(range=(0, 1), seed=7)

    first, again = twice(), twice()
    first.build()
    again.build()
    steps = [[np.array(o.as_tensor()) for o in first.run()] for _ in range(2)]
    assert all(np.array_equal(a, b) for a, b in steps) and not np.array_equal(steps[0][0], steps[1][0])
    assert np.array_equal(np.array(again.run()[0].as_tensor()), steps[0][0])
    one, other = ndd.random.RNG(seed=7), ndd.random.RNG(seed=7)
    for _ in range(2):
        x = ndd.random.uniform(range=(0, 1), batch_size=3, rng=one)
        y = ndd.random.uniform(range=(0, 1), batch_size=3, rng=other)
        assert np.array_equal(np.array(ndd.as_tensor(x)), np.array(ndd.as_tensor(y)))
