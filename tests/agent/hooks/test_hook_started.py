"""stream-json says a hook started (``hook_started``) before it says how it ended
(``hook_response``), with one ``hook_id`` for both, as Claude Code prints them; a hook Esc
kills still gets its one ``hook_response`` (``cancelled``). A hook whose JSON says
``suppressOutput: true`` has its stdout kept out of every view and the transcript: the TUI and
line mode show only that it ran, while what it decided still counts."""

from __future__ import annotations

import io
import json

from agent import events as ev
from agent import ops
from agent.store.transcript import Transcript
from headless.claude_stream import ClaudeStream
from plain.render import Renderer
from plain.style import Painter
from tests.agent.hooks.harness import Run, open_session, prompt
from tests.agent.hooks.scripts import hook_settings, on, script, wait_for_file
from tests.fakes.fake_api import Reply, text, tool_use
from tui.widgets.conversation.hook_run import hook_details

SUPPRESSED = {
    "suppressOutput": True,
    "hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "ticket ABC-1"},
}


def bash_call(command: str) -> Reply:
    return Reply([tool_use("toolu_1", "Bash", {"command": command})], "tool_use")


def stream_json(run: Run) -> list[dict]:
    """The stream-json lines of the run's events (headless/claude_stream.py)."""
    out = io.StringIO()
    stream = ClaudeStream(out)
    stream.start(session_id="s1", model="m", cwd="/w", tools=["Bash"], permission_mode="default")
    for event in run.events.all:
        stream.event(event)
    return [json.loads(line) for line in out.getvalue().splitlines()]


async def test_hook_started_comes_before_its_hook_response_with_the_same_id(
    fake_api, tmp_path
) -> None:
    hook_settings(tmp_path, on("PreToolUse", "Bash", "cat >/dev/null; echo checked"))
    fake_api.push(bash_call("echo hi"), Reply([text("ok")]))
    run = open_session(fake_api, tmp_path)
    await prompt(run, "go")
    await run.session.close()
    lines = stream_json(run)
    kinds = [(d["type"], d.get("subtype")) for d in lines]
    started = kinds.index(("system", "hook_started"))
    response = kinds.index(("system", "hook_response"))
    result = next(i for i, d in enumerate(lines) if d["type"] == "user")
    assert started < response < result  # the hook ran before its call's result
    begun, ended = lines[started], lines[response]
    assert begun["hook_id"] == ended["hook_id"] and begun["hook_id"].startswith("hook_")
    assert (begun["hook_event"], begun["hook_name"]) == ("PreToolUse", ended["hook_name"])
    assert begun["session_id"] == "s1" and begun["uuid"] != ended["uuid"]
    assert ended["stdout"] == "checked\n" and ended["outcome"] == "success"
    assert fake_api.violations == []


async def test_parallel_hooks_each_start_and_end_once(fake_api, tmp_path) -> None:
    one, two = "cat >/dev/null; echo one", "cat >/dev/null; echo two"
    hook_settings(tmp_path, on("PreToolUse", "Bash", one, two))
    fake_api.push(bash_call("echo hi"), Reply([text("ok")]))
    run = open_session(fake_api, tmp_path)
    await prompt(run, "go")
    await run.session.close()
    starts = {e.hook_id: e.command for e in run.events.of(ev.HookStarted)}
    ends = {e.hook_id: e.command for e in run.events.of(ev.HookRan)}
    assert starts == ends and sorted(starts.values()) == [one, two]


async def test_a_hook_esc_kills_still_gets_its_one_hook_response(fake_api, tmp_path) -> None:
    started = tmp_path / "started"
    slow = script(tmp_path, "slow.sh", f"cat >/dev/null; echo up > {started}; sleep 1000\n")
    hook_settings(tmp_path, on("PreToolUse", "Bash", slow))
    fake_api.push(bash_call("echo hi"), Reply([text("after Esc")]))
    run = open_session(fake_api, tmp_path)
    run.session.submit(ops.SubmitPrompt("go"))
    await wait_for_file(started)
    run.session.submit(ops.Interrupt())
    assert (await run.events.wait_for(ev.TurnFinished)).subtype == "interrupted"
    await prompt(run, "carry on")
    await run.session.close()
    (begun,) = run.events.of(ev.HookStarted)
    (ended,) = run.events.of(ev.HookRan)
    assert ended.hook_id == begun.hook_id and ended.outcome == "cancelled"
    response = [d for d in stream_json(run) if d.get("subtype") == "hook_response"]
    assert [d["outcome"] for d in response] == ["cancelled"]
    assert fake_api.violations == [] and len(fake_api.requests) == 2


async def test_suppress_output_hides_the_stdout_but_its_context_reaches_the_model(
    fake_api, tmp_path
) -> None:
    quiet = script(tmp_path, "quiet.sh", f"cat >/dev/null; echo '{json.dumps(SUPPRESSED)}'\n")
    hook_settings(tmp_path, on("PreToolUse", "Bash", quiet))
    fake_api.push(bash_call("echo hi"), Reply([text("ok")]))
    run = open_session(fake_api, tmp_path)
    transcript = Transcript.create(tmp_path, model="claude-sonnet-5-5")
    run.session.attach_transcript(transcript)
    await prompt(run, "go")
    await run.session.close()
    (ran,) = run.hook_runs("PreToolUse")
    assert ran.suppressed and ran.stdout == "" and ran.output == ""
    assert Renderer(Painter(False)).render(ran) == []  # it passed: no line, as in the TUI
    details = hook_details(ran)
    assert "stdout hidden (suppressOutput)" in details and "ABC-1" not in details
    records = [json.loads(x) for x in transcript.path.read_text().splitlines()]
    (hook,) = [r for r in records if r["type"] == "hook"]
    assert hook["stdout"] == "" and "ABC-1" not in json.dumps(hook)
    (response,) = [d for d in stream_json(run) if d.get("subtype") == "hook_response"]
    assert response["stdout"] == "" and "ABC-1" not in json.dumps(response)
    (result,) = run.results(1)  # what it decided still counts: its context is in the result
    assert "ticket ABC-1" in str(result["content"])
    assert fake_api.violations == []


async def test_without_suppress_output_the_stdout_is_shown(fake_api, tmp_path) -> None:
    shown = dict(SUPPRESSED, suppressOutput=False)
    loud = script(tmp_path, "loud.sh", f"cat >/dev/null; echo '{json.dumps(shown)}'\n")
    hook_settings(tmp_path, on("PreToolUse", "Bash", loud))
    fake_api.push(bash_call("echo hi"), Reply([text("ok")]))
    run = open_session(fake_api, tmp_path)
    await prompt(run, "go")
    await run.session.close()
    (ran,) = run.hook_runs("PreToolUse")
    assert not ran.suppressed and "ABC-1" in ran.stdout and "ABC-1" in hook_details(ran)
