"""What eddy offers MCP servers as their client: roots, elicitation and progress.

- **Roots** (``roots/list``): the session's folders, the workspace and the ``--add-dir`` ones
  (``ToolContext.roots()``), as ``file://`` URIs. When they change, the connected servers are
  told (``notifications/roots/list_changed``) before the next model call, and ask again.
- **Elicitation** (``elicitation/create``, form mode): a server asking the user during a tool
  call. The form becomes the session's questions dialog (the one AskUserQuestion uses: a
  form in the TUI, numbered choices in line mode, the client's dialog over ACP), one question
  per field: an enum's values or yes/no for a boolean as choices, "Other" for typed text, and
  "Decline" on each. Where nobody can answer (``eddy -p``) or the request comes outside a
  call, it is declined, and the running call's output says so. URL mode is declined (eddy
  opens no pages for servers).
- **Progress** (``notifications/progress``): eddy sends a progress token with each call; what
  the server reports is shown on the running call as its live output in every front end
  (``progress 3/6 (50%): message``).

The callbacks run on the MCP loop; the user's dialog and the call's output belong to the
session's loop, reached with ``run_coroutine_threadsafe`` / ``call_soon_threadsafe``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tools.base import ToolContext

DECLINE = "Decline"
"""The choice on every question of an elicitation that declines the whole form."""
NO_ONE = "eddy runs without anyone to answer (headless), so the request was declined."


class ClientSide:
    """Roots, elicitation and progress for the connections of one session.

    Args:
        roots: the session's folders now (called before each model call and on
            ``roots/list``).
    """

    def __init__(self, roots: Callable[[], tuple[Path, ...]] = tuple) -> None:
        self._roots = roots
        self.sent_roots: tuple[Path, ...] | None = None
        """The roots the servers were last told of (None: not yet)."""
        self.calls: dict[str, list[ToolContext]] = {}
        """The running calls per server (the newest last): an elicitation asks through the
        newest one's dialogs and names its call."""
        self.session_loop: asyncio.AbstractEventLoop | None = None

    def roots(self) -> tuple[Path, ...]:
        """The session's folders now (resolved, each once)."""
        return tuple(dict.fromkeys(Path(p).resolve() for p in self._roots()))

    def roots_changed(self) -> bool:
        """Whether the folders changed since the servers were last told (and note them)."""
        now = self.roots()
        changed = self.sent_roots is not None and now != self.sent_roots
        self.sent_roots = now
        return changed

    async def list_roots(self, context: Any) -> Any:
        """``roots/list``: the session's folders as ``file://`` roots."""
        from mcp import types

        roots = self.roots()
        self.sent_roots = roots
        return types.ListRootsResult(
            roots=[types.Root(uri=p.as_uri(), name=p.name or str(p)) for p in roots]  # type: ignore[arg-type]
        )

    def elicitation(self, server: str) -> Callable[[Any, Any], Any]:
        """The ``elicitation/create`` handler for ``server``'s connection."""

        async def elicit(context: Any, params: Any) -> Any:
            return await self.elicit(server, params)

        return elicit

    async def elicit(self, server: str, params: Any) -> Any:
        """Ask the user ``params``'s form through the running call's dialogs; the result."""
        from mcp import types

        if getattr(params, "mode", "form") == "url":
            return types.ElicitResult(action="decline")
        calls = self.calls.get(server) or []
        ctx = calls[-1] if calls else None
        dialogs = ctx.dialogs if ctx is not None else None
        loop = self.session_loop
        if dialogs is None or loop is None or ctx is None:
            self.tell_running_call(
                server, f"{server} asked: {getattr(params, 'message', '')}\n{NO_ONE}\n"
            )
            return types.ElicitResult(action="decline")
        schema = getattr(params, "requested_schema", None) or {}
        questions = form_questions(server, str(getattr(params, "message", "")), schema)
        future = asyncio.run_coroutine_threadsafe(
            dialogs.ask_questions(ctx.call_id, questions), loop
        )
        try:
            answers = await asyncio.wrap_future(future)
        except asyncio.CancelledError:
            future.cancel()
            raise
        except Exception:  # the call was stopped (Esc) while the form was open
            return types.ElicitResult(action="cancel")
        return form_result(questions, schema, answers)

    def tell_running_call(self, server: str, text: str) -> None:
        """Show ``text`` as output of ``server``'s newest running call (none: nothing)."""
        calls = self.calls.get(server) or []
        loop = self.session_loop
        if calls and loop is not None:
            loop.call_soon_threadsafe(calls[-1].output, text)

    def progress(self, ctx: ToolContext | None) -> Callable[..., Any] | None:
        """A progress handler showing the server's reports as ``ctx``'s call output."""
        loop = self.session_loop
        if ctx is None or loop is None:
            return None
        output = ctx.output

        async def report(progress: float, total: float | None, message: str | None) -> None:
            line = progress_line(progress, total, message)
            loop.call_soon_threadsafe(output, line + "\n")

        return report


def progress_line(progress: float, total: float | None, message: str | None) -> str:
    """``progress 3/6 (50%): message`` (without a total: ``progress 3: message``)."""
    done = f"{progress:g}"
    if total:
        done += f"/{total:g} ({100 * progress / total:.0f}%)"
    return f"progress {done}" + (f": {message}" if message else "")


def form_questions(server: str, message: str, schema: dict[str, Any]) -> list[dict[str, Any]]:
    """The questions for an elicitation form: one per field, in the schema's order."""
    properties = schema.get("properties") if isinstance(schema, dict) else None
    required = set(schema.get("required") or []) if isinstance(schema, dict) else set()
    questions = []
    for key, spec in (properties or {}).items():
        spec = spec if isinstance(spec, dict) else {}
        title = str(spec.get("title") or key)
        about = str(spec.get("description") or "")
        kind = spec.get("type")
        options: list[dict[str, str]] = []
        values = spec.get("enum")
        if isinstance(values, list):
            names = _names(spec)
            for i, value in enumerate(values):
                label = str(names[i]) if i < len(names) else str(value)
                options.append({"label": label, "description": ""})
        elif kind == "boolean":
            options = [{"label": "Yes", "description": ""}, {"label": "No", "description": ""}]
        elif "default" in spec:
            options = [{"label": str(spec["default"]), "description": "the server's default"}]
        options.append({"label": DECLINE, "description": f"answer nothing; tell {server} no"})
        text = f"{server} asks: {message}\n{title}" + (f" ({about})" if about else "")
        if key not in required:
            text += " [optional: Other with nothing typed leaves it out]"
        questions.append(
            {"question": text, "header": title[:12], "options": options, "multiSelect": False,
             "key": key, "type": kind, "enum": values}
        )  # fmt: skip
    if not questions:  # a form with no fields: a confirmation
        questions.append(
            {"question": f"{server} asks: {message}", "header": server[:12],
             "options": [{"label": "Accept", "description": ""},
                         {"label": DECLINE, "description": f"tell {server} no"}],
             "multiSelect": False, "key": None, "type": None, "enum": None}
        )  # fmt: skip
    return questions


def form_result(
    questions: list[dict[str, Any]], schema: dict[str, Any], answers: dict[str, str]
) -> Any:
    """The ``ElicitResult`` for the user's answers: decline if any answer declines, else the
    content, each value in its field's type (a value that does not fit declines, said)."""
    from mcp import types

    content: dict[str, Any] = {}
    for question in questions:
        answer = answers.get(question["question"], "").strip()
        if answer == DECLINE:
            return types.ElicitResult(action="decline")
        key = question["key"]
        if key is None or answer == "":
            continue
        spec = (schema.get("properties") or {}).get(key) or {}
        value = _typed(answer, question, spec)
        if value is None:
            return types.ElicitResult(action="decline")
        content[key] = value
    return types.ElicitResult(action="accept", content=content)


def _names(spec: dict[str, Any]) -> list[Any]:
    """An enum's display names (``enumNames``), or none."""
    names = spec.get("enumNames")
    return names if isinstance(names, list) else []


def _typed(answer: str, question: dict[str, Any], spec: dict[str, Any]) -> Any:
    kind = question.get("type")
    values = question.get("enum")
    if isinstance(values, list):
        names = _names(spec)
        for i, value in enumerate(values):
            if answer in (str(value), str(names[i]) if i < len(names) else None):
                return value
        return None
    if kind == "boolean":
        return answer.lower() in ("yes", "true", "y", "1")
    if kind in ("number", "integer"):
        try:
            number = float(answer)
        except ValueError:
            return None
        return int(number) if kind == "integer" and number.is_integer() else number
    return answer
