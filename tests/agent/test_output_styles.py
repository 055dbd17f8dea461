"""Output styles (issue 18, part M): built-ins Explanatory and Learning, custom ones from
.claude/output-styles and ~/.claude/output-styles, the ``outputStyle`` setting and
``/output-style``; the body ends the system prompt, and a custom style drops eddy's coding part
unless ``keep-coding-instructions: true``. Through the real SDK and the fake API."""

from __future__ import annotations

import json
from pathlib import Path

from agent import events as ev
from agent import ops
from agent.prompt.output_styles import load_styles
from agent.prompt.system import CODING
from frontend.commands import start_command
from tests.fakes.fake_api import FakeAnthropic, Reply, text
from tests.helpers.claude_repo import (
    CommandFront,
    claude_repo,
    claude_styles,
    open_session,
    system_text,
    write,
)

CODING_MARK = "# How to work"


def repo(tmp_path: Path, style: str | None = None) -> Path:
    workspace = claude_repo(tmp_path)
    claude_styles(workspace)
    if style is not None:
        write(workspace / ".eddy" / "settings.json", json.dumps({"outputStyle": style}))
    return workspace


async def first_system(fake: FakeAnthropic, workspace: Path) -> tuple[str, list[str]]:
    fake.push(Reply([text("ok")]))
    session, _, problems = open_session(fake, workspace)
    session.submit(ops.SubmitPrompt("hi"))
    await session.wait_idle()
    await session.close()
    assert fake.violations == []
    return system_text(fake.requests[-1]), problems


def test_styles_are_found_with_their_front_matter(tmp_path: Path) -> None:
    workspace = repo(tmp_path)
    problems: list[str] = []
    styles = load_styles(workspace, problems)
    assert {"default", "explanatory", "learning", "teacher", "diagram", "odd"} <= set(styles)
    assert styles["teacher"].keep_coding is False  # Claude Code's default for custom styles
    assert styles["diagram"].keep_coding is True and styles["diagram"].name == "diagram"
    assert styles["explanatory"].keep_coding and "Insight" in styles["explanatory"].body
    assert "TODO(human)" in styles["learning"].body
    assert any("odd.md: keep-coding-instructions must be true or false" in p for p in problems)
    assert any("odd.md:3: expected 'key: value'" in p for p in problems)


async def test_default_has_the_coding_part_and_no_style(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    system, _ = await first_system(fake_api, repo(tmp_path))
    assert CODING.strip() in system and "# Output style" not in system


async def test_a_custom_style_ends_the_prompt_and_drops_the_coding_part(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    system, problems = await first_system(fake_api, repo(tmp_path, "teacher"))
    assert system.rstrip().endswith("TEACHER-STYLE: explain like a teacher.")
    assert "# Output style: Teacher" in system
    assert CODING_MARK not in system
    assert system.index("APP-LOCAL-MEM") < system.index("TEACHER-STYLE")  # memory stays


async def test_keep_coding_instructions_true_keeps_it(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    system, _ = await first_system(fake_api, repo(tmp_path, "Diagram"))
    assert CODING_MARK in system and system.rstrip().endswith(
        "DIAGRAM-STYLE: answer with a diagram."
    )


async def test_a_builtin_style_keeps_the_coding_part(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    system, _ = await first_system(fake_api, repo(tmp_path, "Learning"))
    assert CODING_MARK in system and "TODO(human)" in system


async def test_an_unknown_setting_is_a_problem_and_default_is_used(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    system, problems = await first_system(fake_api, repo(tmp_path, "Nope"))
    assert any("outputStyle: no style 'Nope'" in p for p in problems)
    assert "# Output style" not in system and CODING_MARK in system


async def test_the_command_switches_the_style_for_the_next_call(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    workspace = repo(tmp_path)
    fake_api.push(Reply([text("one")]), Reply([text("two")]))
    session, events, _ = open_session(fake_api, workspace)
    front = CommandFront(session, workspace)
    start_command(front, "/output-style")
    assert "Output style: Default." in front.said[-1][0] and "Teacher" in front.said[-1][0]
    session.submit(ops.SubmitPrompt("hi"))
    await session.wait_idle()
    start_command(front, "/output-style teacher")
    assert events.of(ev.Notice)[-1].text == "Output style set to Teacher for this session."
    start_command(front, "/output-style nothing-like-it")
    assert "No output style 'nothing-like-it'" in events.of(ev.Error)[-1].message
    session.submit(ops.SubmitPrompt("again"))
    await session.wait_idle()
    await session.close()
    assert fake_api.violations == []
    first, second = (system_text(r) for r in fake_api.requests)
    assert "TEACHER-STYLE" not in first and "TEACHER-STYLE" in second
    assert CODING_MARK in first and CODING_MARK not in second
