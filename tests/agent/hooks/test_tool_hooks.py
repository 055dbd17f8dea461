"""PreToolUse and PostToolUse through the real loop and the fake API, with real scripts:
a refusal is an is_error result in tool_use order, and every request stays valid."""

from __future__ import annotations

from agent import events as ev
from agent import ops
from tests.agent.hooks.harness import open_session, prompt
from tests.agent.hooks.scripts import hook_settings, on, pid_alive, script, wait_for_file
from tests.fakes.fake_api import Reply, text, tool_use

DENY_RM = 'input=$(cat); case "$input" in *"rm -rf"*) echo "no rm -rf here" >&2; exit 2;; esac\n'


def bash_calls(*commands: str) -> Reply:
    calls = [tool_use(f"toolu_{i}", "Bash", {"command": c}) for i, c in enumerate(commands)]
    return Reply([text("Running."), *calls], "tool_use")


async def test_pre_tool_use_exit_2_refuses_the_call_with_stderr_in_order(
    fake_api, tmp_path
) -> None:
    hook_settings(tmp_path, on("PreToolUse", "Bash", script(tmp_path, "deny.sh", DENY_RM)))
    fake_api.push(bash_calls("echo one", "rm -rf build", "echo three"), Reply([text("ok")]))
    run = open_session(fake_api, tmp_path)
    finished = await prompt(run, "clean up")
    await run.session.close()
    assert finished.subtype == "success" and fake_api.violations == []
    results = run.results(1)
    assert [r["tool_use_id"] for r in results] == ["toolu_0", "toolu_1", "toolu_2"]
    assert [r.get("is_error", False) for r in results] == [False, True, False]
    assert "no rm -rf here" in str(results[1]["content"])
    assert "one" in str(results[0]["content"]) and "three" in str(results[2]["content"])
    runs = run.hook_runs("PreToolUse")
    assert [r.exit_code for r in runs] == [0, 2, 0] and runs[1].outcome == "blocked"


async def test_a_json_deny_beats_an_allow_rule(fake_api, tmp_path) -> None:
    deny = script(
        tmp_path,
        "deny.py",
        'd = json.load(sys.stdin)\nprint(json.dumps({"hookSpecificOutput": {"hookEventName": '
        '"PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": '
        '"pushes to main are not allowed: " + d["tool_input"]["command"]}}))\n',
    )
    hook_settings(tmp_path, on("PreToolUse", "Bash", deny))
    marker = tmp_path / "pushed"
    fake_api.push(bash_calls(f"touch {marker}"), Reply([text("ok")]))
    run = open_session(fake_api, tmp_path, allow=("Bash",))
    await prompt(run, "push")
    await run.session.close()
    (result,) = run.results(1)
    assert result["is_error"] and "pushes to main are not allowed: touch" in str(result["content"])
    assert not marker.exists() and fake_api.violations == []
    assert run.events.of(ev.ToolCallFinished)[0].status == "refused"


async def test_updated_input_rewrites_the_bash_command_and_the_history_keeps_the_call(
    fake_api, tmp_path
) -> None:
    rewrite = script(
        tmp_path,
        "rewrite.py",
        'd = json.load(sys.stdin)\nprint(json.dumps({"hookSpecificOutput": {"hookEventName": '
        '"PreToolUse", "permissionDecision": "allow", "updatedInput": {"command": '
        '"echo rewritten: " + d["tool_input"]["command"]}, "additionalContext": "ran safely"}}))\n',
    )
    hook_settings(tmp_path, on("PreToolUse", "Bash", rewrite))
    fake_api.push(bash_calls("echo original"), Reply([text("ok")]))
    run = open_session(fake_api, tmp_path)
    await prompt(run, "go")
    await run.session.close()
    (result,) = run.results(1)
    assert "rewritten: echo original" in str(result["content"])
    assert "PreToolUse hook context: ran safely" in str(result["content"])
    sent_call = fake_api.requests[1]["messages"][-2]["content"][-1]
    assert sent_call["input"] == {"command": "echo original"}  # the model's call, unchanged
    assert fake_api.violations == []


async def test_an_updated_input_that_breaks_the_schema_is_not_run(fake_api, tmp_path) -> None:
    bad = script(
        tmp_path,
        "bad.py",
        'print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", '
        '"updatedInput": {"command": ""}}}))\n',
    )
    hook_settings(tmp_path, on("PreToolUse", "Bash", bad))
    fake_api.push(bash_calls("echo hi"), Reply([text("ok")]))
    run = open_session(fake_api, tmp_path)
    await prompt(run, "go")
    await run.session.close()
    (result,) = run.results(1)
    assert result["is_error"] and "new input is invalid" in str(result["content"])
    assert fake_api.violations == []


async def test_a_hook_ask_turns_an_allowed_call_into_a_question(fake_api, tmp_path) -> None:
    ask = script(
        tmp_path,
        "ask.sh",
        'cat >/dev/null; echo \'{"hookSpecificOutput": {"hookEventName": "PreToolUse", '
        '"permissionDecision": "ask", "permissionDecisionReason": "confirm deploys"}}\'\n',
    )
    hook_settings(tmp_path, on("PreToolUse", "Bash", ask))
    fake_api.push(bash_calls("echo deploy"), Reply([text("ok")]))
    run = open_session(fake_api, tmp_path, allow=("Bash",))
    run.session.submit(ops.SubmitPrompt("deploy"))
    asked = await run.events.wait_for(ev.PermissionRequested)
    assert "confirm deploys" in asked.warning
    run.session.submit(ops.AnswerPermission(asked.request_id, "allow"))
    await run.session.wait_idle()
    await run.session.close()
    (result,) = run.results(1)
    assert not result.get("is_error") and "deploy" in str(result["content"])


async def test_a_hook_allow_skips_the_question_but_ask_and_deny_rules_still_apply(
    fake_api, tmp_path
) -> None:
    allow = script(
        tmp_path,
        "allow.sh",
        'cat >/dev/null; echo \'{"hookSpecificOutput": {"hookEventName": "PreToolUse", '
        '"permissionDecision": "allow"}}\'\n',
    )
    hook_settings(tmp_path, on("PreToolUse", "", allow))
    calls = bash_calls(f"touch {tmp_path}/free", "echo careful", "echo never")
    fake_api.push(calls, Reply([text("ok")]))
    run = open_session(
        fake_api, tmp_path, allow=(), ask=("Bash(echo careful)",), deny=("Bash(echo never)",)
    )
    run.session.submit(ops.SubmitPrompt("go"))
    asked = await run.events.wait_for(ev.PermissionRequested)
    assert asked.input == {"command": "echo careful"}  # no rule allowed the touch: the hook did
    run.session.submit(ops.AnswerPermission(asked.request_id, "deny"))
    await run.session.wait_idle()
    await run.session.close()
    results = run.results(1)
    assert [bool(r.get("is_error")) for r in results] == [False, True, True]
    assert "denied by the permission rule" in str(results[2]["content"])
    assert len(run.events.of(ev.PermissionRequested)) == 1 and fake_api.violations == []
    assert (tmp_path / "free").exists()


async def test_parallel_hooks_with_conflicting_decisions_deny_wins(fake_api, tmp_path) -> None:
    def decide(name: str, decision: str) -> str:
        return script(
            tmp_path,
            name,
            f'cat >/dev/null; echo \'{{"hookSpecificOutput": {{"hookEventName": "PreToolUse", '
            f'"permissionDecision": "{decision}", "permissionDecisionReason": "{name}"}}}}\'\n',
        )

    hook_settings(
        tmp_path,
        on(
            "PreToolUse",
            "Bash",
            decide("a.sh", "allow"),
            decide("b.sh", "deny"),
            decide("c.sh", "ask"),
        ),
    )
    fake_api.push(bash_calls("echo x"), Reply([text("ok")]))
    run = open_session(fake_api, tmp_path)
    await prompt(run, "go")
    await run.session.close()
    (result,) = run.results(1)
    assert result["is_error"] and "b.sh" in str(result["content"])
    assert len(run.hook_runs("PreToolUse")) == 3 and run.events.of(ev.PermissionRequested) == []


async def test_post_tool_use_block_and_context_reach_the_model(fake_api, tmp_path) -> None:
    post = script(
        tmp_path,
        "lint.py",
        'd = json.load(sys.stdin)\nassert d["tool_response"]["content"].strip() == "hi"\n'
        'print(json.dumps({"decision": "block", "reason": "lint failed on line 3", '
        '"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "ruff"}}))\n',
    )
    failure = script(
        tmp_path, "fail.sh", "cat >/dev/null; echo 'the command failed, retry' >&2; exit 2\n"
    )
    hook_settings(
        tmp_path,
        {**on("PostToolUse", "Bash", post), **on("PostToolUseFailure", "Bash", failure)},
    )
    fake_api.push(bash_calls("echo hi", "exit 3"), Reply([text("ok")]))
    run = open_session(fake_api, tmp_path)
    await prompt(run, "go")
    await run.session.close()
    first, second = run.results(1)
    assert "PostToolUse hook feedback: lint failed on line 3" in str(first["content"])
    assert "PostToolUse hook context: ruff" in str(first["content"])
    assert second["is_error"]
    assert "PostToolUseFailure hook feedback: the command failed, retry" in str(second["content"])
    assert fake_api.violations == []


async def test_only_matching_hooks_run(fake_api, tmp_path) -> None:
    log = tmp_path / "log"
    hook_settings(
        tmp_path,
        {
            "PreToolUse": [
                {"matcher": "Edit|Write", "hooks": [{"command": f"echo edit >> {log}"}]},
                {"matcher": "Ba.*", "hooks": [{"command": f"echo regex >> {log}"}]},
                {"matcher": "Bash", "hooks": [{"command": f"echo exact >> {log}"}]},
            ]
        },
    )
    fake_api.push(bash_calls("echo x"), Reply([text("ok")]))
    run = open_session(fake_api, tmp_path)
    await prompt(run, "go")
    await run.session.close()
    assert sorted(log.read_text().split()) == ["exact", "regex"]


async def test_a_hanging_hook_fails_open_after_its_timeout(fake_api, tmp_path) -> None:
    hook_settings(tmp_path, on("PreToolUse", "Bash", "sleep 1000", timeout=0.5))
    fake_api.push(bash_calls("echo ran"), Reply([text("ok")]))
    run = open_session(fake_api, tmp_path)
    await prompt(run, "go")
    await run.session.close()
    (result,) = run.results(1)
    assert not result.get("is_error") and "ran" in str(result["content"])
    notices = [n.text for n in run.events.of(ev.Notice)]
    assert any("PreToolUse hook error: `sleep 1000` timed out after 0.5 s" in n for n in notices)


async def test_a_fail_closed_hook_that_hangs_or_is_missing_blocks(fake_api, tmp_path) -> None:
    hook_settings(
        tmp_path,
        {
            "PreToolUse": [
                {
                    "matcher": "Bash",
                    "hooks": [{"command": "sleep 1000", "timeout": 0.5, "failClosed": True}],
                }
            ],
            "PostToolUse": [],
        },
    )
    marker = tmp_path / "ran"
    fake_api.push(bash_calls(f"touch {marker}"), Reply([text("ok")]))
    run = open_session(fake_api, tmp_path)
    await prompt(run, "go")
    (result,) = run.results(1)
    assert result["is_error"] and "failClosed" in str(result["content"]) and not marker.exists()
    await run.session.close()

    hook_settings(tmp_path, on("PreToolUse", "Bash", f"bash {tmp_path}/gone.sh", failClosed=True))
    fake_api.push(bash_calls(f"touch {marker}"), Reply([text("ok")]))
    run = open_session(fake_api, tmp_path)
    await prompt(run, "go")
    await run.session.close()
    (result,) = run.results(3)
    assert result["is_error"] and "does not exist" in str(result["content"]) and not marker.exists()
    assert fake_api.violations == []


async def test_esc_during_a_slow_hook_kills_it_and_the_history_stays_valid(
    fake_api, tmp_path
) -> None:
    pids = tmp_path / "pids"
    slow = script(tmp_path, "slow.sh", f"cat >/dev/null; sleep 1000 & echo $! $$ > {pids}; wait\n")
    hook_settings(tmp_path, on("PreToolUse", "Bash", slow))
    marker = tmp_path / "ran"
    fake_api.push(bash_calls(f"touch {marker}"), Reply([text("after Esc")]))
    run = open_session(fake_api, tmp_path)
    run.session.submit(ops.SubmitPrompt("go"))
    await run.events.wait_for(ev.ToolCallStarted)
    await wait_for_file(pids)  # the hook is running
    run.session.submit(ops.Interrupt())
    finished = await run.events.wait_for(ev.TurnFinished)
    assert finished.subtype == "interrupted"
    assert not any(pid_alive(int(p)) for p in pids.read_text().split())
    assert not marker.exists()
    await prompt(run, "carry on")
    await run.session.close()
    (result,) = run.results(1)
    assert result["is_error"] and "interrupted" in str(result["content"])
    assert fake_api.violations == [] and len(fake_api.requests) == 2


async def test_continue_false_stops_the_turn_after_the_batch_and_the_history_stays_valid(
    fake_api, tmp_path
) -> None:
    halt = script(
        tmp_path,
        "halt.sh",
        'cat >/dev/null; echo \'{"continue": false, "stopReason": "policy freeze"}\'\n',
    )
    hook_settings(tmp_path, on("PreToolUse", "Bash", halt))
    marker = tmp_path / "ran"
    fake_api.push(bash_calls(f"touch {marker}", "echo two"), Reply([text("after")]))
    run = open_session(fake_api, tmp_path)
    finished = await prompt(run, "go")
    assert len(fake_api.requests) == 1 and not marker.exists()
    assert any("policy freeze" in n.text for n in run.events.of(ev.Notice))
    assert finished.num_calls == 1
    await prompt(run, "next")
    await run.session.close()
    results = run.results(1)
    assert [r["is_error"] for r in results] == [True, True]
    assert "policy freeze" in str(results[0]["content"]) and run.texts(1) == ["next"]
    assert fake_api.violations == []


async def test_a_hook_ask_in_headless_mode_is_a_refusal_that_names_the_hook(
    fake_api, tmp_path
) -> None:
    ask = script(
        tmp_path,
        "ask.sh",
        'cat >/dev/null; echo \'{"hookSpecificOutput": {"hookEventName": "PreToolUse", '
        '"permissionDecision": "ask", "permissionDecisionReason": "confirm deploys."}}\'\n',
    )
    hook_settings(tmp_path, on("PreToolUse", "Bash", ask))
    fake_api.push(bash_calls("echo deploy"), Reply([text("ok")]))
    run = open_session(fake_api, tmp_path, headless=True)
    await prompt(run, "deploy")
    await run.session.close()
    (result,) = run.results(1)
    assert result["is_error"] and "confirm deploys." in str(result["content"])
    assert "headless" in str(result["content"]) and "--allowed-tools" not in str(result["content"])
