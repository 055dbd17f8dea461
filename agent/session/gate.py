"""The gate of docs/loop.md made interactive: policy first, then the user.

``allow`` runs the call, ``deny`` refuses it with the policy's reason, and ``ask`` becomes a
``PermissionRequested`` event answered by ``ops.AnswerPermission`` (an asyncio Future keyed by
the request id). In headless mode nobody can answer, so ``ask`` is a refusal that says how to
allow the tool.

An allowed call carries its grant (:data:`tools.base.Grant`) to the tool: ``read_only`` when
eddy allowed a Bash command only because it is read-only, ``rule`` for allow rules and modes
(``git_config`` when its only change is git's harmless write of its configuration), ``user``
for a "yes" and for bypassPermissions. The Bash tool's sandbox profile follows from
it (:mod:`agent.sandbox`). Without a working sandbox a read-only command is not auto-allowed:
it asks, and the session says once why.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import shlex
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from agent import events as ev
from agent import ops
from agent.extension import Extensions, PermissionQuestion, ToolCall, ToolVerdict
from agent.messages import ToolUseBlock
from agent.permissions.policy import EDIT_TOOLS, Decision, Policy, Rule, call_paths
from agent.session.preview import precheck, preview_diff
from agent.turn.runner import GateDecision
from tools.base import Grant, ResolvedPath, Tool, ToolContext
from tools.schema import validate

if TYPE_CHECKING:
    from agent.sandbox.runner import Sandbox


_JUDGED_KEPT = 256
"""Calls whose judged paths are kept (a batch runs after its gate; older ones have run)."""


def headless_refusal(use: ToolUseBlock, decision: Decision) -> str:
    """What the model (and the user, in the output) reads when headless eddy cannot ask.

    It says why the call asks (which part of a command, which path, which rule) and the
    narrowest rule that would allow it, never the bare tool name for Bash (which would
    allow every command).
    """
    why = decision.reason.strip() or f"{use.name} needs permission."
    text = f"{use.name} was not run: eddy runs headless and cannot ask the user. {why}"
    rule = decision.rule
    if use.name == "Bash" and rule in (None, "Bash") and "permission rule" not in why:
        rule = f"Bash({str(use.input.get('command', '')).strip()})"
    if rule:
        return f"{text} To allow it, run eddy with --allowed-tools {shlex.quote(rule)}."
    return f"{text} No allow rule settles this; run eddy interactively to answer it."


class PathAccess:
    """The gate's answers about paths, for the tools (``tools.base.PathRules``): the paths
    outside the workspace an allowed call was judged to touch, and the policy's read deny
    rules as they are when a tool asks (rules change during a session).

    Args:
        policy: the session's policy (its deny rules are read when asked).
        workspace: the workspace root (its real path is used).
    """

    def __init__(self, policy: Policy, workspace: Path) -> None:
        self.policy = policy
        self.workspace = Path(os.path.realpath(workspace))
        self.approved: set[Path] = set()
        """The real paths outside the workspace that calls were allowed to touch."""

    def allow_outside(self, tool: str, path: Path) -> bool:
        """Whether a call was allowed to touch ``path`` (outside the workspace)."""
        return path in self.approved

    def read_filter(self) -> Callable[[str, Path], bool] | None:
        """Whether a read deny rule forbids ``tool`` to read or name a path; None without
        such rules (Glob and Grep then check nothing)."""
        policy, workspace = self.policy, self.workspace
        if not policy.read_rules():
            return None

        def denied(tool: str, path: Path) -> bool:
            return policy.read_denied(tool, path, workspace)

        return denied


class PermissionGate:
    """Decides every tool call of a session.

    Args:
        policy: the permission policy (mutable: "don't ask again" adds rules to it).
        ctx: the tools' context (paths are resolved against it).
        emit: the session's event sink.
        turn_id: returns the current turn's id (for events).
        workspace: where "don't ask again" rules are saved.
        headless: ask means refuse.
        save_rules: whether "don't ask again" writes the project's local settings.
        sandbox: the session's sandbox; None means none is consulted (read-only commands
            are auto-allowed as if one ran them: only for tests of the policy alone).
        paths: where the outside paths of allowed calls are approved: the tools' context's
            ``paths`` (``ctx.allow_outside`` lets them through); None: the gate's own (tests
            of the policy alone).
    """

    def __init__(
        self,
        policy: Policy,
        ctx: ToolContext,
        emit: Callable[[ev.Event], None],
        turn_id: Callable[[], int],
        workspace: Path,
        *,
        headless: bool,
        save_rules: bool = True,
        sandbox: Sandbox | None = None,
        paths: PathAccess | None = None,
    ) -> None:
        self.policy = policy
        self.ctx = ctx
        self._emit = emit
        self._turn_id = turn_id
        self.workspace = workspace
        self.headless = headless
        self.save_rules = save_rules
        self.pending: dict[str, asyncio.Future[ops.AnswerPermission]] = {}
        self.paths = paths if paths is not None else PathAccess(policy, workspace)
        """The approved outside paths (shared with a subagent's gate and the tools)."""
        self.sandbox = sandbox
        self._told_no_sandbox = False
        self.extensions: Extensions | None = None
        """The session's extensions: their ``before_tool`` verdicts come first (PreToolUse
        hooks); None: none (tests of the policy alone)."""
        self.agent = ""
        """The subagent this gate decides for (tags its questions); empty for the main one."""

    def answer(self, op: ops.AnswerPermission) -> None:
        fut = self.pending.get(op.request_id)
        if fut is not None and not fut.done():
            fut.set_result(op)

    async def __call__(self, use: ToolUseBlock, tool: Tool | None) -> GateDecision:
        """Decide ``use``: the extensions' verdicts first, then the rules, the mode and the
        user (agent/extension.py states the order). A deny at any step wins."""
        if tool is None:
            return GateDecision(False, f"No such tool: {use.name}")
        if self.extensions is None:
            return await self._decide(use, tool, ToolVerdict())
        call = ToolCall(use, tool, use.input, agent=self.agent)
        verdict = await self.extensions.before_tool(call)
        if verdict.halt is not None:  # wins over any decision; the turn ends after the batch
            return GateDecision(False, f"{use.name} was not run: {verdict.halt}", halt=verdict.halt)
        if verdict.decision == "deny":
            return GateDecision(False, verdict.reason or f"{use.name} was refused.")
        rewritten = call.input is not use.input
        if rewritten:  # checked against the schema already: the rules judge the new input
            use = dataclasses.replace(use, input=call.input)
        decision = await self._decide(use, tool, verdict)
        if decision.allow:
            updated = decision.updated_input or (call.input if rewritten else None)
            context = "\n".join(call.context)
            decision = dataclasses.replace(decision, updated_input=updated, context=context)
        return decision

    async def _decide(self, use: ToolUseBlock, tool: Tool, verdict: ToolVerdict) -> GateDecision:
        """The rules' decision, then the user's; ``verdict`` is the extensions' (its allow
        skips the question unless a deny or ask rule speaks; its ask asks although a rule or
        the mode allows)."""
        self._mask_reads()
        policy = self.policy
        if verdict.decision == "allow":  # allowed by name: deny and ask rules still apply
            policy = dataclasses.replace(policy, allow=[*policy.allow, Rule.parse(tool.name)])
        paths = call_paths(tool, use.input, self.ctx)  # resolved once: judged, then held to
        decision = policy.check(tool, use.input, self.ctx, paths)
        if verdict.decision == "ask" and decision.verdict == "allow":
            why = verdict.reason.strip() or f"An extension asks before this {use.name} call."
            decision = Decision("ask", why, None, why)
            if self.headless:  # no allow rule can settle an extension's ask: say so
                text = (
                    f"{use.name} was not run: {decision.reason} eddy runs headless and cannot ask."
                )
                return GateDecision(False, text)
        if decision.verdict == "deny":
            return GateDecision(False, decision.reason)
        warning, offer = decision.warning, None
        if decision.verdict == "allow":
            unsandboxed = self._unsandboxed(decision, use)
            if unsandboxed is None:
                self._hold_to(use, tool, paths)
                return GateDecision(True, grant=self._grant(decision))
            # no sandbox: "don't ask again" allows this one command line
            warning, offer = unsandboxed, f"Bash({str(use.input.get('command', '')).strip()})"
        return await self._settle_ask(use, tool, paths, decision, warning, offer)

    async def _settle_ask(
        self,
        use: ToolUseBlock,
        tool: Tool,
        paths: list[ResolvedPath],
        decision: Decision,
        warning: str,
        offer: str | None,
    ) -> GateDecision:
        """A call the rules did not settle: refused (it cannot succeed, dontAsk, headless) or
        answered by an extension or the user."""
        # Never ask about a call that cannot succeed (an Edit matching twice, a stale read):
        # its error is the result at once. Only asked-about calls are checked, after the
        # policy, so a deny rule still wins and an allowed call is checked once, by its run.
        problem = precheck(tool, use.input, self.ctx)
        if problem is not None:
            return GateDecision(False, problem, failed=True)
        if self.policy.mode == "dontAsk":  # the policy refused every other ask already
            return GateDecision(False, f"{use.name} was not run in dontAsk mode: {warning}")
        answered = await self._ask_extensions(use, tool, paths, warning, offer or decision.rule)
        if answered is not None:
            return answered
        if self.headless:
            if warning:
                return GateDecision(
                    False,
                    f"{use.name} was not run: {warning} eddy runs headless and cannot ask the "
                    "user.",
                )
            return GateDecision(False, headless_refusal(use, decision))
        return await self._ask(use, tool, paths, warning, offer)

    async def _ask_extensions(
        self,
        use: ToolUseBlock,
        tool: Tool,
        paths: list[ResolvedPath],
        warning: str,
        suggestion: str | None,
    ) -> GateDecision | None:
        """An extension's answer in the user's place (an Agent SDK's ``can_use_tool``), or
        None when none answers."""
        if self.extensions is None:
            return None
        try:
            summary = tool.summary(use.input)
        except Exception:
            summary = ""
        question = PermissionQuestion(use, tool, summary, suggestion, warning, self.agent)
        answer = await self.extensions.ask(question)
        if answer is None:
            return None
        if not answer.allow:
            text = answer.reason.strip() or f"Permission to use {use.name} was denied."
            halt = text if answer.interrupt else None
            return GateDecision(False, text, halt=halt)
        if answer.updated_input is not None:
            problem = validate(tool.input_schema, answer.updated_input)
            if problem:
                text = f"The permission answer's new input for {use.name} is invalid: {problem}."
                return GateDecision(False, text + " Nothing was run.", failed=True)
            use = dataclasses.replace(use, input=answer.updated_input)
            paths = call_paths(tool, use.input, self.ctx)  # the input that runs
        for rule in answer.rules:
            try:
                self.policy.allow.append(Rule.parse(rule))
            except ValueError:
                continue
        self._hold_to(use, tool, paths)
        return GateDecision(True, grant="user", updated_input=answer.updated_input)

    def _mask_reads(self) -> None:
        """The sandbox masks what read deny rules cover (rules change: each call); Glob and
        Grep ask ``paths.read_filter`` themselves."""
        if self.sandbox is not None:
            self.sandbox.mask_reads(self.policy.read_rules(), self.ctx.workspace)

    def _grant(self, decision: Decision) -> Grant:
        if self.policy.mode == "bypassPermissions":
            return "bypass"
        if decision.git_config:
            return "git_config"
        return "read_only" if decision.read_only else "rule"

    def _unsandboxed(self, decision: Decision, use: ToolUseBlock) -> str | None:
        """Why an auto-allowed read-only command must ask after all (no sandbox), or None."""
        if not decision.read_only or self.sandbox is None:
            return None
        why = self.sandbox.unavailable_reason(str(use.input.get("command", "")))
        if why is None:
            return None
        text = f"eddy runs read-only commands without asking only inside its sandbox, and {why}."
        if not self._told_no_sandbox:
            self._told_no_sandbox = True
            self._emit(ev.Notice(self._turn_id(), f"{text} Such commands ask for now."))
        return text

    def _remember_rule(self, rule: str) -> None:
        """ "Yes, don't ask again": allow ``rule`` now and save it to the local settings."""
        from agent.permissions.policy import Rule
        from agent.settings.edit import save_rule
        from agent.settings.files import SettingsError

        self.policy.allow.append(Rule.parse(rule))
        if self.save_rules:
            try:
                saved = save_rule(rule, self.workspace)
            except (SettingsError, OSError) as exc:
                text = f"Allowed {rule} for this session; could not save it: {exc}"
            else:
                text = saved.message
            self._emit(ev.Notice(self._turn_id(), text))

    def _hold_to(self, use: ToolUseBlock, tool: Tool, paths: list[ResolvedPath]) -> None:
        """An allowed call may touch exactly the paths judged (never resolved again): the
        outside ones are approved, and the tool is held to them (``ToolContext.judged``)."""
        self.paths.approved.update(p.path for p in paths if not p.inside)
        if not paths:
            return
        judged = self.ctx.judged
        judged[use.id] = frozenset(p.path for p in paths)
        while len(judged) > _JUDGED_KEPT:  # the oldest calls have run long ago
            del judged[next(iter(judged))]
        if tool.name in EDIT_TOOLS and self.sandbox is not None:
            self.sandbox.approve([p.path for p in paths])

    async def _ask(
        self,
        use: ToolUseBlock,
        tool: Tool,
        paths: list[ResolvedPath],
        warning: str = "",
        offer: str | None = None,
    ) -> GateDecision:
        request_id = f"perm-{uuid.uuid4().hex[:8]}"
        fut: asyncio.Future[ops.AnswerPermission] = asyncio.get_running_loop().create_future()
        self.pending[request_id] = fut
        try:
            rule = offer or self.policy.suggest(tool, use.input, self.ctx)
        except Exception:
            rule = None
        try:
            summary = tool.summary(use.input)
        except Exception:
            summary = ""
        preview = preview_diff(tool, use.input, self.ctx)
        self._emit(
            ev.PermissionRequested(
                self._turn_id(),
                request_id,
                use.id,
                use.name,
                use.input,
                summary,
                rule,
                warning,
                preview,
                self.agent,
            )
        )
        try:
            answer = await fut
        finally:
            self.pending.pop(request_id, None)
        self._emit(ev.PermissionResolved(self._turn_id(), request_id, answer.decision))
        if answer.decision == "deny":
            text = f"The user refused this {use.name} call."
            if answer.reason.strip():
                text += f" The user said: {answer.reason.strip()}"
            return GateDecision(False, text)
        if answer.decision == "allow_always" and rule is not None:
            self._remember_rule(rule)
        self._hold_to(use, tool, paths)
        return GateDecision(True, grant="user")
