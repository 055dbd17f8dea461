"""The MCP servers of a session, connected in the background on their own event loop.

The servers run on a daemon thread with its own asyncio loop ("eddy-mcp"): starting them
(importing the SDK, spawning processes, handshakes) never takes time from the UI's loop, and
the session can be built in any thread. The session's loop reaches them through
``run_coroutine_threadsafe``; cancelling the awaiting task (Esc) cancels the call on the MCP
loop, which the SDK turns into the protocol's cancellation.

The manager is a session extension (agent/extension.py). The session sees the servers at one
place only: :meth:`McpManager.before_model_call`, awaited before each model call. There the
tools of the connected servers become the ``mcp`` group of the session's tool set (sorted by
name, after the built-in and the server tools), and the request's tool list changes only when
the offered tools really changed: the tool definitions stay byte-identical between calls
(prompt cache). ``on_prompt`` attaches the resources a prompt names (``@server:uri``).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
from collections.abc import Awaitable, Callable, Coroutine, Iterable
from concurrent.futures import Future
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from agent import events as ev
from agent.extension import Extension, PromptAddition
from agent.mcp.adapter import McpTool
from agent.mcp.client_side import ClientSide
from agent.mcp.config import McpConfig, ServerConfig
from agent.mcp.connection import ServerConnection
from agent.mcp.disabled import DisabledServers
from agent.mcp.hosted import HostedConnection, HostGone, McpHost
from tools.base import ToolResult

if TYPE_CHECKING:
    from agent.turn.toolset import ToolSet
    from tools.base import ToolContext

T = TypeVar("T")
Connection = ServerConnection | HostedConnection
"""A server's connection: made in eddy's process, or in the MCP host's."""
PREFIX = "mcp__"
SDK_SERVER_UNREACHABLE = (
    "an Agent SDK's in-process server: only a program that drives eddy through the SDK "
    "(eddy --input-format stream-json) can reach it"
)
NICE = 10
"""The MCP thread's (and its servers') nice value: below the UI's."""


class McpManager(Extension):
    """Connects the configured servers and offers their tools to one session.

    Args:
        config: the servers (and configuration problems) of the session.
        approved: whether a server may start now (project servers wait for the user's yes).
        log_dir: where servers' stderr is written (one file each).
        wait_at_first_call: before the first model call, wait until every server finished
            starting (``-p``: a script expects the tools on its first request).
        roots: the session's folders (the servers' ``roots/list``; a change is announced).
        background: run the servers (and the MCP thread) at a lower CPU priority, behind a
            UI; False where the first request waits for them and nothing else is typed
            (``-p``).
        disabled: the servers the user switched off for this project (``/mcp disable``):
            they do not start, and :meth:`disable` / :meth:`enable` write it (None: nothing
            is switched off and a switch lasts for this session only).
        hosted: connect the servers from a process of their own (agent/mcp/hosted.py: a
            headless run whose servers are all stdio ones and whose first request waits
            for them).
        connect_after_first_call: ``-p`` with ``MCP_CONNECTION_NONBLOCKING``: the first
            request does not wait for the servers, so their connections (and the SDK's
            import, CPU-bound Python that would share the GIL with the start-up and the
            request being made) are held until :meth:`connect_held` (the first response
            began), a turn ended, or something asks a server for anything; their processes
            spawn at once, and they are ``pending`` meanwhile.
    """

    def __init__(
        self,
        config: McpConfig,
        *,
        approved: Callable[[ServerConfig], bool] = lambda _c: True,
        log_dir: Path | None = None,
        wait_at_first_call: bool = False,
        roots: Callable[[], tuple[Path, ...]] = tuple,
        background: bool = True,
        disabled: DisabledServers | None = None,
        connect_after_first_call: bool = False,
        hosted: bool = False,
    ) -> None:
        self.config = config
        self._disabled_store = disabled
        self._off = set(disabled.names()) if disabled is not None else set()
        self._background = background
        self.host: McpHost | None = None
        """The process the servers are connected from (``hosted``), else None."""
        self.connections: dict[str, Connection]
        if hosted:
            self.host = McpHost(config.servers.values(), self._changed, roots, log_dir)
            self.connections = dict(self.host.connections)
        else:
            self.connections = {
                name: ServerConnection(c, self._changed, log_dir)
                for name, c in config.servers.items()
            }
        self._approved = approved
        self.opener: Callable[[str], Awaitable[None]] | None = None
        """Opens an authorization URL for ``/mcp login`` (None: the system browser)."""
        for conn in self.connections.values():
            conn.say = self._notice
        self._wait_first = wait_at_first_call
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._tools: ToolSet | None = None
        self._emit_event: Callable[[ev.Event], None] | None = None
        self._session_loop: asyncio.AbstractEventLoop | None = None
        self._pending_notices: list[ev.Event] = []
        self._reported: dict[str, str] = {}
        self._lock = threading.Lock()
        self._told_started = False
        self._hold = connect_after_first_call
        self._held: list[Connection] = []
        """The connections held until the first model call (``connect_after_first_call``)."""
        self.client_side = ClientSide(roots)
        """Roots, elicitation and progress offered to the servers (agent/mcp/client_side.py)."""
        for conn in self.connections.values():
            conn.client_side = self.client_side

    # -- the MCP loop ---------------------------------------------------------------------
    def _ensure_loop(self) -> asyncio.AbstractEventLoop:
        if self._loop is not None:
            return self._loop
        ready = threading.Event()

        def run() -> None:
            if self._background:
                _lower_priority()
            loop = asyncio.new_event_loop()
            self._loop = loop
            ready.set()
            try:
                loop.run_forever()
            finally:
                loop.close()

        self._thread = threading.Thread(target=run, name="eddy-mcp", daemon=True)
        self._thread.start()
        ready.wait()
        assert self._loop is not None
        return self._loop

    def _on_loop(self, work: Coroutine[Any, Any, T]) -> Future[T]:
        self.connect_held()  # whatever asks a server for something: the held ones start first
        return asyncio.run_coroutine_threadsafe(work, self._ensure_loop())

    @property
    def holding(self) -> bool:
        """Whether the connections are held until the first response (nothing asked yet)."""
        return self._hold

    def connect_held(self) -> None:
        """Start the connections held by ``connect_after_first_call`` (once; nothing when
        none is held): ``-p`` calls it when its first response began."""
        held = self._take_held()
        if held:
            loop = self._ensure_loop()
            for conn in held:
                loop.call_soon_threadsafe(conn.start)

    def _take_held(self) -> list[Connection]:
        """End the hold: the connections it held, for the caller to start or end."""
        with self._lock:
            self._hold = False
            held, self._held = self._held, []
        return held

    async def _bridge(self, work: Coroutine[Any, Any, T]) -> T:
        """Await ``work`` (a coroutine, not yet started) on the MCP loop, from the session's
        loop; cancelling the caller cancels it there."""
        return await asyncio.wrap_future(self._on_loop(work))

    def may_start(self, config: ServerConfig) -> bool:
        """Whether ``config`` may start without asking (project servers need a yes; a server
        switched off for the project does not start)."""
        return config.name not in self._off and self._approved(config)

    def is_disabled(self, name: str) -> bool:
        """Whether server ``name`` is switched off for this project (``/mcp disable``)."""
        return name in self._off

    def approve(self, name: str) -> None:
        """The user approved server ``name``: start it now."""
        base = self._approved
        self._approved = lambda c: c.name == name or base(c)
        self.start_server(name)

    def wait_before_first_call(self) -> None:
        """Make the first model call wait until every server finished starting (as ``-p``:
        an editor that named servers expects their tools on its first prompt)."""
        self._wait_first = True

    def start(self) -> None:
        """Start every approved server in the background; returns at once."""
        if not self.connections:
            return
        if not self._background:
            self._spawn_early()
        for conn in self.connections.values():
            if conn.config.kind == "sdk" and conn.inproc is None:  # waits for connect_through
                conn.state, conn.reason = "failed", SDK_SERVER_UNREACHABLE
            elif conn.name in self._off:
                conn.state, conn.reason = "disabled", _off_reason(conn.name)
            elif self._approved(conn.config):
                self._start_or_hold(conn)
            else:
                conn.state, conn.reason = "needs-approval", "a project server not approved yet"

    def _spawn_early(self) -> None:
        """-p: the processes of the servers that may start (not one switched off or not
        approved) start now, beside eddy's imports (or in the MCP host, with it)."""
        early = [c for c in self.connections.values() if self.may_start(c.config)]
        if self.host is not None:
            if early:
                # one that cannot start is tried again by the first start, which says why
                with contextlib.suppress(OSError, HostGone):
                    self.host.spawn(c.name for c in early)
            return
        for conn in early:
            conn.spawn_early()

    def _start_or_hold(self, conn: Connection) -> None:
        """Start ``conn`` on the MCP loop, or hold it (``pending``) until the first call."""
        with self._lock:
            if self._hold:
                conn.state = "connecting"
                self._held.append(conn)
                return
        self._ensure_loop().call_soon_threadsafe(conn.start)

    def start_server(self, name: str) -> None:
        """Start one server (a project server the user just approved)."""
        conn = self.connections.get(name)
        if conn is not None:
            with self._lock:
                if conn in self._held:
                    self._held.remove(conn)
            self._ensure_loop().call_soon_threadsafe(conn.start)

    def connect_through(self, name: str, transport: Any) -> None:
        """Connect server ``name`` (an Agent SDK's in-process server, ``"type": "sdk"``)
        through ``transport`` (an ``mcp`` client transport the front end provides: the
        SDK's control channel), starting it now."""
        conn = self.connections[name]
        conn.inproc = transport
        conn.state, conn.reason = "connecting", ""
        self.start_server(name)

    async def stop_server(self, name: str) -> None:
        """Stop server ``name``: its tools leave the offer at the next model call (an
        Agent SDK's ``mcp_toggle``); ``start_server`` starts it again."""
        await self._bridge(self.connections[name].stop())

    # -- the session's side ---------------------------------------------------------------
    name = "MCP"

    def bind(self, tools: ToolSet, emit: Callable[[ev.Event], None]) -> None:
        """Offer the servers' tools in ``tools`` (before each model call) and report to
        ``emit`` (the session's: register the manager as its extension too)."""
        self._tools = tools
        self._emit_event = emit

    def on_event(self, event: ev.Event) -> None:
        """A turn ended (without a response, if :meth:`connect_held` was not called):
        the held servers start."""
        if self._hold and isinstance(event, ev.TurnFinished):
            self.connect_held()

    async def before_model_call(self) -> None:
        """Between model calls: report what happened, and refresh the tools offered."""
        self._session_loop = asyncio.get_running_loop()
        self.client_side.session_loop = self._session_loop
        with self._lock:
            notices, self._pending_notices = self._pending_notices, []
        for event in notices:
            self._emit(event)
        if self._wait_first:
            self._wait_first = False
            await self.wait_started()
        if self.client_side.roots_changed():
            connected = [c for c in self.connections.values() if c.state == "connected"]
            await self._bridge(_gather(c.roots_changed() for c in connected))
        self.sync_tools()

    async def wait_started(self, names: Iterable[str] | None = None) -> None:
        """Wait until the servers (all by default) finished their current start."""
        if not self.connections:
            return

        async def wait() -> None:  # on the MCP loop: a start scheduled before is under way
            conns = [
                c
                for n, c in self.connections.items()
                if (names is None or n in names)
                and c.state in ("connecting", "stopped")
                and self.may_start(c.config)
            ]
            await asyncio.gather(*(c.wait_started() for c in conns))

        await self._bridge(wait())

    async def on_prompt(self, text: str) -> PromptAddition | None:
        """The resources ``text`` mentions as ``@server:uri``, as text blocks after it."""
        if "@" not in text:
            return None
        from agent.mcp.resources import attach_resources

        if self._wait_first:  # -p: the servers a prompt names may still be starting
            named = [n for n in self.connections if f"@{n}:" in text]
            if named:
                await self.wait_started(named)

        return PromptAddition(None, tuple(await attach_resources(self, text)))

    def tools(self, *, connected: bool = True) -> list[McpTool]:
        """The servers' tools, sorted by name (one per name: the first wins).

        Args:
            connected: only those of connected servers (what the model is offered); False
                also gives the last known tools of servers that went down, so that a call
                to one says the server is down rather than that no such tool exists.
        """
        out: dict[str, McpTool] = {}
        for conn in self.connections.values():
            if connected and conn.state != "connected":
                continue
            for tool in conn.tools:
                adapted = McpTool(conn.name, tool, self.call)
                out.setdefault(adapted.name, adapted)
        return [out[name] for name in sorted(out)]

    def sync_tools(self) -> bool:
        """Put the current MCP tools into the session's tool set; True if what the request
        offers changed (the last known tools of servers that went down stay callable)."""
        if self._tools is None:
            return False
        return self._tools.set_group("mcp", self.tools(), self.tools(connected=False))

    async def call(
        self, server: str, tool: str, args: dict[str, Any], ctx: ToolContext | None = None
    ) -> ToolResult:
        """Call ``tool`` of ``server``; every failure is an is_error result. With ``ctx``
        (the call's), the server's progress shows as the call's output and its questions
        (elicitation) go to the user through ``ctx``'s dialogs."""
        conn = self.connections.get(server)
        if conn is None:
            return ToolResult(f"No MCP server named {server} is configured.", is_error=True)
        side = self.client_side
        side.session_loop = side.session_loop or asyncio.get_running_loop()
        running = side.calls.setdefault(server, [])
        if ctx is not None:
            running.append(ctx)
        try:
            return await self._bridge(conn.call(tool, args, side.progress(ctx)))
        finally:
            if ctx is not None:
                running.remove(ctx)

    async def reconnect(self, name: str) -> Connection:
        """Restart server ``name`` (after a crash, or to pick up changes); wait for it."""
        conn = self.connections[name]
        await self._bridge(conn.reconnect())
        return conn

    async def disable(self, name: str) -> Connection:
        """``/mcp disable``: stop server ``name`` and keep it off for this project (it does
        not start in the next sessions). Its tools leave the session's tool set at once: the
        next request offers the rest (the user acted, so the tool list may change).

        Raises:
            OSError: it is off for this session, but the choice could not be written.
        """
        conn = self.connections[name]
        self._off.add(name)
        await self._bridge(_switch_off(conn))
        self.sync_tools()
        if self._disabled_store is not None:
            self._disabled_store.set(name, True)
        return conn

    async def enable(self, name: str) -> Connection:
        """``/mcp enable``: switch server ``name`` on again for this project and start it
        (a project server the user has not approved waits for ``/mcp approve`` still);
        returns when the start ended. Its tools join the tool set at once.

        Raises:
            OSError: it is on for this session, but the choice could not be written.
        """
        conn = self.connections[name]
        was_off = name in self._off
        if not was_off and conn.state == "connected":
            return conn
        self._off.discard(name)
        if self._approved(conn.config):
            await self._bridge(conn.reconnect())
        elif conn.state == "disabled":
            conn.state, conn.reason = "needs-approval", "a project server not approved yet"
        self.sync_tools()
        if was_off and self._disabled_store is not None:
            self._disabled_store.set(name, False)
        return conn

    async def login(self, name: str) -> Connection:
        """``/mcp login``: connect ``name`` again, with the browser hand-off if it asks."""
        conn = self.connections[name]
        conn.opener = self.opener
        await self._bridge(conn.login())
        return conn

    async def logout(self, name: str) -> bool:
        """``/mcp logout``: forget ``name``'s tokens and connect again without them."""
        from agent.mcp.oauth import logout

        conn = self.connections[name]
        had = logout(conn.config)
        await self._bridge(conn.reconnect())
        return had

    async def get_prompt(self, server: str, prompt: str, args: dict[str, str]) -> Any:
        """A server's prompt, filled in (``GetPromptResult``)."""
        return await self._bridge(self.connections[server].get_prompt(prompt, args))

    async def read_resource(self, server: str, uri: str) -> Any:
        """A server's resource (``ReadResourceResult``)."""
        return await self._bridge(self.connections[server].read_resource(uri))

    def server_states(self) -> list[dict[str, str]]:
        """Each server's name and state, as Claude Code's stream-json init line lists them
        (``pending`` while it connects; ``connected``, ``failed``, ``needs-auth``, ...)."""
        return [
            {"name": name, "status": "pending" if c.state == "connecting" else c.state}
            for name, c in self.connections.items()
        ]

    def status(self) -> str:
        """For the status line: "" without servers, else e.g. "MCP 2/3" or "MCP 1 failed"."""
        if not self.connections:
            return ""
        self._bind_running_loop()
        states = [c.state for c in self.connections.values() if c.state != "disabled"]
        if not states:
            return "MCP off"
        failed = sum(s in ("failed", "needs-auth") for s in states)
        connected = states.count("connected")
        text = f"MCP {connected}/{len(states)}"
        return text + (f", {failed} failed" if failed else "")

    async def aclose(self, reason: str = "other") -> None:
        """Stop every server and the MCP loop (the session's close awaits it)."""
        for conn in self._take_held():  # never connected: only their early processes to end
            conn.drop_early()
        loop, thread = self._loop, self._thread
        if loop is None or thread is None:
            return
        conns = list(self.connections.values())
        try:
            await asyncio.wait_for(self._bridge(_gather(c.stop() for c in conns)), timeout=10)
            if self.host is not None:
                await self._bridge(self.host.aclose())
        except (TimeoutError, RuntimeError):
            pass  # a server that does not stop in time ends with the process
        loop.call_soon_threadsafe(loop.stop)
        await asyncio.to_thread(thread.join, 5)
        self._loop = self._thread = None

    # -- reporting ------------------------------------------------------------------------
    def _bind_running_loop(self) -> None:
        """Learn the session's loop where a front end asks for the status on it (the session
        may be built in another thread): notices can reach it from then on."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        if loop is self._loop or self._session_loop is not None:
            return
        self._session_loop = loop
        with self._lock:
            notices, self._pending_notices = self._pending_notices, []
        for event in notices:
            loop.call_soon(self._emit, event)

    def _startup_done(self) -> None:
        """Once every server that may start finished starting: one line saying how it went."""
        started = [c for c in self.connections.values() if self.may_start(c.config)]
        if self._told_started or not started:
            return
        if any(c.state in ("connecting", "stopped") for c in started):
            return
        self._told_started = True
        connected = [c for c in started if c.state == "connected"]
        failed = len(started) - len(connected)
        tools = sum(len(c.tools) for c in connected)
        fail = f" ({failed} failed)" if failed else ""
        self._notice(
            f"MCP: {len(connected)}/{len(started)} servers connected{fail}, {tools} tools."
        )

    def _changed(self, conn: Connection) -> None:
        """On the MCP loop: a server's state or lists changed; report failures once (a failed
        server as an error, kind ``mcp``: ``eddy -p`` prints it on stderr, stream-json as a
        system message; a server that needs a login as a notice)."""
        if conn.state in ("failed", "needs-auth"):
            text = f"MCP server {conn.name}: {conn.state}: {conn.reason}"
            if self._reported.get(conn.name) != text:
                self._reported[conn.name] = text
                said = f"{text}. /mcp shows the servers and reconnects them."
                if conn.state == "failed":
                    self._tell(ev.Error(ev.NO_TURN, said, kind="mcp"))
                else:
                    self._notice(said)
        elif conn.state == "connected":
            self._reported.pop(conn.name, None)
        self._startup_done()

    def _notice(self, text: str) -> None:
        self._tell(ev.Notice(ev.NO_TURN, text))

    def _tell(self, event: ev.Event) -> None:
        """Emit ``event`` on the session's loop (held until that loop is known)."""
        loop = self._session_loop
        if loop is None or loop.is_closed():
            with self._lock:
                self._pending_notices.append(event)
            return
        loop.call_soon_threadsafe(self._emit, event)

    def _emit(self, event: ev.Event) -> None:
        if self._emit_event is not None:
            self._emit_event(event)


def _lower_priority() -> None:
    """Give this thread, and the server processes it spawns (they inherit it), a lower CPU
    priority than the UI: starting five servers must not slow typing (on Linux a nice value
    is per thread)."""
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), NICE)
    except (AttributeError, OSError):
        pass  # not Linux, or not allowed: the servers start at the same priority


def _off_reason(name: str) -> str:
    return f"disabled for this project (/mcp enable {name})"


async def _switch_off(conn: Connection) -> None:
    """On the MCP loop: stop ``conn`` and mark it disabled (a call to one of its tools says
    so instead of calling it)."""
    await conn.stop()
    conn.state, conn.reason = "disabled", _off_reason(conn.name)


async def _gather(works: Iterable[Awaitable[Any]]) -> None:
    """On the MCP loop: await ``works`` together (gather binds to the loop it runs on)."""
    await asyncio.gather(*works)
