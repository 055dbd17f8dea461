"""Hook configuration: matcher forms, merge and dedupe across settings files, disableAllHooks,
missing scripts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent.hooks.config import load_hooks, matcher_matches, missing_scripts
from agent.settings.files import load_settings, project_settings_path, user_settings_path


@pytest.mark.parametrize(
    ("matcher", "name", "hit"),
    [
        (None, "Bash", True),
        ("", "Bash", True),
        ("*", "Edit", True),
        ("Bash", "Bash", True),
        ("Bash", "BashOutput", False),  # exact, not a prefix
        ("Edit|Write", "Write", True),
        ("Edit|Write", "Read", False),
        ("Edit, Write", "Write", True),
        ("mcp__github__get_issue", "mcp__github__get_issue", True),
        ("mcp__.*", "mcp__github__get_issue", True),  # a regex, searched
        ("mcp__.*", "Bash", False),
        ("^Note", "NotebookEdit", True),
        ("Edit.*", "MultiEdit", True),  # searched, not anchored
        ("[", "Bash", False),  # an invalid regex matches nothing
    ],
)
def test_matcher_forms_follow_claude_code(matcher, name, hit) -> None:
    assert matcher_matches(matcher, name) is hit


def _write(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))


def _hooks(event: str, matcher: str, *commands: str, **extra) -> dict:
    return {
        "hooks": {
            event: [
                {
                    "matcher": matcher,
                    "hooks": [{"type": "command", "command": c, **extra} for c in commands],
                }
            ]
        }
    }


def test_hooks_merge_across_files_and_an_identical_handler_runs_once(tmp_path) -> None:
    _write(user_settings_path(), _hooks("PreToolUse", "Bash", "echo user", "echo shared"))
    _write(
        project_settings_path(tmp_path),
        _hooks("PreToolUse", "Bash|Edit", "echo shared", "echo project"),
    )
    settings, problems = load_settings(tmp_path)
    config = load_hooks(settings.raw, problems)
    assert problems == []
    handlers = config.handlers_for("PreToolUse", "Bash")
    assert [h.command for h in handlers] == ["echo user", "echo shared", "echo project"]
    assert handlers[1].source == str(user_settings_path())  # the first file that defined it
    assert [h.command for h in config.handlers_for("PreToolUse", "Edit")] == [
        "echo shared",
        "echo project",
    ]
    assert config.handlers_for("PostToolUse", "Bash") == []


def test_a_different_timeout_is_a_different_handler(tmp_path) -> None:
    raw = [("a", _hooks("Stop", "", "x", timeout=5)), ("b", _hooks("Stop", "", "x", timeout=9))]
    config = load_hooks(raw, [])
    assert [h.timeout for h in config.handlers_for("Stop")] == [5.0, 9.0]


def test_default_timeouts_are_600_s_and_30_s_for_user_prompt_submit() -> None:
    raw = [
        (
            "a",
            {
                "hooks": {
                    **_hooks("Stop", "", "x")["hooks"],
                    **_hooks("UserPromptSubmit", "", "y")["hooks"],
                }
            },
        )
    ]
    config = load_hooks(raw, [])
    assert config.handlers_for("Stop")[0].timeout == 600.0
    assert config.handlers_for("UserPromptSubmit")[0].timeout == 30.0


def test_disable_all_hooks_turns_them_off_but_keeps_them_listed(tmp_path) -> None:
    _write(user_settings_path(), _hooks("PreToolUse", "", "echo a"))
    _write(project_settings_path(tmp_path), {"disableAllHooks": True})
    settings, problems = load_settings(tmp_path)
    config = load_hooks(settings.raw, problems)
    assert config.disabled and config.handlers_for("PreToolUse", "Bash") == []
    assert config.commands() == ["echo a"]


def test_invalid_entries_are_reported_with_file_and_key_and_the_rest_loads() -> None:
    problems: list[str] = []
    raw = [
        (
            "f.json",
            {
                "hooks": {
                    "PreToolUs": [],
                    "Stop": [
                        {"matcher": "(", "hooks": [{"type": "command", "command": "a"}]},
                        {
                            "hooks": [
                                {"type": "prompt", "prompt": "x"},
                                {"type": "command", "command": "ok", "timeout": -1},
                            ]
                        },
                    ],
                }
            },
        )
    ]
    config = load_hooks(raw, problems)
    assert [h.command for h in config.handlers_for("Stop")] == ["ok"]
    assert config.handlers_for("Stop")[0].timeout == 600.0
    joined = "\n".join(problems)
    assert "f.json: hooks.PreToolUs" in joined
    assert "f.json: hooks.Stop[0].matcher: invalid regular expression" in joined
    assert "hooks.Stop[1].hooks[0]: eddy runs only hooks of type command" in joined
    assert "hooks.Stop[1].hooks[1].timeout" in joined


def test_a_hook_whose_script_does_not_exist_is_reported(tmp_path) -> None:
    (tmp_path / "ok.sh").write_text("exit 0\n")
    raw = [
        (
            "s.json",
            {
                "hooks": {
                    "PreToolUse": [
                        {
                            "hooks": [
                                {"command": "bash ./ok.sh"},
                                {"command": "python3 $CLAUDE_PROJECT_DIR/.claude/hooks/gone.py"},
                                {"command": "./missing.sh --flag", "failClosed": True},
                                {"command": "jq -r .tool_name"},
                            ]
                        }
                    ]
                }
            },
        )
    ]
    messages = missing_scripts(load_hooks(raw, []), tmp_path)
    assert len(messages) == 2
    assert str(tmp_path / ".claude/hooks/gone.py") in messages[0] and "fails" in messages[0]
    assert str(tmp_path / "missing.sh") in messages[1] and "blocks (failClosed)" in messages[1]
