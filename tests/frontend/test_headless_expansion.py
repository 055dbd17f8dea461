"""``eddy -p`` expands what the interactive modes expand (issue 36): custom commands with
``$ARGUMENTS``, ``$1``, ``allowed-tools`` and ``model``; plugin commands; MCP prompts; and
``@server:uri`` resources. A real ``eddy`` process against the fake Messages API."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.agent.mcp.servers import FAKE
from tests.fakes.fake_api import FakeAnthropic, Reply, text, tool_use
from tests.helpers.claude_repo import write
from tests.helpers.headless import eddy
from tests.helpers.plugins import review_kit

pytestmark = pytest.mark.slow


def first_text(fake_api: FakeAnthropic) -> str:
    content = fake_api.requests[0]["messages"][0]["content"]
    if isinstance(content, str):
        return content
    return "\n".join(b.get("text", "") for b in content if b.get("type") == "text")


def servers(tmp_path: Path) -> Path:
    entry = {"command": sys.executable, "args": [str(FAKE), "--name", "fake"]}
    return write(tmp_path / "servers.json", json.dumps({"mcpServers": {"fake": entry}}))


def test_dash_p_expands_a_custom_command_with_its_arguments_tools_and_model(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    write(
        tmp_path / ".claude" / "commands" / "greet.md",
        "---\nallowed-tools: Bash(echo:*)\nmodel: haiku\n---\nGreet $1, then all of $ARGUMENTS.\n",
    )
    fake_api.push(
        Reply([tool_use("b1", "Bash", {"command": "echo hello"})], "tool_use"),
        Reply([text("greeted")]),
    )
    done = eddy(fake_api, tmp_path, "-p", "/greet the world")
    assert done.returncode == 0, done.stderr
    assert first_text(fake_api).startswith("Greet the, then all of the world.")
    assert fake_api.requests[0]["model"].startswith("claude-haiku")
    result = fake_api.requests[1]["messages"][-1]["content"][0]
    assert not result.get("is_error") and "hello" in json.dumps(result)  # granted, ran
    assert fake_api.violations == []


def test_dash_p_expands_a_plugins_command(fake_api: FakeAnthropic, tmp_path: Path) -> None:
    kit = review_kit(tmp_path / "kit").resolve()
    workspace = tmp_path / "ws"
    workspace.mkdir()
    fake_api.push(Reply([text("reviewed")]))
    done = eddy(fake_api, workspace, "-p", "/review-kit:review a.py", "--plugin-dir", str(kit))
    assert done.returncode == 0, done.stderr
    assert first_text(fake_api).startswith(f"REVIEW-CMD of a.py (all: a.py) with {kit}/")


def test_dash_p_expands_an_mcp_prompt_and_attaches_a_resource(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    cfg = servers(tmp_path)
    fake_api.push(Reply([text("ok")]), Reply([text("ok")]))
    done = eddy(fake_api, tmp_path, "-p", "/mcp__fake__review src/x.py", "--mcp-config", str(cfg))
    assert done.returncode == 0, done.stderr
    assert first_text(fake_api).strip() == "Please review src/x.py."
    done = eddy(fake_api, tmp_path, "-p", "sum up @fake:memo://notes", "--mcp-config", str(cfg))
    assert done.returncode == 0, done.stderr
    sent = json.dumps(fake_api.requests[1]["messages"][0])
    assert "Contents of @fake:memo://notes" in sent and "the notes' text" in sent


def test_dash_p_says_why_an_mcp_prompt_cannot_be_had_and_sends_nothing(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    cfg = servers(tmp_path)
    done = eddy(fake_api, tmp_path, "-p", "/mcp__fake__nope x", "--mcp-config", str(cfg))
    assert done.returncode == 1
    assert "eddy: /mcp__fake__nope: the MCP server fake has no such prompt (review)." in (
        done.stderr
    )
    assert fake_api.requests == []


def test_dash_p_sends_a_path_or_an_unknown_word_as_it_is(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    fake_api.push(Reply([text("ok")]), Reply([text("ok")]))
    assert eddy(fake_api, tmp_path, "-p", "/usr/bin/env explained").returncode == 0
    assert eddy(fake_api, tmp_path, "-p", "/nosuchcommand here").returncode == 0
    texts = [json.dumps(r["messages"][0]) for r in fake_api.requests]
    assert "/usr/bin/env explained" in texts[0] and "/nosuchcommand here" in texts[1]
