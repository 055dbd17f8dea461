"""A fuzz test of eddy's edges (issue 34): random lines from an editor to the real
``eddy --acp``, and random answers from an MCP server to a tool call the model makes (the raw
server of tests/fakes/mcp_odd_server.py writes whatever lines it is given). Whatever comes,
eddy stays up, answers a request sent after the noise, ends the prompt's turn with an answer,
writes only JSON on stdout and no traceback on stderr, and leaves no process behind when the
editor hangs up.

The default run tries :data:`QUICK` examples (each starts eddy and an MCP server: seconds);
``-m fuzz`` runs :data:`LONG` of them (``EDDY_FUZZ_EXAMPLES`` changes that).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st

from tests.acp_agent.client import TIMEOUT
from tests.acp_agent.raw import RawAcp, raw_acp
from tests.agent.hooks.scripts import pid_alive
from tests.agent.mcp.test_odd_servers import ODD
from tests.fakes.fake_api import FakeAnthropic, Reply, text, tool_use
from tests.helpers.wait import until

QUICK = 1
LONG = int(os.environ.get("EDDY_FUZZ_EXAMPLES", "30"))
TOOL_TIMEOUT_MS = "3000"
"""MCP_TOOL_TIMEOUT for the run: an answer that never comes ends the call after 3 s."""
ID = "__ID__"
"""Stands for the MCP request's id in a generated answer line (the server puts it in)."""

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**40), 2**40)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)
ACP_METHODS = [
    "initialize",
    "authenticate",
    "session/list",
    "session/set_mode",
    "session/cancel",
    "session/load",
    "session/prompt",
    "_eddy/checkpoints",
    "_eddy/rewind",
    "_eddy/queue",
    "no/such/method",
]
"""Methods a random request may name (not session/new: a random cwd such as "~" would open
sessions in real folders)."""


@st.composite
def rpc_like(draw: st.DrawFn, ids: st.SearchStrategy[Any] = json_values) -> dict[str, Any]:
    """An object that looks more or less like a JSON-RPC message."""
    out: dict[str, Any] = {}
    if draw(st.booleans()):
        out["jsonrpc"] = draw(st.sampled_from(["2.0", "2.0", "1.0", 2]))
    if draw(st.booleans()):
        out["id"] = draw(ids)
    if draw(st.booleans()):
        out["method"] = draw(st.sampled_from(ACP_METHODS) | st.text(max_size=10) | json_values)
    for key in ("params", "result", "error"):
        if draw(st.integers(0, 3)) == 0:
            out[key] = draw(json_values)
    return out


@st.composite
def acp_request(draw: st.DrawFn) -> dict[str, Any]:
    """A well-formed request or notification of a known method, with random params."""
    params = draw(
        st.dictionaries(
            st.sampled_from(["sessionId", "cwd", "modeId", "prompt", "number", "mode"]),
            json_values,
            max_size=3,
        )
    )
    message = {"jsonrpc": "2.0", "method": draw(st.sampled_from(ACP_METHODS)), "params": params}
    if draw(st.booleans()):
        message["id"] = draw(st.integers(0, 10**6))
    return message


acp_lines = st.lists(
    st.one_of(
        st.binary(max_size=40).filter(lambda b: b"\n" not in b),
        json_values.map(json.dumps),
        rpc_like(st.integers(0, 10**6) | json_values).map(json.dumps),
        st.lists(rpc_like(), max_size=3).map(json.dumps),
        acp_request().map(json.dumps),
    ),
    max_size=8,
)

GOOD = json.dumps(
    {"jsonrpc": "2.0", "id": ID, "result": {"content": [{"type": "text", "text": "fine"}]}}
)


def with_id(message: dict[str, Any]) -> str:
    return json.dumps(message).replace(json.dumps(ID), "{id}")


mcp_line = st.one_of(
    st.just(GOOD),
    st.text(max_size=30).filter(lambda t: "\n" not in t and "\r" not in t),
    json_values.map(json.dumps),
    rpc_like(st.just(ID) | json_values).map(with_id),
    st.builds(lambda cut: with_id(json.loads(GOOD))[:cut], st.integers(1, len(GOOD) - 1)),
    json_values.map(
        lambda params: json.dumps(
            {"jsonrpc": "2.0", "method": "notifications/message", "params": params}
        )
    ),
)
mcp_answers = st.fixed_dictionaries(
    {"lines": st.lists(mcp_line, max_size=4), "newline": st.booleans()}
)


async def sentinel(client: RawAcp, n: int) -> None:
    """A request after the noise gets its answer: the server is up and reading."""
    rid = f"sentinel-{n}"
    message = {"jsonrpc": "2.0", "id": rid, "method": "session/list", "params": {}}
    await client.send(json.dumps(message))
    answer = await client.answer_to(rid)
    assert "result" in answer, answer


async def scenario(
    fake: FakeAnthropic, root: Path, noise: list[str | bytes], answers: dict[str, Any]
) -> None:
    ws = root / "ws"
    ws.mkdir(parents=True)
    pids = root / "mcp-pids"
    # the editor's server: the first prompt waits until it started
    server = {
        "name": "odd",
        "command": sys.executable,
        "args": [str(ODD)],
        "env": [{"name": "FAKE_MCP_PIDS", "value": str(pids)}],
    }

    def respond(body: dict[str, Any]) -> Reply:
        last = body["messages"][-1]["content"]
        if any(isinstance(b, dict) and b.get("type") == "tool_result" for b in last):
            return Reply([text("done")])
        return Reply([tool_use("toolu_1", "mcp__odd__answer", answers)], "tool_use")

    fake.responder = respond
    args = ("--permission-mode", "bypassPermissions")
    env = {"MCP_TOOL_TIMEOUT": TOOL_TIMEOUT_MS}
    async with raw_acp(fake, *args, cwd=ws, env=env) as client:
        assert "result" in await client.initialize()
        for line in noise:
            await client.send(line)
        await sentinel(client, 1)
        new = await client.request("session/new", {"cwd": str(ws), "mcpServers": [server]})
        sid = new["result"]["sessionId"]
        for line in noise:
            await client.send(line)
        await sentinel(client, 2)
        prompt = {"sessionId": sid, "prompt": [{"type": "text", "text": "call the tool"}]}
        answer = await client.request("session/prompt", prompt)
        assert answer.get("result", {}).get("stopReason") == "end_turn", answer
        updates = [
            m["params"]["update"]
            for m in client.lines
            if isinstance(m, dict) and m.get("method") == "session/update"
        ]
        calls = [u for u in updates if u.get("sessionUpdate") in ("tool_call", "tool_call_update")]
        ends = [u.get("status") for u in calls if u.get("status") in ("completed", "failed")]
        assert len(ends) == 1, calls  # the MCP call ended once, whatever the server wrote
        said = json.dumps(calls)
        assert "No such tool" not in said and "is connecting" not in said, said
        await sentinel(client, 3)
        client.proc.stdin.close()  # type: ignore[union-attr]
        assert await asyncio.wait_for(client.proc.wait(), TIMEOUT) == 0
    started = [int(p) for p in pids.read_text().split()] if pids.exists() else []
    assert started, "the MCP server never started"
    await until(lambda: not any(pid_alive(p) for p in started), TIMEOUT, "MCP servers gone")
    err = client.stderr_text()
    assert "Traceback" not in err and " ERROR " not in err, err
    assert fake.violations == []


def run_example(
    fake: FakeAnthropic, tmp_path: Path, noise: list[str | bytes], answers: dict[str, Any]
) -> None:
    root = tmp_path / f"example-{len(list(tmp_path.iterdir()))}"
    asyncio.run(scenario(fake, root, noise, answers))


HEALTH = [HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large]
PHASES = [Phase.explicit, Phase.reuse, Phase.generate]
"""No shrinking: an example takes seconds (a process each), and the failing one is printed."""


ODD_LINES: list[str | bytes] = ["[]", '"a string"', "42", "not json", '{"x": 1}', b"\xff\xfe"]
SCHEMA_FAILURE = {"lines": ['{"jsonrpc": "2.0", "id": {id}, "result": 42}'], "newline": True}
BATCH = ['[{"jsonrpc": "2.0", "id": 5, "method": "session/list"}, 7]']
GARBAGE = {"lines": ["Traceback (most recent call last):"], "newline": True}


@pytest.mark.slow
@example(noise=ODD_LINES, answers=SCHEMA_FAILURE)
@example(noise=BATCH, answers=GARBAGE)
@settings(max_examples=QUICK, deadline=None, suppress_health_check=HEALTH, phases=PHASES)
@given(noise=acp_lines, answers=mcp_answers)
def test_random_editor_lines_and_mcp_answers_leave_eddy_up_and_answering(
    fake_api: FakeAnthropic, tmp_path: Path, noise: list[str | bytes], answers: dict[str, Any]
) -> None:
    run_example(fake_api, tmp_path, noise, answers)


@pytest.mark.fuzz
@settings(max_examples=LONG, deadline=None, suppress_health_check=HEALTH, phases=PHASES)
@given(noise=acp_lines, answers=mcp_answers)
def test_random_editor_lines_and_mcp_answers_at_length(
    fake_api: FakeAnthropic, tmp_path: Path, noise: list[str | bytes], answers: dict[str, Any]
) -> None:
    run_example(fake_api, tmp_path, noise, answers)
