"""/budget and /turns in line mode, and what a stop at a cap says to do."""

from __future__ import annotations

from pathlib import Path

from agent import events as ev
from tests.fakes.fake_api import FakeAnthropic, Reply, text, tool_use
from tests.helpers.plain import ENTER, until


async def test_budget_and_turns_are_shown_set_and_removed(harness) -> None:
    h = harness()
    await h.start()
    limits = h.app.session.config.limits
    h.type("/budget" + ENTER)
    await h.printed("Budget: $0.0000 spent, no cap. /budget AMOUNT sets it")
    h.type("/budget $2.50" + ENTER)
    await h.printed("Budget set to $2.50 for this session.")
    assert limits.max_budget_usd == 2.5
    h.type("/budget lots" + ENTER)
    await h.printed("/budget takes an amount in dollars, e.g. /budget 5 (not 'lots').")
    assert limits.max_budget_usd == 2.5
    h.type("/budget 0" + ENTER)
    await h.printed("Budget cap removed.")
    h.type("/turns 3" + ENTER)
    await h.printed("Turn cap set to 3 per prompt.")
    assert limits.max_turns == 3 and limits.max_budget_usd is None
    h.type("/turns" + ENTER)
    await h.printed("Turn cap: 3 tool turns per prompt.")
    assert "/budget" in h.app.commands.names() and "/turns" in h.app.commands.names()
    assert await h.exit() == 0


async def test_a_stop_at_the_turn_cap_says_how_to_go_on(
    harness, fake_api: FakeAnthropic, workspace: Path
) -> None:
    (workspace / "a.txt").write_text("a\n")
    read = {"file_path": "a.txt"}
    fake_api.push(
        Reply([tool_use("t1", "Read", read)], "tool_use"),
        Reply([tool_use("t2", "Read", read)], "tool_use"),
        Reply([text("Done.")]),
    )
    h = harness()
    await h.start()
    h.type("/turns 1" + ENTER)
    await h.printed("Turn cap set to 1 per prompt.")
    h.type("read it twice" + ENTER)
    finished = await h.event(ev.TurnFinished)
    assert finished.subtype == "error_max_turns"
    await until(lambda: "raise the cap with /turns N" in h.output, what="the advice")
    assert "To go on past 1 tool turn for this prompt" in h.output
    assert h.output.count("Stopped") == 1, h.output  # why the turn ended is said once
