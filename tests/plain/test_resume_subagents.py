"""Line mode's /resume lists each session's subagents under it (numbered 1.1, 1.2, ...);
typing a subagent's number prints its whole transcript (it is not resumed), ``/resume 1.1``
prints it at once, and a session's number still resumes the session."""

from __future__ import annotations

from pathlib import Path

from agent.store.listing import list_sessions, sessions_dir
from tests.fakes.fake_api import FakeAnthropic
from tests.helpers.plain import ENTER, until
from tests.helpers.recorded_children import session_with_child


async def test_resume_lists_children_and_prints_one_by_its_number(
    harness, fake_api: FakeAnthropic, workspace: Path, tmp_path: Path
) -> None:
    await session_with_child(tmp_path, directory=sessions_dir(workspace))
    (old,) = list_sessions(workspace)
    h = harness()
    await h.start()
    h.type("/resume" + ENTER)
    await h.printed("Sessions of this project")
    await until(lambda: "1.1 for a subagent" in h.app.message(), what="question")
    listed = h.output.splitlines()
    session_line = next(n for n, line in enumerate(listed) if old.session_id in line)
    child = listed[session_line + 1]
    assert child.startswith("      1.1 ↳ Explore ")
    assert child.endswith(": find the callers · 1 turn · $0.0200 · success")
    before = len(h.output)
    h.type("1.1" + ENTER)
    await h.printed("(read-only: a subagent cannot be resumed)")
    shown = h.output[before:]
    for line in ("› find the callers", "● Read(a.py)", "x is in a.py", "— success · 1 turn"):
        assert line in shown
    assert h.app.session is not None and h.app.session.status().session_id != old.session_id
    before = len(h.output)
    h.type("1.2" + ENTER)  # the question stayed open; a number that names no subagent
    await h.printed("Session 1 has no subagent 1.2 (its subagents: 1.1).")
    h.type(ENTER)
    await h.printed("Resume cancelled.")
    before = len(h.output)
    h.type("/resume 1.1" + ENTER)  # at once, without the question
    await until(lambda: "cannot be resumed)" in h.output[before:], what="the transcript")
    assert (
        "● Read(a.py)" in h.output[before:]
        and "Sessions of this project" not in (h.output[before:])
    )
    assert fake_api.requests == [] and fake_api.violations == []
    assert await h.exit() == 0


async def test_a_sessions_number_resumes_it_and_agents_shows_its_subagents(
    harness, fake_api: FakeAnthropic, workspace: Path, tmp_path: Path
) -> None:
    await session_with_child(tmp_path, directory=sessions_dir(workspace))
    (old,) = list_sessions(workspace)
    h = harness()
    await h.start()
    h.type("/resume" + ENTER)
    await until(lambda: "Resume which session?" in h.app.message(), what="question")
    h.type("1" + ENTER)
    await until(lambda: h.app.session is not None
                and h.app.session.status().session_id == old.session_id,
                what="the old session resumed")  # fmt: skip
    # /agents lists the resumed session's subagents; /agents ID prints one's transcript
    h.type("/agents" + ENTER)
    await h.printed("This session's subagents (1):")
    line = next(x for x in h.output.splitlines() if x.startswith("  Explore ") and "success" in x)
    agent_id = line.split()[1].rstrip(":")
    before = len(h.output)
    h.type(f"/agents {agent_id[:5]}" + ENTER)
    await h.printed("(read-only: a subagent cannot be resumed)")
    for shown in ("Explore", "› find the callers", "● Read(a.py)", "x is in a.py"):
        assert shown in h.output[before:]
    assert fake_api.requests == [] and fake_api.violations == []
    assert await h.exit() == 0
