"""A plugin in a real session (the front door, the real SDK, the fake Messages API): its
hook judges a call, its MCP server's tools are offered and run, its command and agent are
there, and a project's plugin waits for the approval a project's servers need."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent import events as ev
from agent import ops
from agent.hooks.config import load_hooks
from agent.mcp.approval import may_start
from agent.mcp.config import load_mcp_config
from agent.plugins.grants import plugin_grants
from agent.plugins.parts import hook_sources, mcp_servers
from agent.plugins.registry import load_plugins
from agent.prompt.commands import custom_commands
from agent.settings import trust
from agent.settings.files import load_settings
from agent.settings.grants import collect_grants
from frontend.commands import start_command
from tests.fakes.fake_api import FakeAnthropic, Reply, text, tool_use
from tests.helpers.claude_repo import CommandFront, open_session, write
from tests.helpers.plugins import review_kit

MCP_TOOL = "mcp__plugin_review-kit_tools__echo"


def results(request: dict) -> list[dict]:  # type: ignore[type-arg]
    return [b for b in request["messages"][-1]["content"] if b.get("type") == "tool_result"]


async def test_a_plugin_dirs_hook_server_agent_and_command_work_in_a_session(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    root = review_kit(tmp_path / "kit").resolve()
    workspace = tmp_path / "ws"
    workspace.mkdir()
    fake_api.push(
        Reply(
            [
                tool_use("b1", "Bash", {"command": "rm -rf build"}),
                tool_use("m1", MCP_TOOL, {"text": "hi"}),
            ],
            "tool_use",
        ),
        Reply([text("done")]),
        Reply([text("reviewed")]),
    )
    session, events, problems = open_session(
        fake_api,
        workspace,
        "--plugin-dir",
        str(root),
        "--allowed-tools",
        "mcp__plugin_review-kit_tools",
    )
    assert "plugin review-kit@inline: not supported by eddy, left out: userConfig, LSP " in (
        " ".join(problems)
    )
    session.submit(ops.SubmitPrompt("clean up"))
    await session.wait_idle()
    first = fake_api.requests[0]
    names = [t["name"] for t in first["tools"]]
    assert MCP_TOOL in names
    agent_tool = next(t for t in first["tools"] if t["name"] == "Agent")
    assert "review-kit:checker" in agent_tool["description"]
    bash, mcp = results(fake_api.requests[1])
    assert bash["is_error"] and "review-kit refuses rm" in json.dumps(bash)
    assert not mcp.get("is_error") and "echo: hi" in json.dumps(mcp)
    log = (root / "hook.log").read_text()
    assert f"root={root} data=" in log and "review-kit-inline" in log
    assert (root / "mcp.log").read_text().startswith("start")
    front = CommandFront(session, workspace)
    start_command(front, "/review-kit:review src/app.py")
    await session.wait_idle()
    await session.close()
    sent = json.dumps(fake_api.requests[2]["messages"][-1])
    assert f"REVIEW-CMD of src/app.py (all: src/app.py) with {root}/checklist.md" in sent
    assert fake_api.violations == []
    assert events.of(ev.TurnFinished)[-1].subtype == "success"


def test_a_plugin_the_project_switches_on_is_the_projects_grant(tmp_path: Path) -> None:
    """The project's settings switch on a plugin the user installed: its hooks and server are
    listed as the project's grants, its hooks wait for the trust layer's yes, and its server
    for the per-server approval (scope project)."""
    root = review_kit(tmp_path / "cache" / "review-kit").resolve()
    home = Path(__import__("os").environ["CLAUDE_CONFIG_DIR"]) / "plugins"
    write(
        home / "installed_plugins.json",
        json.dumps(
            {"version": 2, "plugins": {"review-kit@team": [
                {"scope": "user", "installPath": str(root), "version": "1.2.0"}]}}
        ),
    )  # fmt: skip
    workspace = tmp_path / "ws"
    write(
        workspace / ".claude" / "settings.json",
        json.dumps({"enabledPlugins": {"review-kit@team": True}}),
    )
    settings, _ = load_settings(workspace)
    plugins = load_plugins(workspace, settings.raw)
    (plugin,) = plugins
    assert plugin.borne == "project" and plugin.enabled_by == ".claude/settings.json"
    grants = plugin_grants(workspace, settings.raw)
    assert [(g.kind, g.text.split(":")[0]) for g in grants] == [
        ("hooks", f'runs `"{root}"/scripts/guard.sh` on PreToolUse[Bash]'.split(":")[0]),
        ("mcp", "MCP server plugin_review-kit_tools"),
        ("skills", "command /review-kit"),
    ]
    assert grants[0].source == "plugin review-kit@team (switched on in .claude/settings.json)"
    refused = load_hooks(hook_sources(plugins, workspace, lambda kind: kind != "hooks"), [])
    assert refused.handlers_for("PreToolUse", "Bash") == []
    config = load_mcp_config(
        workspace, settings.raw, plugin_servers=mcp_servers(plugins, workspace)
    )
    server = config.servers["plugin_review-kit_tools"]
    assert server.scope == "project"
    assert not may_start(server, workspace, headless=False)  # asked, as .mcp.json's are


def install_for_the_project(tmp_path: Path) -> tuple[Path, Path]:
    """review-kit installed by the user, switched on by the project's settings: (root, ws)."""
    root = review_kit(tmp_path / "cache" / "review-kit").resolve()
    home = Path(__import__("os").environ["CLAUDE_CONFIG_DIR"]) / "plugins"
    write(
        home / "installed_plugins.json",
        json.dumps(
            {"version": 2, "plugins": {"review-kit@team": [
                {"scope": "user", "installPath": str(root), "version": "1.2.0"}]}}
        ),
    )  # fmt: skip
    workspace = tmp_path / "ws"
    write(
        workspace / ".claude" / "settings.json",
        json.dumps({"enabledPlugins": {"review-kit@team": True}}),
    )
    return root, workspace


async def test_a_project_plugin_is_in_the_trust_question_and_waits_for_the_users_yes(
    fake_api: FakeAnthropic, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The trust layer (issue 33) covers a project's plugin as the project's own files: the
    question lists what it would run, and its hook and its command's allowed-tools take
    effect only after the user's yes."""
    monkeypatch.delenv("EDDY_TRUSTED_FOLDERS", raising=False)
    root, workspace = install_for_the_project(tmp_path)
    source = "plugin review-kit@team (switched on in .claude/settings.json)"
    lines = trust.question(workspace)
    assert f'  • {source}: runs `"{root}"/scripts/guard.sh` on PreToolUse[Bash]' in lines
    assert f"  • {source}: command /review-kit:review may use Bash(echo:*) without asking" in (
        lines
    )
    session, _, _ = open_session(fake_api, workspace, headless=False)
    assert session.config.hooks.handlers_for("PreToolUse", "Bash") == []
    review = custom_commands(workspace, session.config.plugins)["review-kit:review"]
    assert review.allowed_tools == ()
    await session.close()
    trust.trust(workspace)  # the user's yes to what the question listed
    session, _, _ = open_session(fake_api, workspace, headless=False)
    assert [h.source for h in session.config.hooks.handlers_for("PreToolUse", "Bash")] == [
        "plugin review-kit@team (hooks/hooks.json)"
    ]
    review = custom_commands(workspace, session.config.plugins)["review-kit:review"]
    assert review.allowed_tools == ("Bash(echo:*)",)
    await session.close()
    # a change of the plugin's hooks asks again; its commands' approval stands
    write(root / "hooks" / "hooks.json", json.dumps({"hooks": {"Stop": [
        {"hooks": [{"type": "command", "command": "echo changed"}]}]}}))  # fmt: skip
    assert trust.pending_kinds(workspace, collect_grants(workspace)) == ["hooks"]


def test_the_users_own_switch_makes_an_installed_plugin_theirs(tmp_path: Path) -> None:
    root = review_kit(tmp_path / "cache" / "review-kit").resolve()
    home = Path(__import__("os").environ["CLAUDE_CONFIG_DIR"]) / "plugins"
    write(
        home / "installed_plugins.json",
        json.dumps(
            {"version": 2, "plugins": {"review-kit@team": [
                {"scope": "user", "installPath": str(root), "version": "1.2.0"}],
                "other@team": [{"scope": "project", "installPath": str(root),
                                "projectPath": str(tmp_path / "elsewhere")}]}}
        ),
    )  # fmt: skip
    workspace = tmp_path / "ws"
    workspace.mkdir()
    plugins = load_plugins(workspace, [])
    assert [(p.plugin_id, p.borne, p.enabled_by) for p in plugins] == [
        ("review-kit@team", "user", "installed")
    ]  # other@team was installed for another project
    off = load_plugins(workspace, [("x", {"enabledPlugins": {"review-kit@team": False}})])
    assert len(off) == 0
    missing = load_plugins(workspace, [("x", {"enabledPlugins": {"gone@team": True}})])
    assert missing.problems == [
        "plugin gone@team: switched on in x but not installed; /plugin install gone@team "
        "installs it."
    ]
