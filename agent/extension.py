"""The one way a capability plugs into a session: the ``Extension`` protocol.

Hooks, MCP servers, subagents, memory rules, skills and checkpoints each implement it, and
the front door (agent/open.py) registers them; nothing else reaches into the session, the
loop or the tool runner. A session asks its ``Extensions`` at fixed points, always in the
order they were registered, and each point keeps the promises of docs/loop.md:

===================  =========================================================================
hook point           when, and what its answer does
===================  =========================================================================
``on_prompt``        before a prompt joins the history: block it (nothing is sent, the history
                     is unchanged) or add text blocks after it (hook context, MCP resources,
                     background reports). Esc stops it.
``before_model_call`` before each model call of a turn, never during one: the place where
                     the tool set may change (MCP), so a request is built from a settled set.
``before_tool``      before a tool call, first of the gate's steps: a verdict (deny, ask,
                     allow, a new input, context for the result, halt). Verdicts combine as
                     :func:`combine` says; a deny anywhere wins; a new input that fails the
                     tool's schema is refused, naming the extension.
``ask``              when the rules would ask (never for a call they allow or deny): the
                     first extension that answers decides instead of the user (an Agent
                     SDK's ``can_use_tool``); None from all of them: the user is asked (a
                     headless session refuses).
``tool_ended``       after every executed call, however it ended (cancelled included):
                     synchronous, never fails the call (checkpoints settle here).
``after_tool``       after a call that returned: the result the model reads (notes,
                     PostToolUse feedback), in registration order.
``on_stop``          when the model answered without tools: a text sends it back for one
                     more call, counted against T and B (Stop hooks).
``before_compact``   before a compaction: a text blocks it (PreCompact hooks).
``after_compact``    after a compaction rewrote the history.
``on_event``         every event the session emits except text deltas (after it is
                     recorded): observe, never change.
``status``           a few words for the status line ("MCP 2/3").
``aclose``           when the session closes, after the running turn stopped.
===================  =========================================================================

An extension's failure never ends a turn: ``Extensions`` turns an exception into a notice
for the user and goes on as if that extension had said nothing (a guard that must fail
closed says so by returning a deny, not by raising).

The order of a tool call's verdicts (Claude Code's documented order): ``before_tool`` of each
extension (PreToolUse hooks), then the deny rules, the ask rules, the permission mode, the
allow rules, and last the question: an extension's ``ask`` (an Agent SDK's ``can_use_tool``)
or else the user; see agent/session/gate.py. A deny at any step wins; an extension's allow
skips the question but never a deny or ask rule; an extension's ask asks although a rule or
the mode would allow.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from agent import events as ev
from tools.schema import validate

if TYPE_CHECKING:
    from agent.messages import Message, ToolUseBlock
    from tools.base import Tool, ToolResult

log = logging.getLogger(__name__)

Emit = Callable[[ev.Event], None]


@dataclass(frozen=True)
class PromptAddition:
    """What an extension adds to a prompt before it joins the history.

    Attributes:
        blocked: why the prompt must not be sent (None: send it).
        blocks: text blocks that follow the prompt in the same user message.
    """

    blocked: str | None = None
    blocks: tuple[str, ...] = ()


Decision = Literal["allow", "ask", "deny"]


@dataclass(frozen=True)
class ToolVerdict:
    """An extension's word on one tool call (``before_tool``).

    Attributes:
        decision: ``deny`` refuses the call, ``ask`` asks although the rules would allow,
            ``allow`` skips the question (deny and ask rules still apply); None: no opinion.
        reason: shown to the model with a deny, to the user with an ask.
        updated_input: the input the call runs with instead (checked against the tool's
            schema by the gate before the rules judge it).
        context: text added to the call's result (after it ran).
        halt: stop the turn after this batch of calls (a hook's ``continue: false``): the
            call is refused with this reason and the turn ends once the results are in.
    """

    decision: Decision | None = None
    reason: str = ""
    updated_input: dict[str, Any] | None = None
    context: str = ""
    halt: str | None = None


@dataclass
class ToolCall:
    """One tool call as the extensions see it.

    Attributes:
        use: the call as the model wrote it.
        tool: the tool it names.
        input: the input it runs with (an extension's ``updated_input`` replaces it).
        agent: the subagent making the call ("" for the main agent).
        context: what the verdicts added for the result, in order.
        halt: set by ``after_tool`` to end the turn after this batch (a PostToolUse hook's
            ``continue: false``); the reason is shown.
    """

    use: ToolUseBlock
    tool: Tool
    input: dict[str, Any]
    agent: str = ""
    context: list[str] = field(default_factory=list)
    halt: str | None = None

    def as_run(self) -> ToolUseBlock:
        """The tool_use block with the input the call runs with."""
        if self.input is self.use.input:
            return self.use
        return dataclasses.replace(self.use, input=self.input)


@dataclass(frozen=True)
class PermissionQuestion:
    """A call the rules would ask about (``ask``).

    Attributes:
        use: the call (with the input it would run with).
        tool: the tool it names.
        summary: one line for a person (the command, the path).
        suggestion: the rule "yes, don't ask again" would save, or None.
        warning: why no rule can settle it (a protected file), or "".
        agent: the subagent making the call ("" for the main agent).
    """

    use: ToolUseBlock
    tool: Tool
    summary: str = ""
    suggestion: str | None = None
    warning: str = ""
    agent: str = ""


@dataclass(frozen=True)
class PermissionAnswer:
    """An extension's answer to a :class:`PermissionQuestion`.

    Attributes:
        allow: run the call.
        reason: with a refusal, what the model reads.
        updated_input: run the call with this input instead (checked against the schema).
        rules: allow rules to add for the rest of the session (Claude Code's
            ``updatedPermissions``), e.g. ``["Bash(npm test:*)"]``.
        interrupt: with a refusal, end the turn after this batch of calls as well.
    """

    allow: bool
    reason: str = ""
    updated_input: dict[str, Any] | None = None
    rules: tuple[str, ...] = ()
    interrupt: bool = False


@dataclass(frozen=True)
class StopRequest:
    """The model answered without tools (``on_stop``).

    Attributes:
        history: the conversation, ending with that answer.
        active: whether a Stop hook already sent the model back in this turn.
        agent_id: the subagent that answered ("" for the main agent).
        agent_type: its type ("" for the main agent).
        transcript_path: its transcript ("" when not saved).
    """

    history: Sequence[Message]
    active: bool
    agent_id: str = ""
    agent_type: str = ""
    transcript_path: str = ""


class Extension:
    """A capability of the session. Every hook point does nothing unless overridden.

    Attributes:
        name: how notices about this extension name it.
    """

    name = "extension"

    async def on_prompt(self, text: str) -> PromptAddition | None:
        """Before the prompt ``text`` joins the history (see the module's table)."""
        return None

    async def before_model_call(self) -> None:
        """Before each model call (the tool set may change here)."""

    async def before_tool(self, call: ToolCall) -> ToolVerdict | None:
        """This extension's verdict on ``call``, or None (no opinion)."""
        return None

    async def ask(self, question: PermissionQuestion) -> PermissionAnswer | None:
        """Decide a call the rules would ask about, or None (let the next one, then the user,
        decide)."""
        return None

    def tool_ended(self, call: ToolCall) -> None:
        """After ``call`` executed, however it ended."""

    async def after_tool(self, call: ToolCall, result: ToolResult) -> ToolResult:
        """The result the model reads instead of ``result``."""
        return result

    async def on_stop(self, stop: StopRequest) -> str | None:
        """A text to send the model back with one more call, or None to end the turn."""
        return None

    async def before_compact(self, trigger: str, focus: str, turn_id: int) -> str | None:
        """Why the compaction must not happen, or None (``trigger``: manual or auto)."""
        return None

    async def after_compact(self) -> None:
        """After a compaction rewrote the history."""

    def on_event(self, event: ev.Event) -> None:
        """Observe one event the session emitted."""

    def status(self) -> str:
        """A few words for the status line ("MCP 2/3"), or ""."""
        return ""

    async def aclose(self, reason: str) -> None:
        """Release what the extension holds: the session is closing (``reason``: SessionEnd's,
        one of ``clear``, ``logout``, ``prompt_input_exit``, ``other``)."""


def combine(verdicts: Sequence[ToolVerdict]) -> ToolVerdict:
    """One verdict from several, as the gate reads them.

    A halt or a deny wins (the first one's reason); otherwise an ask wins over an allow;
    an input rewritten by several extensions is the last rewrite (each extension saw the
    previous one's); contexts are joined in order.
    """
    halt = next((v for v in verdicts if v.halt is not None), None)
    if halt is not None:
        return halt
    deny = next((v for v in verdicts if v.decision == "deny"), None)
    if deny is not None:
        return deny
    ask = next((v for v in verdicts if v.decision == "ask"), None)
    allow = next((v for v in verdicts if v.decision == "allow"), None)
    chosen = ask or allow
    updated = next((v.updated_input for v in reversed(verdicts) if v.updated_input), None)
    context = "\n".join(v.context for v in verdicts if v.context.strip())
    return ToolVerdict(
        chosen.decision if chosen else None,
        chosen.reason if chosen else "",
        updated,
        context,
    )


class Extensions:
    """The extensions of one session, asked in the order they were registered.

    Args:
        emit: the session's event sink (an extension's failure is reported there).
        turn_id: the current turn's id (for those reports).
    """

    def __init__(self, emit: Emit, turn_id: Callable[[], int] = lambda: ev.NO_TURN) -> None:
        self._emit = emit
        self._turn_id = turn_id
        self.items: list[Extension] = []

    def add(self, extension: Extension) -> None:
        """Register ``extension`` after those registered before it."""
        self.items.append(extension)

    def find(self, kind: type[Any]) -> Any:
        """The first registered extension of class ``kind``, or None."""
        return next((x for x in self.items if isinstance(x, kind)), None)

    def __iter__(self) -> Any:
        return iter(self.items)

    def _failed(self, extension: Extension, point: str, exc: BaseException) -> None:
        log.warning("extension %s failed in %s", extension.name, point, exc_info=exc)
        text = (
            f"{extension.name} failed in {point} ({type(exc).__name__}: {exc}); "
            "eddy goes on without it for this step."
        )
        self._emit(ev.Notice(self._turn_id(), text))

    async def on_prompt(self, text: str) -> PromptAddition:
        """Every extension's addition to ``text``; the first block stops the rest."""
        blocks: list[str] = []
        for x in self.items:
            try:
                added = await x.on_prompt(text)
            except Exception as exc:
                self._failed(x, "on_prompt", exc)
                continue
            if added is None:
                continue
            if added.blocked is not None:
                return added
            blocks += added.blocks
        return PromptAddition(None, tuple(blocks))

    async def before_model_call(self) -> None:
        """Before a model call: each extension in turn."""
        for x in self.items:
            try:
                await x.before_model_call()
            except Exception as exc:
                self._failed(x, "before_model_call", exc)

    async def before_tool(self, call: ToolCall) -> ToolVerdict:
        """The combined verdict on ``call`` (see :func:`combine`); a deny or a halt stops
        the chain. ``call.input`` is the input the later extensions and the rules see."""
        verdicts: list[ToolVerdict] = []
        for x in self.items:
            try:
                verdict = await x.before_tool(call)
            except Exception as exc:
                self._failed(x, "before_tool", exc)
                continue
            if verdict is None:
                continue
            if verdict.updated_input is not None and verdict.halt is None:
                problem = validate(call.tool.input_schema, verdict.updated_input)
                if problem:  # refused, naming who rewrote it: the rules never see it
                    name = call.use.name
                    text = (
                        f"The {x.name} extension rewrote this {name} call's input, and the new "
                        f"input is invalid: {problem}. Nothing was run."
                    )
                    verdict = ToolVerdict("deny", text)
            verdicts.append(verdict)
            if verdict.halt is not None or verdict.decision == "deny":
                break
            if verdict.updated_input is not None:
                call.input = verdict.updated_input
        combined = combine(verdicts)
        if combined.context.strip():
            call.context.append(combined.context)
        return combined

    async def ask(self, question: PermissionQuestion) -> PermissionAnswer | None:
        """The first extension's answer to ``question``, or None (ask the user)."""
        for x in self.items:
            try:
                answer = await x.ask(question)
            except Exception as exc:
                self._failed(x, "ask", exc)
                continue
            if answer is not None:
                return answer
        return None

    def tool_ended(self, call: ToolCall) -> None:
        """After an executed call, however it ended."""
        for x in self.items:
            try:
                x.tool_ended(call)
            except Exception as exc:
                self._failed(x, "tool_ended", exc)

    async def after_tool(self, call: ToolCall, result: ToolResult) -> ToolResult:
        """The result the model reads: each extension's in turn."""
        for x in self.items:
            try:
                result = await x.after_tool(call, result)
            except Exception as exc:
                self._failed(x, "after_tool", exc)
        return result

    async def on_stop(self, stop: StopRequest) -> str | None:
        """The first extension's text that sends the model back, or None."""
        for x in self.items:
            try:
                text = await x.on_stop(stop)
            except Exception as exc:
                self._failed(x, "on_stop", exc)
                continue
            if text is not None and text.strip():
                return text
        return None

    async def before_compact(self, trigger: str, focus: str, turn_id: int) -> str | None:
        """The first reason an extension gives to keep the conversation as it is."""
        for x in self.items:
            try:
                reason = await x.before_compact(trigger, focus, turn_id)
            except Exception as exc:
                self._failed(x, "before_compact", exc)
                continue
            if reason is not None:
                return reason
        return None

    async def after_compact(self) -> None:
        """After a compaction: each extension in turn."""
        for x in self.items:
            try:
                await x.after_compact()
            except Exception as exc:
                self._failed(x, "after_compact", exc)

    def on_event(self, event: ev.Event) -> None:
        """Show ``event`` to each extension."""
        for x in self.items:
            try:
                x.on_event(event)
            except Exception as exc:
                self._failed(x, "on_event", exc)

    def status(self) -> str:
        """The extensions' words for the status line, joined."""
        words = []
        for x in self.items:
            try:
                words.append(x.status())
            except Exception as exc:
                self._failed(x, "status", exc)
        return " · ".join(w for w in words if w)

    async def aclose(self, reason: str) -> None:
        """Close every extension, the last registered first."""
        for x in reversed(self.items):
            try:
                await x.aclose(reason)
            except Exception as exc:
                self._failed(x, "aclose", exc)
