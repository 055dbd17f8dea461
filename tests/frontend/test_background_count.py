"""What runs in the background is told to the front ends as it changes (``BackgroundChanged``):
a background shell and a background agent each counted from their start to their end, and the
status model's words for it ("1 shell, 1 agent in background")."""

from __future__ import annotations

import asyncio
from pathlib import Path

from agent import events as ev
from agent import ops
from agent.subagents.attach import attach_subagents
from agent.subagents.definitions import load_agents
from frontend.status import StatusModel
from tests.agent.test_background_shells import call, make_session
from tests.fakes.fake_api import FakeAnthropic, Reply, text


async def test_a_background_shell_and_agent_are_counted_while_they_run(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    go = tmp_path / "go"
    agent = {"description": "bg", "subagent_type": "general-purpose", "run_in_background": True}
    fake_api.push(
        call("toolu_sh", "Bash", command=f"while [ ! -e {go} ]; do sleep 0.02; done",
             run_in_background=True),
        call("toolu_ag", "Agent", prompt="look around", **agent),
        Reply([text("both started")]),
        Reply([text("the agent's report")]),  # the background agent's one answer
    )  # fmt: skip
    session, events = make_session(fake_api, tmp_path / "ws")
    attach_subagents(session, load_agents(session.config.workspace, home=tmp_path / "home"))
    status = StatusModel()
    session.submit(ops.SubmitPrompt("start both"))
    await session.wait_idle()
    host = session.ctx.subagents
    await asyncio.gather(*host.background.values())  # the agent ended; the shell runs on
    go.touch()
    await asyncio.wait_for(session.shells.shells["bash_1"].done.wait(), 20)
    await session.close()
    counts = [(e.shells, e.agents) for e in events.of(ev.BackgroundChanged)]
    assert counts == [(1, 0), (1, 1), (1, 0), (0, 0)], counts
    seen = []
    for e in events.all:
        status.follow(e)
        if isinstance(e, ev.BackgroundChanged):
            seen.append(status.background)
    assert seen == [
        "1 shell in background",
        "1 shell, 1 agent in background",
        "1 shell in background",
        "",
    ]
    assert fake_api.violations == []


def test_the_words_for_what_runs_in_the_background() -> None:
    status = StatusModel()
    assert status.background == ""
    status.follow(ev.BackgroundChanged(1, 2, 3))
    assert status.background == "2 shells, 3 agents in background"
    status.follow(ev.BackgroundChanged(1, 0, 1))
    assert status.background == "1 agent in background"


def test_line_modes_toolbar_shows_it() -> None:
    from plain.status import Status

    toolbar = Status()
    toolbar.follow(ev.BackgroundChanged(1, 1, 0))
    assert "1 shell in background" in toolbar.line(busy=False)
