"""Red team: a background shell is a Bash call like any other, and belongs to its session.

A deny rule stops ``run_in_background`` as it stops a foreground call (also inside a compound
command); KillShell and BashOutput in one session cannot reach another session's shells.
Through the real loop and the fake Messages API (every request checked)."""

from __future__ import annotations

from pathlib import Path

from agent.permissions.policy import Rule
from tests.agent.test_background_shells import call, make_session, prompt, results, text_of
from tests.fakes.fake_api import FakeAnthropic, Reply, text


async def test_a_deny_rule_stops_a_background_command_even_inside_a_compound(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    ws = tmp_path / "ws"
    fake_api.push(
        call("toolu_1", "Bash", command="touch a.txt", run_in_background=True),
        call("toolu_2", "Bash", command="true && (touch b.txt)", run_in_background=True),
        Reply([text("refused")]),
    )
    session, _ = make_session(fake_api, ws)  # bypassPermissions: only the deny rule stands
    session.config.policy.deny.append(Rule.parse("Bash(touch:*)"))
    await prompt(session, "make them")
    await session.close()
    got = results(fake_api)
    for call_id in ("toolu_1", "toolu_2"):
        assert got[call_id]["is_error"] and "denied" in text_of(got[call_id])
    assert session.shells.listing() == [] and not list(ws.glob("*.txt"))
    assert fake_api.violations == []


async def test_one_sessions_kill_shell_and_bash_output_cannot_reach_anothers_shell(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    fake_api.push(
        call("toolu_a", "Bash", command="sleep 30", run_in_background=True),
        Reply([text("started")]),
    )
    first, _ = make_session(fake_api, tmp_path / "a")
    await prompt(first, "start it")
    (shell,) = first.shells.running()
    fake_api.push(
        call("toolu_k", "KillShell", shell_id=shell.id),
        call("toolu_r", "BashOutput", bash_id=shell.id),
        Reply([text("tried")]),
    )
    second, _ = make_session(fake_api, tmp_path / "b")
    await prompt(second, "kill theirs")
    got = results(fake_api)
    assert got["toolu_k"]["is_error"] and got["toolu_r"]["is_error"]
    assert first.shells.running() == [shell]  # still running, in its own session
    await second.close()
    await first.close()
    assert fake_api.violations == []
