"""Memory as Claude Code reads it (issue 18, part M): CLAUDE.md / .claude/CLAUDE.md /
CLAUDE.local.md from the root down to the working directory, AGENTS.md where a folder has no
CLAUDE.md, the user's ~/.claude/CLAUDE.md first; @imports; HTML comments stripped; rules.

Driven through build_session, the real SDK and the fake Messages API: the memory is in the
first request, in order.
"""

from __future__ import annotations

from pathlib import Path

from agent import events as ev
from agent import ops
from agent.memory import read_memory
from agent.memory.imports import MAX_DEPTH, import_targets, strip_comments
from tests.fakes.fake_api import FakeAnthropic, Reply, text, tool_use
from tests.helpers.claude_repo import (
    MEMORY_ORDER,
    claude_repo,
    open_session,
    system_text,
    write,
)


async def test_the_memory_is_in_the_first_request_in_order(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    workspace = claude_repo(tmp_path)
    fake_api.push(Reply([text("ok")]))
    session, events, problems = open_session(fake_api, workspace)
    assert not [p for p in problems if "never.md" in p]
    session.submit(ops.SubmitPrompt("hello"))
    await session.wait_idle()
    await session.close()
    assert fake_api.violations == []
    system = system_text(fake_api.requests[0])
    positions = [system.index(marker) for marker in MEMORY_ORDER]
    assert positions == sorted(positions)
    for absent in ("ROOT-AGENTS", "HIDDEN-COMMENT", "NEVER-MEM", "PY-RULE"):
        assert absent not in system
    assert "FENCED-COMMENT" in system  # a fence is quoted as it is


def test_agents_md_is_read_where_a_folder_has_no_claude_md(tmp_path: Path) -> None:
    write(tmp_path / "AGENTS.md", "AGENTS-ONLY")
    assert "AGENTS-ONLY" in read_memory(tmp_path).text()
    write(tmp_path / ".claude" / "CLAUDE.md", "DOT-CLAUDE")
    text_now = read_memory(tmp_path).text()
    assert "DOT-CLAUDE" in text_now and "AGENTS-ONLY" not in text_now


def test_imports_are_relative_to_the_importing_file_and_home(tmp_path: Path, monkeypatch) -> None:
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    write(home / "notes" / "mine.md", "HOME-IMPORT")
    write(tmp_path / "w" / "CLAUDE.md", "@~/notes/mine.md and @sub/a.md")
    write(tmp_path / "w" / "sub" / "a.md", "A @b.md")
    write(tmp_path / "w" / "sub" / "b.md", "B-IMPORT")
    memory = read_memory(tmp_path / "w")
    body = memory.text()
    assert memory.problems == []
    assert body.index("HOME-IMPORT") < body.index("A @b.md") < body.index("B-IMPORT")
    assert f"(imported by {tmp_path / 'w' / 'sub' / 'a.md'})" in body


def test_cycles_missing_files_and_depth_are_problems_not_crashes(tmp_path: Path) -> None:
    write(tmp_path / "CLAUDE.md", "@a.md @missing/file.md")
    write(tmp_path / "a.md", "A-FILE @CLAUDE.md @d1.md")
    for i in range(1, MAX_DEPTH + 3):
        write(tmp_path / f"d{i}.md", f"DEPTH-{i} @d{i + 1}.md")
    memory = read_memory(tmp_path)
    joined = "\n".join(memory.problems)
    assert "cycle" in joined and "CLAUDE.md" in joined
    assert "missing/file.md does not exist" in joined
    assert f"deeper than {MAX_DEPTH}" in joined
    body = memory.text()
    assert "A-FILE" in body and f"DEPTH-{MAX_DEPTH - 1}" in body
    assert f"DEPTH-{MAX_DEPTH}" not in body  # CLAUDE.md -> a -> d1 .. d4 is five hops


def test_an_import_naming_a_folder_is_prose_not_a_problem(tmp_path: Path) -> None:
    write(tmp_path / "CLAUDE.md", "the code is in @src/ and the notes in @notes.md")
    write(tmp_path / "src" / "main.py", "SOURCE")
    write(tmp_path / "notes.md", "NOTES")
    memory = read_memory(tmp_path)
    assert memory.problems == []
    assert "NOTES" in memory.text() and "SOURCE" not in memory.text()


def test_import_syntax_skips_code_spans_fences_and_mail_addresses() -> None:
    source = "see @a.md, `@b.md` me@c.md\n```\n@d.md\n```\n~~~\n@e.md\n~~~\n@f/g.md @alice"
    assert import_targets(source) == ["a.md", "f/g.md"]


def test_html_comments_are_stripped_outside_fences() -> None:
    source = "keep <!-- one --> this\n<!--\nmany\n-->\n```\n<!-- shown -->\n```\n"
    assert strip_comments(source) == "keep  this\n\n```\n<!-- shown -->\n```\n"


async def test_a_path_rule_reaches_the_model_with_the_read_of_a_matching_file(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    """The rule is appended to that Read's result (once per session), not to others."""
    workspace = claude_repo(tmp_path)
    fake_api.push(
        Reply([tool_use("t1", "Read", {"file_path": "README.txt"})], "tool_use"),
        Reply([tool_use("t2", "Read", {"file_path": "src/main.py"})], "tool_use"),
        Reply([tool_use("t3", "Read", {"file_path": str(workspace / "src/main.py")})], "tool_use"),
        Reply([text("done")]),
    )
    session, events, _ = open_session(fake_api, workspace)
    session.submit(ops.SubmitPrompt("read things"))
    await session.wait_idle()
    await session.close()
    assert fake_api.violations == []
    assert events.of(ev.TurnFinished)[-1].subtype == "success"

    def result_text(request_index: int) -> str:
        block = fake_api.requests[request_index]["messages"][-1]["content"][0]
        content = block["content"]
        return content if isinstance(content, str) else str(content)

    assert "PY-RULE" not in result_text(1)
    assert "PY-RULE: type hints everywhere." in result_text(2)
    assert "<system-reminder>" in result_text(2)
    assert "PY-RULE" not in result_text(3)  # delivered once


async def test_memory_survives_compaction_it_is_read_again(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    workspace = claude_repo(tmp_path)
    fake_api.push(
        Reply([text("first answer")]),
        Reply([text("<summary>we said hello</summary>")]),
        Reply([text("second answer")]),
    )
    session, events, _ = open_session(fake_api, workspace)
    session.submit(ops.SubmitPrompt("hello"))
    await session.wait_idle()
    write(workspace / "CLAUDE.md", "APP-MEM-EDITED: the app, changed.\n")
    session.submit(ops.Compact())
    await session.wait_idle()
    assert events.of(ev.Compacted)
    session.submit(ops.SubmitPrompt("again"))
    await session.wait_idle()
    await session.close()
    assert fake_api.violations == []
    last = system_text(fake_api.requests[-1])
    assert "APP-MEM-EDITED" in last and "APP-MEM: the app." not in last
    for marker in MEMORY_ORDER:
        if marker != "APP-MEM":
            assert marker in last
    assert "we said hello" not in last  # the summary is history, the memory is system
