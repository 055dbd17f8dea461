"""Line mode says which images a prompt attaches, as the TUI's chip does: a
``[image 1: name WxH]`` line under the prompt for each image path in it; the image itself
reaches the API after the prompt's text. Through the real engine and the fake Messages API."""

from __future__ import annotations

from pathlib import Path

from agent import events as ev
from tests.fakes.fake_api import FakeAnthropic
from tests.helpers.plain import ENTER


def png(path: Path, size: tuple[int, int]) -> Path:
    from PIL import Image

    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", size, (0, 90, 0)).save(path, "PNG")
    return path


async def test_a_prompt_with_image_paths_prints_a_chip_line_for_each(
    harness,
    fake_api: FakeAnthropic,
    workspace: Path,
    tmp_path: Path,
) -> None:
    shot = png(tmp_path / "drops" / "my shot.png", (640, 480))
    png(workspace / "logo.png", (32, 16))
    h = harness()
    await h.start()
    h.type(f'what is in "{shot}" and ./logo.png' + ENTER)
    await h.event(ev.TurnFinished)
    await h.printed("[image 2: logo.png 32x16]")
    lines = h.output.splitlines()
    first = lines.index("[image 1: my shot.png 640x480]")
    assert lines[first + 1] == "[image 2: logo.png 32x16]"
    (request,) = fake_api.requests
    kinds = [b["type"] for b in request["messages"][0]["content"]]
    assert kinds == ["text", "image", "image"] and fake_api.violations == []
    assert await h.exit() == 0


async def test_a_prompt_without_images_prints_no_chip(
    harness,
    fake_api: FakeAnthropic,
    workspace: Path,
) -> None:
    h = harness()
    await h.start()
    h.type("the bug in logo.png" + ENTER)  # a name in prose is not a pasted path
    await h.event(ev.TurnFinished)
    await h.idle()
    assert "[image" not in h.output
    assert await h.exit() == 0
