"""/hooks and ``eddy hooks test``: what is active and from which file, missing scripts
flagged; a dry run prints each handler's exit code, output, decision and time."""

from __future__ import annotations

import json

from agent.hooks.config import load_hooks
from agent.hooks.report import describe, dry_run, dry_run_report
from agent.settings.files import load_settings
from tests.agent.hooks.scripts import hook_settings, on, script


def test_describe_lists_each_hook_with_its_file_and_flags_a_missing_script(tmp_path) -> None:
    hook_settings(
        tmp_path,
        {
            **on("PreToolUse", "Bash", f"bash {tmp_path}/gone.sh", timeout=5, failClosed=True),
            **on("Stop", "", "echo ok"),
        },
    )
    config = load_hooks(load_settings(tmp_path)[0].raw, [])
    lines = describe(config, tmp_path)
    assert lines[0] == "PreToolUse:"
    assert (
        lines[1]
        == f"  [Bash] bash {tmp_path}/gone.sh  (.eddy/settings.json, timeout 5 s, failClosed)"
    )
    assert lines[2] == f"    ! its script {tmp_path}/gone.sh does not exist"
    assert lines[3:] == ["Stop:", "  [(all)] echo ok  (.eddy/settings.json, timeout 600 s)"]


async def test_a_dry_run_reports_every_matching_handler(tmp_path) -> None:
    deny = script(
        tmp_path, "deny.sh", 'cat >/dev/null; echo "checked"; echo "no force push" >&2; exit 2\n'
    )
    allow = script(
        tmp_path,
        "allow.py",
        'd = json.load(sys.stdin)\nprint(json.dumps({"hookSpecificOutput": {"hookEventName": '
        '"PreToolUse", "permissionDecision": "allow", "updatedInput": d["tool_input"]}}))\n',
    )
    groups = (
        on("PreToolUse", "Bash", deny, allow)["PreToolUse"]
        + on("PreToolUse", "Edit", "x")["PreToolUse"]
    )
    hook_settings(tmp_path, {"PreToolUse": groups})
    config = load_hooks(load_settings(tmp_path)[0].raw, [])
    payload = {"tool_name": "Bash", "tool_input": {"command": "git push -f"}}
    tested, combined = await dry_run(config, "PreToolUse", payload, tmp_path)
    assert [t.run.exit_code for t in tested] == [2, 0]
    text = "\n".join(dry_run_report(tested, combined, "PreToolUse"))
    assert "exit code: 2" in text and "stderr: no force push" in text and "stdout: checked" in text
    assert "decision: deny (no force push)" in text
    assert 'decision: allow; updatedInput {"command": "git push -f"}' in text
    assert "PreToolUse overall: deny (no force push)" in text
    assert json.loads(tested[1].run.stdout)["hookSpecificOutput"]["permissionDecision"] == "allow"
