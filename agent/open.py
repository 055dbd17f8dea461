"""The engine's front door: ``open_session`` builds a session from ``SessionOptions``.

Every front end (the TUI, line mode, headless, ACP) opens its sessions here and then talks
to the session through ops and events only. This is the one place that reads the settings,
the plugins, the memory, the skills and the agents of a workspace, builds the session's
configuration and its tools, and registers the session's extensions (agent/extension.py).
The plugins (agent/plugins) are composed here: their parts go to the loaders that read the
workspace's own (skills, hooks, MCP servers, agents, output styles; the front ends read their
commands from ``config.plugins``). The extensions, in this order:

1. the checkpoint settler (when the session is saved: ``tool_ended``),
2. the memory's path rules (``after_tool``: their notes join a result),
3. the skills' grants (``after_tool``, ``on_event``),
4. the hooks (every hook point but ``before_model_call``),
5. the MCP servers (``before_model_call``, ``on_prompt``),
6. the subagents (``on_prompt``: background reports; ``aclose``),
7. the front end's own (``open_session(..., extensions=...)``).

The order is the order of each hook point's answers: a prompt's added blocks are the hooks'
context, then the MCP resources, then the background reports; a result gets its memory
notes before the PostToolUse hooks see it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent.extension import Extension
from agent.hooks.config import load_hooks, missing_scripts
from agent.hooks.engine import HookEngine
from agent.hooks.extension import HooksExtension
from agent.memory import Memory
from agent.memory.files import claude_user_dir
from agent.memory.session import SessionMemory
from agent.model.pricing import DEFAULT_MODEL
from agent.model.protocol import Model
from agent.model.web_search import server_search_problem, server_tools
from agent.paths import config_dir, project_data_dir
from agent.permissions.places import session_places
from agent.permissions.policy import Rule
from agent.plugins.parts import hook_sources, mcp_servers
from agent.plugins.registry import PluginSet, load_plugins
from agent.prompt.output_styles import load_styles, pick_style
from agent.prompt.skills import SkillGrants, Skills, load_skills, read_rules
from agent.prompt.system import custom_system_prompt, system_prompt
from agent.sandbox.config import parse_sandbox_settings
from agent.session.config import SessionConfig, ToolSetup
from agent.session.core import Emit, Session
from agent.settings.files import Settings, build_policy, load_settings
from agent.settings.trust import ProjectTrust, project_trust
from agent.store.transcript import Transcript
from agent.subagents.attach import attach_workspace_agents
from agent.turn.outcome import Limits
from tools import default_tools
from tools.base import EditorTools, Tool
from tools.childenv import allow_secrets
from tools.websearch import WebSearchUnavailableTool

if TYPE_CHECKING:
    from agent.prompt.output_styles import OutputStyle


class SessionSetupError(Exception):
    """The session to resume cannot be opened (not found, in use, unreadable)."""


@dataclass(frozen=True)
class SessionOptions:
    """What a front end asks of a session (the command line's engine part).

    Attributes:
        workspace: the directory the session works in (absolute).
        headless: nobody can answer a permission question (ask means refuse).
        persist: record the session in a transcript (and resume per the options below).
        model: the model when ``model_explicit``, else the default (settings may choose).
        model_explicit: whether the model was asked for (a resumed session keeps its own
            otherwise).
        permission_mode: the mode asked for; ``default`` leaves the settings' defaultMode.
        allowed_tools: allow rules from the command line.
        disallowed_tools: deny rules from the command line.
        add_dirs: more directories the tools may read and change.
        max_turns: T for each prompt (None: no limit).
        max_budget_usd: B (None: no limit).
        continue_: continue the latest session of the workspace.
        resume: the id (or prefix) of a session to resume; "" or None: none.
        fork_session: resume into a new session (the original stays as it is).
        session_id: the id of a new session (or of the fork).
        mcp_config: more MCP server files (or JSON texts).
        strict_mcp_config: only the servers of ``mcp_config``.
        cleared: this new session replaces one the user cleared (SessionStart's source).
        plugin_dirs: plugins to load for this session (``--plugin-dir``).
        system_prompt: the session's own system prompt instead of eddy's (the memory files
            still follow it); "" means none of eddy's; None: eddy's.
        append_system_prompt: text added at the end of the system prompt.
        tools: the names of the built-in tools to offer (None: all of them); the others are
            neither offered nor callable. MCP tools are not affected.
        thinking: the request's ``thinking`` parameter (None: the API's default).
        setting_sources: read only the settings files of these scopes (user, project,
            local); None: all of them.
        settings: more settings (a file or JSON text) above the local files.
        editor: an editor that holds the files and runs the commands for the tools (ACP's
            ``fs`` and ``terminal``); None: the disk and eddy's own processes.
    """

    workspace: Path
    headless: bool = False
    persist: bool = True
    model: str = DEFAULT_MODEL
    model_explicit: bool = False
    permission_mode: str = "default"
    allowed_tools: tuple[str, ...] = ()
    disallowed_tools: tuple[str, ...] = ()
    add_dirs: tuple[Path, ...] = ()
    max_turns: int | None = None
    max_budget_usd: float | None = None
    continue_: bool = False
    resume: str | None = None
    fork_session: bool = False
    session_id: str | None = None
    mcp_config: tuple[str, ...] = ()
    strict_mcp_config: bool = False
    cleared: bool = False
    plugin_dirs: tuple[Path, ...] = ()
    system_prompt: str | None = None
    append_system_prompt: str = ""
    tools: tuple[str, ...] | None = None
    thinking: dict[str, Any] | None = None
    setting_sources: tuple[str, ...] | None = None
    settings: str | None = None
    editor: EditorTools | None = None


@dataclass
class OpenedSession:
    """A session just opened, and what its user should read once.

    Attributes:
        session: the session (close it with ``await session.close()``).
        problems: configuration problems, one sentence each.
        picked_up: what was read from Claude Code's files, one item each (the start-up
            line "Claude Code: ...").
    """

    session: Session
    problems: list[str] = field(default_factory=list)
    picked_up: list[str] = field(default_factory=list)


def open_transcript(options: SessionOptions) -> Transcript:
    """The transcript for ``options``: a new one, or the one to continue / resume / fork.

    Raises:
        SessionSetupError: with a message for the user.
    """
    from agent.store import listing as store_list
    from agent.store import load as repair
    from agent.store import transcript as store

    workspace = options.workspace
    try:
        if options.continue_ or options.resume:
            if options.resume:
                path = store_list.find_session(workspace, options.resume)
                if path is None:
                    raise SessionSetupError(f"No session {options.resume!r} in {workspace}.")
            else:
                path = store_list.latest_session(workspace)
                if path is None:
                    raise SessionSetupError(f"No earlier session in {workspace} to continue.")
            if options.fork_session:
                path = store.fork(path, options.session_id)
            return store.Transcript.open(path)
        return store.Transcript.create(
            workspace, model=options.model, session_id=options.session_id
        )
    except SessionSetupError:
        raise
    except FileExistsError as exc:
        raise SessionSetupError(
            f"A session with id {options.session_id!r} exists already."
        ) from exc
    except (OSError, repair.TranscriptError) as exc:
        raise SessionSetupError(str(exc)) from exc


def open_session(
    options: SessionOptions,
    emit: Emit,
    *,
    model: Model | None = None,
    tools: Sequence[Tool] | None = None,
    extensions: Sequence[Extension] = (),
) -> OpenedSession:
    """A session for ``options``, with its extensions registered.

    Args:
        options: what the front end asks for.
        emit: the event sink (the front end's).
        model: a model to use instead of the Anthropic client (tests, the demo).
        tools: the tools to offer instead of eddy's own (tests).
        extensions: the front end's own extensions (an Agent SDK's callbacks), registered
            after eddy's.

    Raises:
        SessionSetupError: the session to continue or resume cannot be opened.
    """
    workspace = options.workspace
    trusted, settings, plugins, problems = _read_workspace(options)
    config, memory = _config(options, settings, problems, trusted, plugins)
    if options.session_id is not None:  # a new session's (its transcript's, when it is saved)
        config.session_id = options.session_id
    transcript = open_transcript(options) if options.persist else None
    loaded = transcript.loaded if transcript is not None else None
    if loaded is not None and loaded.model and not options.model_explicit:
        config.model = loaded.model
    if model is None:
        from agent.model.anthropic import AnthropicModel

        model = AnthropicModel(config.model)
    setup = _tool_setup(options, settings, transcript)
    skills = load_skills(workspace, config.plugins, grant_project="skills" in trusted.approved)
    problems += skills.problems
    config.policy.allow += [Rule.parse(r) for r in read_rules(skills, workspace)]
    if tools is None:
        tools = _builtin_tools(options, skills)
    session = Session(config, model, list(tools), emit, setup)
    if transcript is not None:
        _attach_store(session, transcript, problems)
    session.add_extension(memory)
    if skills.found:
        session.add_extension(SkillGrants(skills, config.policy.allow))
    add_hooks(session, cleared=options.cleared)
    _add_mcp(session, settings, options, problems, plugins)
    attach_workspace_agents(session, settings.get("subagents"), problems)
    for extension in extensions:
        session.add_extension(extension)
    if transcript is not None:
        _continue(session, transcript, problems)
    picked = _picked_up(workspace, settings, memory, skills, plugins)
    return OpenedSession(session, problems, picked)


def _read_workspace(
    options: SessionOptions,
) -> tuple[ProjectTrust, Settings, PluginSet, list[str]]:
    """What the user approved of the project, the settings (their env applied), the plugins,
    and the problems met so far."""
    workspace = options.workspace
    trusted = project_trust(workspace, headless=options.headless, extra_dirs=options.add_dirs)
    settings, problems = load_settings(  # what the user approved, of the scopes asked for
        workspace, trusted.approved, scopes=options.setting_sources, flag_settings=options.settings
    )
    problems += trusted.notices
    from agent.settings.apply import apply_settings

    apply_settings(settings, problems)  # env first: the model and the provider read it
    plugins = load_plugins(workspace, settings.raw, options.plugin_dirs)
    problems += plugins.messages()
    return trusted, settings, plugins, problems


def _tool_setup(
    options: SessionOptions, settings: Settings, transcript: Transcript | None
) -> ToolSetup:
    """What the session's tools get from the options and the settings: the added
    directories, where Bash saves long output (next to the session's data), the editor."""
    extra_dirs = tuple(
        Path(d).expanduser().resolve()
        for d in [*settings.additional_directories, *options.add_dirs]
    )
    output_dir = None
    if transcript is not None:
        output_dir = project_data_dir(options.workspace) / "tool-output" / transcript.session_id
    return ToolSetup(extra_dirs=extra_dirs, output_dir=output_dir, editor=options.editor)


def _picked_up(
    workspace: Path, settings: Settings, memory: SessionMemory, skills: Skills, plugins: PluginSet
) -> list[str]:
    """What was read from Claude Code's files, and the plugins (the start-up line)."""
    picked = [
        *_settings_items(settings),
        *_memory_items(workspace, memory.memory, skills),
    ]
    if plugins:
        picked.append(f"{len(plugins)} plugin{'s' if len(plugins) != 1 else ''}")
    return picked


def _builtin_tools(options: SessionOptions, skills: Skills) -> list[Tool]:
    """eddy's own tools for ``options``: the Skill tool when there are skills, a WebSearch
    that says why it cannot search where the provider has none, only those ``tools`` names."""
    tools = [*default_tools(), skills.tool()] if skills.found else default_tools()
    no_search = server_search_problem()
    if no_search is not None:  # Bedrock: a WebSearch that says why it cannot search
        tools.append(WebSearchUnavailableTool(no_search))
    if options.tools is not None:
        tools = [t for t in tools if t.name in options.tools]
    return tools


def _continue(session: Session, transcript: Transcript, problems: list[str]) -> None:
    """Record the session in ``transcript``, continuing what it holds (a resumed session)."""
    session.attach_transcript(transcript)
    loaded = transcript.loaded
    if loaded is not None:
        problems.extend(f"resumed session: {p}" for p in loaded.problems)
        _say_gone_shells(session, loaded.history, problems)


def _say_gone_shells(session: Session, history: list[Any], problems: list[str]) -> None:
    """A resumed session: the background shells its earlier run left running are gone; the
    user reads it now, the model with the next prompt, and new shells get new ids."""
    from agent.session.gone_shells import GoneShells, gone_line, gone_shells

    gone, seen = gone_shells(history)
    session.shells.number_after(seen)
    if gone:
        problems.append(gone_line(gone))
        session.add_extension(GoneShells(gone))


def open_or_new(
    options: SessionOptions, emit: Emit, *, model: Model | None = None
) -> OpenedSession:
    """The session ``options`` ask for, for a front end with a person at it: if the session
    to continue or resume cannot be opened, a new one, with the reason first among the
    problems."""
    try:
        return open_session(options, emit, model=model)
    except SessionSetupError as exc:
        import dataclasses

        fresh = dataclasses.replace(
            options, continue_=False, resume=None, fork_session=False, session_id=None
        )
        opened = open_session(fresh, emit, model=model)
        opened.problems.insert(0, f"{exc} This is a new session.")
        return opened


def _config(
    options: SessionOptions,
    settings: Settings,
    problems: list[str],
    trusted: ProjectTrust,
    plugins: PluginSet,
) -> tuple[SessionConfig, SessionMemory]:
    """The session's configuration from the settings and the options, and its memory."""
    from agent.model.providers import chosen_model

    workspace = options.workspace
    # the launch's "default" is no choice: the settings' defaultMode applies then
    mode = None if options.permission_mode == "default" else options.permission_mode
    policy, flag_problems = build_policy(
        settings, mode, options.allowed_tools, options.disallowed_tools
    )
    problems += flag_problems
    model_id = (
        chosen_model(
            options.model if options.model_explicit else None,
            settings.model,
            managed="model" in settings.managed,
        )
        or options.model
    )
    memory = _memory(options, settings, trusted)
    build = _prompt_builder(options)
    problems += memory.problems
    style = pick_style(workspace, settings.get("outputStyle"), problems, plugins)
    config = SessionConfig(
        workspace=workspace,
        model=model_id,
        system=build(memory.text(), style),
        limits=Limits(options.max_turns, options.max_budget_usd),
        policy=policy,
        headless=options.headless,
        output_style=style,
        thinking=options.thinking,
    )
    budget = (options.thinking or {}).get("budget_tokens")
    if isinstance(budget, int) and budget >= config.max_tokens:  # the API's rule
        config.max_tokens = budget + 4096
    config.refresh_system = lambda: build(memory.reread(), config.output_style)
    config.sandbox = parse_sandbox_settings(settings.get("sandbox"), problems)
    config.plugins = list(plugins)
    # a project's plugins' hooks are the project's grants (agent/plugins/grants.py): they
    # apply as the project's own hooks do, once the user approved what the project grants
    plugin_hooks = hook_sources(plugins, workspace, approved=lambda kind: kind in trusted.approved)
    config.hooks = load_hooks([*plugin_hooks, *settings.raw], problems)
    problems += missing_scripts(config.hooks, workspace)  # said at start-up, not when it fails
    status = settings.get("statusLine")
    policy.places = session_places(
        workspace,
        config.hooks.commands(),
        status.get("command") if isinstance(status, dict) else None,
        memory.memory.imported(),
    )
    config.server_tools = server_tools(policy)
    _more_settings(config, settings, problems)
    return config, memory


def _memory(options: SessionOptions, settings: Settings, trusted: ProjectTrust) -> SessionMemory:
    """The session's memory: imports reach the workspace and the added directories (what the
    user trusts of them)."""
    workspace = options.workspace
    roots = (workspace, *settings.additional_directories, *options.add_dirs)
    return SessionMemory(
        workspace,
        config_dir(),
        trusted.import_roots(tuple(Path(r).expanduser().resolve() for r in roots)),
    )


def _more_settings(config: SessionConfig, settings: Settings, problems: list[str]) -> None:
    """The settings that shape the session beyond its prompt and rules: ``passSecretEnv``,
    ``autoCompact``, ``maxSelfStartedTurns``."""
    passed = settings.get("passSecretEnv", [])
    if isinstance(passed, list) and all(isinstance(x, str) for x in passed):
        allow_secrets(passed)
    else:
        problems.append("passSecretEnv: expected a list of variable names; ignored.")
    if settings.auto_compact is False:
        config.autocompact = None
    turns = settings.get("maxSelfStartedTurns", config.self_started_turns)
    if isinstance(turns, int) and not isinstance(turns, bool) and turns >= 0:
        config.self_started_turns = turns
    else:
        problems.append("maxSelfStartedTurns: expected a whole number (0 or more); ignored.")


def _prompt_builder(options: SessionOptions) -> Callable[[str, OutputStyle | None], str]:
    """``(memory, style) -> system prompt`` for ``options``: eddy's own, or the one given,
    with the text to append."""
    workspace, custom = options.workspace, options.system_prompt
    extra = options.append_system_prompt

    def build(memory: str, style: OutputStyle | None) -> str:
        if custom is not None:
            text = custom_system_prompt(custom, memory)
        else:
            text = system_prompt(workspace, memory, style=style)
        if extra.strip():
            text = f"{text.rstrip()}\n\n{extra.strip()}\n" if text.strip() else extra
        return text

    return build


def _attach_store(session: Session, transcript: Transcript, problems: list[str]) -> None:
    """Capture the session's code changes in a checkpoint store next to its transcript."""
    from agent.checkpoints.engine import CheckpointStore, session_checkpoint_dir

    workspace = session.config.workspace
    store = CheckpointStore(workspace, session_checkpoint_dir(workspace, transcript.session_id))
    if store.load_problem:
        problems.append(f"checkpoints: {store.load_problem}")
    session.attach_checkpoints(store)


def add_hooks(session: Session, *, cleared: bool = False) -> HooksExtension:
    """Register the session's configured hooks (``config.hooks``) as its extension.

    Args:
        session: the session.
        cleared: it replaces one the user cleared (SessionStart's source ``clear``).
    """
    config = session.config
    engine = HookEngine(
        config.hooks,
        config.workspace,
        session.emit,
        session.hook_fields,
        lambda: session.runner.turn_id,
    )
    if cleared:  # SessionStart says how this session began
        engine.start_source = "clear"
    hooks = HooksExtension(engine, lambda: session.resumed)
    session.add_extension(hooks)
    return hooks


def _add_mcp(
    session: Session,
    settings: Settings,
    options: SessionOptions,
    problems: list[str],
    plugins: PluginSet,
) -> None:
    """The configured MCP servers (starting in the background), as the session's extension."""
    from agent.mcp.setup import start_mcp

    manager, mcp_problems = start_mcp(
        options.workspace,
        settings.raw,
        mcp_config_files=options.mcp_config,
        strict=options.strict_mcp_config,
        headless=options.headless,
        plugin_servers=mcp_servers(plugins, options.workspace),
        roots=session.ctx.roots,  # the servers' roots/list: the workspace and --add-dir
    )
    problems += mcp_problems
    if manager is not None:
        manager.bind(session.tools, session.emit)
        session.add_extension(manager)


def _settings_items(settings: Settings) -> list[str]:
    """One item per Claude Code settings file read: ``.claude/settings.json (5 rules, env 2)``."""
    out: list[str] = []
    for source, data in settings.raw:
        if not source.claude:
            continue
        perms = data.get("permissions")
        rules = 0
        if isinstance(perms, dict):
            rules = sum(
                len(perms[k]) for k in ("allow", "ask", "deny") if isinstance(perms.get(k), list)
            )
        env = data.get("env")
        parts = [f"{rules} rule{'s' * (rules != 1)}"] if rules else []
        if isinstance(env, dict) and env:
            parts.append(f"env {len(env)}")
        parts += [key for key in ("model", "hooks", "statusLine", "outputStyle") if key in data]
        out.append(f"{source.label} ({', '.join(parts)})" if parts else source.label)
    return out


def _memory_items(workspace: Path, memory: Memory, skills: Skills) -> list[str]:
    """What was read from Claude Code's memory, skill and output-style files."""
    claude_dirs = (claude_user_dir(), workspace / ".claude")

    def from_claude(path: Path) -> bool:
        return any(d == path or d in path.parents for d in claude_dirs)

    items: list[str] = []
    count = memory.claude_md_count()
    if count:
        items.append(f"CLAUDE.md x{count}")
    rules = len(memory.rules) + len(memory.path_rules.rules)
    if rules:
        items.append(f"{rules} rule{'s' if rules != 1 else ''}")
    n = sum(1 for s in skills.found.values() if from_claude(s.path))
    if n:
        items.append(f"{n} skill{'s' if n != 1 else ''}")
    styles = [s for s in load_styles(workspace).values() if s.path is not None]
    if styles:
        items.append(f"{len(styles)} output style{'s' if len(styles) != 1 else ''}")
    return items
