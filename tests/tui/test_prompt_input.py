"""The prompt editor: Enter sends, ctrl+j newline, history per project, large pastes intact."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual import events

from agent import events as ev
from agent.paths import project_data_dir
from frontend.prompt_history import PromptHistory
from tests.fakes.scripted import ScriptedModel
from tests.helpers.tui import SIZE, make_app, settle, wait_ready


async def test_ctrl_j_and_shift_enter_insert_newlines_and_enter_sends(workspace: Path) -> None:
    app, events_ = make_app(workspace, ScriptedModel(["ok"]))
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await pilot.press("a", "ctrl+j", "b", "shift+enter", "c")
        assert app.main.prompt.text == "a\nb\nc"
        await pilot.press("enter")
        started = await events_.wait_for(ev.TurnStarted)
        await settle(app, pilot)
        assert started.prompt == "a\nb\nc"
        assert app.main.prompt.text == ""


@pytest.mark.slow
async def test_history_is_persisted_per_project_and_browsed_with_up_down(
    workspace: Path, tmp_path: Path
) -> None:
    app, events_ = make_app(workspace, ScriptedModel(["one", "two"]))
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        for n, text in enumerate(["first prompt", "second prompt"], 1):
            await pilot.press(*text, "enter")
            await events_.wait_for(ev.TurnFinished, n)
        await settle(app, pilot)
    path = project_data_dir(workspace) / "prompt_history.jsonl"
    lines = [json.loads(line)["text"] for line in path.read_text().splitlines()]
    assert lines == ["first prompt", "second prompt"]

    other = tmp_path / "other"
    other.mkdir()
    assert PromptHistory(project_data_dir(other) / "prompt_history.jsonl").entries == []

    app, _ = make_app(workspace, ScriptedModel([]))
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        prompt = app.main.prompt
        await pilot.press("d", "r", "a", "f", "t")
        await pilot.press("up")
        assert prompt.text == "second prompt"
        await pilot.press("up")
        assert prompt.text == "first prompt"
        await pilot.press("down", "down")
        assert prompt.text == "draft"


async def test_a_large_paste_is_kept_intact(workspace: Path) -> None:
    big = "".join(f"line {i}: {'x' * 60}\n" for i in range(3000))
    app, events_ = make_app(workspace, ScriptedModel(["got it"]))
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        app.main.prompt.post_message(events.Paste(big))
        await pilot.pause()
        assert app.main.prompt.text == "[Pasted text #1 +3000 lines]"  # a chip for it
        await pilot.press("enter")
        started = await events_.wait_for(ev.TurnStarted)
        await settle(app, pilot)
    assert started.prompt == big


def test_a_torn_history_line_is_skipped(tmp_path: Path) -> None:
    path = tmp_path / "h.jsonl"
    path.write_text('{"text": "ok"}\n{"text": "tor')
    history = PromptHistory(path)
    assert history.entries == ["ok"]
    history.append("next")
    assert PromptHistory(path).entries[0] == "ok"
