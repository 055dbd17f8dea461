"""Background work reports back (agent/session/reports.py, issue 37): a report while eddy is
idle starts a turn by itself (one for several that end together), a report while a turn runs
follows its next tool results, and the limits hold: Esc, the turn limit, the budget, a number
of self-started turns in a row, a stop. Reports are injected as the shells and the subagent
host give them (the fault injector's way: at any moment), and one comes from a real shell."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from agent import events as ev
from agent import ops
from agent.messages import Message, ToolResultBlock, assistant
from agent.session.config import SessionConfig
from agent.session.core import Session
from agent.session.reports import Report, shell_report
from tests.fakes.scripted import ScriptedModel, ScriptItem, tool_call
from tests.helpers.events import Events
from tools import default_tools


def report(n: int, status: str = "completed") -> Report:
    return shell_report(f"bash_{n}", f"job {n}", status, 0 if status == "completed" else 1, "")


def make(
    tmp_path: Path, script: list[ScriptItem] | Callable[[list[Message]], object], **config: int
) -> tuple[Session, Events, ScriptedModel]:
    events = Events()
    cfg = SessionConfig(workspace=tmp_path, model="claude-sonnet-5-5", **config)  # type: ignore[arg-type]
    cfg.policy.mode = "bypassPermissions"
    model = ScriptedModel(script, cost_per_call=0.01)  # type: ignore[arg-type]
    session = Session(cfg, model, default_tools(), events)
    return session, events, model


def started_by_reports(events: Events) -> list[ev.TurnStarted]:
    return [e for e in events.of(ev.TurnStarted) if e.origin == "background"]


def notices(events: Events) -> list[str]:
    return [e.text for e in events.of(ev.Notice)]


async def test_a_report_while_idle_starts_a_turn_with_its_notification(tmp_path: Path) -> None:
    session, events, model = make(tmp_path, ["started it", "the job is done: all good"])
    session.submit(ops.SubmitPrompt("start the job"))
    await session.wait_idle()
    session.reports.add(report(1))
    await session.wait_idle()
    (shown,) = events.of(ev.BackgroundReported)
    assert shown.summary == 'Background command "job 1" completed (exit code 0)'
    (turn,) = started_by_reports(events)
    assert turn.prompt == shown.summary  # what front ends show; the model reads the notification
    prompt = model.requests[-1].messages[-1]
    assert "<task-notification>" in prompt.text and "<task-id>bash_1</task-id>" in prompt.text
    assert "NOT USER INPUT" in prompt.text
    assert session.history[-1].text == "the job is done: all good"
    assert len(session.checkpoints()) == 1  # no rewind point: nobody typed it
    assert events.of(ev.TurnFinished)[-1].subtype == "success"
    await session.close()


async def test_reports_that_end_together_share_one_turn(tmp_path: Path) -> None:
    session, events, model = make(tmp_path, ["ok", "both done"])
    session.submit(ops.SubmitPrompt("go"))
    await session.wait_idle()
    session.reports.add(report(1))
    session.reports.add(report(2, "failed"))
    await session.wait_idle()
    assert len(started_by_reports(events)) == 1 and model.calls == 2
    prompt = model.requests[-1].messages[-1].text
    assert "bash_1" in prompt and "bash_2" in prompt and "<status>failed</status>" in prompt
    await session.close()


async def test_a_report_while_a_turn_runs_follows_its_next_results_and_is_no_correction(
    tmp_path: Path,
) -> None:
    box: list[Session] = []

    def script(history: list[Message]) -> ScriptItem:
        if len(history) == 1:  # the turn's first call: the job ends while its tool runs
            box[0].reports.add(report(1))
            return assistant(tool_call("g", "Glob", pattern="*"))
        return "done"

    session, events, model = make(tmp_path, script)  # type: ignore[arg-type]
    box.append(session)
    session.submit(ops.SubmitPrompt("look around"))
    await session.wait_idle()
    assert model.calls == 2 and not started_by_reports(events)
    results = model.requests[1].messages[-1]
    assert isinstance(results.content[0], ToolResultBlock)
    assert "<task-id>bash_1</task-id>" in results.text
    assert events.of(ev.CorrectionsDelivered) == []  # nobody typed it
    assert session.reports.pending == []
    await session.close()


async def test_esc_stops_a_turn_reports_started_and_the_next_report_waits_for_a_prompt(
    tmp_path: Path,
) -> None:
    calling = asyncio.Event()
    never = asyncio.Event()

    async def script(history: list[Message]) -> ScriptItem:
        if "bash_1" in history[-1].text and not calling.is_set():
            calling.set()
            await never.wait()  # the turn the report started is stuck in its call
        return "answer"

    session, events, model = make(tmp_path, script)  # type: ignore[arg-type]
    session.submit(ops.SubmitPrompt("go"))
    await session.wait_idle()
    session.reports.add(report(1))
    await asyncio.wait_for(calling.wait(), 10)
    assert session.busy
    session.submit(ops.Interrupt())  # Esc stops it like any turn
    await session.wait_idle()
    assert events.of(ev.TurnFinished)[-1].subtype == "interrupted"
    calls = model.calls
    session.reports.add(report(2))  # the user is at the keyboard: this one waits
    await session.wait_idle()
    assert model.calls == calls and len(started_by_reports(events)) == 1
    assert any("waits for your next prompt" in t for t in notices(events))
    session.submit(ops.SubmitPrompt("what happened?"))
    await session.wait_idle()
    prompt = model.requests[-1].messages[-1].text  # joins the interrupted turn's message
    assert "what happened?" in prompt and "bash_2" in prompt
    await session.close()


async def test_self_started_turns_stop_after_the_limit_in_a_row_until_the_user_speaks(
    tmp_path: Path,
) -> None:
    session, events, model = make(tmp_path, lambda h: "noted", self_started_turns=2)
    session.submit(ops.SubmitPrompt("go"))
    await session.wait_idle()
    for n in (1, 2, 3):
        session.reports.add(report(n))
        await session.wait_idle()
    assert len(started_by_reports(events)) == 2 and model.calls == 3
    held = [t for t in notices(events) if "maxSelfStartedTurns" in t]
    assert held == [
        "2 turns in a row started by background work with no prompt from you "
        "(maxSelfStartedTurns): the report waits for your next prompt."
    ]
    session.submit(ops.SubmitPrompt("carry on"))  # the report follows the user's prompt
    await session.wait_idle()
    assert "bash_3" in model.requests[-1].messages[-1].text
    session.reports.add(report(4))  # the count started again
    await session.wait_idle()
    assert len(started_by_reports(events)) == 3
    await session.close()


async def test_no_turn_starts_by_itself_when_the_setting_is_zero(tmp_path: Path) -> None:
    session, events, model = make(tmp_path, lambda h: "ok", self_started_turns=0)
    session.submit(ops.SubmitPrompt("go"))
    await session.wait_idle()
    session.reports.add(report(1))
    await session.wait_idle()
    assert model.calls == 1 and events.of(ev.BackgroundReported)
    assert any("maxSelfStartedTurns is 0" in t for t in notices(events))
    await session.close()


async def test_a_report_after_a_turn_stopped_at_its_turn_limit_waits(tmp_path: Path) -> None:
    session, events, model = make(
        tmp_path, lambda h: assistant(tool_call("g", "Glob", pattern="*"))
    )
    session.submit(ops.SetLimits(max_turns=1))
    session.submit(ops.SubmitPrompt("go"))
    await session.wait_idle()
    assert events.of(ev.TurnFinished)[-1].subtype == "error_max_turns"
    calls = model.calls
    session.reports.add(report(1))
    await session.wait_idle()
    assert model.calls == calls and not started_by_reports(events)
    assert any("turn limit" in t and "waits for your next prompt" in t for t in notices(events))
    await session.close()


async def test_a_report_after_the_budget_is_spent_waits(tmp_path: Path) -> None:
    session, events, model = make(tmp_path, lambda h: "ok")
    session.submit(ops.SetLimits(max_budget_usd=0.01))  # one call spends it all
    session.submit(ops.SubmitPrompt("go"))
    await session.wait_idle()
    session.reports.add(report(1))
    await session.wait_idle()
    assert model.calls == 1 and not started_by_reports(events)
    assert any("budget is spent" in t for t in notices(events))
    await session.close()


async def test_a_report_of_stopped_work_starts_no_turn_and_follows_the_next_prompt(
    tmp_path: Path,
) -> None:
    session, events, model = make(tmp_path, lambda h: "ok")
    session.submit(ops.SubmitPrompt("go"))
    await session.wait_idle()
    session.reports.add(report(1, "killed"))
    await session.wait_idle()
    assert model.calls == 1 and events.of(ev.BackgroundReported)[0].status == "stopped"
    session.submit(ops.SubmitPrompt("next"))
    await session.wait_idle()
    assert "<status>stopped</status>" in model.requests[-1].messages[-1].text
    await session.close()


async def test_a_real_background_shell_reports_and_starts_a_turn(tmp_path: Path) -> None:
    go = tmp_path / "go"
    command = f"while [ ! -e {go} ]; do sleep 0.02; done; echo finished"
    script: list[ScriptItem] = [
        assistant(tool_call("b", "Bash", command=command, run_in_background=True)),
        "started",
        "it finished",
    ]
    session, events, model = make(tmp_path, script)
    session.submit(ops.SubmitPrompt("run it in the background"))
    await session.wait_idle()
    assert session.reports.expected == {"bash_1"}
    go.touch()
    await events.wait_until(lambda: started_by_reports(events))
    await session.wait_idle()
    (shown,) = events.of(ev.BackgroundReported)
    assert shown.kind == "shell" and shown.status == "completed" and shown.output_file
    assert "finished" in Path(shown.output_file).read_text()
    assert session.history[-1].text == "it finished" and not session.reports.expected
    await session.close()


async def test_reports_after_the_close_are_dropped(tmp_path: Path) -> None:
    session, events, model = make(tmp_path, lambda h: "ok")
    await session.close()
    session.reports.add(report(1))
    assert events.of(ev.BackgroundReported) == [] and not session.busy
