"""Marketplaces offline (a local directory and a ``file://`` git repository), and installing,
switching and uninstalling plugins from them with ``eddy plugin`` and ``/plugin``: what is
installed is what the next session loads."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from agent.plugins.registry import eddy_plugins_home, load_plugins
from agent.prompt.commands import custom_commands
from agent.settings.files import load_settings
from cli.main import main
from frontend.commands import run_command
from tests.helpers.claude_repo import CommandFront, write
from tests.helpers.plugins import git_repository, marketplace


def eddy(capsys: pytest.CaptureFixture[str], workspace: Path, *words: str) -> tuple[int, str]:
    code = main(["plugin", "--cwd", str(workspace), *words], exit_process=False)
    out = capsys.readouterr()
    return code, out.out + out.err


def session_plugins(workspace: Path) -> list[str]:
    return [p.plugin_id for p in load_plugins(workspace, load_settings(workspace)[0].raw)]


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "project"
    ws.mkdir()
    return ws


def test_a_local_directory_marketplace_installs_lists_switches_and_uninstalls(
    tmp_path: Path, workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    market = marketplace(tmp_path / "market", plugins=("hello",))
    code, out = eddy(capsys, workspace, "marketplace", "add", str(market))
    assert code == 0 and "Added marketplace team-tools (2 plugins)" in out
    code, out = eddy(capsys, workspace, "install", "review-kit@team-tools")
    assert code == 0 and "Installed review-kit@team-tools 1.2.0 (scope user), on." in out
    copy = eddy_plugins_home() / "cache" / "team-tools" / "review-kit" / "1.2.0"
    assert (copy / "commands" / "review.md").is_file()
    assert session_plugins(workspace) == ["review-kit@team-tools"]
    assert "review-kit:review" in custom_commands(
        workspace, list(load_plugins(workspace, load_settings(workspace)[0].raw))
    )
    code, out = eddy(capsys, workspace, "list")
    assert "review-kit@team-tools 1.2.0  on, by ~/.config" not in out  # labels are eddy's
    assert "  review-kit@team-tools 1.2.0  on, by " in out and "installed by eddy" in out
    assert "    hello@team-tools  hello" in out and "[installed]" in out
    code, out = eddy(capsys, workspace, "disable", "review-kit")
    assert code == 0 and "Switched review-kit@team-tools off (scope user)." in out
    assert session_plugins(workspace) == []
    code, _ = eddy(capsys, workspace, "enable", "review-kit", "--scope", "local")
    assert code == 0 and session_plugins(workspace) == ["review-kit@team-tools"]
    local = json.loads((workspace / ".eddy" / "settings.local.json").read_text())
    assert local == {"enabledPlugins": {"review-kit@team-tools": True}}
    code, out = eddy(capsys, workspace, "uninstall", "review-kit@team-tools")
    assert code == 0 and "Uninstalled review-kit@team-tools (scope user)." in out
    assert not copy.exists()
    assert session_plugins(workspace) == []
    assert load_plugins(workspace, load_settings(workspace)[0].raw).problems == [
        "plugin review-kit@team-tools: switched on in .eddy/settings.local.json but not "
        "installed; /plugin install review-kit@team-tools installs it."
    ]


def test_a_file_url_git_marketplace_is_cloned_and_a_project_scope_install_stays_there(
    tmp_path: Path, workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = git_repository(marketplace(tmp_path / "repo", "git-tools", plugins=("hello",)))
    code, out = eddy(capsys, workspace, "marketplace", "add", url)
    assert code == 0 and "Added marketplace git-tools" in out
    assert (eddy_plugins_home() / "marketplaces" / "git-tools" / ".claude-plugin").is_dir()
    code, out = eddy(capsys, workspace, "install", "hello", "project")
    assert code == 0 and "Installed hello@git-tools" in out and "(scope project)" in out
    record = json.loads((eddy_plugins_home() / "installed_plugins.json").read_text())
    (entry,) = record["plugins"]["hello@git-tools"]
    assert entry["projectPath"] == str(workspace.resolve()) and len(entry["gitCommitSha"]) == 40
    assert entry["version"] == entry["gitCommitSha"][:12]  # no version: the commit's
    shared = json.loads((workspace / ".eddy" / "settings.json").read_text())
    assert shared["enabledPlugins"] == {"hello@git-tools": True}
    assert session_plugins(workspace) == ["hello@git-tools"]
    elsewhere = tmp_path / "other"
    elsewhere.mkdir()
    assert session_plugins(elsewhere) == []  # a project install is that project's
    code, out = eddy(capsys, workspace, "marketplace", "update", "git-tools")
    assert code == 0 and "git-tools: up to date (2 plugins)." in out
    code, out = eddy(capsys, workspace, "marketplace", "remove", "git-tools")
    assert code == 0 and "uninstalled hello@git-tools" in out
    assert session_plugins(workspace) == []


def test_mistakes_are_one_line_and_exit_1(
    tmp_path: Path, workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = eddy(capsys, workspace, "install", "nothing@nowhere")
    assert code == 1 and out.strip() == (
        'eddy plugin install: no marketplace "nowhere" (known: none); /plugin marketplace add '
        "adds one."
    )
    code, out = eddy(capsys, workspace, "marketplace", "add", str(tmp_path / "empty"))
    assert code == 1 and "holds no .claude-plugin/marketplace.json" in out
    market = marketplace(tmp_path / "market")
    eddy(capsys, workspace, "marketplace", "add", str(market))
    code, out = eddy(capsys, workspace, "install", "nope@team-tools")
    assert code == 1 and 'Plugin "nope" not found in marketplace "team-tools".' in out
    code, out = eddy(capsys, workspace, "frobnicate")
    assert code == 1 and out.startswith("Usage: eddy plugin [list] | install")


def test_a_plugin_claude_code_installed_is_switched_off_for_eddy_not_uninstalled(
    tmp_path: Path, workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = marketplace(tmp_path / "market") / "plugins" / "review-kit"
    claude = Path(os.environ["CLAUDE_CONFIG_DIR"]) / "plugins"
    write(
        claude / "installed_plugins.json",
        json.dumps(
            {"version": 2, "plugins": {"review-kit@cc-tools": [
                {"scope": "user", "installPath": str(root), "version": "1.2.0"}]}}
        ),
    )  # fmt: skip
    code, out = eddy(capsys, workspace, "list")
    assert "review-kit@cc-tools 1.2.0  on  scope user, installed by Claude Code" in out
    code, out = eddy(capsys, workspace, "uninstall", "review-kit")
    assert code == 1 and "was installed by Claude Code: uninstall it there" in out
    assert eddy(capsys, workspace, "disable", "review-kit")[0] == 0
    assert session_plugins(workspace) == []
    assert json.loads((claude / "installed_plugins.json").read_text())["plugins"]  # untouched


async def test_slash_plugin_installs_from_a_project_declared_marketplace(
    tmp_path: Path, workspace: Path
) -> None:
    """A project's extraKnownMarketplaces (a local directory) is known; /plugin lists and
    installs from it, off the front end's loop."""
    market = marketplace(tmp_path / "market", "proj-tools", plugins=("hello",))
    write(
        workspace / ".claude" / "settings.json",
        json.dumps(
            {"extraKnownMarketplaces": {
                "proj-tools": {"source": {"source": "directory", "path": str(market)}}}}
        ),
    )  # fmt: skip
    front = CommandFront(None, workspace)  # type: ignore[arg-type]
    assert await run_command(front, "/plugin")
    listing = front.said[-1][0]
    assert "proj-tools  directory " in listing and "(from .claude/settings.json)" in listing
    assert "    hello@proj-tools  hello" in listing
    assert await run_command(front, "/plugin install hello@proj-tools")
    assert front.said[-1] == (
        "Installed hello@proj-tools unknown (scope user), on. It takes effect in the next "
        "session (/clear starts one).",
        "hint",
    )
    assert session_plugins(workspace) == ["hello@proj-tools"]
