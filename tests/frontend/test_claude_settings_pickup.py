"""A repository laid out as a Claude Code user's works under eddy: its settings decide, its env
reaches commands, and one start-up line says what was picked up (frontend/pickup.py), driven
through ``build_session`` and the real ``eddy -p`` against the fake Messages API."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from frontend.launch import LaunchOptions
from frontend.pickup import pickup_line
from frontend.session_open import build_session
from tests.fakes.fake_api import FakeAnthropic, Reply, text, tool_use
from tests.fakes.scripted import ScriptedModel
from tests.helpers.headless import eddy


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    project = tmp_path / "project"
    project.mkdir()
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(
        json.dumps(
            {
                "permissions": {
                    "allow": ["Bash(touch *)", "Bash(echo *)"],
                    "deny": ["Bash(rm *)"],
                    "defaultMode": "default",
                },
                "env": {"LOG_LEVEL": "from-claude-settings"},
                "includeCoAuthoredBy": False,
            },
            indent=2,
        )
    )
    (home / ".claude").mkdir(parents=True)
    (home / ".claude" / "settings.json").write_text('{"model": "claude-opus-5-5"}')
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("ANTHROPIC_MODEL", raising=False)
    monkeypatch.setattr(os, "environ", dict(os.environ))  # build_session applies env
    return project


def test_pickup_line_joins_the_items() -> None:
    assert pickup_line([]) is None
    assert pickup_line(["a", " ", "b (2 rules)"]) == "Claude Code: a, b (2 rules)"


def test_build_session_picks_up_claude_codes_settings(repo: Path) -> None:
    opened = build_session(
        LaunchOptions(cwd=repo),
        lambda _e: None,
        headless=True,
        model=ScriptedModel([]),
        persist=False,
    )
    session, problems = opened.session, opened.problems
    (notice,) = problems  # eddy -p: the caller vouches for the folder; said once
    assert "vouches" in notice and "rules: .claude/settings.json: allows Bash(touch *)" in notice
    assert "env: .claude/settings.json: sets LOG_LEVEL" in notice
    assert pickup_line(opened.picked_up) == (
        "Claude Code: ~/.claude/settings.json (model), .claude/settings.json (3 rules, env 1)"
    )
    assert session.config.model == "claude-opus-5-5"
    assert [str(r) for r in session.config.policy.deny] == ["Bash(rm *)"]
    assert os.environ["LOG_LEVEL"] == "from-claude-settings"


def test_the_settings_default_mode_applies_without_a_flag(repo: Path) -> None:
    settings = repo / ".claude" / "settings.json"
    data = json.loads(settings.read_text())
    data["permissions"]["defaultMode"] = "acceptEdits"
    settings.write_text(json.dumps(data))
    open_ = build_session(
        LaunchOptions(cwd=repo),
        lambda _e: None,
        headless=True,
        model=ScriptedModel([]),
        persist=False,
    )
    assert open_.session.config.policy.mode == "acceptEdits"
    flagged = LaunchOptions(cwd=repo, permission_mode="plan")
    opened = build_session(
        flagged, lambda _e: None, headless=True, model=ScriptedModel([]), persist=False
    )
    session = opened.session
    assert session.config.policy.mode == "plan"


def _results(request: dict[str, Any]) -> list[dict[str, Any]]:
    return [b for b in request["messages"][-1]["content"] if b.get("type") == "tool_result"]


def test_eddy_p_obeys_the_claude_rules_and_says_what_it_picked_up(
    fake_api: FakeAnthropic, repo: Path
) -> None:
    fake_api.push(
        Reply(
            [
                tool_use("toolu_1", "Bash", {"command": "touch made.txt"}),
                tool_use("toolu_2", "Bash", {"command": "rm made.txt"}),
                tool_use("toolu_3", "Bash", {"command": 'echo "flag=$LOG_LEVEL"'}),
            ],
            "tool_use",
        ),
        Reply([text("done")]),
    )
    done = eddy(fake_api, repo, "-p", "go", "--model", "claude-sonnet-5-5")
    assert done.returncode == 0, done.stderr
    assert (
        "eddy: Claude Code: ~/.claude/settings.json (model), .claude/settings.json" in done.stderr
    )
    assert done.stderr.count("this folder's own files grant") == 1
    assert (repo / "made.txt").exists()
    touch, rm, env = _results(fake_api.requests[1])
    assert not touch.get("is_error")
    assert rm["is_error"] and "Bash(rm *)" in json.dumps(rm["content"])
    assert "from-claude-settings" in json.dumps(env["content"])
    assert not fake_api.violations
    assert not (repo / ".claude" / "settings.local.json").exists()


def test_stream_json_keeps_the_pickup_line_off_its_streams(
    fake_api: FakeAnthropic, repo: Path
) -> None:
    fake_api.push(Reply([text("done")]))
    done = eddy(fake_api, repo, "-p", "go", "--output-format", "stream-json", "--verbose")
    assert done.returncode == 0, done.stderr
    assert "Claude Code:" not in done.stderr and "Claude Code:" not in done.stdout
