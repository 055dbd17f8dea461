"""A session's subagent transcripts as the user reads them (UI-free, every front end).

Each child is recorded like the main session in ``<session>/subagents/agent-<id>.jsonl``
(``agent.store.children``): a header, a ``subagent`` record (who the child was: its id,
type, parent call, depth), its history as ``message`` records, ``usage`` records, and when it
ends a ``subagent_end`` record (its subtype, turns, cost, duration). Files written before the
end record existed still read: what they lack is shown as unknown.

``child_summaries`` is one line's worth per child (the resume pickers); ``transcript_lines``
is one child's whole transcript as plain lines (the transcript screen, ``/resume 3.1``). The
history is read with the session loader (``agent.store.load.load``), so a torn last line or an
unreadable line is handled as on resume; nothing here raises for a bad file: it says so.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent.messages import Message, TextBlock, ToolResultBlock, ToolUseBlock
from agent.store.children import PREFIX, child_transcripts, subagents_dir
from agent.store.load import LoadedSession, TranscriptError, load
from agent.store.repair import INTERRUPTED_RESULT
from frontend.sanitize import sanitize
from frontend.tool_summary import clip_lines, more_lines, result_text
from frontend.wording import first_line

RESULT_LINES = 4
"""A tool result is cut to this many lines (the child's answer is its parent's result)."""
LINE_CHARS = 240
"""Any one line is cut to this many cells."""
MAX_CHILDREN = 50
"""At most this many children are summarised per session (the newest); the rest are counted."""

Summary = Callable[[str, dict[str, Any]], str]
"""A tool call's one-line summary, from its name and input."""

_HIDDEN = ("<system-reminder>",)
"""Text only the model reads."""


def agent_title(agent_type: str, agent_id: str) -> str:
    """What the views call a subagent: ``Explore a1b2c3`` (an id prefix ``/agents`` takes)."""
    return f"{agent_type} {agent_id[:6]}"


@dataclass(frozen=True)
class ChildSummary:
    """What a picker shows of one child transcript.

    Attributes:
        path: the transcript.
        agent_id: the child's id.
        agent_type: its definition's name ("agent" when the file does not say).
        prompt: its prompt's first line ("" when none was recorded).
        turns: its tool turns.
        cost_usd: its spend, or None when nothing was recorded.
        ended: how it ended (``success``, ``interrupted``, ...), "" when not recorded (still
            running, or eddy stopped before it finished).
        last_activity: the time of its last record (epoch seconds), None when unknown.
        problem: why the file could not be read, "" when it could.
    """

    path: Path
    agent_id: str
    agent_type: str
    prompt: str
    turns: int
    cost_usd: float | None
    ended: str
    last_activity: float | None
    problem: str = ""

    @property
    def title(self) -> str:
        """``Explore a1b2c3``: its type and the start of its id."""
        return agent_title(self.agent_type, self.agent_id)

    def line(self) -> str:
        """``Explore a1b2c3: find the callers · 4 turns · $0.0123 · success``."""
        head = self.title
        if self.problem:
            return f"{head}: {self.problem}"
        facts = [f"{self.turns} turn{'s' if self.turns != 1 else ''}"]
        if self.cost_usd is not None:
            facts.append(f"${self.cost_usd:.4f}")
        facts.append(self.ended or "no end recorded")
        return f"{head}: {self.prompt or '(no prompt recorded)'} · " + " · ".join(facts)


@dataclass
class _ChildFile:
    """A child transcript read: its loaded history and its subagent records."""

    about: dict[str, Any]
    end: dict[str, Any]
    has_usage: bool
    loaded: LoadedSession


def _agent_id(path: Path) -> str:
    return path.name.removesuffix(".jsonl").removeprefix(PREFIX)


def _read(path: Path) -> _ChildFile | str:
    """The child file at ``path``, or a sentence saying why it cannot be read."""
    name = path.name
    try:
        data = path.read_bytes()
        loaded = load(path)
    except FileNotFoundError:
        return f"the transcript {name} is missing"
    except TranscriptError as exc:
        return f"the transcript {name} cannot be read: {exc}"
    except (OSError, ValueError) as exc:
        return f"the transcript {name} cannot be read: {exc.__class__.__name__}: {exc}"
    about, end, has_usage = _subagent_records(data)
    if not loaded.header and not loaded.history and not about:
        return f"{name} is not an eddy transcript"
    return _ChildFile(about, end, has_usage, loaded)


def _subagent_records(data: bytes) -> tuple[dict[str, Any], dict[str, Any], bool]:
    """The ``subagent`` and ``subagent_end`` records of a child file ({} when missing), and
    whether it has ``usage`` records: the few records ``load`` skips (the rest is load's)."""
    about: dict[str, Any] = {}
    end: dict[str, Any] = {}
    has_usage = False
    for line in data.split(b"\n"):
        if line.startswith(b'{"type":"usage"'):
            has_usage = True
        elif line.startswith(b'{"type":"subagent'):
            rec = _record(line)
            if rec.get("type") == "subagent":
                about = rec
            elif rec.get("type") == "subagent_end":
                end = rec
    return about, end, has_usage


def _record(line: bytes) -> dict[str, Any]:
    """One JSON record; {} for a line that is none."""
    try:
        rec = json.loads(line)
    except ValueError:
        return {}
    return rec if isinstance(rec, dict) else {}


def _int(value: Any, default: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def _float(value: Any) -> float | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    return None


def _tool_turns(history: list[Message]) -> int:
    return sum(
        1
        for m in history
        if m.role == "assistant" and any(isinstance(b, ToolUseBlock) for b in m.content)
    )


def _first_prompt(child: _ChildFile) -> str:
    loaded = child.loaded
    if loaded.first_prompt:
        return loaded.first_prompt
    first = loaded.history[0] if loaded.history else None
    if first is not None and first.role == "user":
        return next((b.text for b in first.content if isinstance(b, TextBlock)), "")
    return ""


def summarize_child(path: Path) -> ChildSummary:
    """One child transcript summarised; a file that cannot be read has ``problem`` set."""
    child = _read(path)
    if isinstance(child, str):
        return ChildSummary(path, _agent_id(path), "agent", "", 0, None, "", None, child)
    about, end, loaded = child.about, child.end, child.loaded
    cost = _float(end.get("cost_usd"))
    if cost is None and child.has_usage:
        cost = loaded.total_cost_usd
    return ChildSummary(
        path=path,
        agent_id=sanitize(str(about.get("agent_id") or _agent_id(path))),
        agent_type=sanitize(str(about.get("agent_type") or "agent")),
        prompt=first_line(_first_prompt(child), 80),
        turns=_int(end.get("num_turns"), _tool_turns(loaded.history)),
        cost_usd=cost,
        ended=sanitize(str(end.get("subtype") or "")),
        last_activity=loaded.last_activity,
    )


def child_summaries(session_path: Path) -> list[ChildSummary]:
    """One summary per child transcript of the session at ``session_path``, oldest first.

    At most ``MAX_CHILDREN`` (the newest); ``hidden_children`` says how many are left out.
    """
    return [summarize_child(p) for p in child_transcripts(session_path)[-MAX_CHILDREN:]]


def hidden_children(session_path: Path) -> int:
    """How many children ``child_summaries`` leaves out."""
    return max(0, len(child_transcripts(session_path)) - MAX_CHILDREN)


def _cut(text: str) -> str:
    """One line cut to ``LINE_CHARS`` cells, its indentation kept (code in results)."""
    line = text.expandtabs(4).rstrip()
    body = line.lstrip()
    indent = line[: len(line) - len(body)][: LINE_CHARS // 2]
    return indent + first_line(body, LINE_CHARS - len(indent)) if body else ""


def _lines_of(text: str, prefix: str, rest: str) -> Iterator[str]:
    """``text`` sanitised, its first line after ``prefix``, the others after ``rest``."""
    shown = [line for line in sanitize(text).splitlines() if line.strip()]
    for n, line in enumerate(shown):
        yield (prefix if n == 0 else rest) + _cut(line)


def _default_summary(name: str, call_input: dict[str, Any]) -> str:
    """The built-in tool's own summary; for another tool (MCP), its input in brief."""
    from tools import TOOL_MODULES

    module = TOOL_MODULES.get(name)
    if module is not None:
        try:
            return str(importlib.import_module(module).TOOL.summary(call_input))
        except Exception:  # a summary is only a label: a broken input falls back below
            pass
    try:
        return json.dumps(call_input, ensure_ascii=False)[:LINE_CHARS]
    except (TypeError, ValueError):
        return ""


NO_RESULT = "  ⎿ (no result recorded: still running, or eddy stopped before it finished)"
_LIVE_REPAIRS = ("added interrupted results", "kept the saved results")
"""What the loader says of calls without a results message: normal while a child runs."""


@dataclass(frozen=True)
class CallView:
    """One tool call of the child, for a front end to draw as its own calls look.

    Attributes:
        state: ``done``, ``failed`` (an error result), ``interrupted``, or ``running`` (no
            result saved yet: the child is still at it, or eddy stopped before it finished),
            or ``unknown`` (no result, the child ended).
        name: the tool's name (sanitised).
        summary: its input in one line (sanitised, cut).
        result: the result's lines, cut to ``RESULT_LINES`` (then a ``… +N lines`` line).
    """

    state: str
    name: str
    summary: str
    result: tuple[str, ...]

    def lines(self) -> list[str]:
        """The call as plain lines: ``● Name(summary)``, then its result after ``⎿``."""
        out = [f"● {self.name}({self.summary})"]
        if self.state == "running":
            out.append(NO_RESULT)
        mark = "  ⎿ error: " if self.state == "failed" else "  ⎿ "
        out += [(mark if n == 0 else "    ") + line for n, line in enumerate(self.result)]
        return out


def _call_view(
    block: ToolUseBlock, result: ToolResultBlock | None, about: str, ended: bool
) -> CallView:
    name, summary = sanitize(block.name), _cut(about)
    # the loader answers a call without a saved result as interrupted; before the child's
    # end is recorded, that is as likely a call still running
    if result is None or (result.content == INTERRUPTED_RESULT and not ended):
        return CallView("unknown" if ended else "running", name, summary, ())
    content = result.content if isinstance(result.content, str) else list(result.content)
    text = sanitize(result_text(content))
    lines = [line for line in text.splitlines() if line.strip()] or ["(no output)"]
    shown, hidden = clip_lines(lines, RESULT_LINES)
    cut = [_cut(line) for line in shown] + ([more_lines(hidden)] if hidden else [])
    state = "interrupted" if result.content == INTERRUPTED_RESULT else "done"
    return CallView("failed" if result.is_error else state, name, summary, tuple(cut))


def _message_lines(
    history: list[Message], summary: Summary, ended: bool
) -> Iterator[str | CallView]:
    results = {
        b.tool_use_id: b
        for m in history
        if m.role == "user"
        for b in m.content
        if isinstance(b, ToolResultBlock)
    }
    for i, msg in enumerate(history):
        if msg.role == "user":
            for block in msg.content:
                if isinstance(block, TextBlock) and block.text.strip():
                    if block.text.startswith(_HIDDEN):
                        continue
                    yield from _lines_of(block.text, "› " if i == 0 else "› (then) ", "  ")
            continue
        yield ""  # a blank line before each of the child's messages
        for block in msg.content:
            if isinstance(block, TextBlock) and block.text.strip():
                yield from _lines_of(block.text, "", "")
            elif isinstance(block, ToolUseBlock):
                try:
                    about = summary(block.name, block.input)
                except Exception:  # a label only
                    about = ""
                yield _call_view(block, results.get(block.id), about, ended)


def _end_line(end: dict[str, Any]) -> str:
    if not end:
        return "— no end recorded: still running, or eddy stopped before it finished"
    facts = [sanitize(str(end.get("subtype") or "ended"))]
    turns = _int(end.get("num_turns"), -1)
    if turns >= 0:
        facts.append(f"{turns} turn{'s' if turns != 1 else ''}")
    cost = _float(end.get("cost_usd"))
    if cost is not None:
        facts.append(f"${cost:.4f}")
    ms = _int(end.get("duration_ms"), -1)
    if ms >= 0:
        facts.append(f"{ms / 1000:.1f}s")
    return "— " + " · ".join(facts)


def child_path(session_path: Path, agent_id: str) -> Path:
    """Where the session at ``session_path`` keeps the transcript of child ``agent_id``."""
    return subagents_dir(session_path) / f"{PREFIX}{agent_id}.jsonl"


@dataclass(frozen=True)
class TranscriptView:
    """One child's transcript read once.

    Attributes:
        entries: its lines, and its tool calls as ``CallView`` (each front end draws a
            child's calls as it draws its own).
        ended: the file records the child's end (a viewer can stop re-reading it).
    """

    entries: list[str | CallView]
    ended: bool

    @property
    def lines(self) -> list[str]:
        """What ``transcript_lines`` returns: every entry as plain lines."""
        out: list[str] = []
        for entry in self.entries:
            out.extend(entry.lines() if isinstance(entry, CallView) else [entry])
        return out


def transcript_view(path: Path, summary: Summary | None = None) -> TranscriptView:
    """``transcript_lines`` of ``path`` and whether the child's end is recorded."""
    child = _read(path)
    if isinstance(child, str):
        return TranscriptView([f"({child})"], False)
    return TranscriptView(_transcript_entries(path, child, summary), bool(child.end))


def transcript_lines(path: Path, summary: Summary | None = None) -> list[str]:
    """One child's whole transcript as readable, sanitised lines.

    The heading (type, id, depth), the prompt, the assistant's text, each tool call with its
    summary and its result cut to ``RESULT_LINES`` lines, corrections and interruptions as
    they are in the history, what the loader repaired, and how the child ended. A missing,
    unreadable or foreign file gives one line that says so.

    Args:
        path: the child's transcript.
        summary: a tool call's one-line summary (default: the built-in tool's own).
    """
    return transcript_view(path, summary).lines


def _transcript_entries(
    path: Path, child: _ChildFile, summary: Summary | None
) -> list[str | CallView]:
    about, loaded = child.about, child.loaded
    kind = sanitize(str(about.get("agent_type") or "agent"))
    agent_id = sanitize(str(about.get("agent_id") or _agent_id(path)))
    heading = f"{kind} agent {agent_id}"
    depth = _int(about.get("depth"), 0)
    if depth > 1:
        heading += f" (depth {depth})"
    if loaded.model:
        heading += f" · {sanitize(str(loaded.model))}"
    lines: list[str | CallView] = [heading, ""]
    ended = bool(child.end)
    lines += list(_message_lines(loaded.history, summary or _default_summary, ended))
    if not loaded.history:
        lines.append("(nothing recorded yet)")
    problems = [p for p in loaded.problems if ended or not p.startswith(_LIVE_REPAIRS)]
    lines += [f"(note: {sanitize(p)})" for p in problems]
    lines.append(_end_line(child.end))
    return lines
