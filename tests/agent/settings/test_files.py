"""Settings files: precedence, invalid settings, and "don't ask again" saving its rule."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent.permissions.policy import Policy, Rule
from agent.settings.edit import LOCAL_IGNORE, save_rule
from agent.settings.files import LOCAL_SETTINGS, SettingsError, build_policy, load_settings
from tools.base import ResolvedPath, ToolContext, ToolResult


class FakeTool:
    def __init__(self, name: str, read_only: bool = False) -> None:
        self.name, self.read_only = name, read_only
        self.description, self.input_schema = "fake", {"type": "object"}

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        raise AssertionError

    def paths(self, args: dict[str, Any], ctx: ToolContext) -> list[ResolvedPath]:
        return [ctx.resolve(args["file_path"])] if "file_path" in args else []

    def summary(self, args: dict[str, Any]) -> str:
        return ""


BASH, EDIT = FakeTool("Bash"), FakeTool("Edit")


@pytest.fixture
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("EDDY_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("EDDY_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    workspace = tmp_path / "project"
    (workspace / ".eddy").mkdir(parents=True)
    (workspace / "src").mkdir()
    return workspace.resolve()


def write(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data))


def user_file(ws: Path) -> Path:
    return ws.parent / "config" / "settings.json"


def test_no_files_no_problems(ws: Path) -> None:
    settings, problems = load_settings(ws)
    assert problems == [] and settings.files == []
    assert settings.default_mode is None and settings.allow == []


def test_precedence_local_over_project_over_user_and_rules_merged(ws: Path) -> None:
    (ws / "shared").mkdir()
    write(
        user_file(ws),
        {
            "permissions": {"allow": ["Bash(a:*)"], "deny": ["Bash(rm:*)"], "defaultMode": "plan"},
            "model": "user-model",
            "theme": "user-theme",
            "autoCompact": False,
            "statusLine": "u",
        },
    )
    write(
        ws / ".eddy/settings.json",
        {
            "permissions": {
                "allow": ["Bash(b:*)", "Bash(a:*)"],
                "ask": ["Bash(git push:*)"],
                "defaultMode": "acceptEdits",
                "additionalDirectories": ["shared"],
            },
            "model": "project-model",
            "statusLine": "p",
        },
    )
    write(ws / LOCAL_SETTINGS, {"permissions": {"allow": ["Edit(src/**)"]}, "model": "local-model"})
    settings, problems = load_settings(ws)
    assert problems == []
    assert settings.model == "local-model"
    assert settings.get("theme") == "user-theme"  # kept, unread: the TUI keeps its own
    assert settings.auto_compact is False
    assert settings.default_mode == "acceptEdits"
    assert settings.get("statusLine") == "p"
    assert [str(r) for r in settings.allow] == ["Bash(a:*)", "Bash(b:*)", "Edit(src/**)"]
    assert [str(r) for r in settings.deny] == ["Bash(rm:*)"]
    assert [str(r) for r in settings.ask] == ["Bash(git push:*)"]
    assert settings.additional_directories == [ws / "shared"]
    assert len(settings.files) == 3


def test_command_line_goes_on_top(ws: Path) -> None:
    write(
        ws / ".eddy/settings.json",
        {"permissions": {"defaultMode": "plan", "allow": ["Bash(make:*)"]}},
    )
    settings, _ = load_settings(ws)
    policy, problems = build_policy(settings)
    assert policy.mode == "plan" and problems == []
    policy, problems = build_policy(settings, "acceptEdits", ["Edit", "Bash("], ["Bash(rm:*)"])
    assert policy.mode == "acceptEdits"
    assert [str(r) for r in policy.allow] == ["Bash(make:*)", "Edit"]
    assert [str(r) for r in policy.deny] == ["Bash(rm:*)"]
    assert len(problems) == 1 and problems[0].startswith("--allowed-tools:")
    assert build_policy(settings, "bypassPermissions")[0].mode == "bypassPermissions"


def test_invalid_json_names_the_file_and_the_rest_still_loads(ws: Path) -> None:
    write(user_file(ws), {"permissions": {"allow": ["Bash(a:*)"]}})
    write(ws / ".eddy/settings.json", '{"permissions": {"allow": ["Bash(b:*)",]}}')
    write(ws / LOCAL_SETTINGS, {"model": "m"})
    settings, problems = load_settings(ws)
    assert len(problems) == 1
    assert problems[0].startswith(".eddy/settings.json: invalid JSON at line 1 column")
    assert "ignored" in problems[0]
    assert [str(r) for r in settings.allow] == ["Bash(a:*)"]
    assert settings.model == "m"


@pytest.mark.parametrize(
    ("data", "message", "valid"),
    [
        ({"permissions": {"allow": "Bash"}}, "permissions.allow: expected a list", None),
        (
            {"permissions": {"allow": [1, "Bash(", "Edit"]}},
            "permissions.allow[0]: expected a rule string, got a number 1",
            "Edit",
        ),
        (
            {"permissions": {"allow": ["Bash(", "Edit"]}},
            "permissions.allow[0]: not a permission rule: 'Bash('",
            "Edit",
        ),
        ({"permissions": {"deny": ["WebFetch(x.com)"]}}, "permissions.deny[0]:", None),
        (
            {"permissions": {"defaultMode": "yolo"}},
            "permissions.defaultMode: unknown mode "
            "'yolo' (expected one of default, acceptEdits, plan, dontAsk)",
            None,
        ),
        (
            {"permissions": {"defaultMode": "bypassPermissions"}},
            "permissions.defaultMode: bypassPermissions is refused in a project's settings",
            None,
        ),
        ({"permissions": {"alow": ["Edit"]}}, "permissions.alow: unknown key", None),
        ({"permissions": ["Edit"]}, "permissions: expected an object, got a list", None),
        (
            {"permissions": {"additionalDirectories": ["missing"]}},
            "permissions.additionalDirectories[0]: missing is not a directory",
            None,
        ),
        ({"model": 3}, "model: expected a non-empty string, got a number 3", None),
        ({"autoCompact": "yes"}, "autoCompact: expected true or false, got a string 'yes'", None),
        ([1, 2], "expected a JSON object at the top level", None),
    ],
)
def test_invalid_settings_messages(ws: Path, data: Any, message: str, valid: str | None) -> None:
    write(ws / LOCAL_SETTINGS, data)
    settings, problems = load_settings(ws)
    assert problems, "expected a problem"
    assert problems[0].startswith(LOCAL_SETTINGS + ": ")
    assert message in problems[0], problems
    if valid is not None:
        assert [str(r) for r in settings.allow] == [valid]


def test_user_file_is_named_by_its_full_path(ws: Path) -> None:
    write(user_file(ws), {"model": ""})
    _, problems = load_settings(ws)
    assert problems == [
        f"{user_file(ws)}: line 1: model: expected a non-empty string, got a string ''; ignored."
    ]


def test_save_rule_creates_local_settings_and_gitignores_it(ws: Path) -> None:
    (ws / ".git").mkdir()
    (ws / ".gitignore").write_text("node_modules/")
    saved = save_rule("Bash(git commit:*)", ws)
    assert saved.rule == "Bash(git commit:*)"
    assert saved.path == ws / LOCAL_SETTINGS and saved.created and saved.gitignored
    assert "Bash(git commit:*)" in saved.message and "settings.local.json" in saved.message
    data = json.loads((ws / LOCAL_SETTINGS).read_text())
    assert data == {"permissions": {"allow": ["Bash(git commit:*)"]}}
    assert (ws / ".gitignore").read_text() == "node_modules/"  # the project's: untouched
    assert "settings.local.json" in (ws / LOCAL_IGNORE).read_text()
    again = save_rule(Rule.parse("Edit(src/**)"), ws)
    assert not again.created and not again.gitignored
    save_rule("Bash(git commit:*)", ws)
    data = json.loads((ws / LOCAL_SETTINGS).read_text())
    assert data["permissions"]["allow"] == ["Bash(git commit:*)", "Edit(src/**)"]
    assert (ws / LOCAL_IGNORE).read_text().count("settings.local.json") == 1


def test_save_rule_keeps_other_settings_and_existing_ignores(ws: Path) -> None:
    (ws / ".git").mkdir()
    (ws / ".gitignore").write_text(".eddy/\n")
    write(ws / LOCAL_SETTINGS, {"model": "m", "permissions": {"deny": ["Bash(rm:*)"]}})
    save_rule("Bash(make:*)", ws)
    data = json.loads((ws / LOCAL_SETTINGS).read_text())
    assert data == {
        "model": "m",
        "permissions": {"deny": ["Bash(rm:*)"], "allow": ["Bash(make:*)"]},
    }
    assert (ws / ".gitignore").read_text() == ".eddy/\n"
    assert not (ws / LOCAL_IGNORE).exists()  # ignored already: nothing more written


def test_save_rule_outside_git_does_not_create_a_gitignore(ws: Path) -> None:
    saved = save_rule("Edit", ws)
    assert saved.created and not saved.gitignored
    assert not (ws / ".gitignore").exists() and not (ws / LOCAL_IGNORE).exists()


def test_save_rule_in_a_subdirectory_of_a_repository(ws: Path) -> None:
    (ws.parent / ".git").mkdir()
    assert save_rule("Edit", ws).gitignored
    assert not (ws / ".gitignore").exists()
    assert "settings.local.json" in (ws / LOCAL_IGNORE).read_text()


def test_save_rule_never_clobbers_a_broken_file(ws: Path) -> None:
    write(ws / LOCAL_SETTINGS, "{broken")
    with pytest.raises(SettingsError, match="invalid JSON"):
        save_rule("Edit", ws)
    assert (ws / LOCAL_SETTINGS).read_text() == "{broken"
    with pytest.raises(ValueError):
        save_rule("Bash(", ws)


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        (BASH, {"command": "git commit -m 'fix the bug'"}),
        (BASH, {"command": "cd src && npm run test -- -x"}),
        (BASH, {"command": "git log > out.txt"}),
        (EDIT, {"file_path": "src/a.py"}),
        (EDIT, {"file_path": "README.md"}),
    ],
)
def test_dont_ask_again_then_the_next_identical_call_runs(
    ws: Path, tool: FakeTool, args: dict[str, Any]
) -> None:
    (ws / ".git").mkdir()
    ctx = ToolContext(ws)
    settings, _ = load_settings(ws)
    policy, _ = build_policy(settings)
    assert policy.decide(tool, args, ctx)[0] == "ask"
    rule = policy.suggest(tool, args, ctx)
    assert rule is not None
    saved = save_rule(rule, ws)
    assert saved.rule == rule
    rebuilt, problems = build_policy(load_settings(ws)[0])
    assert problems == []
    assert rebuilt.decide(tool, args, ctx) == ("allow", "")
    assert isinstance(rebuilt, Policy)


def test_setting_sources_read_only_the_files_of_those_scopes(ws: Path) -> None:
    write(user_file(ws), {"permissions": {"allow": ["Bash(make:*)"]}})
    write(ws / ".eddy" / "settings.json", {"permissions": {"allow": ["Edit(src/**)"]}})
    write(ws / ".claude" / "settings.local.json", {"permissions": {"deny": ["Read(.env)"]}})
    settings, _ = load_settings(ws, scopes=("user",))
    assert [str(r) for r in settings.allow] == ["Bash(make:*)"] and settings.deny == []
    isolated, _ = load_settings(ws, scopes=())
    assert isolated.allow == [] and isolated.files == []
    everything, _ = load_settings(ws)
    assert len(everything.files) == 3


def test_flag_settings_go_above_the_local_files(ws: Path) -> None:
    write(ws / ".eddy" / "settings.local.json", {"permissions": {"defaultMode": "plan"}})
    text = json.dumps({"permissions": {"defaultMode": "acceptEdits", "allow": ["Bash(ls)"]}})
    settings, problems = load_settings(ws, flag_settings=text)
    assert problems == [] and settings.default_mode == "acceptEdits"
    assert [str(r) for r in settings.allow] == ["Bash(ls)"]
    write(ws / "flags.json", {"model": "claude-haiku-4-5"})
    from_file, _ = load_settings(ws, flag_settings="flags.json")
    assert from_file.model == "claude-haiku-4-5"
    _, missing = load_settings(ws, flag_settings="nowhere.json")
    assert missing and "nowhere.json" in missing[0]
    _, broken = load_settings(ws, flag_settings="{not json")
    assert broken and "--settings" in broken[0]
