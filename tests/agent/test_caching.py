"""Context growth and caching with realistic token counts from the fake server (issue 8,
docs/loop.md item 4): n_k grows by exactly a_k + r_k; cache reads dominate; <= 4 breakpoints."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent import events as ev
from agent import ops
from agent.model.anthropic import AnthropicModel
from agent.session.config import SessionConfig
from agent.session.core import Session
from tests.fakes.fake_api import FakeAnthropic, Reply, _canon, _tokens, text, tool_use
from tests.fakes.tools import FnTool
from tests.helpers.events import Events

SYSTEM = "You are a careful engineer. " * 200  # well above the 512-token cache minimum


def blocks_tokens(blocks: list[dict]) -> int:
    return sum(_tokens(_canon(b)) for b in blocks)


def script(turns: int, wide_every: int = 0) -> list[Reply]:
    replies = []
    for i in range(turns):
        n = 12 if wide_every and i % wide_every == wide_every - 1 else 1  # some turns add 25 blocks
        calls = [tool_use(f"toolu_{i}_{j}", "Look", {"q": f"item {i}.{j}"}) for j in range(n)]
        replies.append(Reply([text(f"Step {i}: looking."), *calls], "tool_use"))
    replies.append(Reply([text("All done.")]))
    return replies


async def run_session(fake: FakeAnthropic, tmp_path: Path) -> Events:
    tool = FnTool("Look", lambda a, c: f"result for {a['q']}: " + "data " * 50, read_only=True)
    model = AnthropicModel("claude-sonnet-5-5", api_key="t", base_url=fake.base_url)
    events = Events()
    config = SessionConfig(workspace=tmp_path, model="claude-sonnet-5-5", system=SYSTEM)
    session = Session(config, model, [tool], events)
    session.submit(ops.SubmitPrompt("survey everything"))
    await session.wait_idle()
    await session.close()
    assert events.of(ev.TurnFinished)[-1].subtype == "success"
    return events


async def test_context_grows_by_exactly_response_plus_results(fake_api, tmp_path) -> None:
    fake_api.push(*script(8))
    await run_session(fake_api, tmp_path)
    prompts = [
        u["input_tokens"] + u["cache_creation_input_tokens"] + u["cache_read_input_tokens"]
        for u in fake_api.usage_log
    ]
    reqs = fake_api.requests
    assert len(reqs) == 9
    for k in range(1, len(reqs)):
        msgs = reqs[k]["messages"]
        a_prev, r_prev = msgs[-2]["content"], msgs[-1]["content"]
        assert msgs[:-2] == [_strip(m) for m in reqs[k - 1]["messages"]]
        assert prompts[k] - prompts[k - 1] == blocks_tokens(a_prev) + blocks_tokens(r_prev)
    # with a constant growth d per call the total over K calls is K*n_1 + d*K(K-1)/2:
    # the part above linear grows as K^2 (8 calls vs 4: 56/12 = 4.67x)
    excess = {k: sum(p - prompts[0] for p in prompts[:k]) for k in (4, 8)}
    assert 4.0 < excess[8] / excess[4] < 5.5


def _strip(message: dict) -> dict:
    """A message as it is in the next request: without the moving breakpoint marker."""
    content = [{k: v for k, v in b.items() if k != "cache_control"} for b in message["content"]]
    return {"role": message["role"], "content": content}


@pytest.mark.parametrize("wide_every", [0, 4], ids=["narrow-turns", "some-turns-add-25-blocks"])
async def test_cache_reads_dominate_and_breakpoints_stay_within_4(
    fake_api, tmp_path, wide_every
) -> None:
    fake_api.push(*script(20, wide_every))
    events = await run_session(fake_api, tmp_path)
    log = fake_api.usage_log
    total_input = sum(
        u["input_tokens"] + u["cache_creation_input_tokens"] + u["cache_read_input_tokens"]
        for u in log
    )
    reads = sum(u["cache_read_input_tokens"] for u in log)
    assert reads / total_input >= 0.90, reads / total_input
    for body in fake_api.requests:
        markers = sum("cache_control" in b for b in body.get("system", [])) + sum(
            "cache_control" in b for m in body["messages"] for b in m["content"]
        )
        assert 2 <= markers <= 4
    usage = events.of(ev.UsageUpdated)
    assert usage and usage[-1].context_window == 1_000_000
    assert usage[-1].context_tokens > usage[0].context_tokens


async def test_without_the_extra_breakpoint_wide_turns_would_miss(fake_api, tmp_path) -> None:
    """The control: the same wide session with the extra breakpoint disabled caches less."""
    import agent.model.anthropic as am

    fake_api.push(*script(20, 4))
    original = am.LOOKBACK_SAFE
    am.LOOKBACK_SAFE = 10**9
    try:
        await run_session(fake_api, tmp_path)
    finally:
        am.LOOKBACK_SAFE = original
    log = fake_api.usage_log
    prompt = [
        sum(
            u[k] for k in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
        )
        for u in log
    ]
    # after a wide turn only the system prompt is read back: the history misses
    missed = [
        k for k in range(1, len(log)) if log[k]["cache_read_input_tokens"] < prompt[k - 1] // 2
    ]
    assert missed, "a turn adding 25 blocks should miss the cache without the extra breakpoint"


def test_a_breakpoint_never_lands_on_a_thinking_block() -> None:
    from agent.messages import ThinkingBlock, assistant, user
    from agent.model.anthropic import LOOKBACK_SAFE, request_params
    from agent.model.protocol import ModelRequest

    history = [user("go")]
    for i in range(LOOKBACK_SAFE + 4):
        history += [assistant(ThinkingBlock("hm", "s"), f"answer {i}"), user(f"prompt {i}")]
    # the look-back breakpoint falls on position LOOKBACK_SAFE + 1: a thinking block
    params = request_params(ModelRequest("m", history), previous_breakpoint=1)
    marked = [b for m in params["messages"] for b in m["content"] if "cache_control" in b]
    assert len(marked) == 2
    assert all(b["type"] != "thinking" for b in marked)


@settings(max_examples=200, deadline=None)
@given(
    shapes=st.lists(
        st.lists(st.sampled_from(["text", "thinking"]), min_size=1, max_size=4),
        min_size=1,
        max_size=30,
    ),
    previous=st.one_of(st.none(), st.integers(min_value=0, max_value=60)),
)
def test_each_breakpoint_is_on_the_last_block_before_its_target_that_may_carry_one(
    shapes: list[list[str]], previous: int | None
) -> None:
    """Over any history: the moving breakpoint is on the newest block that is no thinking
    block, the look-back one on the newest such block at or before previous + LOOKBACK_SAFE,
    and the history's own params are never modified."""
    from agent.messages import Message, TextBlock, ThinkingBlock
    from agent.model.anthropic import LOOKBACK_SAFE, request_params
    from agent.model.protocol import ModelRequest

    history = [
        Message(
            "user" if i % 2 == 0 else "assistant",
            tuple(
                ThinkingBlock(f"t{i}", "s") if k == "thinking" else TextBlock(f"x{i}")
                for k in kinds
            ),
        )
        for i, kinds in enumerate(shapes)
    ]
    params = request_params(ModelRequest("m", history), previous_breakpoint=previous)
    blocks = [b for m in params["messages"] for b in m["content"]]
    kinds = [k for shape in shapes for k in shape]
    total = len(kinds)

    def newest_cacheable(at: int) -> int | None:
        return next((p for p in range(min(at, total - 1), -1, -1) if kinds[p] != "thinking"), None)

    targets = {newest_cacheable(total - 1)}
    if previous is not None and total - 1 - previous > LOOKBACK_SAFE:
        targets.add(newest_cacheable(previous + LOOKBACK_SAFE))
    assert {p for p, b in enumerate(blocks) if "cache_control" in b} == targets - {None}
    assert all("cache_control" not in b for m in history for b in m.to_param()["content"])
