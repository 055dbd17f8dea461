"""What the Agent SDK's ``initialize`` request adds to the command line.

The SDKs send part of their options there instead of as flags (all of them: hooks with
callback ids, agents; the TypeScript SDK also the system prompt, the JSON schema, its
in-process MCP servers' names and, with ``--await-initialize``, the other MCP servers and the
disallowed tools). eddy opens its session only once ``initialize`` has come, so all of it
is there from the session's first request on. What eddy cannot honour is a problem said on
stderr (and in the answer's ``*_applied`` fields), never a silent no-op. Fields that change
nothing in eddy are not read: ``excludeDynamicSections`` and ``systemPromptSnapshot`` (eddy's
system prompt is stable for the whole session anyway), ``forwardSubagentText`` (a subagent's
whole messages are forwarded), ``sdkMcpServerManifests`` (the servers are asked over the
channel).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from agent.hooks.config import HookConfig
from agent.subagents.definitions import MODEL_ALIASES, PERMISSION_MODES, AgentDefinition
from frontend.launch import LaunchOptions
from headless.sdk_hooks import hook_config
from headless.sdk_structured import TOOL_NAME


@dataclass
class SdkSetup:
    """The session to open, as the command line and ``initialize`` ask for it.

    Attributes:
        args: the command line with ``initialize``'s additions.
        hooks: the SDK's hook callbacks.
        agents: the SDK's agent types.
        title: a title for the session (``initialize``'s ``title``).
        skills: the only skills the Skill tool lists (``initialize``'s ``skills``; None:
            every skill found).
        problems: what cannot be honoured, one sentence each.
        applied: the answer's ``*_applied`` fields.
    """

    args: LaunchOptions
    hooks: HookConfig = field(default_factory=HookConfig)
    agents: list[AgentDefinition] = field(default_factory=list)
    title: str | None = None
    skills: tuple[str, ...] | None = None
    problems: list[str] = field(default_factory=list)
    applied: dict[str, bool] = field(default_factory=dict)


def sdk_setup(args: LaunchOptions, init: dict[str, Any] | None) -> SdkSetup:
    """The session ``args`` and the ``initialize`` request ``init`` (None: none came) ask for."""
    init = init or {}
    setup = SdkSetup(args)
    problems = setup.problems
    changes = _prompt_changes(args, init)
    changes.update(_tool_changes(args, init, changes.get("json_schema"), setup))
    if init.get("plugins"):
        problems.append(
            "initialize: plugins: eddy loads plugins from --plugin-dir only; none was loaded"
            " from initialize."
        )
        setup.applied["plugins_applied"] = False
    setup.skills = _skills(init.get("skills"), problems)
    if isinstance(init.get("title"), str) and init["title"].strip():
        setup.title = init["title"].strip()
    setup.args = args.replace(**changes) if changes else args
    setup.hooks = hook_config(init.get("hooks"), problems)
    setup.agents = agent_definitions(init.get("agents"), problems)
    return setup


def _prompt_changes(args: LaunchOptions, init: dict[str, Any]) -> dict[str, Any]:
    """The system prompt, what is appended to it, and the answer's JSON schema."""
    changes: dict[str, Any] = {}
    system = init.get("systemPrompt")
    if isinstance(system, list) and all(isinstance(s, str) for s in system):
        changes["system_prompt"] = "\n\n".join(system)
    elif isinstance(system, str):
        changes["system_prompt"] = system
    append = init.get("appendSystemPrompt")
    if isinstance(append, str) and append.strip():
        joined = [a for a in (args.append_system_prompt, append) if a.strip()]
        changes["append_system_prompt"] = "\n\n".join(joined)
    schema = init.get("jsonSchema")
    if isinstance(schema, dict):
        changes["json_schema"] = schema
    return changes


def _tool_changes(
    args: LaunchOptions, init: dict[str, Any], schema: dict[str, Any] | None, setup: SdkSetup
) -> dict[str, Any]:
    """The MCP servers, the disallowed tools, and the structured answer's tool allowed when a
    JSON schema is asked for (``schema``: initialize's)."""
    changes: dict[str, Any] = {}
    servers = _mcp_servers(init, setup.problems, setup.applied)
    if servers:
        changes["mcp_config"] = (*args.mcp_config, json.dumps({"mcpServers": servers}))
    disallowed = init.get("disallowedTools")
    if isinstance(disallowed, list):
        changes["disallowed_tools"] = (*args.disallowed_tools, *(str(d) for d in disallowed))
    if (schema or args.json_schema) is not None:
        changes["allowed_tools"] = (*args.allowed_tools, TOOL_NAME)
    return changes


def _skills(skills: Any, problems: list[str]) -> tuple[str, ...] | None:
    """The only skills the Skill tool lists (None: every skill found)."""
    if isinstance(skills, list):
        return tuple(str(name) for name in skills)
    if skills is not None and skills != "all":
        problems.append("initialize: skills: expected a list of skill names; ignored.")
    return None


def _mcp_servers(
    init: dict[str, Any], problems: list[str], applied: dict[str, bool]
) -> dict[str, Any]:
    """The MCP servers ``initialize`` names: the SDK's in-process ones (``sdkMcpServers``)
    and, with ``--await-initialize``, the others (``mcpServers``)."""
    servers: dict[str, Any] = {}
    given = init.get("mcpServers")
    if isinstance(given, dict):
        servers.update(given)
        applied["mcp_servers_applied"] = True
    elif given is not None:
        problems.append("initialize: mcpServers: expected an object of servers; ignored.")
    names = init.get("sdkMcpServers")
    for name in names if isinstance(names, list) else []:
        servers[str(name)] = {"type": "sdk", "name": str(name)}
    return servers


def agent_definitions(agents: Any, problems: list[str]) -> list[AgentDefinition]:
    """The SDK's agents (``{name: {description, prompt, tools, disallowedTools, model,
    maxTurns, permissionMode, ...}}``) as eddy's agent types."""
    if agents is None:
        return []
    if not isinstance(agents, dict):
        problems.append("initialize: agents: expected an object of agent definitions; ignored.")
        return []
    out = []
    for name, spec in agents.items():
        where = f"initialize: agents.{name}"
        if not isinstance(spec, dict):
            problems.append(f"{where}: expected an object; ignored.")
            continue
        description, prompt = spec.get("description"), spec.get("prompt")
        if not isinstance(description, str) or not isinstance(prompt, str):
            problems.append(f"{where}: needs a description and a prompt; ignored.")
            continue
        model = spec.get("model")
        if not isinstance(model, str) or model == "inherit":
            model = None
        mode = spec.get("permissionMode")
        max_turns = spec.get("maxTurns")
        out.append(
            AgentDefinition(
                name=str(name),
                description=description,
                prompt=prompt,
                tools=_names(spec.get("tools")),
                disallowed=_names(spec.get("disallowedTools")) or (),
                model=MODEL_ALIASES.get(model, model) if model else None,
                permission_mode=mode if mode in PERMISSION_MODES else None,
                max_turns=max_turns if isinstance(max_turns, int) and max_turns > 0 else None,
                source="Agent SDK",
            )
        )
    return out


def _names(value: Any) -> tuple[str, ...] | None:
    if not isinstance(value, list):
        return None
    return tuple("Agent" if str(v) == "Task" else str(v) for v in value)
