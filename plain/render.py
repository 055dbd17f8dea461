"""Engine events as printed lines: what ``eddy --plain`` shows.

The renderer is a pure function of the event stream (plus a little state: the half-written
line, the calls in flight, the queue last seen), so tests can feed it events without an engine.
Each call returns complete lines, without their newline.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from agent import events as ev
from frontend import wording
from frontend.event_table import EventTable
from frontend.sanitize import sanitize
from frontend.server_blocks import server_tool_lines
from frontend.subagents import subagent_line
from frontend.tool_summary import (
    clip_lines,
    diff_counts,
    is_problem,
    more_lines,
    result_text,
    state_mark,
    state_word,
)
from plain.markdown import MarkdownStream
from plain.style import Painter

OUTPUT_LINES = 20
"""Lines of a tool's streamed output shown; the rest is counted (the model still gets it)."""
DIFF_LINES = 40
"""Lines of a diff shown."""
PREVIEW_LINES = 20
"""Lines of a tool's input shown in a permission question."""

STARTED_MARK = "▸"
"""The mark of a call's first line (its end line has frontend/tool_summary.py's state mark)."""
STATUS_STYLE = {"failed": "red", "refused": "yellow", "interrupted": "yellow"}
TODO_MARKS = {"completed": "[x]", "in_progress": "[~]", "pending": "[ ]"}


@dataclass
class _Call:
    label: str
    shown: int = 0
    hidden: int = 0
    partial: str = ""
    streamed: bool = False


def call_label(name: str, summary: str) -> str:
    """``Name(summary)``, one line, at most 100 characters."""
    summary = " ".join(sanitize(summary).split())
    if len(summary) > 90:
        summary = summary[:89] + "…"
    return f"{name}({summary})" if summary else name


def diff_lines(diff: str, paint: Painter, limit: int = DIFF_LINES) -> list[str]:
    """A unified diff, coloured: additions green, removals red, hunk headers cyan."""
    lines = sanitize(diff).rstrip("\n").split("\n")
    shown, hidden = clip_lines(lines, limit)
    out = []
    for line in shown:
        if line.startswith(("+++", "---")):
            out.append(paint(line, "bold"))
        elif line.startswith("@@"):
            out.append(paint(line, "cyan"))
        elif line.startswith("+"):
            out.append(paint(line, "green"))
        elif line.startswith("-"):
            out.append(paint(line, "red"))
        else:
            out.append(line)
    if hidden:
        out.append(paint(f"{more_lines(hidden)} of diff", "dim"))
    return out


first_line = wording.first_line


class Renderer:
    """Turns engine events into lines to print.

    Args:
        paint: the painter (colours on or off).
        output_lines: how many lines of a tool's streamed output to show.
    """

    def __init__(self, paint: Painter, output_lines: int = OUTPUT_LINES) -> None:
        self.paint = paint
        self.output_lines = output_lines
        self.text = MarkdownStream(paint)
        self.calls: dict[str, _Call] = {}
        self.queue: tuple[str, ...] = ()
        self.echo_next: str | None = None
        """The prompt the user just typed (already on screen): TurnStarted does not echo it."""
        self.workspace: Path | None = None
        """Where relative image paths in a prompt start (the app's workspace)."""
        self._thinking = False
        self._previewed: set[str] = set()
        """Calls whose diff was shown with their permission question (not shown again)."""

    def render(self, event: ev.Event) -> list[str]:
        """The lines ``event`` prints (often none). A permission question is
        ``permission()``'s; each event type's handler is in ``HANDLERS``."""
        handler = self.HANDLERS.get(event)
        return handler(self, event) if handler is not None else []

    def finish_text(self) -> list[str]:
        """Whatever assistant text is still held back."""
        return self.text.finish()

    # -- the conversation ---------------------------------------------------------------
    def _on_turn_started(self, event: ev.TurnStarted) -> list[str]:
        self._thinking = False
        if event.origin == "background":  # no one typed it: its reports' lines were shown
            return []
        expected, self.echo_next = self.echo_next, None
        prompt = event.shown or event.prompt  # a custom command as typed, not its body
        lines = (
            []
            if prompt == expected
            else [self.paint("› ", "bold") + sanitize(prompt).replace("\n", "\n  ")]
        )
        if self.workspace is not None:  # the images it attaches, as the TUI's chips
            from frontend.images import attached_image_lines  # Pillow: only when needed

            chips = attached_image_lines(event.prompt, self.workspace)
            lines += [self.paint(sanitize(chip), "cyan") for chip in chips]
        return lines

    def _on_model_call_started(self, event: ev.ModelCallStarted) -> list[str]:
        self._thinking = False
        return []

    def _on_text_delta(self, event: ev.TextDelta) -> list[str]:
        return self.text.feed(event.text)

    def _on_thinking_delta(self, event: ev.ThinkingDelta) -> list[str]:
        if self._thinking:
            return []
        self._thinking = True
        return [self.paint("∴ thinking…", "dim", "italic")]

    def _on_assistant_message(self, event: ev.AssistantMessage) -> list[str]:
        out = self.text.finish()
        for head, lines in server_tool_lines(event.message.get("content") or []):
            out.append(f"{self.paint('⌕', 'cyan')} {head}")
            out.extend(self.paint(f"  {line}", "dim") for line in lines)
        if event.stop_reason == "max_tokens":
            out.append(self.paint("(the response was cut off: output token limit)", "yellow"))
        return out

    def _on_notice(self, event: ev.Notice) -> list[str]:
        return [*self.text.finish(), self.paint(f"note: {sanitize(event.text)}", "cyan")]

    def _on_error(self, event: ev.Error) -> list[str]:
        return [*self.text.finish(), self.paint(f"error: {sanitize(event.message)}", "red", "bold")]

    def _on_interrupted(self, event: ev.Interrupted) -> list[str]:
        lines = self.text.finish(interrupted=True)
        return [*lines, self.paint("■ interrupted: the model stopped", "yellow")]

    def _on_compacted(self, event: ev.Compacted) -> list[str]:
        line = wording.compaction_line(event)
        return [*self.text.finish(), self.paint(line, "cyan")]

    def _on_turn_finished(self, event: ev.TurnFinished) -> list[str]:
        # why it ended is said once: the app adds frontend.wording.turn_end's line (it knows
        # the session's caps); an interruption or an error said so in its own event
        return [*self.text.finish(), ""]

    def _on_hook_ran(self, event: ev.HookRan) -> list[str]:
        if not wording.hook_acts(event):
            return []
        return [*self.text.finish(), self.paint(wording.hook_line(event), "dim")]

    def _on_prompt_blocked(self, event: ev.PromptBlocked) -> list[str]:
        text = f"Prompt blocked by a UserPromptSubmit hook: {sanitize(event.reason)}"
        return [*self.text.finish(), self.paint(text, "yellow")]

    def _on_permission_mode_changed(self, event: ev.PermissionModeChanged) -> list[str]:
        return [self.paint(f"Permission mode: {event.mode}.", "cyan")]

    def _on_session_renamed(self, event: ev.SessionRenamed) -> list[str]:
        return [self.paint(f"Session renamed to “{sanitize(event.title)}”.", "cyan")]

    def _on_background_reported(self, event: ev.BackgroundReported) -> list[str]:
        colour = "red" if event.status == "failed" else "cyan"
        return [*self.text.finish(), self.paint(wording.background_line(event), colour)]

    def _on_subagent_event(self, event: ev.SubagentEvent) -> list[str]:
        line = subagent_line(event)
        return [self.paint(line, "dim")] if line is not None else []

    # -- tools --------------------------------------------------------------------------
    def _on_tool_call_started(self, event: ev.ToolCallStarted) -> list[str]:
        label = call_label(event.name, event.summary)
        self.calls[event.call_id] = _Call(label)
        return [*self.text.finish(), f"{self.paint(STARTED_MARK, 'cyan')} {label}"]

    def _on_tool_output_delta(self, event: ev.ToolOutputDelta) -> list[str]:
        call = self.calls.get(event.call_id)
        if call is None:
            return []
        call.streamed = True
        call.partial += sanitize(event.text)
        if "\n" not in call.partial:
            return []
        *lines, call.partial = call.partial.split("\n")
        return self._output(call, lines)

    def _output(self, call: _Call, lines: list[str]) -> list[str]:
        shown, hidden = clip_lines(lines, self.output_lines - call.shown)
        call.shown += len(shown)
        call.hidden += hidden
        bar = self.paint("  │ ", "dim")
        return [bar + line for line in shown]

    def _on_tool_call_finished(self, event: ev.ToolCallFinished) -> list[str]:
        call = self.calls.pop(event.call_id, None) or _Call(event.name)
        out: list[str] = []
        if call.partial:
            out.extend(self._output(call, [call.partial]))
        text = result_text(event.content)
        display = event.display or {}
        if event.status == "done" and not call.streamed and event.name == "Bash":
            out.extend(self._output(call, sanitize(text).rstrip("\n").split("\n")))
        if call.hidden:
            note = f"  │ {more_lines(call.hidden)} (the model sees all of them)"
            out.append(self.paint(note, "dim"))
        status = event.status
        line = f"  {state_mark(status)} {call.label} {state_word(status)}"
        detail = ""
        if status == "done":
            if display.get("kind") == "diff":
                detail = diff_counts(display)
            elif event.name != "Bash" and display.get("kind") != "todos":
                count = len(text.rstrip("\n").split("\n")) if text.strip() else 0
                detail = f"{count} line{'s' if count != 1 else ''}"
        elif status != "interrupted":
            detail = first_line(text)
        if detail:
            line += f": {detail}"
        out.append(self.paint(line, STATUS_STYLE[status]) if is_problem(status) else line)
        previewed = event.call_id in self._previewed
        self._previewed.discard(event.call_id)
        if display.get("kind") == "diff" and display.get("diff") and not previewed:
            out.extend("    " + ln for ln in diff_lines(str(display["diff"]), self.paint))
        return out

    def _on_todos_updated(self, event: ev.TodosUpdated) -> list[str]:
        out = [self.paint("Tasks:", "bold")]
        for todo in event.todos:
            status = str(todo.get("status", "pending"))
            text = sanitize(str(todo.get("content", "")))
            line = f"  {TODO_MARKS.get(status, '[ ]')} {text}"
            out.append(self.paint(line, "dim") if status == "completed" else line)
        return out

    # -- the user -----------------------------------------------------------------------
    def permission(self, event: ev.PermissionRequested) -> list[str]:
        """What a permission question shows: the command, the engine's diff preview, or the
        call's input."""
        diff = event.preview
        asker = f" (asked by the agent {sanitize(event.agent)})" if event.agent else ""
        question = f"? {event.name} needs your permission{asker}:"
        out = [*self.text.finish(), self.paint(question, "bold")]
        if event.warning:
            out.append(self.paint(f"  {sanitize(event.warning)}", "yellow"))
        args = event.input
        if event.name == "Bash":
            out.append("    $ " + sanitize(str(args.get("command", ""))).replace("\n", "\n      "))
            if args.get("description"):
                out.append(self.paint(f"    {sanitize(str(args['description']))}", "dim"))
        elif diff is not None:
            self._previewed.add(event.call_id)
            out.extend("    " + ln for ln in diff_lines(diff, self.paint))
        elif event.name == "Edit" and "old_string" in args:
            path = sanitize(str(args.get("file_path", "")))
            old = [f"-{ln}" for ln in str(args["old_string"]).rstrip("\n").split("\n")]
            new = [f"+{ln}" for ln in str(args.get("new_string", "")).rstrip("\n").split("\n")]
            text = "\n".join([f"{path} (replace):", *old, *new])
            out.extend("    " + ln for ln in diff_lines(text, self.paint))
        else:
            body = sanitize(json.dumps(args, indent=2, ensure_ascii=False)).split("\n")
            shown, hidden = clip_lines(body, PREVIEW_LINES)
            out.extend("    " + ln for ln in shown)
            if hidden:
                out.append(self.paint(f"    {more_lines(hidden)}", "dim"))
        if event.suggested_rule:
            out.append(
                self.paint(f"    (always = allow {event.suggested_rule} from now on)", "dim")
            )
        return out

    def _on_questions_answered(self, event: ev.QuestionsAnswered) -> list[str]:
        answered = "; ".join(f"{q} {a}" for q, a in event.answers.items())
        return [self.paint(f"Answered: {sanitize(answered)}", "dim")]

    def _on_plan_reviewed(self, event: ev.PlanReviewed) -> list[str]:
        if event.approved:
            return [self.paint(f"Plan approved: eddy goes on in {event.mode} mode.", "cyan")]
        return [self.paint("Plan rejected: eddy stays in plan mode.", "cyan")]

    def _on_queue_changed(self, event: ev.QueueChanged) -> list[str]:
        before, self.queue = self.queue, event.queue
        if len(event.queue) <= len(before):
            return []
        added = event.queue[len(before) :]
        return [self.paint(f"queued: {first_line(t, 200)}", "cyan") for t in added]

    def _on_corrections_delivered(self, event: ev.CorrectionsDelivered) -> list[str]:
        return [
            *self.text.finish(),
            *(
                self.paint(f"↳ sent to the model: {first_line(t, 200)}", "cyan")
                for t in event.texts
            ),
        ]

    def _on_rewind_finished(self, event: ev.RewindFinished) -> list[str]:
        out = [*self.text.finish(), self.paint(sanitize(event.message), "cyan")]
        groups = (
            ("restored", event.restored, ""),
            ("deleted", event.deleted, ""),
            ("left alone (you changed them since)", event.conflicts, "yellow"),
            ("not restorable", event.not_restorable, "yellow"),
        )
        for title, paths, style in groups:
            if paths:
                line = f"  {title}: " + ", ".join(sanitize(p) for p in paths)
                out.append(self.paint(line, style) if style else line)
        return out

    HANDLERS: ClassVar[EventTable[Callable[[Renderer, Any], list[str]]]] = EventTable(
        "the line mode's renderer",
        {
            ev.TurnStarted: _on_turn_started,
            ev.ModelCallStarted: _on_model_call_started,
            ev.TextDelta: _on_text_delta,
            ev.ThinkingDelta: _on_thinking_delta,
            ev.AssistantMessage: _on_assistant_message,
            ev.ToolCallStarted: _on_tool_call_started,
            ev.ToolOutputDelta: _on_tool_output_delta,
            ev.ToolCallFinished: _on_tool_call_finished,
            ev.CorrectionsDelivered: _on_corrections_delivered,
            ev.QueueChanged: _on_queue_changed,
            ev.TodosUpdated: _on_todos_updated,
            ev.Notice: _on_notice,
            ev.Error: _on_error,
            ev.HookRan: _on_hook_ran,
            ev.PromptBlocked: _on_prompt_blocked,
            ev.Interrupted: _on_interrupted,
            ev.PermissionModeChanged: _on_permission_mode_changed,
            ev.SessionRenamed: _on_session_renamed,
            ev.Compacted: _on_compacted,
            ev.RewindFinished: _on_rewind_finished,
            ev.TurnFinished: _on_turn_finished,
            ev.QuestionsAnswered: _on_questions_answered,
            ev.PlanReviewed: _on_plan_reviewed,
            ev.BackgroundReported: _on_background_reported,
            ev.SubagentEvent: _on_subagent_event,
        },
        ignored=(  # the toolbar's (plain/status.py) or the question's
            ev.ToolCallRunning,
            ev.PermissionRequested,
            ev.PermissionResolved,
            ev.QuestionsAsked,
            ev.PlanReviewRequested,
            ev.UsageUpdated,
            ev.HookStarted,  # its HookRan line says it ran
            ev.BackgroundChanged,
        ),
    )
    """Each event type's lines: a handler, or none for the types named in ``ignored``."""
