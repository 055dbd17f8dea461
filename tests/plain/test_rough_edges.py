"""Issue 37's rough edges in line mode, driven by keystrokes against the fake Messages API."""

from __future__ import annotations

from agent import events as ev
from tests.fakes.fake_api import FakeAnthropic, Reply, text
from tests.helpers.plain import ENTER


async def test_compact_on_an_empty_conversation_says_there_is_nothing_to_compact(
    harness, fake_api: FakeAnthropic
):
    h = harness()
    await h.start()
    h.type("/compact" + ENTER)
    await h.printed("Nothing to compact yet: the conversation is empty.")
    assert "Compaction failed" not in h.output and not h.of(ev.Error)
    assert fake_api.requests == []
    assert await h.exit() == 0


async def test_cost_counts_a_text_answer_as_a_turn(harness, fake_api: FakeAnthropic):
    fake_api.push(Reply([text("Hi.")]))
    h = harness()
    await h.start()
    h.type("hello" + ENTER)
    await h.event(ev.TurnFinished)
    await h.idle()
    h.type("/cost" + ENTER)
    await h.printed("Turns:          1")  # was 0: only tool turns counted
    assert await h.exit() == 0
