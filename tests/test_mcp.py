"""The MCP server, driven through the official SDK's client: in memory and over stdio."""

import os
import sys

import anyio
import pytest

pytest.importorskip("mcp")
from mcp import Client, StdioServerParameters  # noqa: E402
from mcp.shared.exceptions import MCPError  # noqa: E402

from dali_migrate.mcp_server import MAX_SOURCE_BYTES, TOOL_NAMES, build_server  # noqa: E402

PIPELINE_CODE = (
    "import nvidia.dali.fn as fn\n\n"
    "def augment(images):\n"
    "    return fn.resize(images, size=64)\n"
)


@pytest.fixture
def workspace(tmp_path):
    root = tmp_path / "ws"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "aug.py").write_text(PIPELINE_CODE)
    (root / "pkg" / "plain.py").write_text("x = 1\n")
    (root / "broken.py").write_text("import nvidia.dali.fn as fn\ndef f(:\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.py").write_text(PIPELINE_CODE)
    (root / "link_out").symlink_to(outside, target_is_directory=True)
    (root / "file_link_out.py").symlink_to(outside / "secret.py")
    return root


def call(server, name, arguments):
    async def go():
        async with Client(server) as client:
            return await client.call_tool(name, arguments)
    return anyio.run(go)


def call_error(server, name, arguments) -> str:
    """The JSON-RPC error's message (the call must fail with one)."""
    async def go():
        async with Client(server) as client:
            with pytest.raises(MCPError) as excinfo:
                await client.call_tool(name, arguments)
            return str(excinfo.value)
    return anyio.run(go)


def test_lists_every_tool_with_input_and_output_schemas(workspace):
    async def go():
        async with Client(build_server(workspace)) as client:
            return (await client.list_tools()).tools
    tools = {t.name: t for t in anyio.run(go)}
    assert set(tools) == TOOL_NAMES
    for tool in tools.values():
        assert tool.description
        assert tool.input_schema["type"] == "object"
        assert tool.output_schema is not None, tool.name
    assert "source" in tools["migrate_code"].input_schema["required"]
    assert "findings" in tools["migrate_code"].output_schema["properties"]


def test_migrate_code_returns_code_diff_and_findings(workspace):
    result = call(build_server(workspace), "migrate_code", {"source": PIPELINE_CODE, "filename": "aug.py"})
    assert not result.is_error
    out = result.structured_content
    assert out["changed"] is True
    assert "ndd.resize(images, size=64)" in out["migrated"]
    assert out["diff"].startswith("--- a/aug.py")
    rules = {f["rule"] for f in out["findings"]}
    assert "DM101" in rules
    assert all(f["path"] == "aug.py" for f in out["findings"])


def test_migrate_paths_is_a_dry_run_unless_asked_to_write(workspace):
    server = build_server(workspace)
    target = workspace / "pkg" / "aug.py"
    dry = call(server, "migrate_paths", {"paths": ["pkg"]}).structured_content
    assert [f["path"] for f in dry["files"]] == ["pkg/aug.py"]  # plain.py has no DALI: not listed
    assert dry["files"][0]["changed"] and not dry["files"][0]["written"]
    assert dry["exit_code"] == 1
    assert target.read_text() == PIPELINE_CODE

    wet = call(server, "migrate_paths", {"paths": ["pkg/aug.py"], "write": True}).structured_content
    assert wet["files"][0]["written"] is True
    assert "ndd.resize" in target.read_text()
    again = call(server, "migrate_paths", {"paths": ["pkg"]}).structured_content
    assert again["exit_code"] == 0 and not again["files"][0]["changed"]


def test_unparsable_file_in_paths_is_reported_per_file(workspace):
    out = call(build_server(workspace), "migrate_paths", {"paths": ["broken.py"]}).structured_content
    assert out["exit_code"] == 2
    assert out["files"][0]["status"] == "error"
    assert "does not parse" in out["files"][0]["error"]


def test_unparsable_source_is_a_json_rpc_error_with_the_line(workspace):
    message = call_error(build_server(workspace), "migrate_code",
                         {"source": "import nvidia.dali.fn as fn\ndef f(:\n", "filename": "x.py"})
    assert "x.py:2" in message and "does not parse" in message


def test_path_outside_root_is_refused(workspace):
    server = build_server(workspace)
    assert "outside the workspace root" in call_error(server, "migrate_paths", {"paths": ["../outside"]})
    assert "outside the workspace root" in call_error(server, "migrate_paths", {"paths": ["/etc"]})


def test_symlinks_out_of_the_root_are_refused(workspace):
    server = build_server(workspace)
    assert "outside the workspace root" in call_error(server, "migrate_paths", {"paths": ["link_out"]})
    assert "outside the workspace root" in call_error(server, "migrate_paths", {"paths": ["file_link_out.py"]})
    # A folder walk that meets a link out refuses too, and writes nothing anywhere.
    message = call_error(server, "migrate_paths", {"paths": ["."], "write": True})
    assert "leaves the workspace root" in message or "outside" in message
    assert (workspace.parent / "outside" / "secret.py").read_text() == PIPELINE_CODE


def test_oversized_source_is_refused(workspace):
    message = call_error(build_server(workspace), "migrate_code", {"source": "#" * (MAX_SOURCE_BYTES + 1)})
    assert "larger than" in message


def test_malformed_arguments_get_a_json_rpc_error_naming_the_field(workspace):
    server = build_server(workspace)
    message = call_error(server, "migrate_code", {"filename": "x.py"})
    assert "invalid arguments for migrate_code" in message and "source" in message
    message = call_error(server, "migrate_paths", {"paths": "pkg", "write": "maybe"})
    assert "paths" in message and "write" in message
    assert "Unknown tool" in call_error(server, "no_such_tool", {})


def test_server_stays_up_after_errors(workspace):
    async def go():
        async with Client(build_server(workspace)) as client:
            with pytest.raises(MCPError):
                await client.call_tool("migrate_paths", {"paths": ["../outside"]})
            with pytest.raises(MCPError):
                await client.call_tool("migrate_code", {})
            return await client.call_tool("explain_rule", {"rule_id": "dm101"})
    result = anyio.run(go)
    assert result.structured_content["id"] == "DM101"
    assert result.structured_content["name"] == "fn-to-ndd"


def test_explain_unknown_rule(workspace):
    assert "unknown rule" in call_error(build_server(workspace), "explain_rule", {"rule_id": "DM999"})


def test_over_stdio(workspace):
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "dali_migrate", "mcp", "--root", str(workspace)],
        env={**os.environ, "PYTHONPATH": os.getcwd()},
    )

    async def go():
        async with Client(params) as client:
            names = {t.name for t in (await client.list_tools()).tools}
            info = await client.call_tool("server_info", {})
            migrated = await client.call_tool("migrate_code", {"source": PIPELINE_CODE})
            return names, info.structured_content, migrated.structured_content
    names, info, migrated = anyio.run(go)
    assert names == TOOL_NAMES
    assert info["root"] == str(workspace.resolve())
    assert info["dali_table_version"] == "2.4.0"
    assert "ndd.resize" in migrated["migrated"]


def test_http_refuses_non_loopback_hosts(workspace):
    import subprocess

    proc = subprocess.run([sys.executable, "-m", "dali_migrate", "mcp", "--http", "--host", "0.0.0.0",
                           "--root", str(workspace)], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": os.getcwd()})
    assert proc.returncode == 2
    assert "loopback only" in proc.stderr


LINT_CODE = (
    "import nvidia.dali.experimental.dynamic as ndd\n\n"
    "def count(samples):\n"
    "    batch = ndd.as_batch(samples)\n"
    "    return len(batch)\n"
)


def test_lint_code_reports_and_fixes(workspace):
    server = build_server(workspace)
    out = call(server, "lint_code", {"source": LINT_CODE}).structured_content
    assert [f["rule"] for f in out["findings"]] == ["DM303"]
    assert out["findings"][0]["line"] == 5
    assert out["fixed_source"] is None
    fixed = call(server, "lint_code", {"source": LINT_CODE, "fix": True}).structured_content
    assert fixed["findings"] == []
    assert [f["rule"] for f in fixed["fixed"]] == ["DM303"]
    assert "return batch.batch_size" in fixed["fixed_source"]


def test_lint_paths_writes_only_with_fix(workspace):
    target = workspace / "pkg" / "count.py"
    target.write_text(LINT_CODE)
    server = build_server(workspace)
    out = call(server, "lint_paths", {"paths": ["pkg"]}).structured_content
    assert out["exit_code"] == 1
    assert [(f["path"], [x["rule"] for x in f["findings"]]) for f in out["files"]] == [("pkg/count.py", ["DM303"])]
    assert target.read_text() == LINT_CODE
    out = call(server, "lint_paths", {"paths": ["pkg/count.py"], "fix": True}).structured_content
    assert out["exit_code"] == 0 and out["files"][0]["written"] is True
    assert "batch.batch_size" in target.read_text()
    assert "outside the workspace root" in call_error(server, "lint_paths", {"paths": ["link_out"]})


def _jpegs(root, count=6):
    import numpy as np
    from PIL import Image

    rs = np.random.RandomState(0)
    for label in range(2):
        (root / str(label)).mkdir(parents=True)
        for i in range(count // 2):
            img = rs.randint(0, 255, (20 + i, 24, 3)).astype(np.uint8)
            Image.fromarray(img).save(root / str(label) / f"{i}.jpg")


VERIFY_PIPE = '''import nvidia.dali.fn as fn
from nvidia.dali import pipeline_def


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def small(root):
    jpegs, labels = fn.readers.file(file_root=root)
    images = fn.decoders.image(jpegs, device="mixed")
    return fn.resize(images, size=(8, 8)), labels
'''


def test_review_tool_lists_hunks_rules_and_markers(workspace):
    (workspace / "pkg" / "udf.py").write_text(
        "import nvidia.dali.fn as fn\n\n\ndef f(x):\n    return fn.python_function(x, function=abs)\n")
    out = call(build_server(workspace), "review", {"paths": ["pkg"]}).structured_content
    assert out["format"] == "markdown" and out["document"].startswith("# dali-migrate review")
    by_path = {f["path"]: f for f in out["files"]}
    assert set(by_path) == {"pkg/aug.py", "pkg/udf.py"}
    assert "DM101" in by_path["pkg/aug.py"]["rules"] and by_path["pkg/aug.py"]["markers"] == []
    (marker,) = by_path["pkg/udf.py"]["markers"]
    assert marker["rule"] == "DM103" and marker["line"] == 5 and marker["suggestion"]
    html = call(build_server(workspace), "review", {"paths": ["pkg/udf.py"], "html": True}).structured_content
    assert html["format"] == "html" and "<html" in html["document"]
    assert (workspace / "pkg" / "udf.py").read_text().count("fn.python_function") == 1  # nothing written


def test_verify_tool_runs_both_sides_in_a_child_process(workspace):
    pytest.importorskip("nvidia.dali")
    _jpegs(workspace / "data")
    (workspace / "pipes.py").write_text(VERIFY_PIPE)
    out = call(build_server(workspace), "verify", {
        "original": "pipes.py", "pipeline": "small", "args": [str(workspace / "data")], "iterations": 4,
    }).structured_content
    assert out["verdict"] == "equal", out
    assert [(o["name"], o["status"]) for o in out["outputs"]] == [("output0", "equal"), ("labels", "equal")]
    assert all(o["samples_compared"] == 8 for o in out["outputs"])
    assert out["devices"]["mapped_to_cpu"] is True  # no GPU here: "mixed" ran on the CPU, and it says so
    assert (workspace / "pipes.py").read_text() == VERIFY_PIPE


def test_verify_tool_bounds_and_refusals(workspace):
    server = build_server(workspace)
    (workspace / "pipes.py").write_text(VERIFY_PIPE)
    assert "iterations" in call_error(server, "verify", {"original": "pipes.py", "pipeline": "small",
                                                          "iterations": 10_000})
    assert "timeout_s" in call_error(server, "verify", {"original": "pipes.py", "pipeline": "small",
                                                         "timeout_s": 100_000})
    assert "outside the workspace root" in call_error(server, "verify", {"original": "../outside/secret.py",
                                                                          "pipeline": "small"})
    assert "Python name" in call_error(server, "verify", {"original": "pipes.py", "pipeline": "a; import os"})


def test_verify_tool_stops_at_its_time_limit(workspace):
    (workspace / "slow.py").write_text("import time\nimport nvidia.dali.fn as fn\ntime.sleep(60)\n")
    message = call_error(build_server(workspace), "verify", {"original": "slow.py", "pipeline": "p",
                                                             "timeout_s": 3})
    assert "did not finish within 3 s" in message


def test_migrate_paths_migrates_a_consumer_in_another_file(workspace):
    proj = workspace / "proj"
    proj.mkdir()
    (proj / "pipes.py").write_text(VERIFY_PIPE)
    (proj / "train.py").write_text("from pipes import small\n\n\ndef first(root):\n"
                                   "    pipe = small(root)\n    pipe.build()\n    return pipe.run()\n")
    out = call(build_server(workspace), "migrate_paths", {"paths": ["proj"]}).structured_content
    by_path = {f["path"]: f for f in out["files"]}
    assert set(by_path) == {"proj/pipes.py", "proj/train.py"}
    assert "+    return next(pipe)" in by_path["proj/train.py"]["diff"]
    assert "-    pipe.build()" in by_path["proj/train.py"]["diff"]
