"""An Edit that cannot succeed is an error at once, never a question followed by a failure.

The gate asks the tool's precheck (the same code its run uses) before it asks the user, and the
question's preview is the diff the run then makes, byte for byte.
"""

from __future__ import annotations

import os
from pathlib import Path

from agent import events as ev
from agent import ops
from agent.messages import assistant
from agent.permissions.policy import Rule
from agent.session.config import SessionConfig
from agent.session.core import Session
from tests.fakes.scripted import ScriptedModel, tool_call
from tests.helpers.events import Events
from tools import default_tools
from tools.textfile import make_diff

MODEL = "claude-sonnet-5-5"


class AnsweringEvents(Events):
    """Records events and answers every permission question with "allow" (so a test of
    "it never asks" fails on an assertion, not by waiting for an answer forever)."""

    session: Session | None = None

    def __call__(self, event: ev.Event) -> None:
        super().__call__(event)
        if isinstance(event, ev.PermissionRequested) and self.session is not None:
            self.session.submit(ops.AnswerPermission(event.request_id, "allow"))


def session_in(
    ws: Path, script: list, *, headless: bool = False, answer: bool = True
) -> tuple[Session, Events]:
    """A session in ``ws`` (default mode: Edit asks) running ``script``; ``answer`` allows
    whatever it asks."""
    events = AnsweringEvents() if answer else Events()
    config = SessionConfig(workspace=ws, model=MODEL, headless=headless)
    session = Session(config, ScriptedModel(script), default_tools(), events)
    if isinstance(events, AnsweringEvents):
        events.session = session
    return session, events


def read_then(ws: Path, *calls: dict) -> list:
    """A script that reads a.py, then makes ``calls`` (one per response), then says done."""
    read = tool_call("r1", "Read", file_path="a.py")
    return [assistant(read), *(assistant(c) for c in calls), "done"]


def finished(events: Events, call_id: str) -> ev.ToolCallFinished:
    return next(e for e in events.of(ev.ToolCallFinished) if e.call_id == call_id)


async def test_an_edit_matching_twice_fails_without_asking(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\nx = 1\n")
    edit = tool_call("e1", "Edit", file_path="a.py", old_string="x = 1", new_string="x = 2")
    session, events = session_in(tmp_path, read_then(tmp_path, edit))
    session.submit(ops.SubmitPrompt("change x"))
    await session.wait_idle()
    assert not events.of(ev.PermissionRequested)
    result = finished(events, "e1")
    assert result.is_error and result.status == "failed"
    assert "Found 2 matches of old_string" in str(result.content)
    assert (tmp_path / "a.py").read_text() == "x = 1\nx = 1\n"
    assert events.of(ev.TurnFinished)[-1].subtype == "success"  # the loop went on


async def test_an_edit_that_matches_nothing_or_a_stale_read_fails_without_asking(
    tmp_path: Path,
) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    missing = tool_call("e1", "Edit", file_path="a.py", old_string="y = 1", new_string="y = 2")
    stale = tool_call("e2", "Edit", file_path="a.py", old_string="x = 1", new_string="x = 2")
    multi = tool_call(
        "e3",
        "MultiEdit",
        file_path="a.py",
        edits=[{"old_string": "x", "new_string": "z"}, {"old_string": "q", "new_string": "r"}],
    )
    stale_session, events = session_in(tmp_path, [*(assistant(c) for c in (stale, multi)), "ok"])
    stale_session.ctx.files.remember(tmp_path / "a.py")  # the model read it...
    (tmp_path / "a.py").write_text("x = 1  # the user's\n")  # ...then the user changed it
    os.utime(tmp_path / "a.py", ns=(1, 1))
    stale_session.submit(ops.SubmitPrompt("change x"))
    await stale_session.wait_idle()
    session, missing_events = session_in(tmp_path, read_then(tmp_path, missing))
    session.submit(ops.SubmitPrompt("change y"))
    await session.wait_idle()
    events.all.extend(missing_events.all)
    assert not events.of(ev.PermissionRequested)
    assert "old_string was not found" in str(finished(events, "e1").content)
    assert "modified since you last read it" in str(finished(events, "e2").content)
    assert "modified since you last read it" in str(finished(events, "e3").content)
    assert all(finished(events, i).status == "failed" for i in ("e1", "e2", "e3"))
    assert (tmp_path / "a.py").read_text() == "x = 1  # the user's\n"


async def test_headless_says_why_the_edit_cannot_work_not_how_to_allow_it(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\nx = 1\n")
    edit = tool_call("e1", "Edit", file_path="a.py", old_string="x = 1", new_string="x = 2")
    session, events = session_in(tmp_path, read_then(tmp_path, edit), headless=True)
    session.submit(ops.SubmitPrompt("change x"))
    await session.wait_idle()
    text = str(finished(events, "e1").content)
    assert "Found 2 matches" in text and "--allowed-tools" not in text


async def test_a_deny_rule_still_refuses_before_the_precheck(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\nx = 1\n")
    edit = tool_call("e1", "Edit", file_path="a.py", old_string="x = 1", new_string="x = 2")
    session, events = session_in(tmp_path, read_then(tmp_path, edit))
    session.config.policy.deny.append(Rule.parse("Edit(a.py)"))
    session.submit(ops.SubmitPrompt("change x"))
    await session.wait_idle()
    result = finished(events, "e1")
    assert result.status == "refused" and "Found 2" not in str(result.content)


async def test_an_unread_file_outside_the_workspace_is_asked_about_not_probed(
    tmp_path: Path,
) -> None:
    ws, outside = tmp_path / "ws", tmp_path / "secret.txt"
    ws.mkdir()
    outside.write_text("k\n")
    edit = tool_call("e1", "Edit", file_path=str(outside), old_string="k", new_string="j")
    session, events = session_in(ws, [assistant(edit), "done"], answer=False)
    session.submit(ops.SubmitPrompt("edit it"))
    asked = await events.wait_for(ev.PermissionRequested)  # whether it exists is not told
    session.submit(ops.AnswerPermission(asked.request_id, "deny"))
    await session.wait_idle()
    assert outside.read_text() == "k\n"


async def test_the_preview_is_exactly_the_diff_the_edit_makes(tmp_path: Path) -> None:
    # a Latin-1 file with CRLF line endings: a preview that decodes it as UTF-8 showed "caf\ufffd"
    (tmp_path / "a.py").write_bytes("caf\xe9 = 1\r\nx = 1\r\n".encode("latin-1"))
    edit = tool_call(
        "e1", "Edit", file_path="a.py", old_string="caf\xe9 = 1\nx", new_string="caf\xe9 = 2\nx"
    )
    session, events = session_in(tmp_path, read_then(tmp_path, edit), answer=False)
    session.submit(ops.SubmitPrompt("2"))
    asked = await events.wait_for(ev.PermissionRequested)
    assert asked.preview is not None and "+caf\xe9 = 2\n" in asked.preview
    session.submit(ops.AnswerPermission(asked.request_id, "allow"))
    await session.wait_idle()
    result = finished(events, "e1")
    assert result.display is not None and result.status == "done"
    assert asked.preview == result.display["diff"]
    assert (tmp_path / "a.py").read_bytes() == "caf\xe9 = 2\r\nx = 1\r\n".encode("latin-1")


def test_a_diff_of_an_absolute_path_names_it_as_it_is() -> None:
    diff, added, removed = make_diff("/tmp/x.py", "a\n", "b\n")
    assert diff.startswith("--- /tmp/x.py\n+++ /tmp/x.py\n") and (added, removed) == (1, 1)
    assert make_diff("src/x.py", "a\n", "b\n")[0].startswith("--- a/src/x.py\n+++ b/src/x.py\n")
