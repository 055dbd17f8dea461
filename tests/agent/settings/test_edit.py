"""Editing permission rules in settings files: add_rule, remove_rule, list_rules."""

from __future__ import annotations

import functools
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from agent.permissions.policy import Rule
from agent.settings.edit import RuleEntry, add_rule, list_rules, remove_rule
from agent.settings.files import LOCAL_SETTINGS, PROJECT_SETTINGS, SettingsError, load_settings


@pytest.fixture
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("EDDY_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("EDDY_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    workspace = tmp_path / "project"
    workspace.mkdir()
    return workspace.resolve()


def write(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data))


def read(path: Path) -> Any:
    return json.loads(path.read_text())


def user_file(ws: Path) -> Path:
    return ws.parent / "config" / "settings.json"


def test_add_creates_the_chosen_file(ws: Path) -> None:
    saved = add_rule("Bash(npm run test:*)", ws, "ask", "project")
    assert saved.path == ws / PROJECT_SETTINGS and saved.created and not saved.gitignored
    assert saved.message == "Saved ask rule Bash(npm run test:*) to .eddy/settings.json."
    assert read(ws / PROJECT_SETTINGS) == {"permissions": {"ask": ["Bash(npm run test:*)"]}}
    saved = add_rule("Edit(src/**)", ws, "deny", "user")
    assert saved.path == user_file(ws) and saved.created
    assert read(user_file(ws)) == {"permissions": {"deny": ["Edit(src/**)"]}}
    assert not (ws / LOCAL_SETTINGS).exists()


def test_add_to_the_local_file_gitignores_it_only_when_it_creates_it(ws: Path) -> None:
    (ws / ".git").mkdir()
    saved = add_rule("Bash(make:*)", ws, "allow", "local")
    assert saved.created and saved.gitignored
    assert saved.message.endswith("(git-ignored by .eddy/.gitignore).")
    assert not (ws / ".gitignore").exists()  # the project's .gitignore is never edited
    assert not add_rule("Bash(make test:*)", ws, "deny", "local").gitignored
    assert not add_rule("Edit", ws, "allow", "project").gitignored
    assert (ws / ".eddy" / ".gitignore").read_text().count("settings.local.json") == 1


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_the_local_file_is_ignored_by_git_and_git_status_shows_nothing_new(ws: Path) -> None:
    (ws / ".gitignore").write_text("build/\n")
    run = functools.partial(subprocess.run, cwd=ws, capture_output=True, text=True, check=True)
    run(["git", "init", "-q"])
    run(["git", "add", ".gitignore"])
    before = run(["git", "status", "--porcelain"]).stdout
    add_rule("Bash(make:*)", ws, "allow", "local")
    assert (ws / ".gitignore").read_text() == "build/\n"
    run(["git", "check-ignore", "-q", LOCAL_SETTINGS])  # exit status 0: ignored
    assert run(["git", "status", "--porcelain", "--untracked-files=all"]).stdout == before


def test_add_and_remove_keep_every_other_key(ws: Path) -> None:
    original = {
        "model": "claude-x",
        "theme": "dark",
        "permissions": {"allow": ["Read"], "defaultMode": "plan", "deny": ["Bash(rm:*)"]},
        "custom": {"nested": [1, 2]},
    }
    write(ws / PROJECT_SETTINGS, original)
    add_rule("Bash(git diff:*)", ws, "allow", "project")
    data = read(ws / PROJECT_SETTINGS)
    assert data["permissions"]["allow"] == ["Read", "Bash(git diff:*)"]
    assert {k: v for k, v in data.items() if k != "permissions"} == {
        "model": "claude-x",
        "theme": "dark",
        "custom": {"nested": [1, 2]},
    }
    removed = remove_rule("Bash(git diff:*)", ws, "allow", "project")
    assert removed is not None and removed.removed
    assert removed.message == "Removed allow rule Bash(git diff:*) from .eddy/settings.json."
    assert read(ws / PROJECT_SETTINGS) == original


def test_add_twice_writes_the_rule_once(ws: Path) -> None:
    add_rule("Bash(make:*)", ws, "allow", "project")
    add_rule(Rule.parse("Bash(make:*)"), ws, "allow", "project")
    assert read(ws / PROJECT_SETTINGS)["permissions"]["allow"] == ["Bash(make:*)"]


def test_remove_matches_the_parsed_rule_and_only_that_list(ws: Path) -> None:
    write(
        ws / LOCAL_SETTINGS,
        {"permissions": {"allow": ["Bash( make:* )", "Edit"], "deny": ["Bash(make:*)"]}},
    )
    removed = remove_rule("Bash(make:*)", ws, "allow", "local")
    assert removed is not None
    assert read(ws / LOCAL_SETTINGS) == {
        "permissions": {"allow": ["Edit"], "deny": ["Bash(make:*)"]}
    }


def test_remove_of_a_missing_rule_or_file_writes_nothing(ws: Path) -> None:
    assert remove_rule("Edit", ws, "allow", "project") is None
    assert not (ws / PROJECT_SETTINGS).exists()
    write(ws / PROJECT_SETTINGS, '{"permissions": {"allow": ["Read"]}}')
    assert remove_rule("Edit", ws, "allow", "project") is None
    assert remove_rule("Read", ws, "deny", "project") is None
    assert (ws / PROJECT_SETTINGS).read_text() == '{"permissions": {"allow": ["Read"]}}'


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"permissions": {"allow": [', "invalid JSON at line 1"),
        ("[1, 2]", "expected a JSON object"),
        ('{"permissions": []}', "permissions: expected an object"),
        ('{"permissions": {"allow": "Edit"}}', "permissions.allow: expected a list"),
    ],
)
def test_a_broken_file_is_an_error_and_never_overwritten(
    ws: Path, content: str, message: str
) -> None:
    write(ws / PROJECT_SETTINGS, content)
    with pytest.raises(SettingsError, match=message) as info:
        add_rule("Edit", ws, "allow", "project")
    assert ".eddy/settings.json" in str(info.value)
    with pytest.raises(SettingsError, match=message):
        remove_rule("Edit", ws, "allow", "project")
    assert (ws / PROJECT_SETTINGS).read_text() == content
    assert not (ws / ".eddy" / "settings.json.tmp").exists()


def test_invalid_rule_kind_or_scope_is_refused_before_any_write(ws: Path) -> None:
    with pytest.raises(ValueError, match="not a permission rule"):
        add_rule("Bash(npm", ws, "allow", "project")
    with pytest.raises(ValueError, match="kind"):
        add_rule("Edit", ws, "maybe", "project")
    with pytest.raises(ValueError, match="scope"):
        add_rule("Edit", ws, "allow", "everywhere")
    with pytest.raises(ValueError):
        remove_rule("Bash()", ws, "allow", "project")
    assert not (ws / ".eddy").exists()


def test_list_rules_names_each_source_and_the_flags(ws: Path) -> None:
    write(user_file(ws), {"permissions": {"deny": ["Bash(curl:*)"]}})
    write(ws / PROJECT_SETTINGS, {"permissions": {"allow": ["Edit(src/**)", "Bash("]}})
    write(ws / LOCAL_SETTINGS, {"permissions": {"ask": ["Bash(git push:*)"], "allow": 3}})
    entries = list_rules(ws, ["Bash(git status)"], ["Write"])
    assert entries == [
        RuleEntry("ask", Rule.parse("Bash(git push:*)"), "local", ws / LOCAL_SETTINGS),
        RuleEntry("allow", Rule.parse("Edit(src/**)"), "project", ws / PROJECT_SETTINGS),
        RuleEntry("deny", Rule.parse("Bash(curl:*)"), "user", user_file(ws)),
        RuleEntry("allow", Rule.parse("Bash(git status)"), "cli"),
        RuleEntry("deny", Rule.parse("Write"), "cli"),
    ]


def test_what_is_added_is_what_load_settings_reads(ws: Path) -> None:
    add_rule("Bash(npm run test:*)", ws, "allow", "user")
    add_rule("Read(./.env)", ws, "deny", "project")
    add_rule("Bash(git push:*)", ws, "ask", "local")
    settings, problems = load_settings(ws)
    assert problems == []
    assert settings.allow == [Rule.parse("Bash(npm run test:*)")]
    assert settings.deny == [Rule.parse("Read(./.env)")]
    assert settings.ask == [Rule.parse("Bash(git push:*)")]


def test_an_edit_replaces_the_file_whole_and_keeps_its_mode(ws: Path) -> None:
    path = ws / PROJECT_SETTINGS
    write(path, {"model": "x", "permissions": {"allow": []}})
    path.chmod(0o600)
    add_rule("Edit(src/**)", ws, "allow", "project")
    assert path.stat().st_mode & 0o777 == 0o600
    assert read(path) == {"model": "x", "permissions": {"allow": ["Edit(src/**)"]}}
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temporary file left
