"""Open a session from the launch options: one opener for every front end (new, continue,
resume, fork)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent.events import TurnFinished
from agent.hooks.config import load_hooks, missing_scripts
from agent.loop import Limits
from agent.memory.session import SessionMemory
from agent.model import Model
from agent.output_styles import pick_style
from agent.paths import config_dir, project_data_dir
from agent.permissions.places import session_places
from agent.permissions.policy import Rule
from agent.prompt import system_prompt
from agent.sandbox import parse_sandbox_settings
from agent.session.config import SessionConfig
from agent.session.core import Emit, Session
from agent.settings.files import build_policy, load_settings
from agent.settings.trust import project_trust
from agent.skills import SkillGrants, load_skills, read_rules
from agent.store.transcript import Transcript
from agent.subagents import attach_workspace_agents
from agent.web_search import server_search_problem, server_tools
from frontend.claude_pickup import claude_pickup, claude_problems
from frontend.launch import LaunchOptions
from frontend.statusline import parse_status_line
from tools import default_tools
from tools.base import ToolContext
from tools.childenv import allow_secrets
from tools.websearch import WebSearchUnavailableTool


class SessionSetupError(Exception):
    """The session to resume cannot be opened (not found, in use, unreadable)."""


def open_transcript(args: LaunchOptions, workspace: Path) -> Transcript:
    """The transcript for ``args``: a new one, or the one to continue / resume / fork.

    Raises:
        SessionSetupError: with a message for the user.
    """
    from agent.store import listing as store_list
    from agent.store import load as repair
    from agent.store import transcript as store

    try:
        if args.continue_ or args.resume is not None:
            if args.resume:
                path = store_list.find_session(workspace, args.resume)
                if path is None:
                    raise SessionSetupError(f"No session {args.resume!r} in {workspace}.")
            else:
                path = store_list.latest_session(workspace)
                if path is None:
                    raise SessionSetupError(f"No earlier session in {workspace} to continue.")
            if args.fork_session:
                path = store.fork(path, args.session_id)
            return store.Transcript.open(path)
        return store.Transcript.create(workspace, model=args.model, session_id=args.session_id)
    except SessionSetupError:
        raise
    except FileExistsError as exc:
        raise SessionSetupError(f"A session with id {args.session_id!r} exists already.") from exc
    except (OSError, repair.TranscriptError) as exc:
        raise SessionSetupError(str(exc)) from exc


def build_session(
    args: LaunchOptions,
    emit: Emit,
    *,
    headless: bool,
    model: Model | None = None,
    persist: bool = True,
) -> tuple[Session, list[str]]:
    """A session for ``args``; returns it with any configuration problems to show the user.

    Args:
        args: the parsed command line.
        emit: the event sink.
        headless: whether nobody can answer permission questions.
        model: a model to use instead of the Anthropic client (tests, the demo).
        persist: record the session in a transcript (and resume per ``args``).

    Raises:
        SessionSetupError: the session to resume cannot be opened.
    """
    workspace = args.workspace
    trusted = project_trust(workspace, headless=headless, extra_dirs=tuple(args.add_dirs))
    settings, problems = load_settings(workspace, trusted.approved)  # what it grants, approved
    problems += trusted.notices
    from agent.providers import chosen_model
    from agent.settings.apply import apply_settings
    from frontend.pickup import settings_items

    apply_settings(settings, problems)  # env first: the model and the provider read it
    # the launch's "default" is no choice: the settings' defaultMode applies then
    mode = None if args.permission_mode == "default" else args.permission_mode
    policy, flag_problems = build_policy(settings, mode, args.allowed_tools, args.disallowed_tools)
    problems += flag_problems
    model_id = (
        chosen_model(
            args.model if args.model_explicit else None,
            settings.model,
            managed="model" in settings.managed,
        )
        or args.model
    )
    extra_dirs = tuple(
        Path(d).expanduser().resolve() for d in [*settings.additional_directories, *args.add_dirs]
    )
    memory = SessionMemory(
        workspace,
        config_dir(),
        lambda text, style: system_prompt(workspace, text, style=style),
        trusted.import_roots((Path(workspace), *extra_dirs)),
    )
    problems += memory.problems
    style = pick_style(workspace, settings.get("outputStyle"), problems)
    config = SessionConfig(
        workspace=workspace,
        model=model_id,
        system=memory.system(style),
        limits=Limits(args.max_turns, args.max_budget_usd),
        policy=policy,
        headless=headless,
        output_style=style,
    )
    config.refresh_system = lambda: memory.refresh(config.output_style)
    config.sandbox = parse_sandbox_settings(settings.get("sandbox"), problems)
    config.hooks = load_hooks(settings.raw, problems)
    problems += missing_scripts(config.hooks, workspace)  # said at start-up, not when it fails
    status_line = parse_status_line(settings.get("statusLine"), problems)  # the front ends show it
    policy.places = session_places(
        workspace,
        config.hooks.commands(),
        status_line.command if status_line is not None else None,
        memory.memory.imported(),
    )
    config.picked_up = [*settings_items(settings), *claude_pickup(workspace)]
    passed = settings.get("passSecretEnv", [])
    if isinstance(passed, list) and all(isinstance(x, str) for x in passed):
        allow_secrets(passed)
    else:
        problems.append("passSecretEnv: expected a list of variable names; ignored.")
    if settings.auto_compact is False:
        config.autocompact = None
    transcript = open_transcript(args, workspace) if persist else None
    loaded = transcript.loaded if transcript is not None else None
    if loaded is not None and loaded.model and not args.model_explicit:
        config.model = loaded.model
    if model is None:
        from agent.anthropic_model import AnthropicModel

        model = AnthropicModel(config.model)
    ctx = ToolContext(workspace, extra_dirs=extra_dirs)
    skills = load_skills(workspace, grant_project="skills" in trusted.approved)
    problems += skills.problems
    problems += claude_problems(workspace)
    policy.allow += [Rule.parse(r) for r in read_rules(skills, workspace)]
    skill_tool = skills.tool(ask_project=not trusted.vouched)
    tools = [*default_tools(), skill_tool] if skills.found else default_tools()
    grants = SkillGrants(skills, policy.allow)
    config.server_tools = server_tools(policy)
    no_search = server_search_problem()
    if no_search is not None:  # Bedrock: a WebSearch that says why it cannot search
        tools.append(WebSearchUnavailableTool(no_search))

    def emit_ending_grants(event: Any) -> None:
        if isinstance(event, TurnFinished):  # a skill's allowed-tools end with its turn
            grants.end_turn()
        emit(event)

    session = Session(config, model, tools, emit_ending_grants if skills.found else emit, ctx)
    if args.cleared:  # SessionStart says how this session began
        session.hooks.start_source = "clear"
    session.runner.result_note = lambda tool, args: (
        memory.note_for(tool, args) + grants.note_for(tool, args)
    )
    from agent.mcp.setup import attach_mcp

    problems += attach_mcp(
        session,
        settings.raw,
        mcp_config_files=args.mcp_config,
        strict=args.strict_mcp_config,
        headless=headless,
    )
    attach_workspace_agents(session, settings.get("subagents"), problems)
    if transcript is not None:
        from agent.checkpoints.engine import CheckpointStore, session_checkpoint_dir

        store_dir = session_checkpoint_dir(workspace, transcript.session_id)
        store = CheckpointStore(workspace, store_dir)
        if store.load_problem:
            problems.append(f"checkpoints: {store.load_problem}")
        session.attach_checkpoints(store)
        session.attach_transcript(transcript)
        ctx.output_dir = project_data_dir(workspace) / "tool-output" / transcript.session_id
        if loaded is not None:
            problems.extend(f"resumed session: {p}" for p in loaded.problems)
    return session, problems


def open_interactive(
    args: LaunchOptions, emit: Emit, *, model: Model | None = None
) -> tuple[Session, list[str]]:
    """The session ``args`` ask for, for a front end with a person at it: if the session to
    continue or resume cannot be opened, a new one, with the reason first among the problems.
    """
    try:
        return build_session(args, emit, headless=False, model=model)
    except SessionSetupError as exc:
        session, problems = build_session(args.opening(), emit, headless=False, model=model)
        return session, [f"{exc} This is a new session.", *problems]
