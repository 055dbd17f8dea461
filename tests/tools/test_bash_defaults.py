"""Bash defaults as Claude Code's (issue 22): 2 min default and 10 min maximum timeout, a
30,000-character output cap, each overridable from the environment; a cut output is saved
whole to a file whose path the model reads in the result (through the loop and the fake API)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent import events as ev
from agent import ops
from agent.model.anthropic import AnthropicModel
from agent.session.config import SessionConfig
from agent.session.core import Session
from tests.fakes.fake_api import FakeAnthropic, Reply, text, tool_use
from tests.helpers.events import Events
from tools.base import BASH_OUTPUT_CEILING, ToolContext, ToolLimits
from tools.bash import TOOL, output_cap


def test_the_defaults_are_claude_codes(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("BASH_DEFAULT_TIMEOUT_MS", "BASH_MAX_TIMEOUT_MS", "BASH_MAX_OUTPUT_LENGTH"):
        monkeypatch.delenv(name, raising=False)
    limits = ToolLimits()
    assert limits.bash_default_timeout_ms == 120_000
    assert limits.bash_max_timeout_ms == 600_000
    assert output_cap(limits) == 30_000


def test_the_environment_overrides_them_and_nonsense_is_ignored(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("BASH_DEFAULT_TIMEOUT_MS", "5000")
    monkeypatch.setenv("BASH_MAX_TIMEOUT_MS", "9000")
    monkeypatch.setenv("BASH_MAX_OUTPUT_LENGTH", "1234")
    limits = ToolLimits()
    assert (limits.bash_default_timeout_ms, limits.bash_max_timeout_ms) == (5000, 9000)
    assert output_cap(limits) == 1234
    monkeypatch.setenv("BASH_MAX_OUTPUT_LENGTH", "10000000")
    assert output_cap(ToolLimits()) == BASH_OUTPUT_CEILING  # never past the runner's cut
    monkeypatch.setenv("BASH_DEFAULT_TIMEOUT_MS", "soon")
    monkeypatch.setenv("BASH_MAX_TIMEOUT_MS", "-3")
    limits = ToolLimits()
    assert (limits.bash_default_timeout_ms, limits.bash_max_timeout_ms) == (120_000, 600_000)


async def test_default_timeout_from_the_environment_kills_the_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BASH_DEFAULT_TIMEOUT_MS", "300")
    result = await TOOL.run({"command": "sleep 30"}, ToolContext(tmp_path))
    assert result.is_error and "timed out after 0.3s" in str(result.content)


async def test_a_timeout_above_the_maximum_is_lowered_to_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BASH_MAX_TIMEOUT_MS", "300")
    result = await TOOL.run({"command": "sleep 30", "timeout": 600_000}, ToolContext(tmp_path))
    assert result.is_error and "timed out after 0.3s" in str(result.content)


def bash_session(fake: FakeAnthropic, workspace: Path) -> tuple[Session, Events]:
    events = Events()
    config = SessionConfig(workspace=workspace, model="claude-sonnet-5-5")
    config.policy.mode = "bypassPermissions"
    model = AnthropicModel("claude-sonnet-5-5", api_key="t", base_url=fake.base_url)
    return Session(config, model, [TOOL], events), events


async def test_a_cut_output_reaches_the_model_with_the_path_of_the_whole(
    fake_api: FakeAnthropic, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("BASH_MAX_OUTPUT_LENGTH", raising=False)
    command = "seq 1 100000"  # 588,895 characters
    fake_api.push(
        Reply([tool_use("toolu_1", "Bash", {"command": command})], "tool_use"),
        Reply([text("read it")]),
    )
    session, events = bash_session(fake_api, tmp_path)
    session.ctx.output_dir = tmp_path / "data" / "tool-output"
    session.submit(ops.SubmitPrompt("count"))
    await session.wait_idle()
    await session.close()
    assert fake_api.violations == []
    assert events.of(ev.TurnFinished)[-1].subtype == "success"
    result = fake_api.requests[1]["messages"][-1]["content"][0]
    assert result["type"] == "tool_result" and not result.get("is_error")
    content = (
        result["content"] if isinstance(result["content"], str) else result["content"][0]["text"]
    )
    body, _, saved = content.rpartition("\n")
    assert len(body) <= 30_000 + 100  # the cap plus the omission line
    assert body.startswith("1\n2\n3\n") and body.endswith("\n99999\n100000")
    assert "lines omitted" in body
    prefix = f"The whole output is saved in {session.ctx.output_dir}/"
    assert saved.startswith(prefix)
    path = Path(saved.removeprefix("The whole output is saved in ").partition(":")[0])
    assert path.read_text() == "".join(f"{i}\n" for i in range(1, 100001))


async def test_a_short_output_saves_nothing(tmp_path: Path) -> None:
    ctx = ToolContext(tmp_path)
    ctx.output_dir = tmp_path / "out"
    result = await TOOL.run({"command": "echo short"}, ctx)
    assert result.content == "short"
    assert not ctx.output_dir.exists()
