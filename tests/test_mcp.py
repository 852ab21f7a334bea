"""The MCP server, driven through the official SDK's client: in memory and over stdio.

The workspace is what an agent meets: a training loader, a helper module, a notebook and a file
without DALI (plus images for the loader to read).
"""

import json
import os
import sys

import anyio
import pytest

pytest.importorskip("mcp")
from mcp import Client, StdioServerParameters  # noqa: E402
from mcp.shared.exceptions import MCPError  # noqa: E402

from dali_migrate.mcp_server import MAX_SOURCE_BYTES, TOOL_NAMES, build_server  # noqa: E402

TRAIN = '''"""Training loader: images from a folder, resized and normalized, in batches."""
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def


@pipeline_def(batch_size=2, num_threads=1, device_id=None, seed=7)
def train_pipe(root, size=16):
    jpegs, labels = fn.readers.file(file_root=root, name="Reader")
    images = fn.decoders.image(jpegs, device="mixed")
    images = fn.resize(images, size=(size, size))
    images = fn.crop_mirror_normalize(images, dtype=types.FLOAT, output_layout="CHW",
                                      mean=[0.0, 0.0, 0.0], std=[255.0, 255.0, 255.0])
    return images, labels


def main(root):
    pipe = train_pipe(root)
    pipe.build()
    for _ in range(3):
        images, labels = pipe.run()
        print(images.as_cpu().as_array().shape, labels.at(0))


if __name__ == "__main__":
    main("data")
'''

HELPERS = '''"""Augmentations shared by the pipelines."""
import nvidia.dali.fn as fn


def augment(images, size=64):
    images = fn.resize(images, size=size)
    return fn.flip(images, horizontal=1)


def brighten(images):
    return fn.python_function(images, function=lambda x: x * 2)
'''

UTILS = '''"""Plain helpers: no DALI here."""
import os


def list_images(root):
    return sorted(os.listdir(root))
'''


def notebook(*cells: str) -> str:
    """A notebook: a markdown cell, then one code cell per argument."""
    entries = [{"cell_type": "markdown", "metadata": {}, "source": ["# Explore the data\n"]}]
    entries += [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
                 "source": cell.splitlines(keepends=True)} for cell in cells]
    return json.dumps({"cells": entries, "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python",
                                                                     "name": "python3"},
                                                      "language_info": {"name": "python"}},
                       "nbformat": 4, "nbformat_minor": 5}, indent=1) + "\n"


EXPLORE = notebook(
    "%matplotlib inline\nimport nvidia.dali.fn as fn\nfrom nvidia.dali import pipeline_def\n",
    "@pipeline_def(batch_size=2, num_threads=1, device_id=None)\ndef explore(root):\n"
    "    jpegs, labels = fn.readers.file(file_root=root)\n"
    "    images = fn.decoders.image(jpegs, device=\"mixed\")\n"
    "    return fn.resize(images, size=(8, 8)), labels\n",
    # Cell 4 runs the pipeline: verify must not run it (it would need the data folder under another name).
    "pipe = explore(\"no/such/folder\")\npipe.build()\nimages, labels = pipe.run()\nprint(len(images), labels.at(0))\n",
)


def _jpegs(root, count=6):
    import numpy as np
    from PIL import Image

    rs = np.random.RandomState(0)
    for label in range(2):
        (root / str(label)).mkdir(parents=True)
        for i in range(count // 2):
            img = rs.randint(0, 255, (20 + i, 24, 3)).astype(np.uint8)
            Image.fromarray(img).save(root / str(label) / f"{i}.jpg")


@pytest.fixture
def workspace(tmp_path):
    root = tmp_path / "ws"
    root.mkdir()
    (root / "train.py").write_text(TRAIN)
    (root / "helpers.py").write_text(HELPERS)
    (root / "explore.ipynb").write_text(EXPLORE)
    (root / "utils.py").write_text(UTILS)
    return root


@pytest.fixture
def data(workspace):
    _jpegs(workspace / "data")
    return "data"


def stdio(root):
    return StdioServerParameters(command=sys.executable, args=["-m", "dali_migrate", "mcp", "--root", str(root)],
                                 env={**os.environ, "PYTHONPATH": os.getcwd()})


def calls(target, *requests):
    """Each (tool, arguments) in one client session; the results in order."""
    async def go():
        async with Client(target) as client:
            return [await client.call_tool(name, arguments) for name, arguments in requests]
    return anyio.run(go)


def call(target, name, arguments):
    return calls(target, (name, arguments))[0]


def ok(target, name, arguments) -> dict:
    result = call(target, name, arguments)
    assert not result.is_error, result.content[0].text
    return result.structured_content


def text_of(result) -> str:
    (block,) = result.content
    return block.text


def size(result) -> int:
    """What the answer costs an agent: its text block and its structured content."""
    return len(text_of(result)) + len(json.dumps(result.structured_content or {}))


# -- schemas -----------------------------------------------------------------------------------

def list_tools(root):
    async def go():
        async with Client(build_server(root)) as client:
            return (await client.list_tools()).tools
    return {t.name: t for t in anyio.run(go)}


def test_schemas_describe_every_parameter_with_bounds_and_annotations(workspace):
    tools = list_tools(workspace)
    assert set(tools) == TOOL_NAMES
    for tool in tools.values():
        assert tool.description and tool.title and tool.output_schema["type"] == "object", tool.name
        schema = tool.input_schema
        assert schema["additionalProperties"] is False, tool.name  # unknown arguments are refused
        for name, prop in schema["properties"].items():
            assert len(prop.get("description", "")) > 20, (tool.name, name)
    verify = tools["verify"].input_schema["properties"]
    assert (verify["iterations"]["minimum"], verify["iterations"]["maximum"]) == (1, 50)
    assert (verify["timeout_s"]["minimum"], verify["timeout_s"]["maximum"]) == (1, 600)
    assert "batch_size" in verify["kwargs"]["description"]
    assert verify["args"]["items"]["anyOf"]  # JSON values, said so (not the bare {})
    assert verify["pipeline"]["pattern"]
    assert tools["migrate_code"].input_schema["properties"]["source"]["maxLength"] == MAX_SOURCE_BYTES
    assert tools["migrate_paths"].input_schema["properties"]["paths"]["minItems"] == 1

    hints = {name: (t.annotations.read_only_hint, t.annotations.destructive_hint, t.annotations.open_world_hint)
             for name, t in tools.items()}
    for name in ("migrate_code", "lint_code", "review", "explain_rule", "server_info"):
        assert hints[name] == (True, False, False), name
    assert hints["migrate_paths"] == hints["lint_paths"] == (False, True, False)  # write=true / fix=true rewrite files
    assert hints["verify"] == hints["verify_program"] == (False, True, True)  # they run the user's code
    assert ".dali-migrate/originals/" in tools["migrate_paths"].input_schema["properties"]["write"]["description"]


def test_instructions_and_descriptions_spell_out_the_safe_order(workspace):
    async def go():
        async with Client(build_server(workspace)) as client:
            return client.instructions
    instructions = anyio.run(go)
    steps = ["\n1. migrate_paths (a dry run", "\n2. verify", "\n3. migrate_paths write=true", "\n4. lint_paths",
             "\n5. review"]
    positions = [instructions.index(step) for step in steps]
    assert positions == sorted(positions), instructions
    assert ".dali-migrate/originals/" in instructions
    description = list_tools(workspace)["migrate_paths"].description
    assert all(word in description for word in ("dry run", "verify", "write=true", "lint_paths", "review"))


# -- errors: tool results the model can act on; protocol errors only for protocol faults ----------

SLOW = "import time\nimport nvidia.dali.fn as fn\ntime.sleep(60)\n"


def bad_calls(root, transport: str = "memory"):
    """(tool, arguments, what the message must say): each a call an agent could make. Over stdio, one
    verify of a name that is no pipeline stands for both (each costs a DALI start-up)."""
    (root / "slow.py").write_text(SLOW)
    missing_name = [("verify", {"original": "train.py", "pipeline": "nope"},
                     ["'nope'", "train_pipe", "pass the name of a pipeline"])] if transport == "memory" else []
    return [*missing_name,
        ("migrate_paths", {"paths": ["../outside"]}, ["outside the workspace root", "relative to it"]),
        ("lint_paths", {"paths": ["missing.py"]}, ["no such file", "'missing.py'", "paths=['.']"]),
        ("migrate_paths", {"paths": "train.py"}, ["paths: input should be a valid list", "files or folders"]),
        ("verify", {"original": "train.py", "pipeline": "train_pipe", "iterations": "many"},
         ["iterations: input should be a valid integer", "pipe.run() calls"]),
        ("verify", {"original": "train.py", "pipeline": "train_pipe", "iterations": 10_000},
         ["less than or equal to 50"]),
        ("migrate_code", {"source": "#" * (2 * MAX_SOURCE_BYTES)}, ["source", "at most 1000000 characters"]),
        ("migrate_code", {"source": "é" * (MAX_SOURCE_BYTES // 2 + 1)}, ["larger than 1000000 bytes", "one module"]),
        ("migrate_code", {"source": "import nvidia.dali.fn as fn\ndef f(:\n", "filename": "x.py"},
         ["x.py line 2", "does not parse", "fix the source"]),
        ("verify", {"original": "slow.py", "pipeline": "p", "timeout_s": 3},
         ["did not finish within 3 s", "raise timeout_s"]),
        ("verify", {"original": "utils.py", "pipeline": "list_images", "args": ["."]},
         ["not a DALI Pipeline", "pass original=<the pipeline-mode file> and migrated="]),
        ("verify", {"original": "train.py", "pipeline": "a; import os"}, ["pipeline: string should match pattern"]),
        ("migrate_paths", {"paths": ["."], "dry_run": True},
         ["dry_run: not an argument of migrate_paths", "paths, write, detail"]),
        ("explain_rule", {"rule_id": "DM999"}, ["unknown rule 'DM999'", "DM101"]),
    ]


@pytest.mark.parametrize("transport", ["memory", "stdio"])
def test_bad_calls_are_tool_errors_that_say_how_to_fix_them(workspace, transport):
    pytest.importorskip("nvidia.dali")
    cases = bad_calls(workspace, transport)
    target = build_server(workspace) if transport == "memory" else stdio(workspace)
    results = calls(target, *[(tool, arguments) for tool, arguments, _ in cases], ("explain_rule", {"rule_id": "dm101"}))
    for (tool, arguments, expected), result in zip(cases, results):
        assert result.is_error, (tool, arguments)
        message = text_of(result)
        for words in expected:
            assert words in message, (tool, words, message)
        assert str(workspace.parent) not in message.replace(str(workspace), "<root>"), message
    # Every verify failure still carries its verdict.
    timeout = results[[i for i, c in enumerate(cases) if c[1].get("timeout_s") == 3][0]]
    assert timeout.structured_content["verdict"] == "failed"
    not_a_pipeline = results[[i for i, c in enumerate(cases) if c[1].get("pipeline") == "list_images"][0]]
    assert not_a_pipeline.structured_content["verdict"] == "incomplete"
    assert "migrated=" in not_a_pipeline.structured_content["hint"]
    # The server is still up, and answers the next call.
    assert results[-1].structured_content["name"] == "fn-to-ndd"


@pytest.mark.parametrize("transport", ["memory", "stdio"])
def test_an_unknown_tool_is_a_protocol_error(workspace, transport):
    async def go():
        async with Client(build_server(workspace) if transport == "memory" else stdio(workspace)) as client:
            with pytest.raises(MCPError) as excinfo:
                await client.call_tool("no_such_tool", {})
            return excinfo.value
    error = anyio.run(go)
    assert error.error.code == -32602
    assert "Unknown tool" in str(error) and "migrate_paths" in str(error)


def test_a_malformed_request_is_a_protocol_error(workspace):
    """Raw JSON-RPC over stdio: arguments that are not an object never reach a tool."""
    import subprocess

    proc = subprocess.Popen([sys.executable, "-m", "dali_migrate", "mcp", "--root", str(workspace)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            env={**os.environ, "PYTHONPATH": os.getcwd()})

    def send(message):
        proc.stdin.write(json.dumps({"jsonrpc": "2.0", **message}) + "\n")
        proc.stdin.flush()

    try:
        send({"id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                                                          "clientInfo": {"name": "raw", "version": "0"}}})
        assert "result" in json.loads(proc.stdout.readline())
        send({"method": "notifications/initialized"})
        send({"id": 2, "method": "tools/call", "params": {"name": "explain_rule", "arguments": "DM101"}})
        answer = json.loads(proc.stdout.readline())
        assert answer["id"] == 2 and answer["error"]["code"] == -32602
        send({"id": 3, "method": "tools/call", "params": {"name": "explain_rule", "arguments": {"rule_id": "DM101"}}})
        assert json.loads(proc.stdout.readline())["result"]["structuredContent"]["id"] == "DM101"
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)


def test_symlinks_out_of_the_root_are_refused_and_nothing_outside_is_written(workspace):
    outside = workspace.parent / "outside"
    outside.mkdir()
    (outside / "secret.py").write_text(HELPERS)
    (workspace / "link_out").symlink_to(outside, target_is_directory=True)
    (workspace / "file_link_out.py").symlink_to(outside / "secret.py")
    server = build_server(workspace)
    for paths in (["link_out"], ["file_link_out.py"], ["/etc"]):
        result = call(server, "migrate_paths", {"paths": paths})
        assert result.is_error and "outside the workspace root" in text_of(result)
    # A folder walk that meets a link out refuses too, and writes nothing anywhere.
    result = call(server, "migrate_paths", {"paths": ["."], "write": True})
    assert result.is_error and "leaves the workspace root" in text_of(result)
    assert (outside / "secret.py").read_text() == HELPERS
    assert (workspace / "train.py").read_text() == TRAIN
    result = call(server, "verify", {"original": "link_out/secret.py", "pipeline": "augment"})
    assert result.is_error and "outside the workspace root" in text_of(result)


def test_writes_into_the_kept_originals_are_refused(workspace):
    server = build_server(workspace)
    ok(server, "migrate_paths", {"paths": ["helpers.py"], "write": True})
    result = call(server, "migrate_paths", {"paths": [".dali-migrate/originals/helpers.py"], "write": True})
    assert result.is_error and "write the workspace files themselves" in text_of(result)
    result = call(server, "lint_paths", {"paths": [".dali-migrate"], "fix": True})
    assert result.is_error and "write the workspace files themselves" in text_of(result)
    assert (workspace / ".dali-migrate" / "originals" / "helpers.py").read_text() == HELPERS


def test_a_file_put_back_as_it_was_is_reviewed_as_it_is(workspace):
    server = build_server(workspace)
    ok(server, "migrate_paths", {"paths": ["helpers.py"], "write": True})
    (reviewed,) = ok(server, "review", {"paths": ["helpers.py"]})["files"]
    assert reviewed["reviewed_from"] == ".dali-migrate/originals/helpers.py"
    (workspace / "helpers.py").write_text(HELPERS)  # a person undoes the write
    (reviewed,) = ok(server, "review", {"paths": ["helpers.py"]})["files"]
    assert "reviewed_from" not in reviewed and reviewed["status"] == "needs-attention" and reviewed["hunks"] == 1


# -- compact answers -----------------------------------------------------------------------------

def test_the_dry_run_of_a_small_workspace_is_compact(workspace):
    server = build_server(workspace)
    result = call(server, "migrate_paths", {"paths": ["."]})
    answer = result.structured_content
    print(f"dry run, detail=summary: {size(result)} characters "
          f"(text {len(text_of(result))}, structured {len(json.dumps(answer))})")
    assert size(result) < 4000
    assert answer["counts"] == {"files": 5, "dali": 4, "changed": 4, "written": 0, "manual": 1, "errors": 0}
    by_path = {f["path"]: f for f in answer["files"]}
    # utils.py has no DALI: counted, not listed; the helper module train.py and explore.ipynb import is created
    assert set(by_path) == {"train.py", "helpers.py", "explore.ipynb", "dali_dynamic_compat.py"}
    assert by_path["train.py"]["pipelines"] == ["train_pipe(root, size)"]
    assert by_path["explore.ipynb"]["pipelines"] == ["explore(root)"]
    # The findings a person must act on are listed; the rewrites are counted per rule; no diffs.
    (marker,) = by_path["helpers.py"]["findings"]
    assert marker["rule"] == "DM103" and marker["line"] == 11 and marker["fixed"] is False
    assert by_path["train.py"]["findings"] == [] and by_path["train.py"]["rewrites"]["DM101"] >= 3
    assert all("diff" not in f for f in answer["files"])
    # The text is a short summary, not the structured content again; it names the next step.
    text = text_of(result)
    assert "dry run" in text and "helpers.py line 11: DM103" in text
    assert "explore.ipynb explore, train.py train_pipe" in text
    assert "{" not in text

    full = call(server, "migrate_paths", {"paths": ["."], "detail": "full"})
    assert all(f["diff"] for f in full.structured_content["files"])
    assert any(f["fixed"] for f in full.structured_content["files"][0]["findings"])
    one = ok(server, "migrate_paths", {"paths": ["train.py"], "detail": "full"})
    only, helper = one["files"]  # (train.py alone gets the helper module beside it too)
    assert helper["path"] == "dali_dynamic_compat.py"
    assert only["diff"].startswith("--- a/train.py") and "-@pipeline_def(" in only["diff"]
    assert size(full) > 2 * size(result)


def test_migrate_code_returns_the_code_once(workspace):
    server = build_server(workspace)
    result = call(server, "migrate_code", {"source": HELPERS, "filename": "helpers.py"})
    out = result.structured_content
    assert out["status"] == "needs-attention" and out["changed"]
    assert "ndd.resize(images, size=size)" in out["migrated"]
    assert "diff" not in out and [f["rule"] for f in out["findings"]] == ["DM103"]
    assert out["rewrites"]["DM101"] >= 2
    assert out["migrated"] not in text_of(result)  # the code is in the structured content only
    full = ok(server, "migrate_code", {"source": HELPERS, "filename": "helpers.py", "detail": "full"})
    assert full["diff"].startswith("--- a/helpers.py") and {f["rule"] for f in full["findings"]} >= {"DM101", "DM103"}
    nb = ok(server, "migrate_code", {"source": EXPLORE, "filename": "explore.ipynb", "detail": "full"})
    assert "a/explore.ipynb:cell[3]" in nb["diff"] and json.loads(nb["migrated"])["cells"]


# -- the safe order, end to end, without the client touching a file ---------------------------------

def test_safe_order_dry_run_verify_write_lint_review_verify(workspace, data):
    pytest.importorskip("nvidia.dali")
    server = build_server(workspace)
    verify = {"original": "train.py", "pipeline": "train_pipe", "args": [data], "iterations": 3}

    dry = ok(server, "migrate_paths", {"paths": ["."]})
    assert dry["exit_code"] == 1 and (workspace / "train.py").read_text() == TRAIN

    before = ok(server, "verify", verify)
    assert before["verdict"] == "equal", before
    assert (before["original"], before["migrated"]) == ("train.py", "train.py (migrated in memory)")
    assert [(o["name"], o["status"], o["samples_compared"]) for o in before["outputs"]] == \
        [("images", "equal", 6), ("labels", "equal", 6)]
    assert "mapped to cpu" in before["devices"]  # no GPU here: "mixed" ran on the CPU, and it says so

    wrote = ok(server, "migrate_paths", {"paths": ["."], "write": True})
    assert wrote["counts"]["written"] == 4  # (with the helper module, which has no original to keep)
    kept = workspace / ".dali-migrate" / "originals"
    assert {f["path"]: f["original_kept"] for f in wrote["files"] if "original_kept" in f} == {
        name: f".dali-migrate/originals/{name}" for name in ("train.py", "helpers.py", "explore.ipynb")}
    assert (kept / "train.py").read_text() == TRAIN and (kept / "explore.ipynb").read_text() == EXPLORE
    assert "ndd." in (workspace / "train.py").read_text()
    assert (workspace / ".dali-migrate" / ".gitignore").read_text().splitlines()[-1] == "*"

    lint = ok(server, "lint_paths", {"paths": ["."]})
    assert lint["counts"]["files"] == 5  # the kept originals are not linted: folder walks skip them (the helper module is)

    review = ok(server, "review", {"paths": ["."]})
    by_path = {f["path"]: f for f in review["files"]}
    assert by_path["train.py"]["reviewed_from"] == ".dali-migrate/originals/train.py"
    assert by_path["train.py"]["hunks"] >= 1 and "DM101" in by_path["train.py"]["rules"]
    (marker,) = by_path["helpers.py"]["markers"]
    assert marker["rule"] == "DM103" and marker["suggestion"]

    after = ok(server, "verify", verify)  # the same call: now the kept original against the file as written
    assert after["verdict"] == "equal", after
    assert (after["original"], after["migrated"]) == (".dali-migrate/originals/train.py", "train.py (as written)")

    again = ok(server, "migrate_paths", {"paths": ["."]})
    assert again["counts"]["files"] == 5 and again["counts"]["changed"] == 0  # originals not picked up again


def test_verify_on_a_migrated_file_without_a_kept_original_says_what_to_pass(workspace):
    from dali_migrate import migrate_source

    (workspace / "train.py").write_text(migrate_source(TRAIN, "train.py").migrated)  # migrated by other means
    result = call(build_server(workspace), "verify", {"original": "train.py", "pipeline": "train_pipe"})
    assert result.is_error
    assert "already dynamic-mode code" in text_of(result)
    assert "pass original=<the pipeline-mode file> and migrated=train.py" in text_of(result)
    assert result.structured_content["verdict"] == "incomplete"


def test_verify_with_an_explicit_migrated_file(workspace, data):
    pytest.importorskip("nvidia.dali")
    from dali_migrate import migrate_source

    (workspace / "train_ndd.py").write_text(migrate_source(TRAIN, "train.py").migrated)
    out = ok(build_server(workspace), "verify", {"original": "train.py", "migrated": "train_ndd.py",
                                                 "pipeline": "train_pipe", "args": [data], "iterations": 2,
                                                 "detail": "full"})
    assert out["verdict"] == "equal" and out["migrated"] == "train_ndd.py"
    assert out["device_mappings"] and all("cpu" in m for m in out["device_mappings"])


# -- notebooks -------------------------------------------------------------------------------------

def test_a_notebook_is_verified_by_cell(workspace, data):
    pytest.importorskip("nvidia.dali")
    server = build_server(workspace)
    out = ok(server, "verify", {"original": "explore.ipynb", "pipeline": "explore", "args": [data], "iterations": 2})
    assert out["verdict"] == "equal", out
    assert out["cells"] == [2, 3]  # up to the cell that defines it: cell 4 (which runs it) did not run
    assert [o["status"] for o in out["outputs"]] == ["equal", "equal"]

    # A cell that fails names its cell and line; the cells to run can be chosen.
    (workspace / "broken.ipynb").write_text(notebook(
        "import nvidia.dali.fn as fn\nfrom nvidia.dali import pipeline_def\n",
        "x = 1\nraise RuntimeError('setup failed')\n",
        "@pipeline_def(batch_size=2, num_threads=1, device_id=None)\ndef p():\n    return fn.random.uniform()\n"))
    result = call(server, "verify", {"original": "broken.ipynb", "pipeline": "p"})
    assert result.is_error and "cell[3] line 2" in text_of(result), text_of(result)
    result = call(server, "verify", {"original": "broken.ipynb", "pipeline": "p", "cells": [2, 4]})
    assert not result.is_error and result.structured_content["cells"] == [2, 4], text_of(result)
    result = call(server, "verify", {"original": "broken.ipynb", "pipeline": "q"})
    assert result.is_error and "no code cell defines 'q'" in text_of(result) and "cell[4] p" in text_of(result)
    result = call(server, "verify", {"original": "broken.ipynb", "pipeline": "p", "cells": [1]})
    assert result.is_error and "not Python code cells" in text_of(result)


def test_a_notebook_is_reviewed_with_its_cells(workspace):
    out = ok(build_server(workspace), "review", {"paths": ["explore.ipynb"], "detail": "full"})
    (f,) = out["files"]
    assert f["path"] == "explore.ipynb" and f["hunks"] >= 1 and "DM101" in f["rules"]
    assert "+images, labels = next(pipe)" in out["document"]


NDD_NOTEBOOK = notebook(
    "import nvidia.dali.experimental.dynamic as ndd\n",
    "def first(samples):\n    batch = ndd.as_batch(samples)\n"
    "    images = ndd.decoders.image(batch, device='mixed')\n    return len(images), images[0]\n",
)


def test_a_notebook_is_linted_by_cell(workspace):
    (workspace / "ndd.ipynb").write_text(NDD_NOTEBOOK)
    out = ok(build_server(workspace), "lint_paths", {"paths": ["ndd.ipynb"]})
    (f,) = out["files"]
    assert out["exit_code"] == 1
    found = {(x["rule"], x["cell"]) for x in f["findings"]}
    assert {("DM301", 3), ("DM303", 3)} <= found, f["findings"]
    assert all(x["cell"] == 3 for x in f["findings"])
    snippet = ok(build_server(workspace), "lint_code", {"source": NDD_NOTEBOOK, "filename": "ndd.ipynb"})
    assert {(x["rule"], x["cell"]) for x in snippet["findings"]} == found


# -- the other tools -------------------------------------------------------------------------------

LINT_CODE = (
    "import nvidia.dali.experimental.dynamic as ndd\n\n"
    "def count(samples):\n"
    "    batch = ndd.as_batch(samples)\n"
    "    return len(batch)\n"
)


def test_lint_code_reports_and_fixes(workspace):
    server = build_server(workspace)
    out = ok(server, "lint_code", {"source": LINT_CODE})
    assert [(f["rule"], f["line"]) for f in out["findings"]] == [("DM303", 5)]
    assert "fixed_source" not in out
    fixed = ok(server, "lint_code", {"source": LINT_CODE, "fix": True})
    assert fixed["findings"] == [] and [f["rule"] for f in fixed["fixed"]] == ["DM303"]
    assert "return batch.batch_size" in fixed["fixed_source"]


def test_lint_paths_writes_only_with_fix(workspace):
    target = workspace / "count.py"
    target.write_text(LINT_CODE)
    server = build_server(workspace)
    out = ok(server, "lint_paths", {"paths": ["count.py"]})
    assert out["exit_code"] == 1 and [f["path"] for f in out["files"]] == ["count.py"]
    assert target.read_text() == LINT_CODE
    out = ok(server, "lint_paths", {"paths": ["count.py"], "fix": True, "detail": "full"})
    assert out["exit_code"] == 0 and out["files"][0]["written"] is True
    assert "+    return batch.batch_size" in out["files"][0]["diff"]
    assert "batch.batch_size" in target.read_text()


def test_review_document_only_at_full_detail(workspace):
    server = build_server(workspace)
    summary = call(server, "review", {"paths": ["helpers.py"]})
    assert "document" not in summary.structured_content
    (f,) = summary.structured_content["files"]
    (marker,) = f["markers"]
    assert (marker["rule"], marker["line"]) == ("DM103", 11) and marker["suggestion"]
    full = ok(server, "review", {"paths": ["helpers.py"], "detail": "full"})
    assert full["document"].startswith("# dali-migrate review")
    html = ok(server, "review", {"paths": ["helpers.py"], "format": "html", "detail": "full"})
    assert "<html" in html["document"]
    assert (workspace / "helpers.py").read_text() == HELPERS  # nothing written


def test_unparsable_file_in_paths_is_reported_per_file(workspace):
    (workspace / "broken.py").write_text("import nvidia.dali.fn as fn\ndef f(:\n")
    out = ok(build_server(workspace), "migrate_paths", {"paths": ["broken.py", "helpers.py"]})
    assert out["exit_code"] == 2
    broken = out["files"][0]
    assert broken["status"] == "error" and "does not parse" in broken["error"]
    assert out["files"][1]["status"] == "needs-attention"  # the other file is still done
    assert "left untouched" in out["next_step"]


def test_migrate_paths_migrates_a_consumer_in_another_file(workspace):
    proj = workspace / "proj"
    proj.mkdir()
    (proj / "pipes.py").write_text(TRAIN)
    (proj / "run.py").write_text("from pipes import train_pipe\n\n\ndef first(root):\n"
                                 "    pipe = train_pipe(root)\n    pipe.build()\n    return pipe.run()\n")
    server = build_server(workspace)
    out = ok(server, "migrate_paths", {"paths": ["proj"], "detail": "full"})
    by_path = {f["path"]: f for f in out["files"]}
    assert set(by_path) == {"proj/pipes.py", "proj/run.py", "proj/dali_dynamic_compat.py"}  # (the helper module)
    assert "+    return next(pipe)" in by_path["proj/run.py"]["diff"]
    # After the write, the review of the consumer (from its kept original) still sees the pipeline it imports.
    ok(server, "migrate_paths", {"paths": ["proj"], "write": True})
    review = ok(server, "review", {"paths": ["proj"], "detail": "full"})
    run = {f["path"]: f for f in review["files"]}["proj/run.py"]
    assert run["reviewed_from"] == ".dali-migrate/originals/proj/run.py" and run["hunks"] == 1
    assert "note" not in run  # the file is what the migration wrote
    assert "+    return next(pipe)" in review["document"]


def test_server_info_and_stdio(workspace):
    (info,) = [r.structured_content for r in calls(stdio(workspace), ("server_info", {}))]
    assert info["root"] == str(workspace.resolve())
    assert info["dali_table_version"] == "2.4.0"
    assert info["originals"] == ".dali-migrate/originals"
    assert info["limits"]["max_verify_seconds"] == 600


def test_http_refuses_non_loopback_hosts(workspace):
    import subprocess

    proc = subprocess.run([sys.executable, "-m", "dali_migrate", "mcp", "--http", "--host", "0.0.0.0",
                           "--root", str(workspace)], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": os.getcwd()})
    assert proc.returncode == 2
    assert "loopback only" in proc.stderr


# -- the whole program: only the command the project configures ----------------------------------------

PROGRAM = '''import numpy as np
from nvidia.dali import pipeline_def, fn, types


@pipeline_def(batch_size=3, num_threads=1, device_id=0)
def ramp():
    return fn.ones(shape=[4], dtype=types.FLOAT) * 2.5


pipe = ramp()
pipe.build()
for step in range(2):
    (out,) = pipe.run()
    print("step", step, "sum", float(np.sum(out.as_array())))
'''


def configure(root, command: str) -> None:
    (root / "pyproject.toml").write_text(f'[tool.dali-migrate]\nverify-command = "{command}"\n')


def test_verify_program_runs_only_the_configured_command(workspace):
    pytest.importorskip("nvidia.dali")
    server = build_server(workspace)
    result = call(server, "verify_program", {})
    assert result.is_error and result.structured_content["verdict"] == "error"
    assert "no verify-command" in text_of(result) and "never runs a command sent by a client" in text_of(result)
    # A command in the call is not an argument: a client gets no shell through the server.
    result = call(server, "verify_program", {"command": "touch pwned"})
    assert result.is_error and "command: not an argument of verify_program" in text_of(result)

    (workspace / "main.py").write_text(PROGRAM)
    configure(workspace, "python main.py")
    out = ok(server, "verify_program", {"timeout_s": 120})
    assert out["verdict"] == "equal" and out["command"] == "python main.py", out
    assert out["stdout_lines"] == 2 and out["different_lines"] == 0
    assert "mapped to cpu" in out["devices"]
    assert not (workspace / "pwned").exists()
    assert list((workspace / ".dali-migrate" / "runs").iterdir()) == []  # the copies were inside the root, and gone
    assert (workspace / ".dali-migrate" / ".gitignore").exists()
    assert (workspace / "main.py").read_text() == PROGRAM


def test_verify_program_keeps_verifys_time_limit_and_refuses_after_a_write(workspace):
    configure(workspace, "python -c 'import time; time.sleep(60)'")
    server = build_server(workspace)
    result = call(server, "verify_program", {"timeout_s": 2})
    assert result.is_error and result.structured_content["verdict"] == "original-failed"
    assert result.structured_content["original"]["timed_out"] is True
    assert call(server, "verify_program", {"timeout_s": 601}).is_error  # the bound verify has
    ok(server, "migrate_paths", {"paths": ["helpers.py"], "write": True})
    result = call(server, "verify_program", {})
    assert result.is_error and "already written" in text_of(result) and "helpers.py" in text_of(result)
