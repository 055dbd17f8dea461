"""Images: a path in the prompt attaches the image; Read's image results and prompt images
survive a saved transcript and ``--resume`` unchanged (issue 22), over the fake API."""

from __future__ import annotations

import io
from pathlib import Path

from agent import events as ev
from agent import ops
from agent.messages import OtherBlock, TextBlock, check_invariant, message_from_param
from agent.model.anthropic import AnthropicModel
from agent.prompt.images import image_attachments
from agent.session.config import SessionConfig
from agent.session.core import Session
from agent.store.transcript import Transcript
from cli.main import parse_launch
from frontend.session_open import build_session
from tests.fakes.fake_api import FakeAnthropic, Reply, text, tool_use
from tests.helpers.events import Events
from tools.read import TOOL as READ

MODEL = "claude-sonnet-5-5"


def png(path: Path, size: tuple[int, int] = (64, 48)) -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", size, (10, 120, 200)).save(out, "PNG")
    path.write_bytes(out.getvalue())
    return out.getvalue()


def images_of(blocks: list) -> list[dict]:
    return [b.param for b in blocks if isinstance(b, OtherBlock)]


def test_image_paths_in_a_prompt_attach_in_every_form_a_terminal_pastes(tmp_path: Path) -> None:
    png(tmp_path / "a.png")
    (tmp_path / "my shots").mkdir()
    png(tmp_path / "my shots" / "b.png")
    outside = tmp_path.parent / f"{tmp_path.name}-desktop.png"
    png(outside)
    prompt = (
        f"look at ./a.png and '{tmp_path}/my shots/b.png', {outside}; "
        f"file://{tmp_path}/a.png again, also ./missing.png and ./notes.txt"
    )
    blocks = image_attachments(prompt, tmp_path)
    assert len(images_of(blocks)) == 3  # a.png once, b.png, the one outside
    assert len(images_of(image_attachments("see @a.png", tmp_path))) == 1
    assert all(i["source"]["media_type"] == "image/png" for i in images_of(blocks))
    escaped = image_attachments(f"{tmp_path}/my\\ shots/b.png", tmp_path)
    assert len(images_of(escaped)) == 1
    assert image_attachments("a.png in prose is not a paste", tmp_path) == []


def test_a_broken_image_in_a_prompt_is_a_note_not_a_block(tmp_path: Path) -> None:
    (tmp_path / "bad.png").write_bytes(b"\x89PNG\r\n\x1a\nnot really")
    (block,) = image_attachments("see ./bad.png", tmp_path)
    assert isinstance(block, TextBlock) and "was not attached" in block.text


async def test_images_round_trip_through_a_saved_transcript_and_resume(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    png(tmp_path / "shot.png", (640, 480))
    png(tmp_path / "chart.png", (32, 32))
    fake_api.push(
        Reply([tool_use("r1", "Read", {"file_path": "chart.png"})], "tool_use"),
        Reply([text("A blue square and a blue chart.")]),
        Reply([text("Still blue.")]),
    )
    events = Events()
    model = AnthropicModel(MODEL, api_key="t", base_url=fake_api.base_url, max_retries=0)
    session = Session(SessionConfig(tmp_path, MODEL, headless=True), model, [READ], events)
    transcript = Transcript.create(tmp_path, model=MODEL)
    session.attach_transcript(transcript)
    session.submit(ops.SubmitPrompt(f"what is in {tmp_path}/shot.png? read chart.png too"))
    await session.wait_idle()
    assert events.of(ev.TurnFinished)[-1].subtype == "success"
    await session.close()
    transcript.close()
    first = fake_api.requests[0]["messages"][0]["content"]
    assert [b["type"] for b in first] == ["text", "image"]
    read_result = fake_api.requests[1]["messages"][2]["content"][0]
    assert read_result["content"][0]["type"] == "image"

    args = parse_launch(["--resume", transcript.path.stem]).replace(cwd=tmp_path)
    opened = build_session(args, Events(), headless=True, model=model)
    resumed, problems = opened.session, opened.problems
    assert problems == []
    resumed.submit(ops.SubmitPrompt("and now?"))
    await resumed.wait_idle()
    await resumed.close()
    assert fake_api.violations == []
    for body in fake_api.requests:
        check_invariant([message_from_param(m) for m in body["messages"]])
    sent = fake_api.requests[-1]["messages"]

    def plain(block: dict) -> dict:
        return {k: v for k, v in block.items() if k != "cache_control"}

    assert plain(sent[0]["content"][1]) == plain(first[1])  # the prompt's image, unchanged
    assert plain(sent[2]["content"][0]) == plain(read_result)  # Read's image result too
