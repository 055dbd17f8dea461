"""The whole Claude Code layout at once (issue 18, part M): what the start-up line says was
picked up, and malformed files of every kind give a message while eddy still starts and
answers through the fake API."""

from __future__ import annotations

import json
from pathlib import Path

from agent import events as ev
from agent import ops
from frontend.launch import LaunchOptions
from frontend.session_open import build_session
from tests.fakes.fake_api import FakeAnthropic, Reply, text
from tests.fakes.scripted import ScriptedModel
from tests.helpers.claude_repo import (
    claude_commands,
    claude_home,
    claude_repo,
    claude_skills,
    claude_status_line,
    claude_styles,
    open_session,
    write,
)


def full_repo(tmp_path: Path) -> Path:
    workspace = claude_repo(tmp_path)
    claude_commands(workspace)
    claude_skills(workspace)
    claude_styles(workspace)
    claude_status_line(workspace)
    return workspace


def picked_up(workspace: Path) -> list[str]:
    """What the start-up line lists for a session opened on ``workspace``."""
    opened = build_session(
        LaunchOptions(cwd=workspace),
        lambda _e: None,
        headless=True,
        model=ScriptedModel([]),
        persist=False,
    )
    return [item for item in opened.picked_up if "settings" not in item]


def test_the_pickup_line_counts_claude_codes_files(tmp_path: Path) -> None:
    workspace = full_repo(tmp_path)
    assert picked_up(workspace) == [
        "CLAUDE.md x5",  # ~/.claude, root, app, app/.claude, app/CLAUDE.local.md
        "2 rules",
        "2 skills",
        "3 output styles",
        "6 commands",  # clash is eddy's own (.eddy/commands wins)
        "status line",
    ]


def test_nothing_picked_up_is_an_empty_list(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "no-claude"))
    (tmp_path / "w").mkdir()
    assert picked_up(tmp_path / "w") == []


async def test_malformed_files_of_every_kind_are_messages_and_eddy_starts(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    workspace = full_repo(tmp_path)
    write(workspace / "CLAUDE.md", "@missing.md and @loop.md\n")
    write(workspace / "loop.md", "@CLAUDE.md\n")
    write(workspace / ".claude" / "rules" / "bad.md", "---\npaths: [src/*.py\nstray\n---\nR\n")
    write(workspace / ".claude" / "rules" / "unclosed.md", "---\npaths: x\n")
    write(workspace / ".claude" / "commands" / "broken2.md", "---\n: nothing\n---\nB\n")
    write(claude_home() / "skills" / "empty" / "SKILL.md", "")
    write(workspace / ".claude" / "output-styles" / "broken.md", "---\nname: x\n")
    write(workspace / ".claude" / "CLAUDE.md", "\x00\xff binary-ish \x1b[2J\n")
    settings = {"statusLine": {"type": "command"}, "outputStyle": ["not", "a", "name"]}
    write(workspace / ".eddy" / "settings.json", json.dumps(settings))
    fake_api.push(Reply([text("still here")]))
    session, events, problems = open_session(fake_api, workspace)
    joined = "\n".join(problems)
    for expected in (
        "missing.md does not exist",
        "cycle",
        "bad.md:3: expected 'key: value'",
        "unclosed.md:1: the front matter has no closing",
        "broken2.md:2: expected 'key: value'",
        "empty/SKILL.md: the front matter has no name and description",
        "statusLine:",
        "outputStyle: expected a style's name",
    ):
        assert expected in joined, expected
    session.submit(ops.SubmitPrompt("hello"))
    await session.wait_idle()
    await session.close()
    assert events.of(ev.TurnFinished)[-1].subtype == "success"
    assert fake_api.violations == []
