"""Helpers for TUI tests: an EddyApp over a scripted model, waiting on events, fake models."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from agent.messages import Message, TextBlock
from agent.model.pricing import DEFAULT_MODEL
from cli.main import parse_launch
from tests.helpers.events import Events

SIZE = (100, 30)


def isolate_dirs(tmp_path: Path, monkeypatch: Any) -> Path:
    """Keep data, config and prompt history in ``tmp_path``; no key, no colour flags."""
    monkeypatch.setenv("EDDY_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("EDDY_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
    monkeypatch.delenv("NO_COLOR", raising=False)
    return tmp_path


def project_dir(tmp_path: Path) -> Path:
    """A project directory with a fixed name (it shows in the banner of snapshots)."""
    root = tmp_path / "project"
    root.mkdir()
    return root


def make_args(workspace: Path, *extra: str) -> Any:
    """Launch options for the TUI in ``workspace`` with ``extra`` flags."""
    args = parse_launch(list(extra))
    args = args.replace(cwd=workspace)
    return args


def save_session(workspace: Path, history: list[Message]) -> None:
    """A saved session of ``history`` for ``workspace`` (what ``--continue`` resumes)."""
    from agent.store.transcript import Transcript

    t = Transcript.create(workspace, model=DEFAULT_MODEL)
    for i, msg in enumerate(history):
        block = msg.content[0]
        if msg.role == "user" and isinstance(block, TextBlock):
            t.record_history(history[: i + 1], prompt=block.text)
        else:
            t.record_history(history[: i + 1])
    t.close()


def resumed_app(workspace: Path, model: Any) -> tuple[Any, Events]:
    """An EddyApp that resumes the workspace's latest session (``eddy --continue``)."""
    from tui.app import EddyApp

    events = Events()
    app = EddyApp(
        make_args(workspace, "--continue"), model=model, frozen_clock=True, event_hook=events
    )
    return app, events


def make_app(
    workspace: Path,
    model: Any,
    tools: list[Any] | None = None,
    *extra: str,
    frozen: bool = True,
) -> tuple[Any, Events]:
    """An EddyApp over ``model`` and ``tools`` (default: no tools), recording events."""
    from tui.app import EddyApp

    events = Events()
    app = EddyApp(
        make_args(workspace, *extra),
        model=model,
        tools=tools if tools is not None else [],
        frozen_clock=frozen,
        event_hook=events,
    )
    return app, events


async def wait_ready(app: Any, pilot: Any) -> None:
    """Wait until the session is attached (it is built right after the first frame)."""
    for _ in range(200):
        if app.main is not None and app.main.session is not None:
            return
        await pilot.pause()
    raise AssertionError("the session never started")


async def type_and_send(pilot: Any, text: str) -> None:
    """Type ``text`` into the prompt as keystrokes, then Enter."""
    app = pilot.app
    app.main.prompt.focus()
    app.main.prompt.insert(text)
    await pilot.press("enter")


async def rendered(app: Any, pilot: Any) -> None:
    """Wait until every finished answer has been rendered (its markdown stream stopped)."""
    from tui.widgets.conversation.assistant_text import AssistantText

    await pilot.pause()
    for _ in range(1000):
        answers = list(app.query(AssistantText))
        if all(a.finished for a in answers if a._no_more):
            break
        await pilot.pause()
    await pilot.pause()


async def settle(app: Any, pilot: Any) -> None:
    """Let the engine go idle and the UI render everything it was sent."""
    if app.session is not None:
        await app.session.wait_idle()
    await rendered(app, pilot)


class StreamThenStall:
    """A model whose first call streams ``prefix`` and then never finishes (until cancelled).

    Later calls are answered by ``then`` (a ScriptedModel). ``requests`` holds every history
    sent, so a test can check what reached the model after an interrupt.
    """

    name = "scripted"

    def __init__(self, prefix: str, then: Any) -> None:
        self.prefix = prefix
        self.then = then
        self.requests: list[list[Any]] = []
        self.streaming = asyncio.Event()

    async def respond(self, request: Any, sink: Any) -> Any:
        self.requests.append(list(request.messages))
        if len(self.requests) == 1:
            for i in range(0, len(self.prefix), 8):
                sink.text(self.prefix[i : i + 8])
                await asyncio.sleep(0)
            self.streaming.set()
            await asyncio.Event().wait()
        return await self.then.respond(request, sink)


def shell_tool(release: asyncio.Event | None = None, output: str = "ok") -> Any:
    """A fake "Bash": streams a line, waits for ``release`` (forever if None), returns output."""
    from tests.fakes.tools import FnTool

    async def run(args: dict[str, Any], ctx: Any) -> str:
        ctx.output(f"$ {args.get('command', '')}\n")
        await (release or asyncio.Event()).wait()
        return output

    schema = {"type": "object", "properties": {"command": {"type": "string"}}}
    return FnTool("Bash", run, schema=schema)


def last_user_blocks(messages: list[Any]) -> list[Any]:
    """The blocks of the last message of a request (a user message)."""
    assert messages[-1].role == "user"
    return list(messages[-1].content)
