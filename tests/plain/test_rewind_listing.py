"""Line mode's rewind confirmation lists everything the rewind undoes: the chosen prompt and
every later one, not only the chosen prompt's own changes (issue 25)."""

from __future__ import annotations

from pathlib import Path

from agent import events as ev
from tests.fakes.fake_api import FakeAnthropic, Reply, text, tool_use
from tests.helpers.plain import ENTER, until


def write(call_id: str, name: str) -> Reply:
    return Reply(
        [tool_use(call_id, "Write", {"file_path": name, "content": "x = 1\n"})], "tool_use"
    )


async def test_the_rewind_question_lists_every_later_prompt_too(
    harness, fake_api: FakeAnthropic, workspace: Path
):
    fake_api.push(
        write("toolu_1", "one.py"),
        Reply([text("Made one.py.")]),
        write("toolu_2", "two.py"),
        Reply([text("Made two.py.")]),
    )
    h = harness("--permission-mode", "acceptEdits")
    await h.start()
    for count, prompt in enumerate(("make one.py", "make two.py"), 1):
        h.type(prompt + ENTER)
        await h.event(ev.TurnFinished, count)
        await h.idle()
    h.type("/rewind" + ENTER)
    await until(lambda: h.app.message().startswith("Rewind to before"), what="question")
    before = len(h.output)
    h.type("1" + ENTER)
    await until(lambda: h.app.message().startswith("Restore"), what="mode question")
    shown = h.output[before:]
    assert "This undoes 2 prompts and their changes:" in shown
    assert "1. make one.py · one.py created +1" in shown
    assert "2. make two.py · two.py created +1" in shown
    h.type("3" + ENTER)  # code only: both files go, as the listing said
    await h.event(ev.RewindFinished)
    assert not (workspace / "one.py").exists() and not (workspace / "two.py").exists()
    h.app.input.buffer.reset()
    assert await h.exit() == 0
