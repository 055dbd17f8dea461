"""The resume picker: newest first, arrows and Enter, typing filters, Esc cancels."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.app import App
from textual.screen import Screen

from agent.store.listing import SessionInfo
from themes import DARK
from tui.screens.resume import ResumeScreen, ago

SIZE = (100, 30)
NOW = 1_700_000_000.0
NONE: Any = object()


def info(sid: str, prompt: str | None, age: float, **kw: Any) -> SessionInfo:
    fields: dict[str, Any] = {
        "turns": 3,
        "messages": 6,
        "total_cost_usd": 0.0421,
        "title": None,
        "rewinds": 0,
        "model": "claude-sonnet-4-5",
        "created": NOW - age - 600,
        "forked_from": None,
        "size": 1234,
    }
    fields.update(kw)
    return SessionInfo(sid, Path(f"/x/{sid}.jsonl"), prompt, NOW - age, **fields)


SESSIONS = [  # deliberately not in order
    info("bbbbbbbb-2", "add a --verbose flag to the CLI", 2 * 86400, turns=12, total_cost_usd=1.5),
    info("aaaaaaaa-1", "fix the flaky login test", 180, rewinds=2),
    info("cccccccc-3", "explain the cache layer", 3 * 3600, title="Cache deep dive", turns=1),
    info("dddddddd-4", "[bold]not markup[/] and a very long prompt " * 4, 40 * 86400),
]


class Host(App[None]):
    """Pushes one screen at start and keeps what it was dismissed with."""

    def __init__(self, screen: Screen[Any]) -> None:
        super().__init__()
        self.modal = screen
        self.result: Any = NONE
        self.register_theme(DARK)
        self.theme = DARK.name

    def on_mount(self) -> None:
        self.push_screen(self.modal, self._done)

    def _done(self, result: Any) -> None:
        self.result = result


async def run(*keys: str, sessions: list[SessionInfo] = SESSIONS) -> Any:
    app = Host(ResumeScreen(sessions, now=NOW))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        for key in keys:
            await pilot.press(key)
        await pilot.pause()
    return app.result


def test_ago() -> None:
    assert ago(NOW - 5, NOW) == "just now"
    assert ago(NOW - 180, NOW) == "3 min ago"
    assert ago(NOW - 3600, NOW) == "1 hour ago"
    assert ago(NOW - 2 * 86400 - 5, NOW) == "2 days ago"
    assert ago(NOW - 400 * 86400, NOW) == "1 year ago"
    assert ago(None, NOW) == "unknown time"


async def test_enter_resumes_the_newest() -> None:
    assert await run("enter") == "aaaaaaaa-1"


async def test_arrows_pick_an_older_session() -> None:
    assert await run("down", "down", "enter") == "bbbbbbbb-2"
    assert await run("down", "down", "up", "enter") == "cccccccc-3"


async def test_typing_filters_by_title_or_first_prompt() -> None:
    assert await run(*"CACHE", "enter") == "cccccccc-3"  # the title, any case
    assert await run(*"verbose", "enter") == "bbbbbbbb-2"  # the first prompt


async def test_filter_without_match_resumes_nothing() -> None:
    app = Host(ResumeScreen(SESSIONS, now=NOW))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"zzz", "enter")
        await pilot.pause()
        assert app.result is NONE
        assert app.modal.query_one("#resume-empty").display
        await pilot.press("backspace", "backspace", "backspace", "enter")
        await pilot.pause()
    assert app.result == "aaaaaaaa-1"


async def test_escape_cancels() -> None:
    assert await run("escape") is None
    assert await run(*"login", "escape") is None
    assert await run("enter", "escape", sessions=[]) is None


def test_snapshot(snap_compare) -> None:
    assert snap_compare(Host(ResumeScreen(SESSIONS, now=NOW)), terminal_size=SIZE)
