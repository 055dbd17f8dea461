"""Every way a hook command can be written runs as the shell runs it, and its exit 2 blocks
(issue 34): inline ``python3 -c`` and ``sh -c`` code, environment assignments, quoted
``$CLAUDE_PROJECT_DIR`` paths in a project whose path has spaces, pipelines and lists. A hook
that cannot run (not found, crashed) is shown to the user and the action goes on, unless the
handler is ``failClosed``. Real scripts, the real loop and SDK against the fake Messages API,
for PreToolUse and UserPromptSubmit."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent import events as ev
from agent.hooks.config import missing_script
from tests.agent.hooks.harness import open_session, prompt
from tests.agent.hooks.scripts import hook_settings, on
from tests.fakes.fake_api import FakeAnthropic, Reply, text, tool_use

REASON = "blocked by the team policy"
PY_BLOCK = f"import sys; sys.stdin.read(); sys.stderr.write('{REASON}'); sys.exit(2)"
SH_BLOCK = f"cat >/dev/null; echo '{REASON}' >&2; exit 2"
FORMS = {
    "python3 -c": f'python3 -c "{PY_BLOCK}"',
    "python3 -c reading the JSON": (
        'python3 -c "import json, sys; d = json.load(sys.stdin); '
        f"sys.stderr.write('{REASON}'); sys.exit(2 if d['hook_event_name'] else 0)\""
    ),
    "sh -c": f'sh -c "{SH_BLOCK}"',
    "bash -c": f'bash -c "{SH_BLOCK}"',
    "an env assignment": f'GUARD=strict sh -c "{SH_BLOCK}"',
    "env and python3 -c": f'env GUARD=strict python3 -c "{PY_BLOCK}"',
    "a quoted project path with spaces": '"$CLAUDE_PROJECT_DIR"/.eddy/hooks/guard.sh',
    "an interpreter and a quoted project path": 'sh "$CLAUDE_PROJECT_DIR/.eddy/hooks/guard.sh"',
    "a braced quoted project path": 'python3 "${CLAUDE_PROJECT_DIR}/.eddy/hooks/guard.py" --x',
    "a pipeline": f'cat | python3 -c "{PY_BLOCK}"',
    "a list": f"cat >/dev/null; echo '{REASON}' >&2; exit 2",
    "cd and a relative script": 'cd "$CLAUDE_PROJECT_DIR" && ./.eddy/hooks/guard.sh',
    "a redirection": f'sh -c "{SH_BLOCK}" 2>&1 1>/dev/null >&2',
}


def project(tmp_path: Path) -> Path:
    """A project whose path has spaces, with a blocking guard script in bash and in python."""
    root = tmp_path / "my project dir"
    hooks = root / ".eddy" / "hooks"
    hooks.mkdir(parents=True)
    guard = hooks / "guard.sh"
    guard.write_text(f"#!/bin/sh\n{SH_BLOCK}\n")
    guard.chmod(0o755)
    (hooks / "guard.py").write_text(PY_BLOCK.replace("; ", "\n") + "\n")
    return root


def bash_call(marker: Path) -> Reply:
    return Reply([tool_use("toolu_1", "Bash", {"command": f"touch '{marker}'"})], "tool_use")


@pytest.mark.parametrize("form", list(FORMS))
async def test_a_pre_tool_use_hook_that_exits_2_blocks_however_it_is_written(
    fake_api: FakeAnthropic, tmp_path: Path, form: str
) -> None:
    root = project(tmp_path)
    hook_settings(root, on("PreToolUse", "Bash", FORMS[form]))
    marker = root / "ran"
    fake_api.push(bash_call(marker), Reply([text("ok")]))
    run = open_session(fake_api, root)
    await prompt(run, "go")
    await run.session.close()
    (result,) = run.results(1)
    assert result["is_error"] and REASON in str(result["content"]), result
    assert not marker.exists()
    (ran,) = run.hook_runs("PreToolUse")
    assert (ran.exit_code, ran.outcome) == (2, "blocked")
    assert not [n for n in run.events.of(ev.Notice) if "hook error" in n.text]
    assert fake_api.violations == []


@pytest.mark.parametrize("form", list(FORMS))
async def test_a_user_prompt_submit_hook_that_exits_2_blocks_however_it_is_written(
    fake_api: FakeAnthropic, tmp_path: Path, form: str
) -> None:
    root = project(tmp_path)
    hook_settings(root, on("UserPromptSubmit", "", FORMS[form]))
    run = open_session(fake_api, root)
    await prompt(run, "the secret is hunter2")
    await run.session.close()
    (blocked,) = run.events.of(ev.PromptBlocked)
    assert REASON in blocked.reason
    assert fake_api.requests == [] and run.session.history == []


@pytest.mark.parametrize(
    "command",
    [
        "python3 -c \"import sys; sys.stdin.read(); print('Ticket ABC-12')\"",
        "sh -c \"cat >/dev/null; echo 'Ticket ABC-12'\"",
        "TICKET=ABC-12 sh -c 'cat >/dev/null; echo Ticket $TICKET'",
        "cat >/dev/null | echo 'Ticket ABC-12'",
    ],
)
async def test_a_user_prompt_submit_hooks_inline_output_reaches_the_model(
    fake_api: FakeAnthropic, tmp_path: Path, command: str
) -> None:
    root = project(tmp_path)
    hook_settings(root, on("UserPromptSubmit", "", command))
    fake_api.push(Reply([text("on it")]))
    run = open_session(fake_api, root)
    await prompt(run, "work on the ticket")
    await run.session.close()
    assert any("Ticket ABC-12" in t for t in run.texts(0)[1:]), run.texts(0)
    assert not [n for n in run.events.of(ev.Notice) if "hook error" in n.text]


CANNOT_RUN = {
    "a missing script": '"$CLAUDE_PROJECT_DIR"/.eddy/hooks/gone.sh',
    "a missing python script (python exits 2)": 'python3 "$CLAUDE_PROJECT_DIR"/gone.py',
    "a program not on PATH": "no-such-guard-program-xyz --check",
    "an unquoted project path with spaces": "$CLAUDE_PROJECT_DIR/.eddy/hooks/guard.sh",
    "a crash (killed by a signal)": "cat >/dev/null; kill -9 $$",
}


@pytest.mark.parametrize("form", list(CANNOT_RUN))
async def test_a_pre_tool_use_hook_that_cannot_run_is_shown_and_the_call_goes_on(
    fake_api: FakeAnthropic, tmp_path: Path, form: str
) -> None:
    root = project(tmp_path)
    hook_settings(root, on("PreToolUse", "Bash", CANNOT_RUN[form]))
    marker = root / "ran"
    fake_api.push(bash_call(marker), Reply([text("ok")]))
    run = open_session(fake_api, root)
    await prompt(run, "go")
    await run.session.close()
    (result,) = run.results(1)
    assert not result.get("is_error") and marker.exists()
    notices = [n.text for n in run.events.of(ev.Notice)]
    assert any("PreToolUse hook error" in n and "eddy goes on" in n for n in notices), notices
    assert run.hook_runs("PreToolUse")[0].outcome == "error"


@pytest.mark.parametrize("form", list(CANNOT_RUN))
async def test_a_fail_closed_hook_that_cannot_run_blocks(
    fake_api: FakeAnthropic, tmp_path: Path, form: str
) -> None:
    root = project(tmp_path)
    hook_settings(root, on("PreToolUse", "Bash", CANNOT_RUN[form], failClosed=True))
    marker = root / "ran"
    fake_api.push(bash_call(marker), Reply([text("ok")]))
    run = open_session(fake_api, root)
    await prompt(run, "go")
    await run.session.close()
    (result,) = run.results(1)
    assert result["is_error"] and "failClosed" in str(result["content"])
    assert not marker.exists() and fake_api.violations == []


@pytest.mark.parametrize("form", list(CANNOT_RUN))
async def test_a_user_prompt_submit_hook_that_cannot_run_lets_the_prompt_go_unless_fail_closed(
    fake_api: FakeAnthropic, tmp_path: Path, form: str
) -> None:
    root = project(tmp_path)
    hook_settings(root, on("UserPromptSubmit", "", CANNOT_RUN[form]))
    fake_api.push(Reply([text("fine")]))
    run = open_session(fake_api, root)
    finished = await prompt(run, "hello")
    await run.session.close()
    assert finished.subtype == "success" and len(fake_api.requests) == 1
    notices = [n.text for n in run.events.of(ev.Notice)]
    assert any("UserPromptSubmit hook error" in n for n in notices), notices

    hook_settings(root, on("UserPromptSubmit", "", CANNOT_RUN[form], failClosed=True))
    run = open_session(fake_api, root)
    await prompt(run, "hello again")
    await run.session.close()
    (blocked,) = run.events.of(ev.PromptBlocked)
    assert "failClosed" in blocked.reason and len(fake_api.requests) == 1


@pytest.mark.parametrize(
    ("command", "judged"),
    [
        ("./hooks/gone.sh", "hooks/gone.sh"),
        ('"$CLAUDE_PROJECT_DIR"/hooks/gone.sh --strict', "hooks/gone.sh"),
        ("python3 hooks/gone.py", "hooks/gone.py"),
        ("/usr/bin/python3.12 hooks/gone.py arg", "hooks/gone.py"),
        ("bash ${CLAUDE_PROJECT_DIR}/gone.sh", "gone.sh"),
        ('python3 -c "print(1)"', None),
        ("python3 -m hooks.gone", None),
        ("sh -c 'exit 2'", None),
        ("X=1 ./hooks/gone.sh", None),
        ("./hooks/gone.sh | cat", None),
        ("./hooks/gone.sh && echo ok", None),
        ("./hooks/gone.sh 2>/dev/null", None),
        ("./hooks/$(whoami).sh", None),
        ("$HOME/gone.sh", None),
        ("jq -r .tool_name", None),
        ("./hooks/*.sh", None),
        ("python3 'unbalanced", None),
    ],
)
def test_missing_script_is_judged_only_for_a_plain_path_to_a_file(
    tmp_path: Path, command: str, judged: str | None
) -> None:
    found = missing_script(command, tmp_path)
    assert found == (tmp_path / judged if judged is not None else None)
