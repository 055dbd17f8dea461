"""Exit codes and JSON output, as Claude Code defines them; several verdicts combined."""

from __future__ import annotations

import json

from agent.hooks.config import HookHandler
from agent.hooks.outcome import MODEL_TEXT_MAX_CHARS, cap_for_model, combine, interpret
from agent.hooks.runner import HandlerRun


def run(
    code: int | None, out: str = "", err: str = "", *, error: str = "", closed: bool = False
) -> HandlerRun:
    return HandlerRun(HookHandler("h", 5, closed), code, out, err, 1, error)


def pre(**specific: object) -> str:
    return json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", **specific}})


def test_exit_2_blocks_with_stderr_as_the_reason_and_ignores_stdout() -> None:
    v = interpret(run(2, pre(permissionDecision="allow"), "no pushes to main\n"), "PreToolUse")
    assert (v.decision, v.reason) == ("deny", "no pushes to main")
    v = interpret(run(2, "", "tests fail"), "Stop")
    assert (v.decision, v.reason) == ("block", "tests fail")


def test_exit_2_where_nothing_can_be_blocked_is_shown_to_the_user() -> None:
    v = interpret(run(2, "", "hmm"), "SessionStart")
    assert v.decision is None and v.system_message == "hmm"


def test_another_exit_is_a_visible_hook_error_and_the_action_goes_on() -> None:
    v = interpret(run(1, "", "boom\nmore"), "PreToolUse")
    assert v.decision is None
    assert v.notices == ["PreToolUse hook error: `h` exited with status 1: boom; eddy goes on."]


def test_fail_closed_blocks_on_timeout_crash_or_missing_script() -> None:
    for r in (
        run(None, error="timed out after 5 s and was killed", closed=True),
        run(1, closed=True),
    ):
        v = interpret(r, "PreToolUse")
        assert v.decision == "deny" and "failClosed" in v.reason
    assert interpret(run(None, error="could not start", closed=True), "Stop").decision == "block"


def test_plain_stdout_is_context_only_for_user_prompt_submit_and_session_start() -> None:
    assert interpret(run(0, "ticket ABC-1\n"), "UserPromptSubmit").context == "ticket ABC-1"
    assert interpret(run(0, "branch main\n"), "SessionStart").context == "branch main"
    assert interpret(run(0, "formatted\n"), "PostToolUse").context == ""


def test_json_output_fields() -> None:
    v = interpret(
        run(
            0,
            pre(
                permissionDecision="ask",
                permissionDecisionReason="sure?",
                updatedInput={"command": "ls"},
                additionalContext="ctx",
            ),
        ),
        "PreToolUse",
    )
    assert (v.decision, v.reason, v.updated_input, v.context) == (
        "ask",
        "sure?",
        {"command": "ls"},
        "ctx",
    )
    v = interpret(run(0, json.dumps({"decision": "block", "reason": "lint failed"})), "PostToolUse")
    assert (v.decision, v.reason) == ("block", "lint failed")
    v = interpret(
        run(0, json.dumps({"continue": False, "stopReason": "done", "systemMessage": "hi"})), "Stop"
    )
    assert (v.stop, v.stop_reason, v.system_message) == (True, "done", "hi")
    v = interpret(run(0, json.dumps({"decision": "approve"})), "PreToolUse")
    assert v.decision == "allow"


def test_invalid_json_is_reported() -> None:
    v = interpret(run(0, "{nope"), "PreToolUse")
    assert v.decision is None and "invalid JSON" in v.notices[0]


def test_several_hooks_deny_beats_ask_beats_allow() -> None:
    allow = interpret(run(0, pre(permissionDecision="allow", updatedInput={"a": 1})), "PreToolUse")
    ask = interpret(
        run(0, pre(permissionDecision="ask", permissionDecisionReason="check")), "PreToolUse"
    )
    deny = interpret(
        run(0, pre(permissionDecision="deny", permissionDecisionReason="never")), "PreToolUse"
    )
    assert combine([allow, ask]).decision == "ask"
    both = combine([allow, deny, ask])
    assert (both.decision, both.reason, both.updated_input) == ("deny", "never", None)
    assert combine([allow]).updated_input == {"a": 1}


def test_text_for_the_model_is_capped() -> None:
    capped = cap_for_model("line\n" * 50_000)
    assert len(capped) < MODEL_TEXT_MAX_CHARS + 100 and "omitted" in capped
