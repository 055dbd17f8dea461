"""Dropping (pasting) an image file's path into the prompt shows a chip and attaches the image
(issue 22); a Read of an image shows its size, not "Read 1 line"."""

from __future__ import annotations

import io
from pathlib import Path

from textual import events

from agent import events as ev
from agent.messages import OtherBlock, TextBlock, assistant
from tests.fakes.scripted import ScriptedModel, tool_call
from tests.helpers.tui import SIZE, make_app, settle, wait_ready
from tools.read import TOOL as READ
from tui.widgets.conversation.tool_call import ToolCallBlock


def png(path: Path, size: tuple[int, int]) -> Path:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", size, (0, 90, 0)).save(out, "PNG")
    path.write_bytes(out.getvalue())
    return path


async def paste(pilot, text: str) -> None:
    pilot.app.main.prompt.post_message(events.Paste(text))
    await pilot.pause()


async def test_a_dropped_image_path_is_a_chip_and_the_prompt_sends_the_image(
    workspace: Path, tmp_path: Path
) -> None:
    (tmp_path / "drops").mkdir()
    shot = png(tmp_path / "drops" / "my shot.png", (640, 480))
    model = ScriptedModel(["A green rectangle."])
    app, events_ = make_app(workspace, model)
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        prompt = app.main.prompt
        prompt.focus()
        await pilot.press(*"what is ")
        await paste(pilot, str(shot).replace(" ", "\\ "))  # as a terminal drops it
        assert prompt.text == "what is [image 1: my shot.png 640x480] "
        await pilot.press(*"?", "enter")
        await events_.wait_for(ev.TurnFinished)
        await settle(app, pilot)
    blocks = model.requests[0].messages[-1].content
    assert isinstance(blocks[0], TextBlock) and blocks[0].text == f'what is "{shot}" ?'
    (image,) = [b for b in blocks if isinstance(b, OtherBlock)]
    assert image.param["type"] == "image" and image.param["source"]["media_type"] == "image/png"


async def test_a_paste_that_is_not_only_image_paths_is_ordinary_text(
    workspace: Path, tmp_path: Path
) -> None:
    shot = png(tmp_path / "a.png", (8, 8))
    app, _ = make_app(workspace, ScriptedModel([]))
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        prompt = app.main.prompt
        prompt.focus()
        await paste(pilot, f"{shot} and words")
        assert prompt.text == f"{shot} and words"
        prompt.load_text("")
        await paste(pilot, f"{tmp_path}/missing.png")
        assert prompt.text == f"{tmp_path}/missing.png"
        prompt.load_text("")
        await paste(pilot, f"{shot} {shot}")
        assert prompt.text == "[image 1: a.png 8x8] [image 2: a.png 8x8] "
        await pilot.press("backspace", "backspace")
        assert prompt.text == "[image 1: a.png 8x8] "


async def test_a_read_image_shows_its_size(workspace: Path) -> None:
    png(workspace / "logo.png", (320, 200))
    model = ScriptedModel([assistant(tool_call("r1", "Read", file_path="logo.png")), "A logo."])
    app, events_ = make_app(workspace, model, [READ])
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        app.main.prompt.focus()
        await pilot.press(*"look", "enter")
        await events_.wait_for(ev.TurnFinished)
        await settle(app, pilot)
        (call,) = app.main.query(ToolCallBlock)
        body = str(call.query_one(".tool-body").render())
    assert "Read image 320x200 (image/png" in body
