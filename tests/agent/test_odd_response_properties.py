"""Property (issue 26): random responses with the shapes real streams have — repeated tool_use
ids, empty and blank text, thinking, server blocks, a paused turn, non-object and invalid JSON
tool input, cut-off stops — never yield an invalid request: over the real SDK client against
the fake API (which answers an invalid request with a 400 and records it), in one process
across several prompts, and again after resuming the saved transcript.
"""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent import events as ev
from agent import ops
from agent.messages import check_invariant, message_from_param
from agent.model.anthropic import AnthropicModel
from agent.session.config import SessionConfig
from agent.session.core import Session
from agent.store.load import load
from agent.store.transcript import Transcript
from tests.fakes.fake_api import FakeAnthropic, Reply, text
from tests.fakes.tools import FnTool
from tests.helpers.events import Events

MODEL = "claude-sonnet-5-5"

text_st = st.sampled_from(["", " ", "\n\n", "ok", "two words"]).map(text)
thinking_st = st.just({"type": "thinking", "thinking": "hmm", "signature": "c2ln"})
redacted_st = st.just({"type": "redacted_thinking", "data": "cmVkYWN0ZWQ="})
compaction_st = st.just({"type": "compaction", "content": "earlier, summarised"})
tool_st = st.builds(
    lambda i, raw: {"type": "tool_use", "id": f"toolu_{i}", "name": "Echo", "input": {}, **raw},
    st.integers(1, 3),  # a small pool: ids repeat within and across responses
    st.sampled_from([{}, {"raw_input": '{"x": 1}'}, {"raw_input": "[1]"}, {"raw_input": '{"x'}]),
)


def server_pair(i: int, answered: bool) -> list[dict[str, Any]]:
    call = {"type": "server_tool_use", "id": f"srvtoolu_{i}", "name": "web_search", "input": {}}
    result = {"type": "web_search_tool_result", "tool_use_id": f"srvtoolu_{i}", "content": []}
    return [call, result] if answered else [call]


@st.composite
def reply_st(draw: st.DrawFn) -> Reply:
    blocks = draw(st.lists(st.one_of(text_st, thinking_st, redacted_st, compaction_st), max_size=3))
    if draw(st.booleans()):
        blocks += server_pair(draw(st.integers(1, 2)), answered=True)
    if draw(st.booleans()):
        blocks += draw(st.lists(tool_st, min_size=1, max_size=3))
    stop = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
    if draw(st.integers(0, 5)) == 0:  # a paused turn: a server call waits for the next reply
        blocks += server_pair(draw(st.integers(3, 4)), answered=False)
        stop = "pause_turn"
    elif draw(st.integers(0, 5)) == 0:
        stop = draw(st.sampled_from(["max_tokens", "refusal", "model_context_window_exceeded"]))
    return Reply(blocks or [text("")], stop)


def valid(fake: FakeAnthropic) -> None:
    assert fake.violations == []
    for body in fake.requests:
        check_invariant([message_from_param(m) for m in body["messages"]])


def new_session(fake: FakeAnthropic, cwd: Path) -> tuple[Session, Events]:
    model = AnthropicModel(MODEL, api_key="t", base_url=fake.base_url, max_retries=0)
    config = SessionConfig(workspace=cwd, model=MODEL, system="You help.")
    config.policy.mode = "bypassPermissions"
    config.limits.max_turns = 4  # a random model may call tools for ever
    events = Events()
    tool = FnTool("Echo", lambda a, c: f"echo {a}", read_only=True)
    return Session(config, model, [tool], events), events


async def prompts(session: Session, *texts: str) -> None:
    for t in texts:
        session.submit(ops.SubmitPrompt(t))
        await session.wait_idle()


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(st.lists(reply_st(), min_size=1, max_size=6))
def test_odd_responses_never_yield_an_invalid_request(replies: list[Reply]) -> None:
    script = list(replies)

    def respond(_body: dict[str, Any]) -> Reply:
        return script.pop(0) if script else Reply([text("fine")])

    async def main(cwd: Path) -> None:
        with FakeAnthropic(respond) as fake:
            session, events = new_session(fake, cwd)
            transcript = Transcript.create(cwd, model=MODEL)
            session.attach_transcript(transcript)
            await prompts(session, "one", "two", "three")
            await session.close()
            transcript.close()
            valid(fake)
            assert not [e for e in events.of(ev.Error) if e.kind in ("invariant", "internal")]
            # resume the saved session and go on: still never an invalid request
            resumed, events2 = new_session(fake, cwd)
            resumed.attach_transcript(Transcript.open(transcript.path, load(transcript.path)))
            await prompts(resumed, "after resume")
            await resumed.close()
            resumed.transcript.close()  # type: ignore[union-attr]
            valid(fake)
            assert events2.of(ev.TurnFinished)[-1].subtype == "success"

    with tempfile.TemporaryDirectory() as cwd:
        asyncio.run(main(Path(cwd)))
