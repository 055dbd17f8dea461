"""A session's subagents: what the Agent tool calls (``ctx.subagents.launch``).

The host holds what the whole tree shares: the definitions, the per-file locks, the
concurrency slots, the depth cap and the running children. Limits (docs/loop.md,
"Subagents"):

- **B** is the tree's: a child's turn has the calling turn as its ``parent``, so each
  response's cost is added to every ancestor as it happens and every agent checks the root's
  spend after each response. At B each running agent stops at its next check; a child is not
  started once B is reached. So the spend overshoots B by at most one response per agent
  running when B was reached.
- **T** is per agent (``maxTurns``); depth is capped (``max_depth``: a child at the cap is
  not offered the Agent tool, and a call of it is refused); at most ``concurrency`` children
  run at once at each depth (per depth, so a parent waiting for its children never holds a
  slot they need).
- **Esc** sets the interrupt every agent of the tree races against: each child's history is
  closed validly by its own loop and the parent's Agent call gets an is_error result.

Background children (``run_in_background``), the lead's decision: as in Claude Code, Esc stops
the running turn and its foreground tree, and background agents keep running (the user or the
model asked for them to outlive the turn). Unlike Claude Code (its issue 37218, "background
agents cannot be stopped") one can be stopped: ``stop`` (the TaskStop and KillShell tools,
``/tasks kill ID`` and ``/bashes kill ID`` through ``ops.KillShell``) sets that child's own
interrupt, so its own loop closes its history validly, its transcript says interrupted, its
cost is added to the session's, and the model gets its one report, saying it was stopped
(held for the next prompt: agent/session/reports.py). The session's close stops the rest.
"""

from __future__ import annotations

import asyncio
import contextvars
import time
import uuid
from typing import TYPE_CHECKING, Any

from agent import events as ev
from agent.extension import Extension
from agent.store.children import subagents_dir
from agent.subagents.background import BackgroundAgent, completion_report, first_line
from agent.subagents.child import Child, Frame, narrower
from agent.subagents.definitions import MODEL_ALIASES, AgentCatalog, AgentDefinition
from agent.subagents.locks import FileLocks
from agent.turn.loop import CURRENT_TURN, Turn
from agent.turn.outcome import Limits, TurnOutcome
from tools.base import ToolContext, ToolError, ToolResult

if TYPE_CHECKING:
    from agent.session.core import Session
    from agent.store.transcript import Transcript

MAX_DEPTH = 3
DEFAULT_CONCURRENCY = 4

CURRENT_FRAME: contextvars.ContextVar[Frame | None] = contextvars.ContextVar(
    "eddy_subagent_frame", default=None
)
"""The running agent's place in the tree (None: the main agent)."""


class SubagentHost(Extension):
    """The subagents of one session (a session extension: the session's close stops the
    background agents still running; their reports go to ``session.reports``).

    Args:
        session: the session whose tools, gate, checkpoints and transcript children share.
        catalog: the agent types.
        concurrency: children running at once per depth.
        max_depth: how deep children may nest (1 = children only).
    """

    def __init__(
        self,
        session: Session,
        catalog: AgentCatalog,
        *,
        concurrency: int = DEFAULT_CONCURRENCY,
        max_depth: int = MAX_DEPTH,
    ) -> None:
        self.session = session
        self.catalog = catalog
        self.concurrency = max(1, concurrency)
        self.max_depth = max_depth
        self.locks = FileLocks()
        self.running: dict[str, Child] = {}
        """The children running now, by agent id."""
        self._slots: dict[int, asyncio.Semaphore] = {}
        self.background: dict[str, asyncio.Task[None]] = {}
        """Background children (``run_in_background``) still running, by agent id."""
        self.tasks: dict[str, BackgroundAgent] = {}
        """Every background child of the session (running or ended), by agent id."""

    def report(self, event: ev.Event) -> None:
        """Where a child transcript's one failure report goes: the session's user."""
        self.session.emit(event)

    def open_child_transcript(self, agent_id: str, model: str) -> Transcript | None:
        """A transcript ``<session>/subagents/agent-<id>.jsonl`` next to the session's."""
        from agent.store.transcript import Transcript

        main = self.session.transcript
        if main is None or self.session.recorder.failed:
            return None
        folder = subagents_dir(main.path)
        try:
            return Transcript.create(
                self.session.config.workspace,
                model=model,
                session_id=f"agent-{agent_id}",
                directory=folder,
            )
        except OSError as exc:
            text = f"Could not save the transcript of agent {agent_id}: {exc}"
            self.session.emit(ev.Error(ev.NO_TURN, text, "transcript"))
            return None

    def _frame(self) -> Frame:
        frame = CURRENT_FRAME.get()
        if frame is not None:
            return frame
        session = self.session
        names = frozenset(t.name for t in session.tools.tools())
        return Frame("", 0, names, session.config.policy.mode)

    async def launch(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        """Run the child an Agent call asks for; its answer (and footer) is the result.

        Raises:
            ToolError: the call cannot start a child (unknown type, depth cap, budget spent,
                not inside a turn); the message says why.
        """
        parent = CURRENT_TURN.get()
        if parent is None:
            raise ToolError("The Agent tool runs only inside a turn of the agent loop.")
        definition, child_frame = self._child_frame(args, ctx)
        agent_id = child_frame.agent_id
        model = args.get("model")
        model_id = MODEL_ALIASES.get(str(model), str(model)) if model else None
        model_id = model_id or definition.model or parent.spec.model
        prompt = str(args.get("prompt", ""))
        if args.get("run_in_background"):
            description = str(args.get("description", ""))
            return self._start_background(
                parent, ctx, child_frame, definition, model_id, prompt, description
            )
        slots = self._slots.setdefault(child_frame.depth, asyncio.Semaphore(self.concurrency))
        async with slots:
            # checked once it has a slot: a child that waited for one while the tree spent
            # B must not start (the overshoot bound counts only agents running at B)
            cap = parent.root().limits.max_budget_usd
            if cap is not None and parent.spent() >= cap:
                raise ToolError("The budget is spent; the agent was not started.")
            token = CURRENT_FRAME.set(child_frame)
            try:
                child = Child(
                    self, parent, ctx, child_frame, definition, model_id, prompt, ctx.call_id
                )
                self.running[agent_id] = child
                try:
                    outcome = await child.run(prompt)
                finally:
                    self.running.pop(agent_id, None)
            finally:
                CURRENT_FRAME.reset(token)
        return await self._finish(child, outcome)

    def _child_frame(self, args: dict[str, Any], ctx: ToolContext) -> tuple[AgentDefinition, Frame]:
        """The agent type an Agent call asks for and the frame its child runs in (its tools:
        the type's within the caller's; its mode: the narrower of the two).

        Raises:
            ToolError: the depth cap is reached, or the type is unknown.
        """
        frame = self._frame()
        if frame.depth >= self.max_depth:
            raise ToolError(
                f"Subagents may nest at most {self.max_depth} deep; this agent cannot start "
                "another one. Do the task yourself."
            )
        kind = str(args.get("subagent_type", ""))
        definition = self.catalog.get(kind)
        if definition is None:
            known = ", ".join(self.catalog.agents)
            raise ToolError(f"No agent type {kind!r}. Available: {known}.")
        allowed = {n for n in frame.allowed if definition.allows(n)}
        if frame.depth + 1 >= self.max_depth:
            allowed.discard("Agent")
        child_frame = Frame(
            uuid.uuid4().hex[:12],
            frame.depth + 1,
            frozenset(allowed),
            narrower(frame.mode, definition.permission_mode),
            frame.root_call_id or ctx.call_id,
        )
        return definition, child_frame

    async def _finish(self, child: Child, outcome: TurnOutcome) -> ToolResult:
        """The parent's result for ``child`` (its SubagentStop hooks ran as its turn's
        ``on_stop``: agent/subagents/child.py)."""
        definition, agent_id = child.definition, child.frame.agent_id
        text, is_error = child.result_text(outcome)
        display = {
            "kind": "subagent",
            "agent_id": agent_id,
            "agent_type": definition.name,
            "subtype": outcome.subtype,
            "turns": child.turn.turns,
            "cost_usd": child.turn.cost,
        }
        return ToolResult(text, is_error=is_error, display=display)

    def _start_background(
        self,
        parent: Turn,
        ctx: ToolContext,
        frame: Frame,
        definition: AgentDefinition,
        model_id: str,
        prompt: str,
        description: str,
    ) -> ToolResult:
        """Start a child that outlives the call: the result says so at once, and its answer
        comes as a report (agent/session/reports.py: after the running turn's next results,
        or a turn of its own when eddy is idle).

        It is not in its parent's tree (that turn may end first): its own interrupt (the
        session's close stops it), and the session's budget B, which it and every other running
        turn check against the session's spend as it happens (``Limits.live``); its cost moves
        into the session's totals when it ends.
        """
        self._may_start_background(parent)
        token = CURRENT_FRAME.set(frame)
        try:
            child = Child(self, parent, ctx, frame, definition, model_id, prompt, ctx.call_id)
        finally:
            CURRENT_FRAME.reset(token)
        child.turn.parent = None
        child.turn.interrupt = asyncio.Event()
        _share_budget(child.turn.limits, parent.root())
        self.session.spend.running.append(child.turn)
        agent_id = frame.agent_id
        self.running[agent_id] = child
        record = BackgroundAgent(child, prompt, time.time(), description=description)
        self.tasks[agent_id] = record
        self.session.reports.expect(agent_id)
        ctx_copy = contextvars.copy_context()
        ctx_copy.run(CURRENT_FRAME.set, frame)
        work = self._run_background(child, record, prompt)
        task = asyncio.get_running_loop().create_task(work, context=ctx_copy)
        self.background[agent_id] = task
        self.session.background_changed()
        text = (
            f"Started the {definition.name} agent {agent_id} in the background. You will be "
            "told when it finishes; go on with other work meanwhile."
        )
        display = {"kind": "subagent", "agent_id": agent_id, "agent_type": definition.name}
        return ToolResult(text, display=display | {"subtype": "background"})

    def _may_start_background(self, parent: Turn) -> None:
        """Refuse a background child when the budget is spent or the concurrency cap is
        reached (it holds for background children too: they take no slot, since they outlive
        the call, so without it one response could start any number of them).

        Raises:
            ToolError: why the agent was not started.
        """
        cap = parent.root().limits.max_budget_usd
        if cap is not None and parent.spent() >= cap:
            raise ToolError("The budget is spent; the agent was not started.")
        if len(self.background) >= self.concurrency:
            raise ToolError(
                f"{len(self.background)} background agents are already running (at most "
                f"{self.concurrency}); the agent was not started. Wait for one to finish, or "
                "run this one in the foreground."
            )

    async def _run_background(self, child: Child, record: BackgroundAgent, prompt: str) -> None:
        """Run a background child to its end; its result becomes a report."""
        agent_id = child.frame.agent_id
        outcome = TurnOutcome("interrupted", 0, 0, 0.0, child.turn.usage)
        try:
            outcome = await child.run(prompt)
        finally:
            self.running.pop(agent_id, None)
            self.background.pop(agent_id, None)
            self.session.background_changed()
            self.session.spend.add_background(child.turn)
            # an interrupted background child was stopped: by ``stop`` or the close
            status = {"success": "completed", "interrupted": "stopped"}
            record.status = status.get(outcome.subtype, "failed")
            record.stopping = record.stopping and record.status == "stopped"
        result = await self._finish(child, outcome)
        report = completion_report(record, outcome.subtype, str(result.content))
        self.session.reports.add(report)

    def background_agents(self) -> list[BackgroundAgent]:
        """Every background child of the session, oldest first (``/tasks``)."""
        return list(self.tasks.values())

    def describe_agents(self) -> str:
        """The background agents and their status, for an error naming what exists."""
        if not self.tasks:
            return "background agents: none"
        known = ", ".join(f"{r.id} ({r.agent_type}, {r.status})" for r in self.tasks.values())
        return f"background agents: {known}"

    async def stop(self, agent_id: str) -> str:
        """Stop background child ``agent_id``: set its own interrupt and wait until its loop
        has closed its history (its report is given then); what happened.

        Raises:
            ToolError: no such background agent, or it is not running (the message names
                the background agents there are).
        """
        record = self.tasks.get(agent_id.strip())
        if record is None:
            raise ToolError(
                f"No background agent found with ID: {agent_id} ({self.describe_agents()})."
            )
        task = self.background.get(record.id)
        if record.status != "running" or task is None:
            known = self.describe_agents()
            raise ToolError(f"Agent {record.id} is not running (status: {record.status}; {known}).")
        record.stopping = True
        interrupt = record.child.turn.interrupt
        interrupt.set()
        # wait, not await: the caller's own Esc must not cancel the stopping child's close
        await asyncio.wait({task})
        what = f"{record.agent_type}: {first_line(record.prompt)}"
        if record.status != "stopped":  # it ended on its own before it read the interrupt
            return f"Agent {record.id} ({what}) ended ({record.status}) before it could be stopped."
        return f"Successfully stopped agent: {record.id} ({what})"

    name = "subagents"

    async def aclose(self, reason: str = "other") -> None:
        """The session closes: background children end with it."""
        await self.close()

    def route_correction(self, text: str) -> bool:
        """``@agent-<name or id> text`` while that child runs: queue ``text`` for the child
        (it reads it after its current tool results). True if it went to a child."""
        if not text.startswith("@agent-"):
            return False
        head, _, rest = text[len("@agent-") :].partition(" ")
        matches = [
            c for c in self.running.values()
            if head in (c.frame.agent_id, c.definition.name) or c.frame.agent_id.startswith(head)
        ]  # fmt: skip
        if not matches or not rest.strip():
            return False
        child = matches[-1]
        child.queue.append(rest.strip())
        notice = f"Queued for the agent {child.label}: {rest.strip()}"
        self.session.emit(ev.Notice(self.session.runner.turn_id, notice))
        return True

    async def close(self) -> None:
        """Stop the background children (their histories are closed validly)."""
        tasks = list(self.background.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def _share_budget(limits: Limits, root: Turn) -> None:
    """A background child's budget: one cap for the session (this child, the turn that
    started it and the turns after it all check the spend of every running tree as it
    happens), or what was left of its root's B (a turn run on its own: tests)."""
    cap = root.limits.max_budget_usd
    if cap is not None and root.limits.live is not None:
        limits.max_budget_usd, limits.live = cap, root.limits.live
        limits.spent_before, limits.budget_scope = (
            root.limits.spent_before,
            root.limits.budget_scope,
        )
    elif cap is not None:
        limits.max_budget_usd = cap - root.cost
