"""Resuming restores the context figure and the budget counts the session's total (issue 8).

Sessions are recorded against the fake Messages API (real SDK, real usage figures) or written
with the transcript API, then resumed as ``eddy --resume ID`` does (frontend.session_open).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent import events as ev
from agent import ops
from agent.messages import assistant, user
from agent.model.anthropic import AnthropicModel
from agent.model.pricing import Usage
from agent.model.protocol import ModelResponse
from agent.session.config import SessionConfig
from agent.session.context import budget_line, estimate_context
from agent.session.core import Session
from agent.store.listing import sessions_dir
from agent.store.load import context_of, load
from agent.store.transcript import Transcript
from cli.main import parse_launch
from frontend.session_open import build_session
from headless.run import run_headless
from tests.fakes.fake_api import FakeAnthropic, Reply, text, tool_use
from tests.fakes.scripted import ScriptedModel, tool_call
from tests.fakes.tools import FnTool
from tests.helpers.events import Events

MODEL = "claude-sonnet-5-5"
SYSTEM = "You are a careful engineer. " * 200  # long enough to be cached


def look_tool() -> FnTool:
    return FnTool("Look", lambda a, c: f"found {a.get('q')}: " + "data " * 80, read_only=True)


def last_call_context(fake: FakeAnthropic) -> int:
    """What the last response says the context is: its whole prompt plus its output."""
    u = fake.usage_log[-1]
    return (
        u["input_tokens"]
        + u["cache_creation_input_tokens"]
        + u["cache_read_input_tokens"]
        + u["output_tokens"]
    )


def fake_model(fake: FakeAnthropic) -> AnthropicModel:
    return AnthropicModel(MODEL, api_key="t", base_url=fake.base_url)


async def record(fake: FakeAnthropic, cwd: Path, *prompts: str) -> tuple[Path, Session]:
    """Run ``prompts`` in a saved session over the real SDK and the fake server."""
    model = fake_model(fake)
    events = Events()
    config = SessionConfig(workspace=cwd, model=MODEL, system=SYSTEM)
    session = Session(config, model, [look_tool()], events)
    transcript = Transcript.create(cwd, model=MODEL)
    session.attach_transcript(transcript)
    for prompt in prompts:
        session.submit(ops.SubmitPrompt(prompt))
        await session.wait_idle()
        assert events.of(ev.TurnFinished)[-1].subtype == "success"
    await session.close()
    transcript.close()
    return transcript.path, session


def resume(
    cwd: Path, session_id: str, *extra: str, model: Any = None, headless: bool = False
) -> tuple[Session, Events]:
    """Resume as ``eddy --resume ID`` builds it (no model call is made)."""
    args = parse_launch(["--resume", session_id, *extra])
    args = args.replace(cwd=cwd)
    events = Events()
    opened = build_session(args, events, headless=headless, model=model or ScriptedModel([]))
    session, problems = opened.session, opened.problems
    assert problems == []
    return session, events


def tool_turn_script() -> list[Reply]:
    return [
        Reply([text("Looking."), tool_use("toolu_1", "Look", {"q": "a"})], "tool_use"),
        Reply([text("Looking again."), tool_use("toolu_2", "Look", {"q": "b"})], "tool_use"),
        Reply([text("Both found.")]),
    ]


# -- context --------------------------------------------------------------------------------
async def test_resume_restores_the_last_calls_context(fake_api: FakeAnthropic, tmp_path) -> None:
    fake_api.push(*tool_turn_script(), Reply([text("And that is all.")]))
    path, original = await record(fake_api, tmp_path, "look around", "anything else?")
    expected = last_call_context(fake_api)
    assert expected == original.context_tokens
    assert fake_api.usage_log[-1]["cache_read_input_tokens"] > 0  # all four figures count
    sent = len(fake_api.requests)

    session, _ = resume(tmp_path, path.stem)
    assert session.context_tokens == expected
    assert len(fake_api.requests) == sent  # known before any new call
    assert session.transcript is not None
    session.transcript.close()


async def test_resume_after_a_rewind_estimates_the_kept_history(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    fake_api.push(*tool_turn_script(), Reply([text("And that is all.")]))
    path, original = await record(fake_api, tmp_path, "look around", "anything else?")
    before = original.context_tokens

    session, events = resume(tmp_path, path.stem)
    assert session.context_tokens == before
    whole = list(session.history)
    session.submit(ops.Rewind(2, "conversation"))
    assert events.of(ev.RewindFinished)
    assert len(session.history) == len(whole) - 2  # the second prompt and its answer are gone
    kept = estimate_context(session.history, session.spec.system, session.tools.params())
    assert session.context_tokens == kept
    assert kept < estimate_context(whole, session.spec.system, session.tools.params())
    assert session.transcript is not None
    session.transcript.close()

    again, _ = resume(tmp_path, path.stem)
    assert again.history == session.history
    assert again.context_tokens == kept
    assert again.transcript is not None
    again.transcript.close()


async def test_resume_after_compaction_takes_the_compacted_figure(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    summary = "## Goal\nLook around.\n## User's standing instructions\nnone"
    fake_api.push(*tool_turn_script(), Reply([text("Fine.")]), Reply([text(summary)]))
    path, _ = await record(fake_api, tmp_path, "look around", "thanks")
    session, _ = resume(tmp_path, path.stem, model=fake_model(fake_api))
    session.submit(ops.Compact())
    await session.wait_idle()
    compacted = session.context_tokens
    assert compacted == session.estimate_context() > 0
    assert compacted != last_call_context(fake_api)  # the compaction call is not the context
    await session.close()
    assert session.transcript is not None
    session.transcript.close()

    again, _ = resume(tmp_path, path.stem, model=fake_model(fake_api))
    assert again.context_tokens == compacted

    fake_api.push(Reply([text("Still here.")]))
    again.submit(ops.SubmitPrompt("still there?"))
    await again.wait_idle()
    await again.close()
    assert again.transcript is not None
    again.transcript.close()
    resumed, _ = resume(tmp_path, path.stem)
    assert resumed.context_tokens == last_call_context(fake_api)  # a call after the boundary
    assert resumed.transcript is not None
    resumed.transcript.close()


def test_context_of_a_usage_record() -> None:
    usage = {
        "input_tokens": 3,
        "cache_creation_input_tokens": 200,
        "cache_read_input_tokens": 5000,
        "output_tokens": 40,
    }
    assert context_of(usage) == 5243
    assert context_of({"output_tokens": 7}) == 7
    assert context_of({}) is None and context_of(None) is None
    assert context_of({"input_tokens": "many"}) is None


def test_a_transcript_without_calls_resumes_with_an_estimate(tmp_path: Path) -> None:
    with Transcript.create(tmp_path, model=MODEL) as t:
        t.record_history([user("hello " * 100), assistant("hi " * 50)], prompt=None)
    assert load(t.path).context_tokens is None
    session, _ = resume(tmp_path, t.path.stem)
    assert session.context_tokens == session.estimate_context()
    assert session.context_tokens > 150  # 400 words of history and the system prompt
    assert session.transcript is not None
    session.transcript.close()


# -- budget ---------------------------------------------------------------------------------
def spent_session(cwd: Path, spent: float) -> str:
    """A saved session that already cost ``spent`` dollars."""
    with Transcript.create(cwd, model=MODEL) as t:
        t.record_history([user("start")], prompt="start")
        t.usage(Usage(1000, 100).to_dict(), spent)
        t.record_history([user("start"), assistant("Started.")])
        return t.session_id


def probing(cost: float, calls: int) -> ScriptedModel:
    """``calls`` tool calls and then a final answer, each call costing ``cost``."""
    n = 0

    def script(history: Any) -> ModelResponse:
        nonlocal n
        n += 1
        if n > calls:
            return ModelResponse(assistant("done"), "end_turn", Usage(10, 1), cost)
        return ModelResponse(assistant(tool_call(f"c{n}", "Look")), "tool_use", Usage(10, 1), cost)

    return ScriptedModel(script)


async def test_budget_counts_the_resumed_sessions_total(tmp_path: Path) -> None:
    model = probing(0.15, calls=10)
    session, events = resume(tmp_path, spent_session(tmp_path, 0.80), model=model)
    assert session.total_cost == pytest.approx(0.80)
    session.submit(ops.SetLimits(max_budget_usd=1.00))
    assert budget_line(session) == "Budget: $0.8000 spent of $1.00 (this session)."
    session.submit(ops.SubmitPrompt("probe"))
    await session.wait_idle()
    stop = events.of(ev.TurnFinished)[-1]
    assert stop.subtype == "error_max_budget_usd"
    assert model.calls == 2  # $0.95, then $1.10: past $1.00 (not at $1.80)
    assert session.total_cost == pytest.approx(1.10)
    notice = events.of(ev.Notice)[-1].text
    assert notice == "Stopped: this session has spent $1.1000 of its $1.0000 budget."

    session.submit(ops.SetLimits(max_budget_usd=5.00))
    session.submit(ops.SubmitPrompt("go on"))
    await session.wait_idle()
    assert events.of(ev.TurnFinished)[-1].subtype == "success"
    assert session.total_cost == pytest.approx(1.10 + 9 * 0.15)
    assert budget_line(session) == "Budget: $2.4500 spent of $5.00 (this session)."
    assert session.transcript is not None
    session.transcript.close()


async def test_headless_budget_counts_this_run(tmp_path: Path) -> None:
    model = probing(0.15, calls=10)
    session_id = spent_session(tmp_path, 0.80)
    session, events = resume(
        tmp_path, session_id, "--max-budget-usd", "0.5", model=model, headless=True
    )
    session.submit(ops.SubmitPrompt("probe"))
    await session.wait_idle()
    assert events.of(ev.TurnFinished)[-1].subtype == "error_max_budget_usd"
    assert model.calls == 4  # $0.60 this run: the $0.80 before it does not count
    assert session.spend.run_cost == pytest.approx(0.60) == session.spend.budget_spent(True)
    assert events.of(ev.Notice)[-1].text == (
        "Stopped: this run has spent $0.6000 of its $0.5000 budget."
    )
    assert session.transcript is not None
    session.transcript.close()


def test_headless_result_reports_what_the_cap_counts(
    fake_api: FakeAnthropic, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    """``eddy -p --resume ID --max-budget-usd B``: total_cost_usd is this run's spend."""
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake_api.base_url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "t")
    session_id = spent_session(tmp_path, 0.80)
    fake_api.push(Reply([text("Short answer.")]))
    args = parse_launch(
        ["-p", "hi", "--resume", session_id, "--output-format", "json", "--max-budget-usd", "1"]
    )
    args = args.replace(cwd=tmp_path)
    assert run_headless(args, "hi") == 0
    result = json.loads(capsys.readouterr().out)
    loaded = load(sessions_dir(tmp_path) / f"{session_id}.jsonl")
    run = loaded.total_cost_usd - 0.80
    assert run > 0
    assert result["total_cost_usd"] == pytest.approx(run, abs=1e-6)
