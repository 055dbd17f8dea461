"""The rewind dialog: pick a prompt, choose what to restore, answer about conflicting files."""

from __future__ import annotations

from typing import Any

from textual.app import App
from textual.screen import Screen

from agent.checkpoints.rewind_list import CheckpointEntry
from themes import DARK
from tui.screens.rewind import NOTE, RewindChoice, RewindScreen

SIZE = (100, 30)
NONE: Any = object()
ENTRIES = [
    CheckpointEntry(1, "read the README and summarise it", "no code changes"),
    CheckpointEntry(2, "fix the off-by-one in total()\nand add a test", "2 files +12 -4"),
    CheckpointEntry(3, "run the migrations against staging " * 3, "1 file +3 -0, 1 not restorable"),
    CheckpointEntry(4, "undo the rewind to “drop the cache”", "redo", redo=True),
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


def host(entries: list[CheckpointEntry] = ENTRIES, conflicts: Any = None) -> Host:
    calls: list[int] = []

    def find(number: int) -> list[str]:
        calls.append(number)
        return list((conflicts or {}).get(number, []))

    app = Host(RewindScreen(entries, find))
    app.conflict_calls = calls  # type: ignore[attr-defined]
    return app


async def run(app: Host, *keys: str) -> Any:
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        for key in keys:
            await pilot.press(key)
            await pilot.pause()
        await pilot.pause()
    return app.result


async def test_newest_prompt_is_highlighted_then_code_and_conversation() -> None:
    app = host()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        options = app.modal.query_one("#rewind-options")
        assert options.highlighted == 2  # the newest prompt, not the redo entry below it
        assert NOTE in str(app.modal.query_one("#rewind-note").render())
        await pilot.press("enter", "enter")
        await pilot.pause()
    assert app.result == RewindChoice(3, "both", False)
    assert app.conflict_calls == [3]


async def test_conversation_only_never_asks_about_files() -> None:
    app = host(conflicts={2: ["src/app.py"]})
    assert await run(app, "up", "enter", "2") == RewindChoice(2, "conversation", False)
    assert app.conflict_calls == []


async def test_code_only_by_arrows() -> None:
    app = host()
    assert await run(app, "up", "up", "enter", "down", "down", "enter") == RewindChoice(
        1, "code", False
    )


async def test_never_mind() -> None:
    assert await run(host(), "enter", "4") is None


async def test_conflicts_overwrite_yes() -> None:
    app = host(conflicts={2: ["src/app.py", "tests/test_app.py"]})
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("up", "enter", "1")
        await pilot.pause()
        detail = str(app.modal.query_one("#rewind-detail").render())
        assert "changed since eddy last wrote them" in detail
        assert "src/app.py" in detail and "tests/test_app.py" in detail
        assert app.modal.query_one("#rewind-options").highlighted == 1  # "no" is the default
        await pilot.press("y")
        await pilot.pause()
    assert app.result == RewindChoice(2, "both", True)


async def test_conflicts_no_leaves_them_alone() -> None:
    app = host(conflicts={3: ["a.py"]})
    assert await run(app, "enter", "3", "n") == RewindChoice(3, "code", False)


async def test_conflicts_answered_by_arrows_and_cancel() -> None:
    app = host(conflicts={3: ["a.py"]})
    assert await run(app, "enter", "1", "up", "enter") == RewindChoice(3, "both", True)
    assert await run(host(conflicts={3: ["a.py"]}), "enter", "1", "3") is None


async def test_escape_cancels_at_each_step() -> None:
    assert await run(host(), "escape") is None
    assert await run(host(), "enter", "escape") is None
    assert await run(host(conflicts={3: ["a.py"]}), "enter", "1", "escape") is None


async def test_redo_entry_skips_the_mode_but_not_the_conflicts() -> None:
    app = host()
    assert await run(app, "down", "enter") == RewindChoice(4, "both", False)
    app = host(conflicts={4: ["a.py"]})
    assert await run(app, "down", "enter", "y") == RewindChoice(4, "both", True)


async def test_the_mode_step_lists_every_prompt_the_rewind_undoes() -> None:
    app = host()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("up", "enter")  # prompt 2 of 3
        await pilot.pause()
        detail = str(app.modal.query_one("#rewind-detail").render())
    assert "This undoes 2 prompts and their changes:" in detail
    assert "2. fix the off-by-one in total() · 2 files +12 -4" in detail
    assert "3. run the migrations" in detail and "1 file +3 -0, 1 not restorable" in detail
    assert "read the README" not in detail and "undo the rewind" not in detail


async def test_untracked_code_offers_the_conversation_only() -> None:
    entries = [CheckpointEntry(1, "hello", "code not tracked")]
    app = host(entries)
    assert await run(app, "enter", "1", "3") is NONE  # disabled: nothing happens
    assert app.conflict_calls == []
    assert await run(host(entries), "enter", "enter") == RewindChoice(1, "conversation", False)


async def test_empty_list_only_closes() -> None:
    assert await run(host([]), "enter", "1", "escape") is None


def test_snapshot(snap_compare) -> None:
    assert snap_compare(host(), terminal_size=SIZE)
