"""``eddy -p``: run one prompt to completion without the TUI and print the result.

Formats: ``text`` (the final answer), ``json`` (one result object), ``stream-json`` (Claude
Code's messages, one per line: ``headless/claude_stream.py``), ``eddy-events`` (every engine
event, one JSON object per line, as ``agent.events.to_json`` writes it); in both streams the
last line is the result. Exit code 0 on success, 1 otherwise;
130 / 143 / 129 for a run that Ctrl+C, SIGTERM or SIGHUP interrupted.

Background work (a Bash ``run_in_background``, a background agent) outlives the prompt's turn:
as Claude Code's print mode does, the run waits for it, and each report starts a turn of its
own (agent/session/reports.py; with its limits: ``maxSelfStartedTurns`` in a row, T, B).
Each turn ends with a result: ``text`` prints each one's answer, ``stream-json`` and
``eddy-events`` write a result line for each (stream-json also Claude Code's
``task_notification`` line and a new ``init`` line before such a turn), ``json`` writes the
last one. A report that may not start a turn ends the wait; so does a signal, and the
deadline: background work still running ``EDDY_BACKGROUND_WAIT_S`` seconds (600, the longest
a foreground command may take) after the last turn ended is stopped, with a line on stderr
naming it. The run's close stops what still runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import os
import sys
import threading
import time
import uuid
from typing import TYPE_CHECKING, Any, assert_never

from agent import events as ev
from agent import ops
from agent.mcp.early import end_early
from agent.model.anthropic import prepare_client
from agent.model.protocol import ModelRequest
from agent.open import SessionSetupError
from agent.session.core import Session
from frontend.launch import LaunchOptions
from frontend.prompt_expansion import expand_prompt
from frontend.server_blocks import server_tool_lines
from frontend.session_open import build_session
from frontend.termination import INTERRUPT_CODES, handle_termination
from headless.claude_stream import ClaudeStream
from headless.model_tap import TappedModel

if TYPE_CHECKING:
    from collections.abc import Callable

    from agent.mcp.manager import McpManager


def result_object(finished: ev.TurnFinished, session_id: str, duration_ms: int) -> dict[str, Any]:
    """The closing result line, shaped like Claude Code's."""
    return {
        "type": "result",
        "subtype": finished.subtype,
        "is_error": finished.subtype != "success",
        "num_turns": finished.num_turns,
        "num_model_calls": finished.num_calls,
        "total_cost_usd": round(finished.total_cost_usd, 6),
        "usage": finished.usage,
        "session_id": session_id,
        "duration_ms": duration_ms,
        "result": finished.result,
        "error": finished.error,
        "stop_reason": finished.stop_reason,
        "dropped_tool_calls": finished.dropped_tool_calls,
    }


def stderr_line(event: ev.Event, fmt: str) -> str | None:
    """What ``text``, ``json`` and ``stream-json`` output print on stderr for ``event`` (stdout
    holds only the result, or Claude Code's messages; ``eddy-events`` prints every event).
    Every kind is named: mypy fails here when a new event is not handled."""
    match event:
        case ev.Error():
            return f"eddy: {event.message}"
        case ev.ToolCallFinished():
            if event.status == "refused" and fmt == "text":
                return f"eddy: refused {event.name}: {event.content}"
            return None
        case ev.AssistantMessage():
            searches = server_tool_lines(event.message.get("content") or [])
            return "\n".join(f"eddy: {head}" for head, _ in searches) or None
        case (
            ev.TurnStarted()
            | ev.ModelCallStarted()
            | ev.TextDelta()
            | ev.ThinkingDelta()
            | ev.ToolCallStarted()
            | ev.ToolCallRunning()
            | ev.ToolOutputDelta()
            | ev.PermissionRequested()
            | ev.PermissionResolved()
            | ev.QuestionsAsked()  # headless gives the tools no dialogs: never emitted
            | ev.QuestionsAnswered()
            | ev.PlanReviewRequested()
            | ev.PlanReviewed()
            | ev.CorrectionsDelivered()
            | ev.QueueChanged()
            | ev.UsageUpdated()
            | ev.TodosUpdated()
            | ev.Notice()
            | ev.HookRan()
            | ev.HookStarted()
            | ev.PromptBlocked()
            | ev.Interrupted()
            | ev.PermissionModeChanged()
            | ev.SessionRenamed()
            | ev.Compacted()
            | ev.RewindFinished()
            | ev.TurnFinished()
            | ev.SubagentEvent()
            | ev.BackgroundChanged()
            | ev.BackgroundReported()  # stream-json's task_notification; the turn it starts
        ):
            return None
        case _:
            assert_never(event)


class _Signals:
    """Ctrl+C, SIGTERM and SIGHUP during ``eddy -p``: each ends the run as ``/exit`` does.

    The first signal interrupts the turn (a streaming response stops, a running command's
    process group is killed, the history is closed validly and saved); the run then ends with
    exit status 130 / 143 / 129. Should that hang, a second signal or the grace period of
    :mod:`frontend.termination` ends the process anyway, the commands' groups killed first.
    """

    def __init__(self) -> None:
        self.code: int | None = None  # the exit status of the first signal
        self.session: Session | None = None
        self.came = asyncio.Event()
        """Set by the first signal (the wait for background work ends)."""
        handle_termination(self._on_signal, signals=INTERRUPT_CODES)

    def _on_signal(self, code: int) -> None:
        self.code = code
        self.came.set()
        if self.session is not None:
            self.session.submit(ops.Interrupt())

    def attach(self, session: Session) -> None:
        """The session is running: a signal from now on interrupts it (including one that
        arrived while it was being built: the loop runs that handler only now)."""
        self.session = session


async def _run(args: LaunchOptions, prompt: str, exit_process: bool) -> int:
    signals = _Signals()  # before anything that takes time, so no signal goes unhandled
    code = await _run_prompt(args, prompt, signals)
    if exit_process:
        # The outcome is printed and saved: leave now, from inside the loop. After it, the
        # interpreter's teardown takes up to a second once the SDK is imported, and closing
        # the loop gives the signals their default actions back: a Ctrl+C there would turn
        # a finished run into exit-by-signal (a traceback, status 130).
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):  # a closed pipe: nothing more to say
                stream.flush()
        os._exit(code)
    return code


async def _run_prompt(args: LaunchOptions, prompt: str, signals: _Signals) -> int:
    return await _PromptRun(args, signals).run(prompt)


class _PromptRun:
    """One ``eddy -p`` run: the session's events written in the chosen format, the prompt, the
    wait for background work, a result for each turn, the exit status."""

    def __init__(self, args: LaunchOptions, signals: _Signals) -> None:
        self.args = args
        self.signals = signals
        self.fmt = args.output_format
        self.out = sys.stdout
        self.finished: list[ev.TurnFinished] = []
        self.blocked: list[ev.PromptBlocked] = []
        self.errors_shown = False
        self.claude = ClaudeStream(self.out) if self.fmt == "stream-json" else None
        self.init: dict[str, Any] = {}
        """The init line's fields (written again before a turn that reports start)."""
        self.results_as_turns_end = False
        """Write each turn's result as it ends (while background work may still report)."""
        self.written = 0
        """The turns whose result is written."""
        self.started = time.monotonic()
        self.session: Session | None = None
        self.model: TappedModel | None = None
        self._connecting: asyncio.Task[None] | None = None

    async def run(self, prompt: str) -> int:
        """Open the session, run ``prompt`` and what background work starts; the exit status."""
        try:
            opened = build_session(self.args, self.emit, headless=True)
        except SessionSetupError as exc:
            print(f"eddy: {exc}", file=sys.stderr)
            return 2
        session = self.session = opened.session
        end_early()  # a host started for servers the session turned out not to have
        loop = asyncio.get_running_loop()

        def connect() -> None:  # from the client's thread, once the client exists
            with contextlib.suppress(RuntimeError):  # the loop is closed: the run is over
                loop.call_soon_threadsafe(self._open_connection)

        _make_client_beside_mcp(session, connect)
        for problem in opened.problems:
            print(f"eddy: {problem}", file=sys.stderr)
        self.model = tap_model(session, self.claude if self.args.include_partial_messages else None)
        from frontend.pickup import pickup_line

        picked = pickup_line(opened.picked_up)
        if picked is not None and self.fmt != "stream-json":
            print(f"eddy: {picked}", file=sys.stderr)
        if self.claude is not None:
            await self._start_stream(session, self.claude)
        if not await self._submit(session, prompt):
            return 1
        self.results_as_turns_end = True
        await session.wait_idle()
        while await _reports_start_a_turn(session, self.signals):  # background work reports
            await session.wait_idle()
        self.results_as_turns_end = False
        if self._connecting is not None:
            self._connecting.cancel()
        await session.close()  # the model, the transcript, the checkpoint store
        self.write_results(final=True)
        return self._exit_status()

    def _open_connection(self) -> None:
        """The SDK client exists: open the connection the first request will use while the
        MCP servers start, as Claude Code does at start-up (``preconnect``: not once a
        request went out, which opened its own)."""
        session = self.session
        preconnect = getattr(session.model, "preconnect", None) if session is not None else None
        if preconnect is not None:
            self._connecting = asyncio.get_running_loop().create_task(preconnect())

    def emit(self, event: ev.Event) -> None:
        """The session's events: noted, and written in the run's format."""
        self._note(event)
        if self.fmt == "eddy-events":
            self.out.write(json.dumps(ev.to_json(event), default=str) + "\n")
            self.out.flush()
        else:
            if self.claude is not None:
                self.claude.event(event)
            line = stderr_line(event, self.fmt)
            if line is not None:
                print(line, file=sys.stderr)
        if isinstance(event, ev.TurnFinished) and self.results_as_turns_end:
            self._on_turn_finished()  # its result at once, after the turn's own lines

    def _note(self, event: ev.Event) -> None:
        """What the results need of ``event``, and stream-json's lines before its own."""
        claude = self.claude
        if isinstance(event, ev.TurnFinished):
            self.finished.append(event)
        elif claude is not None and isinstance(event, ev.BackgroundReported):
            claude.write(task_notification(event, claude.session_id))
        elif claude is not None and isinstance(event, ev.TurnStarted) and event.origin != "user":
            claude.start(**self.init)  # each turn's init line, as Claude Code writes it
        if isinstance(event, ev.PromptBlocked):
            self.blocked.append(event)
        # an MCP server's failure is not the turn's: the turn's own error is still said
        self.errors_shown = self.errors_shown or (
            isinstance(event, ev.Error) and event.kind != "mcp"
        )

    async def _start_stream(self, session: Session, claude: ClaudeStream) -> None:
        """stream-json's init line, once the MCP servers started (-p waits for them before
        its first call anyway): it says how each one started and lists their tools, as
        Claude Code's does."""
        mcp = _mcp_of(session)
        if mcp is not None and not mcp.holding:  # -p waits for them before its first call
            await mcp.wait_started()  # anyway: init says how each one started, as Claude
            mcp.sync_tools()  # Code's does, and lists their tools (else they are pending)
        now = session.status()
        self.init.update(
            session_id=now.session_id,
            model=now.model,
            cwd=str(now.workspace),
            tools=[str(tool["name"]) for tool in session.tools.params()],
            permission_mode=now.mode,
            mcp_servers=mcp.server_states() if mcp is not None else [],
        )
        claude.start(**self.init)

    async def _submit(self, session: Session, prompt: str) -> bool:
        """Submit ``prompt``, expanded; False (said, and the session closed) when it cannot be.

        A slash command is expanded as the interactive modes expand it (a custom or plugin
        command, an MCP prompt); @server:uri is the engine's (the MCP extension's on_prompt).
        The prompt is submitted even if a signal came while the session was built: it is then
        recorded and interrupted at once, so the transcript keeps it (resumable with
        --continue).
        """
        expanded = await expand_prompt(session, self.args.workspace, prompt)
        if expanded.op is None:
            print(f"eddy: {expanded.error}", file=sys.stderr)
            await session.close()
            return False
        session.submit(expanded.op)
        self.signals.attach(session)
        if self.signals.code is not None:
            session.submit(ops.Interrupt())
        return True

    def _on_turn_finished(self) -> None:
        # While background work may still report (and start a turn), each turn's result is
        # written as it ends, as Claude Code writes it; the last one is written when the run
        # ends, after which a signal no longer changes the exit status.
        assert self.session is not None
        if self.session.reports.may_start_a_turn:
            self.write_results(False)

    def write_results(self, final: bool) -> None:
        """A result for each turn that ended since the last ones (``json``: the last one,
        once the run is over)."""
        assert self.session is not None and self.model is not None
        status = self.session.status()
        finished = self.finished
        for index in range(self.written, len(finished)):
            ended = finished[index]
            if self.fmt == "json" and not (final and ended is finished[-1]):
                continue
            last = _answer_of(ended, self.blocked)
            duration = int((time.monotonic() - self.started) * 1000)
            result = result_object(last, status.session_id, duration)
            result["duration_api_ms"] = self.model.api_ms
            # this run's tool turns so far (the session's own count is its answered prompts)
            result["num_turns"] = sum(f.num_turns for f in finished[: index + 1])
            # this run's spend, as --max-budget-usd counts it (a resumed session's earlier
            # spend is in its transcript), like Claude Code's print mode
            result["total_cost_usd"] = round(status.run_cost, 6)
            self._write_result(result, last)
        if self.fmt != "json" or final:
            self.written = len(finished)

    def _write_result(self, result: dict[str, Any], last: ev.TurnFinished) -> None:
        out = self.out
        if self.claude is not None:
            self.claude.result(result)
        elif self.fmt in ("eddy-events", "json"):
            out.write(json.dumps(result, indent=2 if self.fmt == "json" else None) + "\n")
        elif last.subtype == "success":
            out.write(last.result.rstrip("\n") + "\n")
        elif not self.errors_shown:  # an error is said once: on stderr, as it happened
            out.write((last.error or last.subtype).rstrip("\n") + "\n")
        out.flush()

    def _exit_status(self) -> int:
        # From here the exit status is the result's, whatever signal comes: the loop does
        # not run the handlers again before the run ends.
        last = _answer_of(self.finished[-1], self.blocked)
        if last.subtype == "interrupted":
            return self.signals.code or 130
        return 0 if last.subtype == "success" else 1


BACKGROUND_WAIT_S = 600.0
"""How long ``eddy -p`` waits for background work after its last turn (the longest a
foreground command may take); ``EDDY_BACKGROUND_WAIT_S`` changes it."""


async def _reports_start_a_turn(session: Session, signals: _Signals) -> bool:
    """Wait while background work runs and its report may start a turn; whether one is due
    (False: nothing runs that will report, a report may not start a turn, a signal, or the
    deadline, which names on stderr what the close then stops)."""
    reports = session.reports
    loop = asyncio.get_running_loop()
    try:
        wait_s = float(os.environ.get("EDDY_BACKGROUND_WAIT_S", BACKGROUND_WAIT_S))
    except ValueError:
        wait_s = BACKGROUND_WAIT_S
    deadline = loop.time() + wait_s
    while True:
        if session.busy or reports.due:
            return True
        if signals.code is not None or not reports.expected or not reports.can_start():
            return False
        left = deadline - loop.time()
        if left <= 0:
            names = ", ".join(sorted(reports.expected))
            print(
                f"eddy: background work still running after {wait_s:g} s is stopped: {names}",
                file=sys.stderr,
            )
            return False
        reports.changed.clear()
        waits = {
            asyncio.ensure_future(signals.came.wait()),
            asyncio.ensure_future(reports.changed.wait()),
        }
        try:
            await asyncio.wait(waits, timeout=left, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for wait in waits:
                wait.cancel()


def task_notification(event: ev.BackgroundReported, session_id: str) -> dict[str, Any]:
    """Claude Code's ``system`` ``task_notification`` line for background work that ended."""
    return {
        "type": "system",
        "subtype": "task_notification",
        "task_id": event.task_id,
        "status": event.status,
        "output_file": event.output_file,
        "summary": event.summary,
        "session_id": session_id,
        "uuid": str(uuid.uuid4()),
    }


def _make_client_beside_mcp(session: Session, then: Callable[[], None]) -> None:
    """Make the SDK client in the background now, beside the MCP servers' start, which the
    first request also waits for: ``import anthropic`` takes as long as the rest of the
    start-up, and was done only after the servers were up; ``then`` is called from that
    thread once the client exists (or failed to be made).

    With servers the first request waits for, the MCP SDK's import comes first (the MCP
    thread is doing it; the servers' processes were spawned before it): both imports at once
    would share the GIL and finish no sooner, and the handshakes, which mostly wait on the
    servers, then overlap the import of ``anthropic``.
    """

    # with MCP_CONNECTION_NONBLOCKING the connections wait for the first request instead
    mcp = _mcp_of(session)  # (servers in the MCP host: the SDK is imported there)
    servers = mcp is not None and not mcp.holding and mcp.host is None

    def make() -> None:
        if servers:
            with contextlib.suppress(ImportError):
                import mcp  # noqa: F401  (waits for the MCP thread's import, or does it)
        prepare_client(session.model)
        then()

    threading.Thread(target=make, name="eddy-sdk-client", daemon=True).start()


def _answer_of(last: ev.TurnFinished, blocked: list[ev.PromptBlocked]) -> ev.TurnFinished:
    """The turn as its result says it: as ``claude -p`` does, a UserPromptSubmit hook's block
    is the run's answer, not a failure."""
    if blocked and last.subtype == "error_during_execution":
        said = f"The prompt was blocked by a UserPromptSubmit hook: {blocked[-1].reason}"
        return dataclasses.replace(last, subtype="success", result=said, error="")
    return last


def _mcp_of(session: Session) -> McpManager | None:
    """The session's MCP manager; its module is imported only for a session with servers
    (agent/mcp/setup.py), so a run without any does not import it here either."""
    manager = sys.modules.get("agent.mcp.manager")
    return session.extension(manager.McpManager) if manager is not None else None


def tap_model(session: Session, claude: ClaudeStream | None) -> TappedModel:
    """Put a timing wrapper round the session's model (``duration_api_ms``); with ``claude``
    it also gets the main agent's raw stream events (``--include-partial-messages``); the
    MCP servers held for the first request (``MCP_CONNECTION_NONBLOCKING``) start once its
    response began."""

    def is_main(request: ModelRequest) -> bool:
        # a subagent has its own system prompt; compaction's sink is no TurnSink
        return request.system == session.spec.system

    on_raw = claude.stream_event if claude is not None else None
    mcp = _mcp_of(session)  # held servers (MCP_CONNECTION_NONBLOCKING) start
    answered = mcp.connect_held if mcp is not None else None  # once the first request is out
    model = TappedModel(session.model, on_raw, is_main, on_answered=answered)
    session.replace_model(model)  # compaction's calls are API time too
    return model


def run_headless(args: LaunchOptions, prompt: str, *, exit_process: bool = False) -> int:
    """Run ``prompt`` to completion; returns the process exit code.

    Args:
        args: the parsed command line.
        prompt: the task.
        exit_process: end the process with that code as soon as the result is out (the
            ``eddy`` command; see ``_run``), instead of returning it (a caller in a test).
    """
    return asyncio.run(_run(args, prompt, exit_process))


class _RewindOutput:
    """What ``--checkpoints`` / ``--rewind`` print of the session's events: the rewind's
    outcome; the errors are kept and said last."""

    def __init__(self) -> None:
        self.errors: list[str] = []

    def emit(self, event: ev.Event) -> None:
        if isinstance(event, ev.Error):
            self.errors.append(event.message)
        elif isinstance(event, ev.RewindFinished):
            print(event.message)
            for path in event.conflicts:
                print(f"  left alone (you changed it since): {path}")
            for line in event.not_restorable:
                print(f"  not restorable: {line}")


async def _checkpoints(args: LaunchOptions) -> int:
    from agent.model.anthropic import AnthropicModel

    output = _RewindOutput()
    try:
        opened = build_session(args, output.emit, headless=True, model=AnthropicModel(args.model))
    except SessionSetupError as exc:
        print(f"eddy: {exc}", file=sys.stderr)
        return 2
    session = opened.session
    for problem in opened.problems:
        print(f"eddy: {problem}", file=sys.stderr)
    try:
        if args.checkpoints:
            _print_checkpoints(session)
            return 0
        _rewind(session, args)
    finally:
        await session.close()
    for error in output.errors:  # the rewind's, and a checkpoint save that failed on close
        print(f"eddy: {error}", file=sys.stderr)
    return 1 if output.errors else 0


def _print_checkpoints(session: Session) -> None:
    for entry in session.checkpoints():
        kind = "redo " if entry.redo else ""
        first = entry.prompt.strip().splitlines()[0] if entry.prompt.strip() else ""
        print(f"{entry.number:>3}  {kind}{first[:60]:<60}  {entry.summary}")


def _rewind(session: Session, args: LaunchOptions) -> None:
    """Submit ``--rewind N``, first naming the files it leaves alone without --overwrite."""
    assert args.rewind is not None  # cli/main.py runs this for --checkpoints or --rewind
    mode: ops.RewindMode = (
        "code" if args.code_only else "conversation" if args.conversation_only else "both"
    )
    conflicts = session.rewind_conflicts(args.rewind)
    if conflicts and not args.overwrite:
        print(
            "eddy: these files changed since eddy last wrote them and are left alone "
            "(use --overwrite to restore them anyway):",
            file=sys.stderr,
        )
        for path in conflicts:
            print(f"  {path}", file=sys.stderr)
    session.submit(ops.Rewind(args.rewind, mode, args.overwrite))


def run_checkpoints(args: LaunchOptions) -> int:
    """``eddy --resume ID --checkpoints`` and ``eddy --resume ID --rewind N``."""
    return asyncio.run(_checkpoints(args))
