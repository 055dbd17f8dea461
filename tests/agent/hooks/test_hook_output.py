"""What a hook printed is visible: collapsed in the TUI, a line in line mode, a
``hook_response`` system message in stream-json, a record in the transcript."""

from __future__ import annotations

import io
import json

from textual.app import App, ComposeResult
from textual.widgets import Collapsible

from agent import events as ev
from agent.store.transcript import Transcript
from headless.claude_stream import ClaudeStream
from plain.render import Renderer
from plain.style import Painter
from tests.agent.hooks.harness import open_session, prompt
from tests.agent.hooks.scripts import hook_settings, on
from tests.fakes.fake_api import Reply, text, tool_use
from tui.widgets.conversation.conversation import Conversation
from tui.widgets.conversation.hook_run import HookRunBlock

RAN = ev.HookRan(
    1,
    "PreToolUse",
    "./guard.sh",
    ".eddy/settings.json",
    2,
    "blocked",
    "deny",
    "no rm -rf here",
    "",
    "no rm -rf here\n",
    12,
)


def test_line_mode_prints_one_line_per_hook_run() -> None:
    lines = Renderer(Painter(False)).render(RAN)
    assert lines == ["hook PreToolUse ./guard.sh: exit 2, blocked (12 ms): no rm -rf here"]


def test_stream_json_writes_claude_codes_hook_response_message() -> None:
    out = io.StringIO()
    stream = ClaudeStream(out)
    stream.start(session_id="s1", model="m", cwd="/w", tools=[], permission_mode="default")
    stream.event(RAN)
    line = json.loads(out.getvalue().splitlines()[-1])
    assert line["type"] == "system" and line["subtype"] == "hook_response"
    assert (line["hook_event"], line["hook_name"], line["exit_code"]) == (
        "PreToolUse",
        "./guard.sh",
        2,
    )
    assert line["stderr"] == "no rm -rf here\n" and line["outcome"] == "error"
    assert line["session_id"] == "s1"


class Harness(App[None]):
    def compose(self) -> ComposeResult:
        yield Conversation(lambda: 0.0, id="conversation")


async def test_the_tui_shows_a_hook_run_collapsed_with_its_output_inside() -> None:
    app = Harness()
    async with app.run_test(size=(100, 30)) as pilot:
        app.query_one(Conversation).apply(RAN)
        await pilot.pause()
        block = app.query_one(HookRunBlock)
        assert isinstance(block, Collapsible) and block.collapsed
        assert "exit 2, blocked" in block.title
        body = str(block.query_one(".hook-output").render())
        assert "stderr:\nno rm -rf here" in body and "$ ./guard.sh" in body


async def test_hook_runs_are_saved_in_the_transcript(fake_api, tmp_path) -> None:
    hook_settings(tmp_path, on("PreToolUse", "Bash", "cat >/dev/null; echo checked"))
    fake_api.push(
        Reply([tool_use("toolu_1", "Bash", {"command": "echo hi"})], "tool_use"),
        Reply([text("ok")]),
    )
    run = open_session(fake_api, tmp_path)
    transcript = Transcript.create(tmp_path, model="claude-sonnet-5-5")
    run.session.attach_transcript(transcript)
    await prompt(run, "go")
    await run.session.close()
    records = [json.loads(line) for line in transcript.path.read_text().splitlines()]
    (hook,) = [r for r in records if r["type"] == "hook"]
    assert (hook["hook_event"], hook["exit_code"], hook["stdout"]) == ("PreToolUse", 0, "checked\n")
    reopened = Transcript.open(transcript.path)
    assert reopened.loaded is not None and len(reopened.loaded.history) == 4
    reopened.close()
