"""One subagent: the same Turn loop (docs/loop.md) with its own history, tools and T.

What a child shares with its parent, and what it does not:

- **Shared:** the model client, the workspace, the checkpoint hooks (its edits and shell
  changes are captured in the checkpoint of the prompt that started the tree, so a rewind
  restores them), the sandbox, the permission rules, the session's extensions (PreToolUse and
  PostToolUse hooks judge its calls, the checkpoints settle after them, SubagentStop hooks
  see its answers), the user gate (its questions are the session's, tagged with the agent,
  answered by the same op), the interrupt (Esc stops the whole tree), and the budget B (its
  cost counts in its parent's turn as it happens).
- **Its own:** the history (it starts from the prompt alone and returns only its final
  text), the tool filter (a tool outside it is refused as an is_error result), a permission
  mode that can only be narrower than its parent's, its turn limit ``maxTurns``, the
  read records of the file tools (it must Read before it edits) and the shell's cwd.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agent import events as ev
from agent.extension import StopRequest
from agent.messages import Message, TextBlock, ToolUseBlock
from agent.model.protocol import ModelRequest
from agent.session.gate import PermissionGate
from agent.session.record import SessionRecorder
from agent.subagents.definitions import AgentDefinition
from agent.subagents.locks import LockedTool
from agent.turn.loop import Turn, TurnHost
from agent.turn.outcome import Limits, TurnOutcome
from agent.turn.runner import Gate, GateDecision, ToolRunner
from tools.base import Tool, ToolContext
from tools.textfile import plural

if TYPE_CHECKING:
    from agent.store.transcript import Transcript
    from agent.subagents.host import SubagentHost

MODE_RANK = {
    "plan": 0.0,
    "dontAsk": 0.5,
    "default": 1.0,
    "acceptEdits": 2.0,
    "bypassPermissions": 3.0,
}
"""Permission modes from the narrowest; a child gets the narrower of its parent's and its own.
dontAsk (what would ask is refused) allows less than default and more than plan."""


def narrower(parent: str, child: str | None) -> str:
    """The mode a child runs in: its own only where it allows less than its parent's."""
    if child is None or MODE_RANK.get(child, 0) >= MODE_RANK.get(parent, 0):
        return parent
    return child


@dataclass(frozen=True)
class Frame:
    """Where in the tree a running agent is: what a call of the Agent tool inherits.

    Attributes:
        agent_id: the agent's id ("" for the main agent).
        depth: 0 for the main agent, 1 for its children, ...
        allowed: the tool names it may use (a child's are a subset of its parent's).
        mode: its permission mode.
        root_call_id: the main agent's Agent call this agent runs under ("" for the main one).
    """

    agent_id: str
    depth: int
    allowed: frozenset[str]
    mode: str
    root_call_id: str = ""


class Child(TurnHost):
    """Builds and runs one subagent; ``run`` returns its outcome, ``result_text`` its answer.

    Args:
        host: the session's subagent host (shared state of the tree).
        parent: the turn whose Agent call starts this child.
        parent_ctx: that call's tool context.
        frame: this child's place in the tree.
        definition: its agent type.
        model_id: the model it calls.
        prompt: the task.
        call_id: the parent's Agent call id.
    """

    def __init__(
        self,
        host: SubagentHost,
        parent: Turn,
        parent_ctx: ToolContext,
        frame: Frame,
        definition: AgentDefinition,
        model_id: str,
        prompt: str,
        call_id: str,
    ) -> None:
        self.host = host
        self.frame = frame
        self.definition = definition
        self.call_id = call_id
        self.history: list[Message] = [Message("user", (TextBlock(prompt),))]
        self.queue: list[str] = []
        """Corrections for this child (``@agent-name text`` while it runs)."""
        self.last_notice = ""
        self.transcript: Transcript | None = host.open_child_transcript(frame.agent_id, model_id)
        self._recorder = SessionRecorder(host.report)
        self._recorder.transcript = self.transcript
        about: dict[str, Any] = {
            "type": "subagent",
            "agent_id": frame.agent_id,
            "agent_type": definition.name,
        }
        about |= {"parent_call_id": call_id, "depth": frame.depth}
        self._recorder.write(lambda t: t.append(about))  # who this child was (load skips it)
        session = host.session
        root = parent.root()
        self._root_turn = root
        self.ctx = ctx = parent_ctx.for_child()
        tools = session.tools.subset(frame.allowed, lambda t: LockedTool(t, host.locks))
        # the session's extensions: checkpoints settle after its calls, hooks run for them
        self.runner = ToolRunner(tools, ctx, self._gate(), self._emit, session.extensions)
        self.runner.turn_id = 1
        text = f"{definition.prompt}\n\nThe workspace is {session.config.workspace}."
        spec = ModelRequest(
            model_id,
            system=[{"type": "text", "text": text}],
            max_tokens=parent.spec.max_tokens,
            thinking=parent.spec.thinking,
        )
        self.turn = Turn(
            self.history,
            parent.model,
            spec,
            self.runner,
            parent.interrupt,
            self,
            limits=Limits(max_turns=definition.max_turns),
        )
        self.turn.parent = parent

    @property
    def label(self) -> str:
        """How the user sees this agent in questions and lines: ``a1b2c3 (Explore)``."""
        return f"{self.frame.agent_id} ({self.definition.name})"

    async def on_stop(self, history: list[Message], active: bool) -> str | None:
        """The child answered without tools: the session's extensions (SubagentStop hooks); a text
        is the child's next prompt, a model call counted against its T and the tree's B like
        any other (at most 8 in a row, as for Stop)."""
        transcript = self.transcript
        stop = StopRequest(
            history,
            active,
            self.frame.agent_id,
            self.definition.name,
            str(transcript.path) if transcript is not None else "",
        )
        return await self.host.session.extensions.on_stop(stop)

    def take_queue(self) -> list[str]:
        """The corrections for this child (``@agent-name text``), taken."""
        taken, self.queue = self.queue, []
        return taken

    def _gate(self) -> Gate:
        """The parent's rules under the child's (narrower) mode, behind the tool filter."""
        session = self.host.session
        policy = dataclasses.replace(session.config.policy, mode=self.frame.mode)  # type: ignore[arg-type]
        root = self._root_turn

        def gate_emit(event: ev.Event) -> None:
            # questions go to the session's user as they are (tagged): every front end
            # already shows and answers them; anything else is the child's own event
            if isinstance(event, (ev.PermissionRequested, ev.PermissionResolved)):
                session.emit(event)
            else:
                self._emit(event)

        inner = PermissionGate(
            policy,
            self.ctx,
            gate_emit,
            lambda: root.turn_id,
            session.config.workspace,
            headless=session.config.headless,
            save_rules=session.config.save_rules,
            sandbox=session.gate.sandbox,
            paths=session.gate.paths,  # the session's approvals: the tools' context holds them
        )
        inner.pending = session.gate.pending  # answered by the session's AnswerPermission
        inner.extensions = session.extensions  # PreToolUse hooks judge a child's calls too
        inner.agent = self.label
        allowed, name = self.frame.allowed, self.definition.name

        async def gate(use: ToolUseBlock, tool: Tool | None) -> GateDecision:
            if (tool.name if tool is not None else use.name) not in allowed:
                have = ", ".join(sorted(allowed)) or "none"
                why = f"{use.name} is not available to the {name} agent (its tools: {have})."
                return GateDecision(False, why)
            return await inner(use, tool)

        return gate

    def _emit(self, event: ev.Event) -> None:
        if type(event) in (ev.TextDelta, ev.ThinkingDelta):
            return  # thousands a second; the parent shows the child's messages, not its deltas
        if isinstance(event, ev.Notice):
            self.last_notice = event.text
        self._recorder.record_event(event, self.history)
        frame = self.frame
        self.host.session.emit(
            ev.SubagentEvent(
                self._root_turn.turn_id,
                frame.root_call_id or self.call_id,
                frame.agent_id,
                self.definition.name,
                frame.depth,
                ev.to_json(event),
            )
        )

    async def run(self, prompt: str) -> TurnOutcome:
        """Run the child's loop to its end; its transcript is closed however it ends."""
        started = time.monotonic()
        self._emit(ev.TurnStarted(1, prompt))
        self._recorder.write(lambda t: t.record_history(self.history, prompt=prompt))
        outcome = TurnOutcome("interrupted", 0, 0, 0.0, self.turn.usage)
        try:
            cap = self.turn.root().limits.max_budget_usd
            if cap is not None and self.turn.spent() >= cap:
                # B was reached after it was launched (a background agent starts a moment
                # later): it makes no call at all, so the overshoot stays one response per
                # agent that was running at B
                why = "The budget was spent before the agent began; it made no call."
                outcome = TurnOutcome("error_max_budget_usd", 0, 0, 0.0, self.turn.usage, error=why)
                return outcome
            outcome = await self.turn.run()
            return outcome
        finally:
            turn = self.turn
            self.duration_ms = int((time.monotonic() - started) * 1000)
            self._emit(
                ev.TurnFinished(
                    1, outcome.subtype, turn.turns, turn.calls, turn.cost, turn.cost,
                    self.duration_ms, turn.usage.to_dict(), outcome.result, outcome.error,
                    outcome.stop_reason,
                )
            )  # fmt: skip
            end: dict[str, Any] = {"type": "subagent_end", "subtype": outcome.subtype}
            end |= {"num_turns": turn.turns, "cost_usd": turn.cost}
            end["duration_ms"] = self.duration_ms
            self._recorder.write(lambda t: t.append(end))  # how it ended (load skips it)
            if self.transcript is not None:
                try:
                    self.transcript.close()
                except OSError:
                    pass

    def result_text(self, outcome: TurnOutcome) -> tuple[str, bool]:
        """The parent's tool_result for this child: its final text and a footer; is_error."""
        turn = self.turn
        tokens = turn.usage.prompt_tokens + turn.usage.output_tokens
        seconds = getattr(self, "duration_ms", 0) / 1000
        footer = (
            f"[agent {self.frame.agent_id} ({self.definition.name}): {plural(turn.turns, 'turn')}, "
            f"{tokens} tokens, ${turn.cost:.4f}, {seconds:.1f}s]"
        )
        if outcome.subtype == "success":
            answer = outcome.result.strip() or "(the agent gave no answer)"
            return f"{answer}\n\n{footer}", False
        if outcome.subtype == "interrupted":
            return f"The user interrupted the {self.definition.name} agent.\n\n{footer}", True
        why = outcome.error or self.last_notice or outcome.subtype
        last = next((m.text for m in reversed(self.history) if m.role == "assistant"), "")
        text = f"The {self.definition.name} agent stopped before finishing: {why}"
        if last.strip():
            text += f"\nIts last message: {last.strip()}"
        return f"{text}\n\n{footer}", True
