"""Without a terminal: plain lines, no escape codes; the command line's checks."""

from __future__ import annotations

import asyncio
import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agent import events as ev
from agent.model.pricing import DEFAULT_MODEL
from plain.app import PlainApp
from plain.run import run_plain
from tests.fakes.fake_api import FakeAnthropic, Reply, text, tool_use
from tests.helpers.plain import plain_args


def line_app(fake: FakeAnthropic, workspace: Path, lines: str, *extra: str):
    from agent.model.anthropic import AnthropicModel

    out = io.StringIO()
    events: list[ev.Event] = []
    app = PlainApp(
        plain_args(workspace, *extra),
        model_factory=lambda: AnthropicModel(DEFAULT_MODEL, api_key="t", base_url=fake.base_url),
        stream=out,
        stdin=io.StringIO(lines),
        interactive=False,
        event_hook=events.append,
    )
    return app, out, events


async def test_line_mode_prints_plain_lines_without_escape_codes(
    fake_api: FakeAnthropic, workspace: Path
):
    fake_api.push(
        Reply(
            [text("# Title\n\n**Bold** and `code`.\n"), tool_use("t1", "Bash", {"command": "ls"})],
            "tool_use",
        ),
        Reply([text("```python\nx = 1\n```\nDone.")]),
    )
    (workspace / "f.txt").write_text("")
    app, out, events = line_app(fake_api, workspace, "list files\n", "--allowed-tools", "Bash")
    assert not app.paint.color  # a StringIO is not a terminal
    code = await asyncio.wait_for(app.run(), 20)
    assert code == 0
    printed = out.getvalue()
    assert "\x1b" not in printed
    assert "› list files" in printed  # line mode echoes the prompt into the log
    assert "# Title" in printed and "Bold and `code`." in printed
    assert "f.txt" in printed and "x = 1" in printed and "Done." in printed
    assert [e.subtype for e in events if isinstance(e, ev.TurnFinished)] == ["success"]


async def test_line_mode_end_of_input_refuses_an_unanswerable_question(
    fake_api: FakeAnthropic, workspace: Path
):
    fake_api.push(
        Reply([tool_use("t1", "Write", {"file_path": "x", "content": "y"})], "tool_use"),
        Reply([text("ok")]),
    )
    app, out, _events = line_app(fake_api, workspace, "write x\n")
    assert await asyncio.wait_for(app.run(), 20) == 0
    result = fake_api.requests[1]["messages"][-1]["content"][0]
    assert result["is_error"] is True
    assert not (workspace / "x").exists()
    assert "Allow Write? y / a(lways) / n" in out.getvalue()


def test_no_api_key_says_how_to_set_one(monkeypatch, workspace: Path, capsys):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
    assert run_plain(plain_args(workspace)) == 2
    err = capsys.readouterr().err
    assert "export ANTHROPIC_API_KEY" in err and "--demo" in err


@pytest.mark.slow
def test_eddy_plain_through_pipes(fake_api: FakeAnthropic, workspace: Path):
    """The installed command, stdin and stdout pipes: line mode, no escape code at all."""
    fake_api.push(Reply([text("Piped **answer**.")]))
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    env.update(ANTHROPIC_BASE_URL=fake_api.base_url, ANTHROPIC_API_KEY="test", TERM="xterm")
    exe = Path(sys.executable).with_name("eddy")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "cli.main"]
    done = subprocess.run(
        [*cmd, "--plain"],
        input="hello\n",
        cwd=workspace,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "Piped answer." in done.stdout
    assert "\x1b" not in done.stdout


def test_line_mode_opens_the_connection_before_the_first_line(
    fake_api: FakeAnthropic, workspace: Path
):
    """Once its SDK client exists, line mode opens the connection the first prompt will use
    (``HEAD /api/hello``, as the terminal app and Claude Code do); the prompt goes on it."""
    fake_api.push(Reply([text("On the open connection.")]))
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("ANTHROPIC_") and k != "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"
    }
    env.update(ANTHROPIC_BASE_URL=fake_api.base_url, ANTHROPIC_API_KEY="test", TERM="xterm")
    exe = Path(sys.executable).with_name("eddy")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "cli.main"]
    proc = subprocess.Popen(
        [*cmd, "--plain"],
        cwd=workspace,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert fake_api.probed.wait(60), "no probe"
        assert [path for path, _ in fake_api.probes] == ["/api/hello"]
        assert fake_api.requests == []  # no line written yet
        out, err = proc.communicate("hello\n", timeout=60)
    finally:
        proc.kill()
        proc.wait()
    assert proc.returncode == 0, err
    assert "On the open connection." in out
    assert fake_api.peers == [fake_api.probes[0][1]]
