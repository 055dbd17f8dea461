"""Custom commands from Claude Code's folders (issue 18, part M): subfolders, precedence,
front matter, $ARGUMENTS / $1..$9, !`cmd` through the Bash permission rules, @file, and
allowed-tools / model for that prompt's turn only. Through the real SDK and the fake API."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent import events as ev
from agent import ops
from agent.prompt.commands import command_problems, custom_commands, expand_arguments
from agent.session.command_prompt import CommandAborted, expand_snippets
from frontend.commands import completions, start_command
from tests.fakes.fake_api import FakeAnthropic, Reply, text, tool_use
from tests.helpers.claude_repo import (
    CommandFront,
    claude_commands,
    claude_repo,
    open_session,
)


def user_texts(request: dict[str, Any]) -> str:
    content = request["messages"][-1]["content"]
    if isinstance(content, str):
        return content
    return "\n".join(b.get("text", "") for b in content if b.get("type") == "text")


def repo(tmp_path: Path) -> Path:
    workspace = claude_repo(tmp_path)
    claude_commands(workspace)
    return workspace


def test_folders_names_and_precedence(tmp_path: Path) -> None:
    workspace = repo(tmp_path)
    cmds = custom_commands(workspace)
    assert {"review", "frontend:lint", "clash", "mine", "make", "fail"} <= set(cmds)
    assert cmds["clash"].body().strip() == "EDDY-PROJECT-CLASH"  # eddy's beats Claude's
    assert cmds["mine"].body().strip() == "USER-ONLY"
    review = cmds["review"]
    assert review.description == "Review a file"
    assert review.argument_hint == "[file] [focus]"
    assert review.allowed_tools == ("Bash(echo:*)", "Bash(touch:*)")
    assert review.model == "claude-haiku-4-5"
    assert ("/frontend:lint", "Lint the frontend.") in completions("front", workspace)


def test_a_project_claude_command_beats_the_users_eddy_command(tmp_path: Path) -> None:
    from agent.paths import config_dir
    from tests.helpers.claude_repo import write

    workspace = repo(tmp_path)
    write(config_dir() / "commands" / "lintx.md", "EDDY-USER")
    write(workspace / ".claude" / "commands" / "lintx.md", "CLAUDE-PROJECT")
    assert custom_commands(workspace)["lintx"].body().strip() == "CLAUDE-PROJECT"


def test_a_model_alias_is_resolved_and_an_unknown_model_reported(tmp_path: Path) -> None:
    from tests.helpers.claude_repo import write

    folder = tmp_path / ".claude" / "commands"
    write(folder / "quick.md", "---\nmodel: haiku\n---\nq\n")
    write(folder / "odd.md", "---\nmodel: gpt-9\n---\nq\n")
    cmds = custom_commands(tmp_path)
    assert cmds["quick"].model == "claude-haiku-5-5"
    assert cmds["odd"].model is None
    assert any("'gpt-9' is not a known model" in p for p in cmds["odd"].problems)


def test_arguments_and_positions() -> None:
    assert expand_arguments("$1 and $2, $3. All: $ARGUMENTS", 'a "b c"') == (
        'a and b c, . All: a "b c"'
    )
    assert expand_arguments("No placeholder", "tail") == "No placeholder\n\ntail"
    assert expand_arguments("$10 and $1", "x") == "$10 and x"


def test_bad_front_matter_is_reported(tmp_path: Path) -> None:
    workspace = repo(tmp_path)
    problems = command_problems(workspace)
    assert any("broken.md:1" in p and "closing" in p for p in problems)
    assert custom_commands(workspace)["broken"].description.startswith("---") is False


async def test_a_command_expands_runs_its_snippet_and_grants_for_its_turn_only(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    workspace = repo(tmp_path)
    fake_api.push(
        Reply([tool_use("t1", "Bash", {"command": "touch granted.txt"})], "tool_use"),
        Reply([text("reviewed")]),
        Reply([tool_use("t2", "Bash", {"command": "touch later.txt"})], "tool_use"),
        Reply([text("ok")]),
    )
    session, events, _ = open_session(fake_api, workspace)
    front = CommandFront(session, workspace)
    handled, _ = start_command(front, '/review a.py "error handling"')
    assert handled
    await session.wait_idle()
    first = fake_api.requests[0]
    assert first["model"] == "claude-haiku-4-5"
    sent = user_texts(first)
    assert 'Review a.py focusing on error handling. All: a.py "error handling"' in sent
    assert "Branch: on-main\n" in sent
    assert "print('hi')" in sent  # @src/main.py attached as a mention
    assert (workspace / "granted.txt").exists()  # Bash(touch:*) granted for the turn
    assert session.config.model != "claude-haiku-4-5"
    session.submit(ops.SubmitPrompt("touch another"))
    await session.wait_idle()
    await session.close()
    assert fake_api.requests[2]["model"] == session.config.model
    assert not (workspace / "later.txt").exists()  # the grant ended with its turn
    assert "headless" in str(fake_api.requests[3]["messages"][-1]["content"][0]["content"])
    assert fake_api.violations == []


async def test_a_snippet_that_would_ask_is_refused_headless_and_nothing_is_sent(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    workspace = repo(tmp_path)
    session, events, _ = open_session(fake_api, workspace)
    start_command(CommandFront(session, workspace), "/make")
    await session.wait_idle()
    await session.close()
    assert fake_api.requests == []
    assert not (workspace / "made.txt").exists()
    errors = [e.message for e in events.of(ev.Error)]
    assert any("The command was not sent" in m and "touch made.txt" in m for m in errors)


async def test_a_snippet_that_asks_is_asked_in_an_interactive_session(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    workspace = repo(tmp_path)
    fake_api.push(Reply([text("noted")]))
    session, events, _ = open_session(fake_api, workspace, headless=False)
    start_command(CommandFront(session, workspace), "/make")
    asked = await events.wait_for(ev.PermissionRequested)
    assert asked.input == {"command": "touch made.txt && echo made"}
    session.submit(ops.AnswerPermission(asked.request_id, "allow"))
    await session.wait_idle()
    assert "Made: made" in user_texts(fake_api.requests[0])
    # refused: nothing is sent
    start_command(CommandFront(session, workspace), "/make")
    asked = await events.wait_for(ev.PermissionRequested, 2)
    session.submit(ops.AnswerPermission(asked.request_id, "deny"))
    await session.wait_idle()
    await session.close()
    assert len(fake_api.requests) == 1
    assert fake_api.violations == []


async def test_esc_while_a_snippet_asks_aborts_the_command(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    workspace = repo(tmp_path)
    session, events, _ = open_session(fake_api, workspace, headless=False)
    start_command(CommandFront(session, workspace), "/make")
    await events.wait_for(ev.PermissionRequested)
    session.submit(ops.Interrupt())
    await session.wait_idle()
    await session.close()
    assert fake_api.requests == []
    assert not (workspace / "made.txt").exists()
    assert any("interrupted" in e.message for e in events.of(ev.Error))


async def test_a_failing_snippet_aborts_with_a_message(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    workspace = repo(tmp_path)
    session, events, _ = open_session(fake_api, workspace)
    start_command(CommandFront(session, workspace), "/fail")
    await session.wait_idle()
    await session.close()
    assert fake_api.requests == []
    assert any("failed" in e.message for e in events.of(ev.Error))


async def test_a_snippet_after_esc_is_neither_gated_nor_run(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    """Esc already pressed when a command's snippet comes up (it landed as the question
    before it was answered): the snippet is not handed to the gate or the shell at all."""
    workspace = repo(tmp_path)
    session, events, _ = open_session(fake_api, workspace)
    session.stop.event.set()
    with pytest.raises(CommandAborted, match="interrupted"):
        await expand_snippets(session, "Branch: !`echo on-main`")
    await session.close()
    assert not events.of(ev.ToolCallRunning)
    assert [e.status for e in events.of(ev.ToolCallFinished)] == ["interrupted"]
