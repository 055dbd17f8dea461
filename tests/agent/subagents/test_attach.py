"""How a session gets its subagents: the Agent tool's description lists the types (stable
bytes), the ``subagents`` setting sets the concurrency cap, and bad values are reported."""

from __future__ import annotations

from pathlib import Path

from agent.session.config import SessionConfig
from agent.session.core import Session
from agent.subagents.attach import attach_workspace_agents
from tests.fakes.scripted import ScriptedModel
from tools import default_tools


def session_in(ws: Path) -> Session:
    ws.mkdir(exist_ok=True)
    config = SessionConfig(workspace=ws, model="claude-sonnet-5-5")
    return Session(config, ScriptedModel([]), default_tools(), lambda e: None)


def agent_param(session: Session) -> dict:
    return next(t for t in session.tools.params() if t["name"] == "Agent")


def test_the_agent_tool_lists_the_types_and_the_setting_caps_concurrency(tmp_path: Path) -> None:
    session = session_in(tmp_path / "ws")
    problems: list[str] = []
    host = attach_workspace_agents(session, {"maxConcurrency": 2}, problems)
    assert host.concurrency == 2 and not problems
    description = agent_param(session)["description"]
    assert "- general-purpose: " in description and "- Explore: " in description
    assert "(Tools: Read, Glob, Grep, Bash)" in description
    again = session_in(tmp_path / "ws")
    attach_workspace_agents(again, None, [])
    assert agent_param(again) == agent_param(session)  # the same bytes for the cache
    assert session.tools.get("Task") is session.tools.get("Agent")  # the old name runs
    assert [t["name"] for t in session.tools.params()].count("Agent") == 1


def test_bad_settings_and_bad_agent_files_are_reported(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / ".claude" / "agents").mkdir(parents=True)
    (ws / ".claude" / "agents" / "bad.md").write_text("no front matter\n")
    problems: list[str] = []
    host = attach_workspace_agents(session_in(ws), {"maxConcurrency": 0}, problems)
    assert host.concurrency == 4
    assert any(p.startswith("agents: ") and "bad.md" in p for p in problems)
    assert any("subagents.maxConcurrency" in p for p in problems)
    problems = []
    attach_workspace_agents(session_in(ws), 7, problems)
    assert any(p.startswith("subagents: expected an object") for p in problems)
