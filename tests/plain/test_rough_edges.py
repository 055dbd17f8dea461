"""Issue 37's rough edges in line mode, driven by keystrokes against the fake Messages API."""

from __future__ import annotations

from agent import events as ev
from tests.fakes.fake_api import FakeAnthropic
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
