"""The ACP agent: what an editor may ask of eddy over JSON-RPC.

Each method opens or drives a :class:`acp_agent.live.LiveSession`; sessions are built with the
one opener every front end uses (:func:`agent.open.open_session`), so settings,
permission rules, checkpoints and transcripts behave as in the TUI. eddy's own extensions are
``_eddy/checkpoints`` and ``_eddy/rewind`` (the protocol reserves ``_``-prefixed methods).
"""

from __future__ import annotations

import asyncio
import datetime
import logging
from pathlib import Path
from typing import Any

from acp import PROTOCOL_VERSION, RequestError, schema
from acp.helpers import update_available_commands, update_plan

from acp_agent.client_fs import EditorFiles, offers_files
from acp_agent.client_terminal import EditorTerminal, offers_terminal
from acp_agent.commands import available_commands, run_slash
from acp_agent.live import LiveSession
from acp_agent.mcp_servers import CAPABILITIES as MCP_CAPABILITIES
from acp_agent.mcp_servers import mcp_config_text
from acp_agent.prompts import prompt_text
from acp_agent.updates import MODE_NAMES, plan_entries
from agent import events as ev
from agent import ops
from agent.model.protocol import Model
from agent.open import SessionSetupError
from agent.store.transcript import new_session_id
from frontend.images import attachments_dir
from frontend.launch import NO_KEY_MESSAGE, LaunchOptions, has_api_key
from frontend.session_open import build_session
from tools.base import EditorTools

log = logging.getLogger("eddy.acp")


def eddy_version() -> str:
    """The installed package's version, or "unknown" in a bare checkout."""
    from importlib import metadata

    try:
        return metadata.version("eddy")
    except metadata.PackageNotFoundError:
        return "unknown"


REWIND_MODES: tuple[ops.RewindMode, ...] = ("both", "code", "conversation")


def session_modes(current: str) -> schema.SessionModeState:
    """eddy's permission modes as ACP session modes."""
    return schema.SessionModeState(
        current_mode_id=current,
        available_modes=[
            schema.SessionMode(id=mode, name=name, description=text)
            for mode, (name, text) in MODE_NAMES.items()
        ],
    )


class EddyAgent:
    """eddy's ``acp.Agent``.

    Args:
        options: the command line (model, limits, rules, permission mode) for every session.
        model_factory: builds the model of a session (tests, the bench); None: the Anthropic
            client.
    """

    def __init__(self, options: LaunchOptions, model_factory: Any = None) -> None:
        self.options = options
        self.model_factory = model_factory
        self.conn: Any = None
        self.sessions: dict[str, LiveSession] = {}
        self.client_capabilities: schema.ClientCapabilities | None = None
        self._warming: set[asyncio.Task[None]] = set()

    def on_connect(self, conn: Any) -> None:
        """The connection to the client (updates, permission questions)."""
        self.conn = conn

    # -- the handshake --------------------------------------------------------------------
    async def initialize(
        self,
        protocol_version: int,
        client_capabilities: schema.ClientCapabilities | None = None,
        client_info: schema.Implementation | None = None,
        **kwargs: Any,
    ) -> schema.InitializeResponse:
        """Protocol version 1; sessions load and list; prompts may carry images and context."""
        self.client_capabilities = client_capabilities
        if client_info is not None:
            log.info("client: %s %s", client_info.name, client_info.version)
        return schema.InitializeResponse(
            protocol_version=PROTOCOL_VERSION,
            agent_capabilities=schema.AgentCapabilities(
                load_session=True,
                mcp_capabilities=MCP_CAPABILITIES,
                prompt_capabilities=schema.PromptCapabilities(
                    image=True, audio=False, embedded_context=True
                ),
                session_capabilities=schema.SessionCapabilities(
                    list=schema.SessionListCapabilities()
                ),
            ),
            agent_info=schema.Implementation(name="eddy", title="eddy", version=eddy_version()),
            auth_methods=[],
        )

    async def authenticate(self, method_id: str, **kwargs: Any) -> None:
        """eddy reads its key from the environment: nothing to authenticate."""
        return None

    # -- sessions -------------------------------------------------------------------------
    def _open(self, cwd: str, mcp_servers: Any, *, resume: str | None = None) -> LiveSession:
        if self.model_factory is None and not has_api_key():
            # said before any model call, as the editor's sign-in error
            raise RequestError.auth_required({"message": NO_KEY_MESSAGE})
        workspace = Path(cwd).expanduser().resolve()
        if not workspace.is_dir():
            raise RequestError.invalid_params({"cwd": f"{cwd} is not a directory"})
        editor_mcp, mcp_problems = mcp_config_text(mcp_servers)
        if mcp_servers:
            names = [getattr(s, "name", "?") for s in mcp_servers]
            log.info("starting the client's MCP servers: %s", names)
        live = LiveSession(self.conn, workspace)
        session_id = resume or new_session_id()  # named by the editor's files and terminal
        args = self.options.replace(
            cwd=workspace,
            resume=resume,
            continue_=False,
            fork_session=False,
            session_id=None if resume else session_id,
            add_dirs=(*self.options.add_dirs, attachments_dir(workspace)),
        )
        if editor_mcp is not None:  # the editor's servers: no approval, the same manager
            args = args.replace(mcp_config=(*args.mcp_config, editor_mcp))
        model: Model | None = self.model_factory() if self.model_factory else None
        try:
            editor = self._editor(session_id)
            opened = build_session(args, live.emit, headless=False, model=model, editor=editor)
        except SessionSetupError as exc:
            raise RequestError.invalid_params({"sessionId": str(exc)}) from exc
        session, problems = opened.session, opened.problems + mcp_problems
        from agent.mcp.manager import McpManager

        manager = session.extension(McpManager)
        if editor_mcp is not None and manager is not None:
            manager.wait_before_first_call()  # the editor expects them on the first prompt
        live.start(session)
        self._warm_up(session.model)
        from agent.mcp.ask import unanswered, waiting_line

        waiting = unanswered(manager, workspace)
        for problem in [*problems, *([waiting_line(waiting)] if waiting else [])]:
            live.say(f"*eddy: {problem}*")
        self.sessions[live.session_id] = live
        live.send(update_available_commands(available_commands(workspace, session.config.plugins)))
        return live

    def _warm_up(self, model: Any) -> None:
        """Make the model's SDK client and open its connection to the API while the user
        writes the first prompt, as the terminal app does after start-up."""
        from agent.model.anthropic import warm_up  # not at the server's start-up

        task = asyncio.get_running_loop().create_task(warm_up(model))
        self._warming.add(task)
        task.add_done_callback(self._warming.discard)

    def _editor(self, session_id: str) -> EditorTools:
        """What the client offers the tools: its files (reads see its unsaved buffers; changes
        go through it, checkpointed) and its terminal (Bash's command line as eddy builds it:
        sandbox, cwd, checkpoints)."""
        caps = self.client_capabilities
        return EditorTools(
            EditorFiles(self.conn, session_id) if offers_files(caps) else None,
            EditorTerminal(self.conn, session_id) if offers_terminal(caps) else None,
        )

    def _live(self, session_id: str) -> LiveSession:
        live = self.sessions.get(session_id)
        if live is None:
            raise RequestError.invalid_params({"sessionId": f"no open session {session_id!r}"})
        return live

    async def new_session(
        self,
        cwd: str,
        additional_directories: list[str] | None = None,
        mcp_servers: list[Any] | None = None,
        **kwargs: Any,
    ) -> schema.NewSessionResponse:
        """A new session in ``cwd``."""
        live = self._open(cwd, mcp_servers)
        assert live.session is not None
        mode = live.session.status().mode
        return schema.NewSessionResponse(session_id=live.session_id, modes=session_modes(mode))

    async def load_session(
        self,
        cwd: str,
        session_id: str,
        mcp_servers: list[Any] | None = None,
        additional_directories: list[str] | None = None,
        **kwargs: Any,
    ) -> schema.LoadSessionResponse:
        """Resume a saved session; its history is replayed as updates before the answer."""
        from frontend.history_events import history_events
        from tools import default_tools

        old = self.sessions.pop(session_id, None)
        if old is not None:
            await old.close()
        live = self._open(cwd, mcp_servers, resume=session_id)
        assert live.session is not None
        tools = {tool.name: tool for tool in default_tools()}

        def summary(name: str, call_input: dict[str, Any]) -> str:
            tool = tools.get(name)
            return tool.summary(call_input) if tool is not None else ""

        live.replay(history_events(live.session.history, summary))
        if live.session.todos:
            live.send(update_plan(plan_entries(tuple(live.session.todos))))
        await live.flushed()
        return schema.LoadSessionResponse(modes=session_modes(live.session.status().mode))

    async def list_sessions(
        self, cwd: str | None = None, cursor: str | None = None, **kwargs: Any
    ) -> schema.ListSessionsResponse:
        """The saved sessions of ``cwd`` (default: eddy's directory), newest first."""
        from agent.store.listing import list_sessions

        workspace = Path(cwd or self.options.workspace).expanduser().resolve()
        out = []
        for info in list_sessions(workspace):
            updated = None
            if info.last_activity is not None:
                stamp = datetime.datetime.fromtimestamp(info.last_activity, datetime.UTC)
                updated = stamp.isoformat().replace("+00:00", "Z")
            first_line = next(iter((info.first_prompt or "").strip().splitlines()), "")
            out.append(
                schema.SessionInfo(
                    session_id=info.session_id,
                    cwd=str(workspace),
                    title=(info.title or first_line)[:80] or None,
                    updated_at=updated,
                )
            )
        return schema.ListSessionsResponse(sessions=out)

    async def set_session_mode(self, session_id: str, mode_id: str, **kwargs: Any) -> None:
        """Switch the permission mode (answered by a ``current_mode_update`` as well)."""
        live = self._live(session_id)
        events = live.capture(ops.SetPermissionMode(mode_id))
        errors = [e.message for e in events if isinstance(e, ev.Error)]
        if errors:
            raise RequestError.invalid_params({"modeId": errors[0]})
        return None

    # -- turns ------------------------------------------------------------------------------
    async def prompt(
        self, session_id: str, prompt: list[Any], **kwargs: Any
    ) -> schema.PromptResponse:
        """Run a prompt to the end of its turn. While a turn runs it is a queued correction:
        the model reads it after the running tools, and it is answered when the turn ends."""
        live = self._live(session_id)
        text = prompt_text(prompt, live.workspace)
        assert live.session is not None
        if text.startswith("/"):
            # as in the TUI: commands usable during a turn run now, the others say to wait
            was_busy = live.session.busy
            handled, sent = await run_slash(live, text)
            if handled:
                for queued in sent:
                    reason = await live.run_prompt(queued)
                    if reason == "cancelled":
                        return schema.PromptResponse(stop_reason=reason)
                if not was_busy:
                    await live.session.wait_idle()  # /compact runs as a task
                await live.flushed()
                return schema.PromptResponse(stop_reason="end_turn")
        return schema.PromptResponse(stop_reason=await live.run_prompt(text))

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        """``session/cancel``: Esc. The running turn stops; its prompt answers "cancelled"."""
        live = self.sessions.get(session_id)
        if live is not None:
            live.cancel()

    # -- eddy's extensions --------------------------------------------------------------
    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """``_eddy/checkpoints`` {sessionId} and ``_eddy/rewind`` {sessionId, number, mode,
        overwrite}."""
        if method == "eddy/checkpoints":
            live = self._live(str(params.get("sessionId", "")))
            assert live.session is not None
            entries = [
                {"number": e.number, "prompt": e.prompt, "summary": e.summary, "redo": e.redo}
                for e in live.session.checkpoints()
            ]
            return {"checkpoints": entries}
        if method == "eddy/rewind":
            return await self._rewind(params)
        raise RequestError.method_not_found(f"_{method}")

    async def _rewind(self, params: dict[str, Any]) -> dict[str, Any]:
        live = self._live(str(params.get("sessionId", "")))
        number, mode = params.get("number"), params.get("mode", "both")
        if not isinstance(number, int) or isinstance(number, bool) or mode not in REWIND_MODES:
            raise RequestError.invalid_params(
                {"expected": "number: an int from _eddy/checkpoints; mode: both|code|conversation"}
            )
        overwrite = bool(params.get("overwrite", False))
        events = live.capture(ops.Rewind(number, mode, overwrite))
        await live.flushed()
        for event in events:
            if isinstance(event, ev.Error):
                raise RequestError.invalid_params({"rewind": event.message})
            if isinstance(event, ev.RewindFinished):
                return {
                    "mode": event.mode,
                    "prompt": event.prompt,
                    "restored": list(event.restored),
                    "deleted": list(event.deleted),
                    "conflicts": list(event.conflicts),
                    "notRestorable": list(event.not_restorable),
                    "message": event.message,
                }
        raise RequestError.internal_error({"rewind": "the rewind said nothing"})

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        """No extension notifications: ignored."""
        return None

    async def close(self) -> None:
        """Close every open session (transcripts, checkpoints)."""
        for task in list(self._warming):
            task.cancel()
        for live in list(self.sessions.values()):
            await live.close()
        self.sessions.clear()
