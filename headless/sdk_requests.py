"""The Agent SDK's control requests to eddy, and their answers.

Every request gets exactly one answer: a success with Claude Code's payload, or an error
that says why (an unknown subtype names itself). Each is handled in its own task, so a slow
one (``mcp_reconnect``) holds up neither stdin nor the others; the SDK may withdraw one
(``control_cancel_request``).

========================  ================================================================
subtype                   what eddy does
========================  ================================================================
``initialize``            opens the session (headless/sdk_setup.py), before the next line
                          is read; answers with the commands, agents, models, styles
``interrupt``             stops the running turn (``ops.Interrupt``); the queued prompts
                          (sent at once) are ``still_queued``
``set_permission_mode``   ``ops.SetPermissionMode``
``set_model``             ``ops.SetModel`` (none or ``default``: the launch model)
``rewind_files``          the code back to before a prompt (``ops.Rewind``, code only;
                          shell changes included), by the prompt's user message uuid
``mcp_status``            every MCP server: state, tools, error
``mcp_reconnect``         restarts a server and waits for it
``mcp_toggle``            stops a server (its tools leave the offer) or starts it again
``stop_task``             stops a background agent or shell (TaskStop's path)
``get_context_usage``     the context used, by category, against the window
``rename_session``        ``ops.Rename``
``cancel_async_message``  takes a queued prompt back (``ops.TakeQueued``)
``list_models``           the models eddy prices
========================  ================================================================
"""

from __future__ import annotations

import asyncio
import logging
import os
from typing import TYPE_CHECKING, Any

from agent import events as ev
from agent import ops
from agent.open import SessionSetupError
from agent.permissions.policy import MODES

if TYPE_CHECKING:
    from agent.session.core import Session
    from headless.sdk import SdkRun

log = logging.getLogger(__name__)


class RequestError(Exception):
    """The request cannot be done; the message is the error answer."""


class ControlRequests:
    """Answers the SDK's control requests for ``run``."""

    def __init__(self, run: SdkRun) -> None:
        self.run = run
        self._running: dict[str, asyncio.Task[Any]] = {}

    async def handle(self, message: dict[str, Any]) -> None:
        """Answer one ``control_request`` line."""
        channel = self.run.channel
        request_id = str(message.get("request_id"))
        request = message.get("request")
        subtype = request.get("subtype") if isinstance(request, dict) else None
        handler = getattr(self, f"_{subtype}", None) if isinstance(subtype, str) else None
        if handler is None or subtype not in HANDLED:
            channel.fail(request_id, f"eddy does not support the control request {subtype!r}.")
            return
        task = asyncio.current_task()
        if task is not None:
            self._running[request_id] = task
        try:
            answer = await handler(request)
        except RequestError as exc:
            channel.fail(request_id, str(exc))
        except asyncio.CancelledError:
            return  # withdrawn by the SDK: it waits for no answer
        except Exception as exc:  # a bug: still an answer, never silence
            log.exception("control request %s failed", subtype)
            channel.fail(request_id, f"eddy failed on {subtype}: {type(exc).__name__}: {exc}")
        else:
            channel.respond(request_id, answer)
        finally:
            self._running.pop(request_id, None)

    def cancel(self, request_id: str) -> None:
        """The SDK withdrew its request ``request_id``: stop working on it."""
        task = self._running.get(request_id)
        if task is not None:
            task.cancel()

    def _session(self) -> Session:
        session = self.run.ensure_session()
        if session is None:
            raise RequestError("eddy has no session: it could not be opened (see stderr).")
        return session

    # -- the requests ---------------------------------------------------------------------
    def initialize(self, message: dict[str, Any]) -> None:
        """Answer ``initialize`` at once: the session must be open before the next line (a
        prompt) is read."""
        request_id = str(message.get("request_id"))
        request = message.get("request")
        try:
            answer = self._opened(request if isinstance(request, dict) else {})
        except RequestError as exc:
            self.run.channel.fail(request_id, str(exc))
        else:
            self.run.channel.respond(request_id, answer)

    def _opened(self, request: dict[str, Any]) -> dict[str, Any]:
        run = self.run
        applied: dict[str, Any] = {}
        if run.session is None and not run.failed:
            try:
                applied = run.open(request)
            except SessionSetupError as exc:
                run.fail_setup(str(exc))
                raise RequestError(str(exc)) from None
        elif request.get("hooks"):
            applied["hooks_applied"] = False  # a second initialize registers nothing
        return {**self._describe(), **applied}

    def _describe(self) -> dict[str, Any]:
        """What ``initialize`` answers: commands, agents, models, styles, the account."""
        from agent.model.pricing import known_models
        from agent.model.providers import provider
        from agent.prompt.commands import custom_commands
        from agent.prompt.output_styles import load_styles
        from frontend.commands import COMMANDS
        from headless.claude_stream import _api_key_source
        from headless.sdk import PROTOCOL_VERSION

        session = self._session()
        workspace = session.config.workspace
        commands = [
            {"name": name, "description": c.description, "argumentHint": ""}
            for name, c in COMMANDS.items()
        ]
        try:
            custom = custom_commands(workspace, session.config.plugins)
        except OSError:
            custom = {}
        for name, command in sorted(custom.items()):
            if name not in COMMANDS:
                commands.append({"name": name, "description": command.description})
        host = session.ctx.subagents
        agents = []
        for d in host.catalog.agents.values() if host is not None else []:
            agents.append({"name": d.name, "description": d.description, "model": d.model})
        style = session.config.output_style
        return {
            "commands": commands,
            "agents": agents,
            "output_style": style.name if style is not None else "default",
            "available_output_styles": [
                s.name for s in load_styles(workspace, plugins=session.config.plugins).values()
            ],
            "models": [
                {"value": m, "displayName": m, "description": f"{m} (eddy's price table)"}
                for m in known_models()
            ],
            "account": {
                "apiKeySource": _api_key_source(),
                "tokenSource": "none",
                "apiProvider": "firstParty" if provider() == "anthropic" else provider(),
            },
            "pid": os.getpid(),
            "claude_code_version": PROTOCOL_VERSION,
            "current_permission_mode": session.config.policy.mode,
            "session_state": self.run.state,
            "hook_on_failure_supported": True,
        }

    async def _interrupt(self, request: dict[str, Any]) -> dict[str, Any]:
        still = list(self.run.queued)  # Esc sends the queue at once: they will run
        self.run.interrupt()
        return {"still_queued": still}

    async def _set_permission_mode(self, request: dict[str, Any]) -> dict[str, Any]:
        mode = request.get("mode")
        if mode not in MODES:
            known = ", ".join(MODES)
            raise RequestError(f"eddy has no permission mode {mode!r} (it has {known}).")
        self._session().submit(ops.SetPermissionMode(str(mode)))
        return {"mode": mode}

    async def _set_model(self, request: dict[str, Any]) -> dict[str, Any]:
        model = request.get("model")
        if model in (None, "", "default"):
            model = self.run.launch_model
        if not isinstance(model, str):
            raise RequestError("set_model: the model must be a string.")
        self._session().submit(ops.SetModel(model))
        return {"model": model}

    async def _rewind_files(self, request: dict[str, Any]) -> dict[str, Any]:
        session = self._session()
        uid = str(request.get("user_message_id"))
        mark = self.run.marks.get(uid)
        if mark is None:
            raise RequestError(
                f"No checkpoint for user message {uid}: eddy keeps one for each prompt this "
                "process started a turn with (a prompt sent while a turn ran joined that turn)."
            )
        marks = session.rewinder.marks
        number = next((i for i, m in enumerate(marks, 1) if m is mark), None)
        if number is None:
            raise RequestError(f"The conversation was rewound past user message {uid}.")
        if session.busy:
            raise RequestError("A turn is running: interrupt it before rewinding files.")
        entry = session.checkpoints()[number - 1]
        if request.get("dry_run"):
            return {"canRewind": True, "summary": entry.summary}
        # the program asked for these files back: what it changed since is overwritten too
        with self.run.watching() as events:
            session.submit(ops.Rewind(number, "code", overwrite_conflicts=True))
        errors = [e.message for e in events if isinstance(e, ev.Error)]
        if errors:
            return {"canRewind": False, "error": " ".join(errors)}
        finished = next((e for e in events if isinstance(e, ev.RewindFinished)), None)
        if finished is None:
            return {"canRewind": False, "error": "the rewind did not happen"}
        workspace = session.config.workspace
        changed = [str(workspace / p) for p in (*finished.restored, *finished.deleted)]
        return {"canRewind": True, "filesChanged": changed}

    def _mcp(self) -> Any:
        from agent.mcp.manager import McpManager

        return self._session().extension(McpManager)

    async def _mcp_status(self, request: dict[str, Any]) -> dict[str, Any]:
        manager = self._mcp()
        if manager is None:
            return {"mcpServers": []}
        servers = []
        for state in manager.server_states():
            conn = manager.connections[state["name"]]
            config = conn.config
            entry: dict[str, Any] = {
                **state,
                "scope": config.scope,
                "config": {"type": config.kind}
                | ({"url": config.url} if config.url else {})
                | ({"command": config.command} if config.command else {}),
                "tools": [{"name": t.name} for t in conn.tools],
            }
            if conn.reason and conn.state != "connected":
                entry["error"] = conn.reason
            servers.append(entry)
        return {"mcpServers": servers}

    def _server(self, request: dict[str, Any]) -> tuple[Any, str]:
        name = str(request.get("serverName"))
        manager = self._mcp()
        if manager is None or name not in manager.connections:
            raise RequestError(f"There is no MCP server named {name!r}.")
        return manager, name

    async def _mcp_reconnect(self, request: dict[str, Any]) -> dict[str, Any]:
        manager, name = self._server(request)
        conn = await manager.reconnect(name)
        if conn.state != "connected":
            raise RequestError(f"The MCP server {name} is {conn.state}: {conn.reason}")
        return {}

    async def _mcp_toggle(self, request: dict[str, Any]) -> dict[str, Any]:
        manager, name = self._server(request)
        if request.get("enabled"):
            manager.start_server(name)
            await manager.wait_started([name])
        else:
            await manager.stop_server(name)
        return {}

    async def _stop_task(self, request: dict[str, Any]) -> dict[str, Any]:
        from tools.base import ToolError
        from tools.task_stop import stop_task

        try:
            await stop_task(str(request.get("task_id")), self._session().ctx)
        except ToolError as exc:
            raise RequestError(str(exc)) from None
        return {}

    async def _get_context_usage(self, request: dict[str, Any]) -> dict[str, Any]:
        session = self._session()
        status = session.status()
        used = status.context_tokens or session.estimate_context()
        window = status.context_window
        categories = [
            {
                "id": "messages",
                "name": "Messages",
                "tokens": used,
                "color": "purple",
                "kind": "used",
            },
            {
                "id": "free_space",
                "name": "Free space",
                "tokens": max(window - used, 0),
                "color": "promptBorder",
                "kind": "free",
            },
        ]
        return {
            "categories": categories,
            "totalTokens": used,
            "maxTokens": window,
            "rawMaxTokens": window,
            "percentage": round(100 * used / window, 2) if window else 0,
            "gridRows": [],
            "model": status.model,
            "memoryFiles": [],
            "mcpTools": [],
            "agents": [],
            "isAutoCompactEnabled": session.config.autocompact is not None,
        }

    async def _rename_session(self, request: dict[str, Any]) -> dict[str, Any]:
        title = request.get("title")
        if not isinstance(title, str) or not title.strip():
            raise RequestError("rename_session: the title must be a non-empty string.")
        self._session().submit(ops.Rename(title.strip()))
        return {}

    async def _cancel_async_message(self, request: dict[str, Any]) -> dict[str, Any]:
        run = self.run
        uid = str(request.get("message_uuid"))
        if uid not in run.queued:
            return {"cancelled": False}
        index = run.queued.index(uid)
        run.queued.pop(index)
        self._session().submit(ops.TakeQueued(index))
        return {"cancelled": True}

    async def _list_models(self, request: dict[str, Any]) -> dict[str, Any]:
        from agent.model.pricing import known_models

        return {"models": [{"value": m, "displayName": m} for m in known_models()]}


HANDLED = frozenset(
    {
        "interrupt",
        "set_permission_mode",
        "set_model",
        "rewind_files",
        "mcp_status",
        "mcp_reconnect",
        "mcp_toggle",
        "stop_task",
        "get_context_usage",
        "rename_session",
        "cancel_async_message",
        "list_models",
    }
)
"""The requests eddy answers; any other gets an error answer naming it."""
