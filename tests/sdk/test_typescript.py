"""The TypeScript Agent SDK (``@anthropic-ai/claude-agent-sdk`` from npm, pinned) drives eddy
through ``pathToClaudeCodeExecutable``: ``query()`` with a tool, a ``canUseTool`` callback and an
in-process MCP tool (``createSdkMcpServer`` + ``tool``).

The package is installed once (``npm install``) under ``~/.cache/eddy-tests`` (or
``$EDDY_TS_SDK_DIR``); without node and npm, or when the install fails, the test is skipped
with the reason.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes.fake_api import FakeAnthropic, Reply, text, tool_use
from tests.sdk.conftest import EDDY

TS_SDK = "@anthropic-ai/claude-agent-sdk@0.3.333"
ZOD = "zod@4"

SCRIPT = r"""
import { query, tool, createSdkMcpServer } from "@anthropic-ai/claude-agent-sdk";
import { z } from "zod";

const add = tool("add", "Add two numbers", { a: z.number(), b: z.number() },
  async (args) => ({ content: [{ type: "text", text: String(args.a + args.b) }] }));
const calc = createSdkMcpServer({ name: "calc", version: "1.0.0", tools: [add] });
const asked = [];
const messages = [];
for await (const message of query({
  prompt: "add, then write, then delete",
  options: {
    cwd: process.env.WORKSPACE,
    pathToClaudeCodeExecutable: process.env.EDDY,
    env: { ...process.env },
    mcpServers: { calc },
    canUseTool: async (name, input) => {
      asked.push([name, input]);
      if (name === "Bash" && input.command.startsWith("rm")) {
        return { behavior: "deny", message: "keep the files" };
      }
      if (name === "Bash") {
        return { behavior: "allow", updatedInput: { command: "echo changed > out.txt" } };
      }
      return { behavior: "allow", updatedInput: input };
    },
  },
})) {
  messages.push(message);
}
console.log(JSON.stringify({ asked, messages }));
"""


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # the test workers install it once between them
        yield


@pytest.fixture(scope="session")
def ts_sdk() -> Path:
    """A folder whose node_modules holds the TypeScript SDK (installed if needed)."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("node and npm are needed to install @anthropic-ai/claude-agent-sdk")
    base = os.environ.get("EDDY_TS_SDK_DIR")
    folder = Path(base) if base else Path.home() / ".cache" / "eddy-tests" / "ts-sdk-0.3.333"
    marker = folder / "node_modules" / "@anthropic-ai" / "claude-agent-sdk" / "package.json"
    with _locked(folder.with_suffix(".lock")):
        if not marker.exists():
            folder.mkdir(parents=True, exist_ok=True)
            (folder / "package.json").write_text('{"private": true}\n')
            command = ["npm", "install", "--no-audit", "--no-fund", "--omit=optional", TS_SDK, ZOD]
            try:
                done = subprocess.run(
                    command, cwd=folder, capture_output=True, text=True, timeout=900
                )
            except subprocess.TimeoutExpired:
                pytest.skip(f"npm install {TS_SDK} took over 15 minutes")
            if done.returncode != 0 or not marker.exists():
                pytest.skip(f"npm install {TS_SDK} failed: {done.stderr.strip()[-500:]}")
    return folder


def test_the_typescript_sdk_runs_a_tool_asks_can_use_tool_and_calls_an_in_process_mcp_tool(
    ts_sdk: Path, fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    workspace = tmp_path / "project"
    workspace.mkdir()
    (workspace / "keep.txt").write_text("keep\n")
    fake_api.push(
        Reply([tool_use("toolu_1", "mcp__calc__add", {"a": 2, "b": 40})], "tool_use"),
        Reply([tool_use("toolu_2", "Bash", {"command": "echo hi > out.txt"})], "tool_use"),
        Reply([tool_use("toolu_3", "Bash", {"command": "rm keep.txt"})], "tool_use"),
        Reply([text("All done.")]),
    )
    (tmp_path / "node_modules").symlink_to(ts_sdk / "node_modules")
    script = tmp_path / "drive.mjs"
    script.write_text(SCRIPT)
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    env |= {
        "ANTHROPIC_BASE_URL": fake_api.base_url,
        "ANTHROPIC_API_KEY": "test-key",
        "WORKSPACE": str(workspace),
        "EDDY": str(EDDY),
    }
    done = subprocess.run(
        ["node", str(script)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert [name for name, _ in out["asked"]] == ["mcp__calc__add", "Bash", "Bash"]
    kinds = [m["type"] for m in out["messages"]]
    assert kinds[0] == "system" and kinds[-1] == "result"
    result = out["messages"][-1]
    assert result["subtype"] == "success" and result["result"] == "All done."
    results = [
        b
        for m in out["messages"]
        if m["type"] == "user"
        for b in m["message"]["content"]
        if b["type"] == "tool_result"
    ]
    assert "42" in str(results[0]["content"]) and not results[0]["is_error"]
    assert not results[1]["is_error"] and results[2]["is_error"]
    assert "keep the files" in str(results[2]["content"])
    assert (workspace / "out.txt").read_text() == "changed\n"
    assert (workspace / "keep.txt").exists()
    assert [d["tool_use_id"] for d in result["permission_denials"]] == ["toolu_3"]
    assert fake_api.violations == []
