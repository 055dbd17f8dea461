"""Reading a plugin directory as Claude Code defines it, and handing its parts to eddy's
loaders (commands, skills, agents, output styles, hooks, MCP servers)."""

from __future__ import annotations

import json
from pathlib import Path

from agent.hooks.config import load_hooks
from agent.mcp.config import load_mcp_config
from agent.plugins.parts import hook_sources, mcp_servers
from agent.plugins.plugin import read_plugin
from agent.plugins.registry import load_plugins
from agent.prompt.commands import custom_commands
from agent.prompt.output_styles import load_styles
from agent.prompt.skills import load_skills
from agent.subagents.definitions import load_agents
from tests.helpers.claude_repo import write
from tests.helpers.plugins import review_kit


def loaded(tmp_path: Path, *dirs: Path):  # type: ignore[no-untyped-def]
    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    return workspace, load_plugins(workspace, [], dirs)


def test_a_plugin_dir_brings_every_component_under_its_namespace(tmp_path: Path) -> None:
    root = review_kit(tmp_path / "kit")
    workspace, plugins = loaded(tmp_path, root)
    assert [p.plugin_id for p in plugins] == ["review-kit@inline"]
    commands = custom_commands(workspace, list(plugins))
    assert {"review-kit:review", "review-kit:git:log", "review-kit:lint"} <= set(commands)
    review = commands["review-kit:review"]
    assert review.allowed_tools == ("Bash(echo:*)",) and review.argument_hint == "[file]"
    assert review.expand("a.py b") == (
        f"REVIEW-CMD of a.py (all: a.py b) with {root.resolve()}/checklist.md\n"
    )
    skills = load_skills(workspace, list(plugins))
    assert skills.found["review-kit:lint"].body().strip() == (
        f"LINT-BODY: run {root.resolve()}/scripts/lint.sh"
    )
    agents = load_agents(workspace, home=tmp_path, config=tmp_path / "cfg", plugins=plugins)
    checker = agents.agents["review-kit:checker"]
    assert checker.tools == ("Read", "Grep") and checker.source == "plugin review-kit@inline"
    assert f"{root.resolve()}/checklist.md" in checker.prompt
    assert load_styles(workspace, [], plugins)["review-kit:terse"].body == "TERSE-STYLE"


def test_a_plugins_hooks_and_servers_reach_their_loaders_with_its_variables(
    tmp_path: Path,
) -> None:
    root = review_kit(tmp_path / "kit").resolve()
    workspace, plugins = loaded(tmp_path, root)
    problems: list[str] = []
    hooks = load_hooks(hook_sources(plugins, workspace, lambda kind: True), problems)
    assert problems == []
    (handler,) = hooks.handlers_for("PreToolUse", "Bash")
    assert handler.command == f'"{root}"/scripts/guard.sh'
    assert dict(handler.env)["CLAUDE_PLUGIN_ROOT"] == str(root)
    assert handler.source == "plugin review-kit@inline (hooks/hooks.json)"
    config = load_mcp_config(
        workspace, [], plugin_servers=mcp_servers(plugins, workspace), claude_json=tmp_path / "x"
    )
    server = config.servers["plugin_review-kit_tools"]
    assert server.scope == "user" and server.env["FAKE_MCP_LOG"] == f"{root}/mcp.log"
    assert server.env["CLAUDE_PLUGIN_ROOT"] == str(root)


def test_what_eddy_does_not_support_is_named_once(tmp_path: Path) -> None:
    _, plugins = loaded(tmp_path, review_kit(tmp_path / "kit"))
    assert plugins.unsupported == [
        "plugin review-kit@inline: not supported by eddy, left out: userConfig, "
        "LSP servers (.lsp.json)."
    ]
    assert plugins.problems == []


def test_without_a_manifest_the_default_layout_is_the_plugin_named_after_its_folder(
    tmp_path: Path,
) -> None:
    root = review_kit(tmp_path / "bare-kit", manifest=False)
    workspace, plugins = loaded(tmp_path, root)
    assert [p.plugin_id for p in plugins] == ["bare-kit@inline"]
    assert "bare-kit:review" in custom_commands(workspace, list(plugins))


def test_declared_paths_replace_or_add_to_the_defaults_as_claude_code_says(
    tmp_path: Path,
) -> None:
    root = tmp_path / "kit"
    write(root / "commands" / "default.md", "DEFAULT\n")
    write(root / "custom" / "special.md", "SPECIAL\n")
    write(root / "skills" / "a" / "SKILL.md", "---\nname: a\ndescription: A.\n---\nA\n")
    write(root / "more" / "b" / "SKILL.md", "---\nname: b\ndescription: B.\n---\nB\n")
    write(
        root / ".claude-plugin" / "plugin.json",
        json.dumps(
            {"name": "kit", "commands": ["./custom/special.md"], "skills": "./more/",
             "agents": "./../outside/", "outputStyles": "styles/"}
        ),
    )  # fmt: skip
    workspace, plugins = loaded(tmp_path, root)
    commands = custom_commands(workspace, list(plugins))
    assert "kit:special" in commands and "kit:default" not in commands  # commands replace
    assert {"kit:a", "kit:b"} <= set(load_skills(workspace, list(plugins)).found)  # skills add
    assert plugins.problems == [
        "plugin kit@inline: agents: './../outside/' leaves the plugin's directory; ignored.",
        "plugin kit@inline: outputStyles: 'styles/' must be relative to the plugin and start "
        "with ./; ignored.",
    ]


def test_a_skill_md_at_the_root_alone_is_a_one_skill_plugin(tmp_path: Path) -> None:
    root = write(
        tmp_path / "solo" / "SKILL.md", "---\nname: solo\ndescription: Solo.\n---\nSOLO\n"
    ).parent
    workspace, plugins = loaded(tmp_path, root)
    assert list(load_skills(workspace, list(plugins)).found) == ["solo:solo"]


def test_a_broken_plugin_is_one_line_naming_it_and_the_others_still_load(
    tmp_path: Path,
) -> None:
    bad = write(tmp_path / "bad" / ".claude-plugin" / "plugin.json", "{not json").parents[1]
    half = tmp_path / "half"
    write(half / "commands" / "ok.md", "OK\n")
    write(half / "hooks" / "hooks.json", "[1, 2")
    write(half / ".claude-plugin" / "plugin.json", json.dumps({"mcpServers": "./nope.json"}))
    good = review_kit(tmp_path / "good")
    workspace, plugins = loaded(tmp_path, bad, half, good)
    assert [p.name for p in plugins] == ["half", "review-kit"]
    assert len(plugins.problems) == 3
    assert plugins.problems[0].startswith(
        "plugin bad@inline: .claude-plugin/plugin.json cannot be read ("
    )
    assert plugins.problems[0].endswith("); not loaded.")
    assert plugins.problems[1].startswith("plugin half@inline: hooks: hooks/hooks.json cannot")
    assert plugins.problems[2] == (
        "plugin half@inline: mcpServers: ./nope.json does not exist; ignored."
    )
    assert "half:ok" in custom_commands(workspace, list(plugins))


def test_read_plugin_never_raises_on_a_missing_directory(tmp_path: Path) -> None:
    plugin = read_plugin(tmp_path / "gone", "gone@m")
    assert plugin.failed and plugin.problems == [
        f"plugin gone@m: its directory {tmp_path / 'gone'} does not exist; not loaded."
    ]
