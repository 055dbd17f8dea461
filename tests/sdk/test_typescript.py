"""The TypeScript Agent SDK (``@anthropic-ai/claude-agent-sdk`` from npm, pinned) drives eddy
through ``pathToClaudeCodeExecutable``: ``query()`` with a tool, a ``canUseTool`` callback, an
in-process MCP tool (``createSdkMcpServer`` + ``tool``) and a system prompt; a streaming-input
session with its own ``sessionId``, partial messages, hook callbacks and ``interrupt()``, then
resumed as a fork whose ``canUseTool`` throws.

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
from typing import Any

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
    systemPrompt: "You are a careful calculator.",
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

SESSION_SCRIPT = r"""
import { query } from "@anthropic-ai/claude-agent-sdk";
import { randomUUID } from "node:crypto";

function inbox() {  // prompts the script sends when it decides to (streaming input)
  const items = [];
  let wake;
  return {
    push(item) { items.push(item); if (wake) wake(); },
    async *[Symbol.asyncIterator]() {
      for (;;) {
        while (items.length) {
          const item = items.shift();
          if (item === null) return;
          yield item;
        }
        await new Promise((resolve) => { wake = resolve; });
        wake = undefined;
      }
    },
  };
}
const say = (text) => ({
  type: "user", message: { role: "user", content: text }, parent_tool_use_id: null, session_id: "",
});
const base = { cwd: process.env.WORKSPACE, pathToClaudeCodeExecutable: process.env.EDDY,
  env: { ...process.env } };
const sessionId = randomUUID();
const hooked = [];
const guard = async (input) => {
  hooked.push(input.tool_input.command);
  if (input.tool_input.command.startsWith("echo")) {
    return { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny",
      permissionDecisionReason: "the hook says no" } };
  }
  return {};
};
const prompts = inbox();
const q = query({ prompt: prompts, options: { ...base, sessionId, includePartialMessages: true,
  allowedTools: ["Bash(sleep:*)", "Bash(echo:*)"],
  hooks: { PreToolUse: [{ matcher: "Bash", hooks: [guard] }] } } });
const first = [];
prompts.push(say("wait a long time"));
let results = 0;
for await (const message of q) {
  first.push(message);
  if (message.type === "assistant" && results === 0) await q.interrupt();
  if (message.type === "result" && ++results === 1) prompts.push(say("try the hooked one"));
  else if (message.type === "result") prompts.push(null);
}
const asked = [];
const fork = [];
for await (const message of query({ prompt: "and in a fork?", options: { ...base,
  resume: sessionId, forkSession: true,
  canUseTool: async (name, input) => { asked.push(name); throw new Error("policy down"); } } })) {
  fork.push(message);
}
console.log(JSON.stringify({ sessionId, hooked, asked, first, fork }));
"""


def run_node(
    ts_sdk: Path, fake_api: FakeAnthropic, tmp_path: Path, workspace: Path, script: str
) -> dict[str, Any]:
    """Run ``script`` with node beside the SDK, pointed at eddy and the fake API; its last
    stdout line, parsed."""
    (tmp_path / "node_modules").symlink_to(ts_sdk / "node_modules")
    path = tmp_path / "drive.mjs"
    path.write_text(script)
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    env |= {
        "ANTHROPIC_BASE_URL": fake_api.base_url,
        "ANTHROPIC_API_KEY": "test-key",
        "WORKSPACE": str(workspace),
        "EDDY": str(EDDY),
    }
    done = subprocess.run(
        ["node", str(path)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    out: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return out


def tool_results(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        b
        for m in messages
        if m["type"] == "user" and isinstance(m["message"]["content"], list)
        for b in m["message"]["content"]
        if b["type"] == "tool_result"
    ]


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
    version = subprocess.run(["node", "--version"], capture_output=True, text=True).stdout
    major, minor = (int(x) for x in version.strip().lstrip("v").split(".")[:2])
    if (major, minor) < (18, 14):
        pytest.skip(f"node {version.strip()} is too old for {TS_SDK} (it needs >= 18.14)")
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
    out = run_node(ts_sdk, fake_api, tmp_path, workspace, SCRIPT)
    assert [name for name, _ in out["asked"]] == ["mcp__calc__add", "Bash", "Bash"]
    kinds = [m["type"] for m in out["messages"]]
    assert kinds[0] == "system" and kinds[-1] == "result"
    result = out["messages"][-1]
    assert result["subtype"] == "success" and result["result"] == "All done."
    results = tool_results(out["messages"])
    assert "42" in str(results[0]["content"]) and not results[0]["is_error"]
    assert not results[1]["is_error"] and results[2]["is_error"]
    assert "keep the files" in str(results[2]["content"])
    assert (workspace / "out.txt").read_text() == "changed\n"
    assert (workspace / "keep.txt").exists()
    assert [d["tool_use_id"] for d in result["permission_denials"]] == ["toolu_3"]
    system = fake_api.requests[0]["system"]  # the TypeScript SDK sends it in initialize
    assert [b["text"].strip() for b in system] == ["You are a careful calculator."]
    assert fake_api.violations == []


def test_the_typescript_sdk_streams_a_session_with_hooks_interrupt_and_resumes_a_fork(
    ts_sdk: Path, fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    workspace = tmp_path / "project"
    workspace.mkdir()
    fake_api.push(
        Reply([tool_use("toolu_1", "Bash", {"command": "sleep 300"})], "tool_use"),
        Reply([tool_use("toolu_2", "Bash", {"command": "echo no > no.txt"})], "tool_use"),
        Reply([text("The hook refused.")]),
        Reply([tool_use("toolu_3", "Write", {"file_path": "f.txt", "content": "f"})], "tool_use"),
        Reply([text("Forked.")]),
    )
    out = run_node(ts_sdk, fake_api, tmp_path, workspace, SESSION_SCRIPT)
    first, fork = out["first"], out["fork"]
    init = first[0]
    assert init["type"] == "system" and init["session_id"] == out["sessionId"]
    stopped, answered = [m for m in first if m["type"] == "result"]
    assert stopped["subtype"] == "error_during_execution" and stopped["is_error"]
    assert answered["subtype"] == "success" and answered["result"] == "The hook refused."
    assert answered["session_id"] == out["sessionId"]
    deltas = [m for m in first if m["type"] == "stream_event"]
    assert any(m["event"]["type"] == "content_block_delta" for m in deltas)
    assert out["hooked"] == ["sleep 300", "echo no > no.txt"]
    refused = [r for r in tool_results(first) if r["tool_use_id"] == "toolu_2"]
    assert refused[0]["is_error"] and "the hook says no" in str(refused[0]["content"])
    assert not (workspace / "no.txt").exists()
    [forked] = [m for m in fork if m["type"] == "result"]
    assert forked["result"] == "Forked." and forked["session_id"] != out["sessionId"]
    assert out["asked"] == ["Write"]
    [thrown] = tool_results(fork)
    assert thrown["is_error"] and "policy down" in str(thrown["content"])
    assert not (workspace / "f.txt").exists()
    fork_request = fake_api.requests[3]["messages"]
    assert "wait a long time" in str(fork_request[0]) and "and in a fork?" in str(fork_request[-1])
    assert fake_api.violations == []
