"""A scripted line-mode session: prompt-toolkit's pipe input and DummyOutput, the real engine,
the real Anthropic client against the fake Messages API server.

The fixtures that use it are in tests/plain/conftest.py.
"""

from __future__ import annotations

import asyncio
import io
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from prompt_toolkit.output import DummyOutput

from agent import events as ev
from agent.model.pricing import DEFAULT_MODEL
from cli.main import parse_launch
from plain.app import PlainApp
from tests.fakes.fake_api import FakeAnthropic
from tests.helpers.wait import until  # noqa: F401 (tests import it from here)

ENTER = "\r"
ESC = "\x1b"
CTRL_C = "\x03"
CTRL_J = "\n"
UP = "\x1b[A"


def plain_args(workspace: Path, *extra: str) -> Any:
    """Launch options for ``eddy --plain`` in ``workspace`` with the default model."""
    args = parse_launch(["--plain", "--cwd", str(workspace), *extra])
    args = args.replace(model_explicit=False)
    args = args.replace(model=DEFAULT_MODEL)
    return args


class Harness:
    """One ``PlainApp`` driven by keystrokes; every event and every printed line is kept."""

    def __init__(self, fake: FakeAnthropic, workspace: Path, pipe: Any, *extra: str) -> None:
        from agent.model.anthropic import AnthropicModel

        self.fake = fake
        self.workspace = workspace
        self.pipe = pipe
        self.events: list[ev.Event] = []
        self.out = io.StringIO()
        self.app = PlainApp(
            plain_args(workspace, *extra),
            model_factory=lambda: AnthropicModel(
                DEFAULT_MODEL, api_key="test", base_url=fake.base_url
            ),
            stream=self.out,
            color=False,
            pt_input=pipe,
            pt_output=DummyOutput(),
            event_hook=self.events.append,
        )
        self.task: asyncio.Task[int] | None = None

    async def start(self) -> None:
        self.task = asyncio.create_task(self.app.run())
        await until(lambda: self.app.session is not None and self.app.input.running, what="prompt")

    def type(self, text: str) -> None:
        self.pipe.send_text(text)

    @property
    def output(self) -> str:
        self.app.printer.flush()
        return self.out.getvalue()

    def of(self, kind: type) -> list[Any]:
        return [e for e in self.events if isinstance(e, kind)]

    async def event(self, kind: type, count: int = 1, timeout: float = 10.0) -> Any:
        """Wait for the ``count``-th event of ``kind``; return it."""

        def what() -> str:
            seen = [e.type for e in self.events]
            return f"{kind.__name__} (events: {seen}; printed: {self.output!r})"

        await until(lambda: len(self.of(kind)) >= count, timeout, what)
        return self.of(kind)[count - 1]

    async def printed(self, text: str, timeout: float = 10.0) -> None:
        await until(lambda: text in self.output, timeout, repr(text))

    async def idle(self) -> None:
        await until(lambda: self.app.session is not None and not self.app.session.busy, what="idle")
        await until(lambda: self.app.input.running, what="prompt")

    async def exit(self, keys: str = "/exit" + ENTER) -> int:
        assert self.task is not None
        self.type(keys)
        return await asyncio.wait_for(self.task, 10)


@asynccontextmanager
async def harnesses(
    fake: FakeAnthropic, workspace: Path, pipe: Any
) -> AsyncIterator[Callable[..., Harness]]:
    """A maker of Harnesses (``make(*flags)``); on exit, every app it made is stopped."""
    made: list[Harness] = []

    def make(*extra: str) -> Harness:
        h = Harness(fake, workspace, pipe, *extra)
        made.append(h)
        return h

    yield make
    for h in made:  # a failed test must not leave a prompt or a turn running
        if h.task is not None and not h.task.done():
            h.app.request_exit()
            try:
                await asyncio.wait_for(h.task, 5)
            except Exception:
                h.task.cancel()
