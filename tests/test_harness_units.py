"""Pure-text parts of the harness: device mapping, argument parsing, output names, unmigrated check."""

import pytest

from dali_migrate.harness.devices import map_call_arguments, map_devices_to_cpu
from dali_migrate.harness.loading import HarnessError, output_names, parse_call_args, still_pipeline_mode


def test_device_mapping_rewrites_literals_drops_gpu_calls_and_keeps_lines():
    src = (
        "def f(x, device_id=0, device='gpu'):\n"
        "    a = fn.decoders.image(x, device='mixed')\n"
        "    b = ndd.resize(a, device=\"gpu:1\").gpu()\n"
        "    c = ndd.flip(b, device=dev)\n"
        "    return pipe(device_id=3, device='cpu', other=x.gpu(1))\n"
    )
    out, mappings = map_devices_to_cpu(src, "original")
    assert out == (
        "def f(x, device_id=None, device=\"cpu\"):\n"
        "    a = fn.decoders.image(x, device=\"cpu\")\n"
        "    b = ndd.resize(a, device=\"cpu\")\n"
        "    c = ndd.flip(b, device=dev)\n"
        "    return pipe(device_id=None, device='cpu', other=x.gpu(1))\n"
    )
    lines = [(m.line, m.before, m.after) for m in mappings]
    assert (1, "device_id=0 (default)", "device_id=None") in lines
    assert (2, "device='mixed'", 'device="cpu"') in lines
    assert (3, 'ndd.resize(a, device="gpu:1").gpu()', 'ndd.resize(a, device="gpu:1")') in lines
    assert (4, "device=dev", "(unchanged)") in lines  # reported, not guessed
    assert (5, "device_id=3", "device_id=None") in lines


def test_positional_device_id_of_a_pipeline_is_mapped():
    src = (
        "pipe = dali.pipeline.Pipeline(batch_size, 3, 0)\n"
        "cpu = Pipeline(8, 2, None)\n"
        "unknown = Pipeline(*sizes, 0)\n"
        "other = make(8, 2, 0)\n"
    )
    out, mappings = map_devices_to_cpu(src, "original")
    assert out == (
        "pipe = dali.pipeline.Pipeline(batch_size, 3, None)\n"
        "cpu = Pipeline(8, 2, None)\n"
        "unknown = Pipeline(*sizes, 0)\n"
        "other = make(8, 2, 0)\n"
    )
    assert [(m.line, m.after) for m in mappings] == [(1, "device_id=None")]


def test_call_arguments_are_mapped_too():
    args, kwargs, mappings = map_call_arguments(["r"], {"device_id": 0, "device": "mixed", "n": 1})
    assert args == ["r"] and kwargs == {"device_id": None, "device": "cpu", "n": 1}
    assert len(mappings) == 2


@pytest.mark.parametrize("text, expected", [
    (None, ([], {})),
    ('["a", 2]', (["a", 2], {})),
    ('{"root": "a"}', ([], {"root": "a"})),
    ('{"args": ["a"], "kwargs": {"size": 3}}', (["a"], {"size": 3})),
    ('{"args": ["a"]}', (["a"], {})),
])
def test_parse_call_args(text, expected):
    assert parse_call_args(text) == expected


@pytest.mark.parametrize("text", ["{oops", "3", '{"args": 1}'])
def test_parse_call_args_rejects(text):
    with pytest.raises(HarnessError):
        parse_call_args(text)


def test_output_names_from_each_style():
    src = (
        "@pipeline_def\ndef p():\n    return images, labels[0]\n"
        "class C(Pipeline):\n    def define_graph(self):\n        return a, b\n"
        "def make():\n    pipe = Pipeline()\n    with pipe:\n        pipe.set_outputs(x, y.gpu())\n    return pipe\n"
        "obj = Pipeline()\nwith obj:\n    obj.set_outputs(u)\n"
    )
    assert output_names(src, "p") == ["images", ""]
    assert output_names(src, "C") == ["a", "b"]
    assert output_names(src, "make") == ["x", "y"]
    assert output_names(src, "obj") == ["u"]


def test_still_pipeline_mode():
    assert "decorated with @pipeline_def" in still_pipeline_mode("@dali.pipeline_def(batch_size=2)\ndef p(): pass\n", "p")
    assert "subclasses Pipeline" in still_pipeline_mode("class C(Pipeline):\n    pass\n", "C")
    assert "Pipeline(...) object" in still_pipeline_mode("pipe = Pipeline(batch_size=1)\n", "pipe")
    assert still_pipeline_mode("def p():\n    yield 1\n", "p") is None
