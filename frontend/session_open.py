"""Open a session from the launch options: one opener for every front end (new, continue,
resume, fork)."""

from __future__ import annotations

from pathlib import Path

from agent.loop import Limits
from agent.model import Model
from agent.paths import config_dir
from agent.prompt import load_memory, system_prompt
from agent.sandbox import parse_sandbox_settings
from agent.session.config import SessionConfig
from agent.session.core import Emit, Session
from agent.settings.files import build_policy, load_settings
from agent.store.transcript import Transcript
from agent.subagents import attach_workspace_agents
from frontend.launch import LaunchOptions
from tools import default_tools
from tools.base import ToolContext
from tools.childenv import allow_secrets


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
    settings, problems = load_settings(workspace)
    policy, flag_problems = build_policy(
        settings, args.permission_mode, args.allowed_tools, args.disallowed_tools
    )
    problems += flag_problems
    model_id = settings.model if not args.model_explicit and settings.model else args.model
    extra_dirs = tuple(
        Path(d).expanduser().resolve() for d in [*settings.additional_directories, *args.add_dirs]
    )
    config = SessionConfig(
        workspace=workspace,
        model=model_id,
        system=system_prompt(workspace, load_memory(workspace, config_dir())),
        limits=Limits(args.max_turns, args.max_budget_usd),
        policy=policy,
        headless=headless,
        refresh_system=lambda: system_prompt(workspace, load_memory(workspace, config_dir())),
    )
    config.sandbox = parse_sandbox_settings(settings.get("sandbox"), problems)
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
    session = Session(config, model, default_tools(), emit, ctx)
    attach_workspace_agents(session, settings.get("subagents"), problems)
    if transcript is not None:
        from agent.checkpoints.engine import CheckpointStore, session_checkpoint_dir

        store_dir = session_checkpoint_dir(workspace, transcript.session_id)
        store = CheckpointStore(workspace, store_dir)
        if store.load_problem:
            problems.append(f"checkpoints: {store.load_problem}")
        session.attach_checkpoints(store)
        session.attach_transcript(transcript)
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
