"""UserPromptSubmit, Stop, SessionStart, SessionEnd, PreCompact and Notification through the
real session and the fake API, with real scripts; every request stays valid."""

from __future__ import annotations

import json

from agent import events as ev
from agent import ops
from agent.settings.files import user_settings_path
from agent.turn.outcome import Limits
from tests.agent.hooks.harness import open_session, prompt
from tests.agent.hooks.scripts import hook_settings, on, script, wait_for_file
from tests.fakes.fake_api import Reply, text, tool_use


async def test_user_prompt_submit_stdout_is_added_to_the_prompt(fake_api, tmp_path) -> None:
    ticket = script(tmp_path, "ticket.sh", 'cat >/dev/null; echo "Ticket ABC-12: fix the login"\n')
    hook_settings(tmp_path, on("UserPromptSubmit", "", ticket))
    fake_api.push(Reply([text("on it")]))
    run = open_session(fake_api, tmp_path)
    await prompt(run, "work on the ticket")
    await run.session.close()
    texts = run.texts(0)
    assert texts[0] == "work on the ticket"
    assert "Ticket ABC-12: fix the login" in texts[1] and fake_api.violations == []


async def test_user_prompt_submit_block_sends_nothing_and_gives_the_prompt_back(
    fake_api, tmp_path
) -> None:
    guard = script(
        tmp_path,
        "guard.py",
        'd = json.load(sys.stdin)\nif "password" in d["prompt"]:\n'
        '    print("prompts must not contain secrets", file=sys.stderr); sys.exit(2)\n',
    )
    hook_settings(tmp_path, on("UserPromptSubmit", "", guard))
    fake_api.push(Reply([text("fine")]))
    run = open_session(fake_api, tmp_path)
    finished = await prompt(run, "the password is hunter2")
    (blocked,) = run.events.of(ev.PromptBlocked)
    assert blocked.prompt == "the password is hunter2"
    assert blocked.reason == "prompts must not contain secrets"
    assert finished.subtype == "error_during_execution" and fake_api.requests == []
    assert run.session.history == []
    await prompt(run, "no secrets now")
    await run.session.close()
    assert len(fake_api.requests) == 1 and fake_api.violations == []
    assert run.texts(0) == ["no secrets now"]


async def test_a_stop_hook_that_blocks_twice_then_allows(fake_api, tmp_path) -> None:
    count, seen = tmp_path / "count", tmp_path / "seen"
    stop = script(
        tmp_path,
        "stop.py",
        f"d = json.load(sys.stdin)\nopen({str(seen)!r}, 'a').write(json.dumps(d) + '\\n')\n"
        f"n = int(open({str(count)!r}).read()) if os.path.exists({str(count)!r}) else 0\n"
        f"open({str(count)!r}, 'w').write(str(n + 1))\n"
        "if n < 2:\n    print(f'tests still fail ({n})', file=sys.stderr); sys.exit(2)\n",
    )
    hook_settings(tmp_path, on("Stop", "", stop))
    fake_api.push(Reply([text("done?")]), Reply([text("fixed one")]), Reply([text("all green")]))
    run = open_session(fake_api, tmp_path)
    finished = await prompt(run, "make the tests pass")
    await run.session.close()
    assert finished.subtype == "success" and finished.result == "all green"
    assert finished.num_calls == 3 and finished.num_turns == 2
    assert len(fake_api.requests) == 3 and fake_api.violations == []
    assert run.texts(1) == ["Stop hook feedback:\ntests still fail (0)"]
    assert run.texts(2) == ["Stop hook feedback:\ntests still fail (1)"]
    inputs = [json.loads(line) for line in seen.read_text().splitlines()]
    assert [i["stop_hook_active"] for i in inputs] == [False, True, True]
    assert inputs[0]["last_assistant_message"] == "done?"
    assert inputs[0]["hook_event_name"] == "Stop" and inputs[0]["cwd"] == str(tmp_path)


async def test_stop_hook_blocks_count_against_the_turn_limit(fake_api, tmp_path) -> None:
    hook_settings(tmp_path, on("Stop", "", "cat >/dev/null; echo again >&2; exit 2"))
    fake_api.default = Reply([text("answer")])
    run = open_session(fake_api, tmp_path, limits=Limits(max_turns=2))
    finished = await prompt(run, "go")
    await run.session.close()
    assert finished.subtype == "error_max_turns" and len(fake_api.requests) == 3
    assert fake_api.violations == []


async def test_stop_hooks_send_the_model_back_at_most_8_times_in_a_row(fake_api, tmp_path) -> None:
    hook_settings(tmp_path, on("Stop", "", "cat >/dev/null; echo again >&2; exit 2"))
    fake_api.default = Reply([text("answer")])
    run = open_session(fake_api, tmp_path)
    finished = await prompt(run, "go")
    await run.session.close()
    assert finished.subtype == "success" and len(fake_api.requests) == 9
    assert any("8 times in a row" in n.text for n in run.events.of(ev.Notice))
    assert fake_api.violations == []


async def test_session_start_output_joins_the_first_prompt_and_session_end_runs(
    fake_api, tmp_path
) -> None:
    ended = tmp_path / "ended"
    start = script(
        tmp_path, "start.py", 'd = json.load(sys.stdin)\nprint("started via " + d["source"])\n'
    )
    hook_settings(
        tmp_path,
        {**on("SessionStart", "startup", start), **on("SessionEnd", "", f"cat > {ended}")},
    )
    fake_api.push(Reply([text("hi")]), Reply([text("again")]))
    run = open_session(fake_api, tmp_path)
    await prompt(run, "hello")
    await prompt(run, "second")
    await run.session.close()
    assert run.texts(0) == ["hello", "SessionStart hook context:\nstarted via startup"]
    assert run.texts(1) == ["second"]  # once
    assert json.loads(ended.read_text())["hook_event_name"] == "SessionEnd"
    assert fake_api.violations == []


async def test_pre_compact_can_block_a_manual_compaction(fake_api, tmp_path) -> None:
    seen = tmp_path / "seen"
    hook_settings(tmp_path, on("PreCompact", "manual", f"cat > {seen}; echo 'not now' >&2; exit 2"))
    fake_api.push(Reply([text("hi")]))
    run = open_session(fake_api, tmp_path)
    await prompt(run, "hello")
    before = list(run.session.history)
    run.session.submit(ops.Compact("keep the API"))
    await run.session.wait_idle()
    await run.session.close()
    assert run.session.history == before and run.events.of(ev.Compacted) == []
    assert any(
        "PreCompact hook blocked the compaction: not now" in n.text
        for n in run.events.of(ev.Notice)
    )
    data = json.loads(seen.read_text())
    assert (data["trigger"], data["custom_instructions"]) == ("manual", "keep the API")
    assert len(fake_api.requests) == 1


async def test_a_permission_question_notifies(fake_api, tmp_path) -> None:
    seen = tmp_path / "seen"
    hook_settings(tmp_path, on("Notification", "permission_prompt", f"cat > {seen}"))
    fake_api.push(
        Reply([tool_use("toolu_1", "Bash", {"command": f"touch {tmp_path}/x"})], "tool_use"),
        Reply([text("ok")]),
    )
    run = open_session(fake_api, tmp_path, allow=())
    run.session.submit(ops.SubmitPrompt("go"))
    asked = await run.events.wait_for(ev.PermissionRequested)
    await run.events.wait_until(lambda: run.hook_runs("Notification"))
    run.session.submit(ops.AnswerPermission(asked.request_id, "allow"))
    await run.session.wait_idle()
    await run.session.close()
    data = json.loads(seen.read_text())
    assert data["notification_type"] == "permission_prompt" and "Bash" in data["message"]


async def test_handlers_merge_across_files_and_an_identical_one_runs_once(
    fake_api, tmp_path
) -> None:
    log = tmp_path / "log"
    command = f"cat >/dev/null; echo ran >> {log}"
    user = user_settings_path()
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text(
        json.dumps({"hooks": on("UserPromptSubmit", "", command, f"echo user >> {log}")})
    )
    hook_settings(tmp_path, on("UserPromptSubmit", "", command))
    fake_api.push(Reply([text("ok")]))
    run = open_session(fake_api, tmp_path)
    await prompt(run, "go")
    await run.session.close()
    assert sorted(log.read_text().split()) == ["ran", "user"]
    assert len(run.hook_runs("UserPromptSubmit")) == 2


async def test_esc_during_a_slow_user_prompt_submit_hook_gives_the_prompt_back(
    fake_api, tmp_path
) -> None:
    started = tmp_path / "started"
    hook_settings(tmp_path, on("UserPromptSubmit", "", f"cat > {started}; sleep 1000"))
    run = open_session(fake_api, tmp_path)
    run.session.submit(ops.SubmitPrompt("slow one"))
    await wait_for_file(started)
    run.session.submit(ops.Interrupt())
    await run.session.wait_idle()
    (blocked,) = run.events.of(ev.PromptBlocked)
    assert blocked.prompt == "slow one" and "Interrupted" in blocked.reason
    assert run.session.history == [] and fake_api.requests == []
    await run.session.close()


async def test_an_idle_session_notifies(fake_api, tmp_path) -> None:
    seen = tmp_path / "seen"
    hook_settings(tmp_path, on("Notification", "idle_prompt", f"cat > {seen}"))
    fake_api.push(Reply([text("hi")]))
    run = open_session(fake_api, tmp_path)
    run.hooks.idle_seconds = 0
    await prompt(run, "hello")
    await run.events.wait_until(lambda: run.hook_runs("Notification"))
    await run.session.close()
    assert json.loads(seen.read_text())["notification_type"] == "idle_prompt"


async def test_session_start_runs_again_after_compaction_with_source_compact(
    fake_api, tmp_path
) -> None:
    start = script(
        tmp_path, "start.py", 'd = json.load(sys.stdin)\nprint("source " + d["source"])\n'
    )
    hook_settings(tmp_path, on("SessionStart", "", start))
    fake_api.push(
        Reply([text("hi")]), Reply([text("<summary>we said hi</summary>")]), Reply([text("ok")])
    )
    run = open_session(fake_api, tmp_path)
    await prompt(run, "hello")
    run.session.submit(ops.Compact())
    await run.session.wait_idle()
    assert run.events.of(ev.Compacted)
    await prompt(run, "after")
    await run.session.close()
    assert "SessionStart hook context:\nsource startup" in run.texts(0)
    assert "SessionStart hook context:\nsource compact" in run.texts(2)
    assert [r.output for r in run.hook_runs("SessionStart")] == ["source startup", "source compact"]
    assert fake_api.violations == []


async def test_subagent_stop_is_there_for_the_subagent_runner(tmp_path) -> None:
    from agent.hooks.engine import HookEngine

    seen = tmp_path / "seen"
    hook_settings(
        tmp_path,
        on("SubagentStop", "reviewer", f"cat > {seen}; echo 'review the tests too' >&2; exit 2"),
    )
    from agent.hooks.config import load_hooks
    from agent.settings.files import load_settings

    events: list[ev.Event] = []
    engine = HookEngine(load_hooks(load_settings(tmp_path)[0].raw, []), tmp_path, events.append)
    verdict = await engine.subagent_stop("a1", "reviewer", False)
    assert verdict.blocked and verdict.reason == "review the tests too"
    assert json.loads(seen.read_text())["agent_id"] == "a1"
    assert not (await engine.subagent_stop("a2", "writer", False)).blocked


async def test_pre_compact_blocks_an_automatic_compaction_and_the_turn_goes_on(
    fake_api, tmp_path
) -> None:
    seen = tmp_path / "seen"
    hook_settings(
        tmp_path, on("PreCompact", "auto", f"cat > {seen}; echo 'keep it all' >&2; exit 2")
    )
    fake_api.push(Reply([text("hi")]))
    run = open_session(fake_api, tmp_path)
    run.session.config.autocompact = 1e-9  # every call would compact
    finished = await prompt(run, "hello")
    await run.session.close()
    assert finished.subtype == "success" and run.events.of(ev.Compacted) == []
    assert json.loads(seen.read_text())["trigger"] == "auto"
    assert any("keep it all" in n.text for n in run.events.of(ev.Notice))
    assert len(fake_api.requests) == 1 and fake_api.violations == []
