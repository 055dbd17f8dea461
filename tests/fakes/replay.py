"""Replay a recorded event log into the front ends, with no engine and no model.

A recording is what ``eddy -p --output-format eddy-events`` prints: one engine event per line
(``agent.events.to_json``), then one ``result`` line (headless/run.py). ``load`` turns it back
into events (``agent.events.from_json``); ``plain_lines`` feeds them to the line renderer
(plain/render.py) and returns what ``eddy --plain`` would print; ``ReplayApp`` is the TUI's
main screen alone, and ``replay`` feeds the events to it as the session would. A bug report
that comes with such a log becomes a test: see tests/fakes/recordings/README.md.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from textual.app import App

import tui.app
from agent import events as ev
from frontend.prompt_history import PromptHistory
from plain.render import Renderer
from plain.style import Painter
from tests.helpers.tui import rendered
from themes import DEFAULT_THEME, THEMES
from tui.app import EddyApp
from tui.screens.main import MainScreen

RECORDINGS = Path(__file__).parent / "recordings"
"""The recorded logs kept with the tests."""


@dataclass(frozen=True)
class Recording:
    """A decoded log: its events in order, and the closing ``result`` object (if any)."""

    events: tuple[ev.Event, ...]
    result: dict[str, Any] | None


def parse(text: str) -> Recording:
    """Decode a eddy-events log (blank lines are skipped).

    Raises:
        ValueError: a line is not JSON or not an event (the line number says which).
    """
    events: list[ev.Event] = []
    result: dict[str, Any] | None = None
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            if not isinstance(data, dict):
                raise ValueError("not a JSON object")
            if data.get("type") == "result":
                result = data
            else:
                events.append(ev.from_json(data))
        except ValueError as exc:
            raise ValueError(f"line {number}: {exc}") from exc
    return Recording(tuple(events), result)


def load(name: str | Path) -> Recording:
    """A log from ``tests/fakes/recordings/`` by file name, or from any path."""
    path = Path(name)
    if not path.is_absolute() and not path.exists():
        path = RECORDINGS / path
    return parse(path.read_text(encoding="utf-8"))


def plain_lines(events: Iterable[ev.Event], *, color: bool = False) -> list[str]:
    """What line mode prints for ``events``: the renderer's lines, permission questions
    included (line mode asks them through ``Renderer.permission``), colour codes off."""
    renderer = Renderer(Painter(color))
    out: list[str] = []
    for event in events:
        if isinstance(event, ev.PermissionRequested):
            out += renderer.permission(event)
        out += renderer.render(event)
    return out + renderer.finish_text()


class ReplayApp(App[None]):
    """The TUI's main screen alone, with the app's styles and themes, a frozen clock and no
    session; events reach it through ``replay``."""

    CSS_PATH = str(Path(tui.app.__file__).with_name(EddyApp.CSS_PATH))

    def __init__(self) -> None:
        super().__init__()
        self.main = MainScreen(PromptHistory(None), lambda: 0.0, frozen=True)
        for theme in THEMES:
            self.register_theme(theme)
        self.theme = DEFAULT_THEME

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return EddyApp.get_theme_variable_defaults(self)  # type: ignore[arg-type]

    def get_default_screen(self) -> MainScreen:
        return self.main


async def replay(app: Any, pilot: Any, events: Iterable[ev.Event]) -> None:
    """Feed ``events`` to the app's main screen as the session would, then wait until every
    answer has been rendered."""
    for event in events:
        app.main.handle_event(event)
        await pilot.pause()
    await rendered(app, pilot)
