"""Subagents through the real ``eddy`` command and the fake Messages API: every request of
the parent and of its children is valid (counted per agent), stream-json tags the child's
lines with ``parent_tool_use_id``, and a kill -9 while a child runs resumes valid."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from agent.messages import ToolResultBlock, check_invariant, message_from_param
from agent.store.children import child_transcripts
from agent.store.listing import latest_session, list_sessions
from agent.store.load import load
from tests.fakes.fake_api import FakeAnthropic, Reply, text, tool_use
from tests.helpers.headless import eddy


def first_text(body: dict[str, Any]) -> str:
    content = body["messages"][0]["content"]
    if isinstance(content, str):
        return content
    return next(b["text"] for b in content if b.get("type") == "text")


def agent_use(call_id: str, prompt: str) -> dict[str, Any]:
    return tool_use(call_id, "Agent", {"description": "look", "prompt": prompt,
                                       "subagent_type": "Explore"})  # fmt: skip


def scripted(scripts: dict[str, list[Reply]]) -> Any:
    """A responder answering each agent (by its first prompt) from its own script."""

    def respond(body: dict[str, Any]) -> Reply:
        script = scripts.get(first_text(body), [])
        return script.pop(0) if script else Reply([text("(nothing scripted)")])

    return respond


def test_parent_and_children_requests_are_valid_and_stream_json_tags_children(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    (tmp_path / "a.py").write_text("print('hi')\n")
    fake_api.responder = scripted(
        {
            "go": [
                Reply([agent_use("p1", "read a"), agent_use("p2", "read b")], "tool_use"),
                Reply([text("both read")]),
            ],
            "read a": [
                Reply([tool_use("c1", "Read", {"file_path": "a.py"})], "tool_use"),
                Reply([text("a prints hi")]),
            ],
            "read b": [Reply([text("there is no b")])],
        }
    )
    out = eddy(fake_api, tmp_path, "-p", "go", "--output-format", "stream-json", "--verbose")
    assert out.returncode == 0, out.stderr
    assert fake_api.violations == []
    per_agent: dict[str, int] = {}
    for body in fake_api.requests:
        per_agent[first_text(body)] = per_agent.get(first_text(body), 0) + 1
    assert per_agent == {"go": 2, "read a": 2, "read b": 1}
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    tagged = [ln for ln in lines if ln.get("parent_tool_use_id")]
    assert {ln["parent_tool_use_id"] for ln in tagged} == {"p1", "p2"}
    child_result = [ln for ln in tagged if ln["type"] == "user"]
    assert child_result[0]["message"]["content"][0]["tool_use_id"] == "c1"
    main = [ln for ln in lines if ln["type"] in ("assistant", "user") and ln not in tagged]
    results = [b for ln in main for b in ln["message"]["content"] if b["type"] == "tool_result"]
    by_id = {r["tool_use_id"]: r for r in results}  # printed as each call ends
    assert sorted(by_id) == ["p1", "p2"] and by_id["p1"]["content"].startswith("a prints hi")
    assert lines[-1]["type"] == "result" and lines[-1]["result"] == "both read"
    (info,) = list_sessions(tmp_path)
    assert info.subagents == 2


def test_kill_9_while_a_child_runs_then_continue_resumes_valid(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    marker = tmp_path / "child_started"
    fake_api.responder = scripted(
        {
            "go": [Reply([agent_use("p1", "slow child")], "tool_use")],
            "slow child": [
                Reply(
                    [tool_use("c1", "Bash", {"command": f"touch {marker} && sleep 20"})], "tool_use"
                ),  # fmt: skip
            ],
        }
    )
    exe = Path(sys.executable).with_name("eddy")
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    env |= {"ANTHROPIC_BASE_URL": fake_api.base_url, "ANTHROPIC_API_KEY": "k"}
    # Explore runs in plan mode: a command that writes is refused there, so use a child that
    # inherits the parent's mode
    (tmp_path / ".claude" / "agents").mkdir(parents=True)
    (tmp_path / ".claude" / "agents" / "Explore.md").write_text(
        "---\nname: Explore\ndescription: explores\n---\nExplore.\n"
    )
    proc = subprocess.Popen(
        [str(exe), "-p", "go", "--permission-mode", "bypassPermissions"],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while not marker.exists():  # the child's command is running
        assert proc.poll() is None, "eddy ended before the child's command ran"
        assert time.monotonic() < deadline, "timed out waiting for the child's command"
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    path = latest_session(tmp_path)
    assert path is not None
    (child,) = child_transcripts(path)
    child_history = load(child).history  # repaired: the child's cut call has a result
    assert child_history[0].text == "slow child"
    fake_api.responder = None
    fake_api.push(Reply([text("resumed fine")]))
    out = eddy(fake_api, tmp_path, "-p", "final", "--continue", "--output-format", "json")
    assert out.returncode == 0, out.stderr
    assert fake_api.violations == []
    last = [message_from_param(m) for m in fake_api.requests[-1]["messages"]]
    check_invariant(last)
    results = [b for m in last for b in m.content if isinstance(b, ToolResultBlock)]
    assert [r.tool_use_id for r in results] == ["p1"] and results[0].is_error
    assert json.loads(out.stdout)["result"] == "resumed fine"
