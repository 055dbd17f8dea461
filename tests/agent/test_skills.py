"""Skills as Claude Code has them (issue 18, part M): found in .claude/skills, ~/.claude/skills
and .eddy/skills, listed in the Skill tool's description (byte-stable), loaded by the Skill
tool with the folder's other files, run as /name; bad front matter is reported."""

from __future__ import annotations

from pathlib import Path

from agent import events as ev
from agent import ops
from agent.prompt.skills import load_skills
from frontend.commands import start_command
from tests.fakes.fake_api import FakeAnthropic, Reply, text, tool_use
from tests.helpers.claude_repo import (
    CommandFront,
    claude_home,
    claude_repo,
    claude_skills,
    open_session,
)


def repo(tmp_path: Path) -> Path:
    workspace = claude_repo(tmp_path)
    claude_skills(workspace)
    return workspace


def test_skills_are_found_and_bad_ones_reported(tmp_path: Path) -> None:
    workspace = repo(tmp_path)
    skills = load_skills(workspace)
    assert sorted(skills.found) == ["notes", "pdf", "release-notes"]
    assert skills.found["release-notes"].allowed_tools == ("Bash(git log:*)", "Bash(touch:*)")
    joined = "\n".join(skills.problems)
    assert "bad/SKILL.md: the front matter has no description" in joined
    assert "'Shouty_Name' must be lowercase" in joined
    assert "pdf/SKILL.md: allowed-tools 'Bash(' is not a rule" in joined


async def test_the_model_loads_a_skill_and_reads_its_files(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    workspace = repo(tmp_path)
    user_file = claude_home() / "skills" / "pdf" / "forms.md"
    fake_api.push(
        Reply([tool_use("s1", "Skill", {"skill": "release-notes"})], "tool_use"),
        Reply([tool_use("s2", "Skill", {"skill": "pdf"})], "tool_use"),
        Reply([tool_use("r1", "Read", {"file_path": str(user_file)})], "tool_use"),
        Reply([tool_use("s3", "Skill", {"skill": "nope"})], "tool_use"),
        Reply([text("done")]),
    )
    # a project's skill asks before its first run, in -p too: the caller allows it by name
    session, events, problems = open_session(
        fake_api, workspace, "--allowed-tools", "Skill(release-notes)"
    )
    assert any("bad/SKILL.md" in p for p in problems)
    session.submit(ops.SubmitPrompt("write the release notes"))
    await session.wait_idle()
    await session.close()
    assert fake_api.violations == []
    assert events.of(ev.TurnFinished)[-1].subtype == "success"
    skill_tools = [next(t for t in r["tools"] if t["name"] == "Skill") for r in fake_api.requests]
    assert all(t == skill_tools[0] for t in skill_tools)  # byte-stable for the cache
    description = skill_tools[0]["description"]
    assert "- release-notes: Write release notes from the git log." in description
    assert "- pdf: Fill PDF forms." in description and "- notes: Take notes." in description
    assert "Shouty" not in description
    assert skill_tools[0]["input_schema"]["required"] == ["skill"]
    results = {
        e.call_id: e for e in events.of(ev.ToolCallFinished) if e.call_id in ("s1", "r1", "s3")
    }
    loaded = results["s1"].content
    assert "RELEASE-BODY" in loaded and "name: release-notes" not in loaded
    folder = workspace / ".claude" / "skills" / "release-notes"
    assert f"Base directory for this skill: {folder}" in loaded
    assert f"- {folder / 'reference.md'}" in loaded
    assert f"- {folder / 'scripts/collect.sh'}" in loaded
    assert not results["r1"].is_error and "USER-SKILL-FILE" in results["r1"].content
    assert results["s3"].is_error and "No skill named 'nope'" in results["s3"].content


async def test_a_skill_runs_as_a_slash_command(fake_api: FakeAnthropic, tmp_path: Path) -> None:
    workspace = repo(tmp_path)
    fake_api.push(Reply([text("notes taken")]))
    session, events, _ = open_session(fake_api, workspace)
    start_command(CommandFront(session, workspace), "/notes about the meeting")
    await session.wait_idle()
    await session.close()
    sent = fake_api.requests[0]["messages"][-1]["content"]
    texts = sent if isinstance(sent, str) else " ".join(b.get("text", "") for b in sent)
    assert "NOTES-BODY" in texts and "about the meeting" in texts


async def test_no_skills_no_skill_tool(fake_api: FakeAnthropic, tmp_path: Path) -> None:
    fake_api.push(Reply([text("hi")]))
    session, _, _ = open_session(fake_api, tmp_path)
    session.submit(ops.SubmitPrompt("hello"))
    await session.wait_idle()
    await session.close()
    assert "Skill" not in [t["name"] for t in fake_api.requests[0]["tools"]]


async def test_a_skills_allowed_tools_hold_from_its_loading_to_the_end_of_the_turn(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    workspace = repo(tmp_path)
    fake_api.push(
        Reply([tool_use("b0", "Bash", {"command": "touch before.txt"})], "tool_use"),
        Reply([tool_use("s1", "Skill", {"skill": "release-notes"})], "tool_use"),
        Reply([tool_use("b1", "Bash", {"command": "touch during.txt"})], "tool_use"),
        Reply([text("done")]),
        Reply([tool_use("b2", "Bash", {"command": "touch after.txt"})], "tool_use"),
        Reply([text("ok")]),
    )
    session, events, _ = open_session(
        fake_api, workspace, "--allowed-tools", "Skill(release-notes)"
    )
    allow_before = list(session.config.policy.allow)
    session.submit(ops.SubmitPrompt("notes"))
    await session.wait_idle()
    session.submit(ops.SubmitPrompt("more"))
    await session.wait_idle()
    await session.close()
    assert fake_api.violations == []
    assert not (workspace / "before.txt").exists()  # not granted before the skill loads
    assert (workspace / "during.txt").exists()
    assert not (workspace / "after.txt").exists()  # the grant ended with its turn
    assert session.config.policy.allow == allow_before
