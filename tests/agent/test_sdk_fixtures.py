"""The SDK's own recorded streams (tests/fakes/sdk_fixtures), replayed byte for byte from the
fake API through the real client and loop: no traceback, valid requests, honest messages."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent import events as ev
from tests.agent.test_model_faults import assert_all_requests_valid, run, session_for
from tests.fakes.fake_api import RawReply, Reply, text

FIXTURES = Path(__file__).parent.parent / "fakes" / "sdk_fixtures"
NAMES = sorted(p.name for p in FIXTURES.glob("*.txt"))
ODD_ENDS = {
    # a stream without message_delta: incomplete, so nothing is run, and it says so
    "out_of_order_response.txt": ("error_during_execution", None),
    "incomplete_partial_json_response.txt": ("success", "max_tokens"),
    "refusal_response.txt": ("success", "refusal"),
}


def sent_blocks(fake_api, request: int, message: int) -> list[dict]:
    return [
        {k: v for k, v in b.items() if k != "cache_control"}
        for b in fake_api.requests[request]["messages"][message]["content"]
    ]


@pytest.mark.parametrize("name", NAMES)
async def test_each_recorded_stream_leaves_a_valid_history_and_an_honest_message(
    fake_api, tmp_path, name
) -> None:
    fake_api.push(RawReply((FIXTURES / name).read_bytes(), chunk=97))
    fake_api.default = Reply([text("ok")])
    session, events = session_for(fake_api, tmp_path)
    await run(session, "go")
    first = events.of(ev.TurnFinished)[-1]
    assert (first.subtype, first.stop_reason) == ODD_ENDS.get(name, ("success", "end_turn"))
    await run(session, "again")
    await session.close()
    assert_all_requests_valid(fake_api)
    assert events.of(ev.TurnFinished)[-1].subtype == "success"
    for error in events.of(ev.Error):
        assert "Traceback" not in error.message
        assert "connection" not in error.message.lower()


def test_every_fixture_is_here() -> None:
    assert len(NAMES) == 27


async def test_a_multi_delta_compaction_goes_back_whole(fake_api, tmp_path) -> None:
    fake_api.push(RawReply((FIXTURES / "compaction_multi_delta_response.txt").read_bytes()))
    fake_api.default = Reply([text("ok")])
    session, _ = session_for(fake_api, tmp_path)
    await run(session, "go")
    await run(session, "again")
    await session.close()
    compaction = sent_blocks(fake_api, 1, 1)[0]
    assert compaction == {
        "type": "compaction",
        "content": "Earlier conversation summarized in full.",
        "encrypted_content": "EpwBCioIDxgCEAEYASJALd_opaque_chunk_two",
    }


async def test_server_tool_blocks_go_back_as_they_came(fake_api, tmp_path) -> None:
    fake_api.push(RawReply((FIXTURES / "server_tool_result_response.txt").read_bytes()))
    fake_api.default = Reply([text("ok")])
    session, _ = session_for(fake_api, tmp_path)
    await run(session, "go")
    await run(session, "again")
    await session.close()
    kinds = [b["type"] for b in sent_blocks(fake_api, 1, 1)]
    assert "code_execution_tool_result" in kinds and "server_tool_use" in kinds
    result = next(b for b in sent_blocks(fake_api, 1, 1) if b["type"].endswith("_tool_result"))
    raw = (FIXTURES / "server_tool_result_response.txt").read_text()
    assert json.dumps(result, separators=(",", ":")) in raw


async def test_the_recorded_invalid_tool_json_is_an_error_result(fake_api, tmp_path) -> None:
    fake_api.push(RawReply((FIXTURES / "tool_use_invalid_json_response.txt").read_bytes()))
    fake_api.default = Reply([text("ok")])
    session, _ = session_for(fake_api, tmp_path)
    await run(session, "go")
    await session.close()
    result = fake_api.requests[1]["messages"][2]["content"][0]
    assert result["is_error"] is True and "not valid JSON" in result["content"]


async def test_usage_that_only_the_message_delta_carries_is_counted(fake_api, tmp_path) -> None:
    fake_api.push(RawReply((FIXTURES / "missing_usage_response.txt").read_bytes()))
    session, events = session_for(fake_api, tmp_path)
    await run(session, "go")
    await session.close()
    usage = events.of(ev.UsageUpdated)[-1].usage
    assert (usage["input_tokens"], usage["output_tokens"]) == (11, 1)
    assert (usage["cache_creation_input_tokens"], usage["cache_read_input_tokens"]) == (3, 5)
