"""``eddy --input-format stream-json --output-format stream-json``: the Claude Agent SDK's way
of driving an agent, one long-lived session on stdin and stdout.

The SDKs (Python ``claude-agent-sdk``, TypeScript ``@anthropic-ai/claude-agent-sdk``, and the
programs built on them) start the CLI this way and then write JSON lines on its stdin:

- ``{"type": "user", "message": {"role": "user", "content": ...}}``: a prompt (text, or
  content blocks with images). A prompt that comes while a turn runs is a correction: the
  model reads it after the running tools' results (``ops.SubmitPrompt`` while busy queues).
- ``control_request`` lines (``initialize``, ``interrupt``, ``set_permission_mode``, ...:
  headless/sdk_requests.py answers them), and ``control_response`` lines answering eddy's
  own requests (``can_use_tool``, ``hook_callback``, ``mcp_message``: headless/control.py).

and read back Claude Code's messages (headless/claude_stream.py): a ``system`` ``init`` at each
turn, the assistant and user messages, and one ``result`` per turn (headless/sdk_result.py);
with ``CLAUDE_CODE_SDK_READS_SESSION_STATE`` (which the Python SDK sets) also
``session_state_changed`` (``running``, ``requires_action``, ``idle``), which tells it when the
run is over.

The session opens when ``initialize`` arrives (it carries hooks, agents, MCP servers, the
system prompt: headless/sdk_setup.py), or with the first prompt if none comes. It is eddy's
session: saved (``eddy -r`` resumes it), checkpointed, gated by eddy's rules (the SDK's
``can_use_tool`` answers only what they would ask the user), sandboxed and limited. When
stdin ends the running work is finished, the session is closed and eddy exits 0 (as Claude
Code does; an error is in its result), or 1 when the session could not be opened.

stdout carries protocol lines only (frontend/stdio.py); eddy's errors go to stderr.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
import uuid
from collections.abc import Callable, Iterator, Sequence
from typing import IO, TYPE_CHECKING, Any, ClassVar

from agent import events as ev
from agent import ops
from agent.checkpoints.rewind_list import PromptMark
from agent.hooks.engine import HookEngine
from agent.hooks.extension import HooksExtension
from agent.model.anthropic import warm_up
from agent.open import SessionSetupError
from agent.session.core import Session
from frontend.images import save_inline_image
from frontend.launch import LaunchOptions
from frontend.session_open import build_session
from frontend.stdio import protect_stdout, stdin_reader
from frontend.termination import INTERRUPT_CODES, handle_termination
from headless.claude_stream import ClaudeStream
from headless.control import ControlChannel
from headless.model_tap import TappedModel
from headless.run import stderr_line, tap_model
from headless.sdk_extension import SdkExtension
from headless.sdk_hooks import callback_runner
from headless.sdk_mcp import ControlMcpTransport, channel_sender
from headless.sdk_result import ModelUsage, sdk_result

if TYPE_CHECKING:
    from agent.plugins.plugin import Plugin
from headless.sdk_setup import sdk_setup
from headless.sdk_structured import StructuredAnswer

PROTOCOL_VERSION = "2.1.327"
"""The Claude Code version whose stream-json protocol eddy speaks (the CLI bundled with
claude-agent-sdk 0.2.184, which eddy is tested against); ``init`` and ``initialize`` report it
as ``claude_code_version`` so the SDKs do not warn about an old CLI."""

STATE_FOR_HOST = "CLAUDE_CODE_SDK_READS_SESSION_STATE"
STATE_FOR_ALL = "CLAUDE_CODE_EMIT_SESSION_STATE_EVENTS"


def content_text(content: Any, run: SdkRun) -> str:
    """A user message's content as the text of an eddy prompt: text blocks joined, images
    saved and named by their path (which attaches them)."""
    if isinstance(content, str):
        return content
    parts: list[str] = []
    for block in content if isinstance(content, list) else []:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text" and isinstance(block.get("text"), str):
            parts.append(block["text"])
        elif kind == "image":
            source = block.get("source")
            if not isinstance(source, dict):
                continue
            if source.get("type") == "base64":
                media = str(source.get("media_type", ""))
                parts.append(save_inline_image(str(source.get("data", "")), media, run.workspace))
            elif source.get("type") == "url":
                parts.append(f"(An image was attached by URL: {source.get('url')})")
        elif kind == "document":
            parts.append("(A document was attached; eddy reads files by path: name it.)")
    return "\n\n".join(p for p in parts if p)


def custom_command_prompt(
    text: str, workspace: Any, plugins: Sequence[Plugin] = ()
) -> ops.SubmitPrompt | None:
    """``/name args`` naming one of the project's or the user's custom commands, or a
    ``plugins``' command: the prompt it expands to (with its allowed tools and model), else
    None (sent as written)."""
    from agent.prompt.commands import custom_commands, parse

    parsed = parse(text.strip())
    if parsed is None:
        return None
    name, arg = parsed
    try:
        command = custom_commands(workspace, plugins).get(name)
        return command.prompt_op(arg) if command is not None else None
    except OSError as exc:
        print(f"eddy: /{name}: {exc}", file=sys.stderr)
        return None


def narrow_skills(session: Session, names: tuple[str, ...]) -> None:
    """The SDK's ``skills`` list: the Skill tool lists and loads only those skills (Claude
    Code's filter); a name no skill has is said on stderr."""
    from tools.skill import SkillTool

    tool = session.tools.get("Skill")
    found = tool.skills if isinstance(tool, SkillTool) else {}
    missing = [name for name in names if name not in found]
    if missing:
        print(f"eddy: initialize: skills: none is named {', '.join(missing)}.", file=sys.stderr)
    if isinstance(tool, SkillTool):
        kept = [skill for name, skill in found.items() if name in names]
        session.tools.put(SkillTool(kept, tool.read_body))


class SdkRun:
    """One process serving one Agent SDK client.

    Args:
        args: the command line.
        out: where protocol lines go (the saved stdout).
    """

    def __init__(self, args: LaunchOptions, out: IO[str]) -> None:
        from headless.sdk_requests import ControlRequests

        self.args = args
        self.claude = ClaudeStream(out, hook_events=args.include_hook_events)
        self.channel = ControlChannel(self.claude.write)
        self.requests = ControlRequests(self)
        self.session: Session | None = None
        self.extension: SdkExtension | None = None
        self.structured: StructuredAnswer | None = None
        self.model: TappedModel | None = None
        self.usage = ModelUsage()
        self.failed = False
        """The session could not be opened: eddy exits 1 once that is said."""
        self.launch_model = args.model
        self.state = "idle"
        self.marks: dict[str, PromptMark] = {}
        """The prompt each user message uuid became (``rewind_files`` goes back to it)."""
        self.waiting: list[str] = []
        """Uuids of prompts sent while idle, until their turn starts."""
        self.queued: list[str] = []
        """Uuids of prompts queued as corrections, until they are delivered."""
        self._tasks: set[asyncio.Task[Any]] = set()
        self._watchers: list[list[ev.Event]] = []
        self._shells: set[str] = set()
        """Background shells whose ``task_started`` went out and whose end did not yet."""
        self._init_due = False
        self._stopping = asyncio.Event()
        self.signal_code = 0
        """The exit status a signal asked for (0: none came)."""
        self._idle_watch: asyncio.Task[None] | None = None
        self._warming: asyncio.Task[None] | None = None
        """The SDK client made and its connection opened ahead of the first prompt."""
        self._state_frames = os.environ.get(STATE_FOR_HOST) == "1" or bool(
            os.environ.get(STATE_FOR_ALL)
        )
        self._host_only = not os.environ.get(STATE_FOR_ALL)

    @property
    def workspace(self) -> Any:
        """The session's workspace."""
        return self.args.workspace

    # -- the session ----------------------------------------------------------------------
    def open(self, init: dict[str, Any] | None) -> dict[str, Any]:
        """Open the session the command line and ``init`` ask for; the ``*_applied`` fields
        of the ``initialize`` answer. Raises SessionSetupError."""
        setup = sdk_setup(self.args, init)
        self.args = args = setup.args
        for problem in setup.problems:
            print(f"eddy: {problem}", file=sys.stderr)
        if args.json_schema is not None:
            self.structured = StructuredAnswer(args.json_schema)
        extension = SdkExtension(
            self.channel,
            can_use_tool=args.permission_prompt_tool == "stdio",
            structured=self.structured,
            asking=self._asking,
            set_mode=lambda mode: self.submit(ops.SetPermissionMode(mode)),
        )
        opened = build_session(args, self.on_event, headless=True, extensions=[extension])
        session = self.session = opened.session
        self.extension = extension
        for problem in opened.problems:
            print(f"eddy: {problem}", file=sys.stderr)
        if setup.hooks.groups:
            engine = HookEngine(
                setup.hooks,
                session.config.workspace,
                session.emit,
                session.hook_fields,
                lambda: session.runner.turn_id,
                runner=callback_runner(self.channel),
            )
            extension.hooks = HooksExtension(engine, lambda: session.resumed)
        if setup.agents:
            from agent.subagents.attach import add_agents

            add_agents(session, setup.agents)
        if self.structured is not None:
            session.tools.put(self.structured.tool)
        if setup.skills is not None:
            narrow_skills(session, setup.skills)
        self._connect_sdk_servers(session)
        self.model = tap_model(session, self.claude if args.include_partial_messages else None)
        # while the program driving eddy prepares its first prompt (a ClaudeSDKClient waits
        # for its user): the SDK client's import and the API's handshakes, as Claude Code
        # opens its connection at start-up
        self._warming = asyncio.get_running_loop().create_task(warm_up(self.model))
        if setup.title:
            session.submit(ops.Rename(setup.title))
        applied = dict(setup.applied)
        if setup.hooks.groups:
            applied["hooks_applied"] = True
        return applied

    def _connect_sdk_servers(self, session: Session) -> None:
        """The SDK's in-process MCP servers get the control channel as their transport."""
        from agent.mcp.manager import McpManager

        manager = session.extension(McpManager)
        if manager is None:
            return
        for name, conn in manager.connections.items():
            if conn.config.kind == "sdk":
                sender = channel_sender(self.channel, name)
                manager.connect_through(name, ControlMcpTransport(name, sender))

    def ensure_session(self) -> Session | None:
        """The session, opened without ``initialize`` if none came (a plain stream-json
        client); None when it cannot be opened (said on stderr)."""
        if self.session is None and not self.failed:
            try:
                self.open(None)
            except SessionSetupError as exc:
                self.fail_setup(str(exc))
        return self.session

    def fail_setup(self, why: str) -> None:
        """The session cannot be opened: say so; eddy ends once stdin does."""
        self.failed = True
        print(f"eddy: {why}", file=sys.stderr)

    def submit(self, op: ops.Op) -> Any:
        """Apply ``op`` to the session (opened if needed)."""
        session = self.ensure_session()
        return session.submit(op) if session is not None else None

    # -- what the SDK writes ----------------------------------------------------------------
    def dispatch(self, message: Any) -> None:
        """One line of stdin."""
        if not isinstance(message, dict):
            print("eddy: a stdin line is not a JSON object; ignored.", file=sys.stderr)
            return
        kind = message.get("type")
        if kind == "user":
            self.user_message(message)
        elif kind == "control_request":
            request = message.get("request")
            if isinstance(request, dict) and request.get("subtype") == "initialize":
                self.requests.initialize(message)
            else:
                self.spawn(self.requests.handle(message), message.get("request_id"))
        elif kind == "control_response":
            self.channel.resolve(message)
        elif kind == "control_cancel_request":
            self.requests.cancel(str(message.get("request_id")))
        elif kind == "update_environment_variables":
            variables = message.get("variables")
            if isinstance(variables, dict):
                os.environ.update({str(k): str(v) for k, v in variables.items()})
        elif kind != "keep_alive":
            print(f"eddy: stdin line of type {kind!r} is not understood; ignored.", file=sys.stderr)

    def user_message(self, message: dict[str, Any]) -> None:
        """A prompt: sent now, or queued as a correction while a turn runs."""
        session = self.ensure_session()
        if session is None:
            return
        body = message.get("message")
        if not isinstance(body, dict):
            print("eddy: a user message without a message object; ignored.", file=sys.stderr)
            return
        text = content_text(body.get("content"), self)
        uid = str(message.get("uuid") or uuid.uuid4())
        if self.args.replay_user_messages:
            self.claude.write(
                {
                    "type": "user",
                    "message": body,
                    "session_id": session.config.session_id,
                    "parent_tool_use_id": None,
                    "uuid": uid,
                    "isReplay": True,
                }
            )
        if not text.strip():
            print("eddy: an empty user message was ignored.", file=sys.stderr)
            return
        prompt = ops.SubmitPrompt(text)
        if message.get("client_composed") is not True:  # the SDK's verbatim_prompts
            prompt = custom_command_prompt(text, self.workspace, session.config.plugins) or prompt
        if session.busy:
            self.queued.append(uid)
            prompt = ops.SubmitPrompt(prompt.text)  # a correction: the text alone
        else:
            self.waiting.append(uid)
            self.set_state("running")
        session.submit(prompt)
        if self._idle_watch is None or self._idle_watch.done():
            self._idle_watch = asyncio.get_running_loop().create_task(self._watch_idle(session))

    async def _watch_idle(self, session: Session) -> None:
        """The session's work (the turn and the prompts queued behind it) is done: idle."""
        await session.wait_idle()
        self.set_state("idle")

    # -- what eddy writes -----------------------------------------------------------------
    @contextlib.contextmanager
    def watching(self) -> Iterator[list[ev.Event]]:
        """The events the session emits inside the ``with`` block (an op's answer: the
        session applies most ops at once)."""
        seen: list[ev.Event] = []
        self._watchers.append(seen)
        try:
            yield seen
        finally:
            self._watchers.remove(seen)

    def on_event(self, event: ev.Event) -> None:
        """The session's events: Claude Code's messages, one result per turn, the state.

        The steps of an event type are in ``BEFORE_MESSAGES`` (state and system lines that
        come before the event's messages) and ``AFTER_MESSAGES`` (a subagent's or a shell's
        task lines, the turn's result); most types have none."""
        for seen in self._watchers:
            seen.append(event)
        before = self.BEFORE_MESSAGES.get(type(event))
        if before is not None:
            before(self, event)
        self.claude.event(event)
        after = self.AFTER_MESSAGES.get(type(event))
        if after is not None:
            after(self, event)
        self._say_on_stderr(event)

    def _say_on_stderr(self, event: ev.Event) -> None:
        line = stderr_line(event, "stream-json")
        if isinstance(event, ev.Notice):
            # what eddy's front ends show the user (a hook callback that failed or timed
            # out, ...): the SDK hands stderr to its program (``stderr=``, ``debug-to-stderr``)
            line = f"eddy: {event.text}"
        if line is not None:
            print(line, file=sys.stderr)

    def _init_if_due(self, event: ev.ModelCallStarted | ev.TurnFinished) -> None:
        """The turn's init line, once the tools are settled (MCP servers started, their tools
        offered: the first model call waits for them), before its messages."""
        if not self._init_due:
            return
        self._init_due = False
        if self.session is not None:
            self.start_stream(self.session)

    def _count_usage(self, event: ev.UsageUpdated) -> None:
        if self.session is not None:
            self.usage.add(self.session.config.model, event.usage, event.cost_usd)

    def _corrections_delivered(self, event: ev.CorrectionsDelivered) -> None:
        self.queued = self.queued[len(event.texts) :]

    def _mode_changed(self, event: ev.PermissionModeChanged) -> None:
        self._system("status", status=None, permissionMode=event.mode)

    def _shell_reported(self, event: ev.BackgroundReported) -> None:
        if event.kind != "shell":  # a subagent's is written from its events (_task_lifecycle)
            return
        fields = {"status": event.status, "summary": event.summary}
        self._system(
            "task_notification", task_id=event.task_id, output_file=event.output_file, **fields
        )

    def _compact_boundary(self, event: ev.Compacted) -> None:
        trigger = "auto" if event.automatic else "manual"
        metadata = {"trigger": trigger, "pre_tokens": event.context_tokens}
        self._system("compact_boundary", compact_metadata=metadata)

    def _background_changed(self, event: ev.BackgroundChanged) -> None:
        self._shell_lifecycle()

    def _turn_started(self, event: ev.TurnStarted) -> None:
        session = self.session
        if session is None:
            return
        if self.waiting:
            uids = [self.waiting.pop(0)]
        else:  # the queued prompts became this one (the turn before ended, or Esc)
            uids, self.queued = self.queued, []
        marks = session.rewinder.marks
        for uid in uids:
            if marks and marks[-1].text == event.prompt:
                self.marks[uid] = marks[-1]
        self.set_state("running")
        self._init_due = True
        self.claude.hold()

    def start_stream(self, session: Session) -> None:
        """Write the ``system`` ``init`` line for the session as it is now."""
        from agent.prompt.commands import custom_commands

        now = session.status()
        host = session.ctx.subagents
        agents = list(host.catalog.agents) if host is not None else []
        try:
            custom = sorted(custom_commands(now.workspace, session.config.plugins))
        except OSError:
            custom = []
        style = session.config.output_style
        from agent.mcp.manager import McpManager

        manager = session.extension(McpManager)
        self.claude.start(
            session_id=now.session_id,
            model=now.model,
            cwd=str(now.workspace),
            tools=[str(tool["name"]) for tool in session.tools.params()],
            permission_mode=now.mode,
            mcp_servers=manager.server_states() if manager is not None else [],
            slash_commands=custom,  # expanded; eddy's own commands are not run here
            agents=agents,
            claude_code_version=PROTOCOL_VERSION,
            output_style=style.name if style is not None else "default",
            skills=[],
            plugins=[],
        )

    def _result(self, event: ev.TurnFinished) -> None:
        session = self.session
        if session is None or event.turn_id == ev.NO_TURN:
            return
        structured = self.structured
        status = session.status()
        line = sdk_result(
            event,
            session_id=status.session_id,
            total_cost_usd=status.run_cost,
            duration_api_ms=self.model.api_ms if self.model is not None else 0,
            model_usage=self.usage,
            structured=structured.value if structured is not None else None,
            structured_missing=structured is not None and structured.value is None,
        )
        self.claude.result(line)

    def _task_lifecycle(self, event: ev.SubagentEvent) -> None:
        """Claude Code's ``task_started`` / ``task_notification`` for each subagent the main
        agent starts (the SDK keeps stdin open while one runs)."""
        inner = event.event
        if event.depth != 1 or inner.get("type") not in ("turn_started", "turn_finished"):
            return
        common = {"task_id": event.agent_id, "tool_use_id": event.call_id}
        if inner["type"] == "turn_started":
            prompt = str(inner.get("prompt", ""))
            first = prompt.strip().splitlines()[0] if prompt.strip() else event.agent_type
            self._system("task_started", description=first[:200], task_type="local_agent", **common)
            return
        subtype = inner.get("subtype")
        status = {"success": "completed", "interrupted": "stopped"}.get(str(subtype), "failed")
        usage = inner.get("usage") or {}
        tokens = sum(int(v) for k, v in usage.items() if k.endswith("tokens"))
        self._system(
            "task_notification",
            status=status,
            output_file="",
            summary=str(inner.get("result") or inner.get("error") or subtype)[:2000],
            usage={
                "total_tokens": tokens,
                "tool_uses": int(inner.get("num_turns", 0)),
                "duration_ms": int(inner.get("duration_ms", 0)),
            },
            **common,
        )

    def _shell_lifecycle(self) -> None:
        """Claude Code's ``task_started`` / ``task_notification`` for each background shell
        (``task_type`` ``local_bash``): the SDK's ``stop_task`` takes the id they carry."""
        session = self.session
        if session is None:
            return
        for shell in session.shells.listing():
            if shell.status == "running" and shell.id not in self._shells:
                self._shells.add(shell.id)
                description = (shell.description or shell.command)[:200]
                self._system(
                    "task_started",
                    task_id=shell.id,
                    description=description,
                    task_type="local_bash",
                )
            elif shell.status != "running" and shell.id in self._shells:
                self._shells.discard(shell.id)
                status = "stopped" if shell.status == "killed" else shell.status
                ended = f"exit code {shell.exit_code}" if shell.exit_code is not None else status
                self._system(
                    "task_notification",
                    task_id=shell.id,
                    status=status,
                    output_file="",
                    summary=f"Background command {shell.command[:200]!r}: {ended}",
                )

    BEFORE_MESSAGES: ClassVar[dict[type[ev.Event], Callable[[SdkRun, Any], None]]] = {
        ev.TurnStarted: _turn_started,
        ev.ModelCallStarted: _init_if_due,
        ev.TurnFinished: _init_if_due,
        ev.UsageUpdated: _count_usage,
        ev.CorrectionsDelivered: _corrections_delivered,
        ev.PermissionModeChanged: _mode_changed,
        ev.BackgroundReported: _shell_reported,
        ev.Compacted: _compact_boundary,
    }
    """What an event changes, and the system lines it writes before its messages."""
    AFTER_MESSAGES: ClassVar[dict[type[ev.Event], Callable[[SdkRun, Any], None]]] = {
        ev.SubagentEvent: _task_lifecycle,
        ev.BackgroundChanged: _background_changed,
        ev.TurnFinished: _result,
    }
    """The lines an event writes after its messages."""

    def _system(self, subtype: str, **fields: Any) -> None:
        session_id = self.session.config.session_id if self.session is not None else ""
        line = {"type": "system", "subtype": subtype, **fields}
        self.claude.write({**line, "uuid": str(uuid.uuid4()), "session_id": session_id})

    def set_state(self, state: str) -> None:
        """Claude Code's ``session_state_changed`` (for an SDK that asked for it)."""
        if state == self.state:
            return
        self.state = state
        if not self._state_frames:
            return
        fields: dict[str, Any] = {"state": state}
        if self._host_only:
            fields["sdk_host_only"] = True
        self._system("session_state_changed", **fields)

    def _asking(self, waiting: bool) -> None:
        if waiting:
            self.set_state("requires_action")
        elif self.state == "requires_action":
            self.set_state("running")

    # -- the process ----------------------------------------------------------------------
    def spawn(self, work: Any, name: Any = None) -> asyncio.Task[Any]:
        """Run ``work`` beside the reading of stdin."""
        task = asyncio.get_running_loop().create_task(work, name=str(name) if name else None)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def serve(self, reader: asyncio.StreamReader) -> int:
        """Read stdin to its end; then finish the work, close the session, return the exit
        status."""
        self.channel.bind(asyncio.get_running_loop())
        stopping = asyncio.ensure_future(self._stopping.wait())
        try:
            while not self.failed:
                reading = asyncio.ensure_future(reader.readline())
                await asyncio.wait({reading, stopping}, return_when=asyncio.FIRST_COMPLETED)
                if not reading.done():  # a signal: stdin is not read any further
                    reading.cancel()
                    break
                try:
                    raw = reading.result()
                except ValueError:  # a line over the limit: it cannot be a message
                    print("eddy: a stdin line is too long; ignored.", file=sys.stderr)
                    continue
                if not raw:
                    break
                self._line(raw)
        finally:
            stopping.cancel()
        code = await self.finish()
        return self.signal_code or code

    def _line(self, raw: bytes) -> None:
        """One line of stdin, parsed."""
        if not raw.strip():
            return
        try:
            message = json.loads(raw)
        except ValueError as exc:
            print(f"eddy: a stdin line is not JSON ({exc}); ignored.", file=sys.stderr)
            return
        try:
            self.dispatch(message)
        except Exception as exc:  # a line of an unexpected shape must not end the session
            print(
                f"eddy: a stdin line could not be handled ({type(exc).__name__}: {exc}); ignored.",
                file=sys.stderr,
            )

    async def finish(self) -> int:
        """stdin ended: nobody can answer eddy's questions now; the work going on ends, the
        session is closed (saved)."""
        self.channel.close()
        if self._warming is not None:
            self._warming.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        session = self.session
        if session is not None:
            await session.wait_idle()
            await session.close()
        if self._idle_watch is not None:
            await asyncio.gather(self._idle_watch, return_exceptions=True)
        return 1 if self.failed else 0

    def interrupt(self) -> None:
        """Stop the running turn (Esc)."""
        if self.session is not None:
            self.session.submit(ops.Interrupt())

    def stop(self, code: int) -> None:
        """A signal (SIGTERM, SIGINT, SIGHUP): stop the turn, read no more; the session is
        closed (saved) and eddy exits with ``code``."""
        self.signal_code = self.signal_code or code
        self.interrupt()
        self._stopping.set()


async def _serve(args: LaunchOptions, protocol_fd: int) -> int:
    out = os.fdopen(protocol_fd, "w", encoding="utf-8", buffering=1, closefd=False)
    run = SdkRun(args, out)
    # SIGTERM (the SDK's close after its grace period), SIGINT, SIGHUP: stop the turn and
    # the reading, save the session (a second signal, or 5 s, end the process anyway)
    handle_termination(run.stop, signals=INTERRUPT_CODES)
    return await run.serve(await stdin_reader())


def run_sdk(args: LaunchOptions, *, exit_process: bool = False) -> int:
    """Serve an Agent SDK on stdin/stdout until stdin ends; the exit status.

    Args:
        args: the command line (``--input-format stream-json``).
        exit_process: end the process with that status at once (the ``eddy`` command):
            everything is saved, and the interpreter's teardown takes up to a second.
    """
    protocol_fd = protect_stdout()
    code = asyncio.run(_serve(args, protocol_fd))
    if exit_process:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        os._exit(code)
    return code
