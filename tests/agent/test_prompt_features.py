"""@-mentions, the file index, slash commands, !commands, /context and /model (issue 7/8)."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

from agent import events as ev
from agent import ops
from agent.messages import TextBlock, assistant, check_invariant
from agent.model.pricing import Usage
from agent.model.protocol import ModelResponse
from agent.prompt.mentions import attachments, mentioned_paths
from agent.session.config import SessionConfig
from agent.session.context import breakdown, cost_lines
from agent.session.core import Session
from frontend.commands import completions, custom_commands, parse
from frontend.fileindex import FileIndex, list_files
from tests.fakes.scripted import ScriptedModel
from tests.helpers.events import Events
from tools import default_tools


def test_mentions_attach_inside_files_only(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("print('hi')\n")
    (tmp_path / "bin.dat").write_bytes(b"\x00\x01")
    outside = tmp_path.parent / "outside-secret.txt"
    outside.write_text("TOPSECRET")
    text = f"look at @src/app.py, @bin.dat and @../{outside.name} and mail @someone"
    assert mentioned_paths(text)[0] == "src/app.py"
    blocks = attachments(text, tmp_path)
    assert blocks[0].startswith("Contents of @src/app.py:") and "print('hi')" in blocks[0]
    assert "binary" in blocks[1]
    assert "outside the workspace" in blocks[2] and "TOPSECRET" not in blocks[2]
    assert len(blocks) == 3  # @someone is not a file


def test_file_index_honours_gitignore_and_ranks_fuzzy(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    (tmp_path / ".gitignore").write_text("build/\n")
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "out.py").write_text("")
    (tmp_path / "src").mkdir()
    for name in ("session.py", "store.py", "messages.py"):
        (tmp_path / "src" / name).write_text("")
    files = list_files(tmp_path)
    assert "build/out.py" not in files and "src/session.py" in files
    index = FileIndex(files)
    assert index.search("sess")[0] == "src/session.py"
    assert index.search("srcmsg")[0] == "src/messages.py"  # characters in order
    assert index.search("zzz") == []


def test_file_index_is_fast_on_100k_paths() -> None:
    files = [f"pkg{i % 100}/mod{i // 100}/file{i}.py" for i in range(100_000)]
    index = FileIndex(files)
    start = time.perf_counter()
    hits = index.search("file9999")
    elapsed = time.perf_counter() - start
    assert hits[0] == "pkg99/mod99/file9999.py"
    print(f"100k-path query: {elapsed * 1000:.1f} ms")


def test_file_index_typing_narrows_to_the_same_answers_as_a_fresh_search() -> None:
    files = [f"src/pkg{i % 7}/{name}{i}.py" for i in range(400) for name in ("srv", "test_")]
    typed = FileIndex(files)
    for query in ("s", "sr", "srv", "srv1", "srv", "sr", "t", "te", "tes", "test_3", "", "pkg3"):
        assert typed.search(query, limit=50) == FileIndex(files).search(query, limit=50), query
    assert typed.search("srv12")[0] == "src/pkg5/srv12.py"


def test_custom_commands_and_parse(tmp_path: Path) -> None:
    folder = tmp_path / ".eddy" / "commands"
    folder.mkdir(parents=True)
    (folder / "review.md").write_text("# Review a file\nReview $ARGUMENTS carefully.")
    cmds = custom_commands(tmp_path)
    assert cmds["review"].expand("a.py") == "# Review a file\nReview a.py carefully."
    assert ("/review", "Review a file") in completions("rev", tmp_path)
    assert ("/rewind", completions("rew", tmp_path)[0][1]) in completions("rew", tmp_path)
    assert parse("/compact keep tests") == ("compact", "keep tests")
    assert parse("/usr/bin/env is a path") is None


async def test_bang_command_output_joins_the_next_prompt(tmp_path: Path) -> None:
    events = Events()
    model = ScriptedModel(["seen"])
    session = Session(
        SessionConfig(workspace=tmp_path, model="claude-sonnet-5-5"), model, default_tools(), events
    )
    session.submit(ops.RunShell("echo from-the-shell"))
    await session.wait_idle()
    assert events.of(ev.ToolCallFinished)[0].content.strip() == "from-the-shell"
    session.submit(ops.SubmitPrompt("what did it print?"))
    await session.wait_idle()
    sent = model.requests[0].messages
    check_invariant(sent)
    texts = [b.text for b in sent[0].content if isinstance(b, TextBlock)]
    assert "<bash-stdout>from-the-shell" in texts[0] and texts[1] == "what did it print?"


async def test_context_breakdown_cost_and_model_switch(tmp_path: Path) -> None:
    events = Events()
    usage = Usage(input_tokens=100, output_tokens=10, cache_read_input_tokens=900)
    model = ScriptedModel([ModelResponse(assistant("hi"), "end_turn", usage)])
    config = SessionConfig(
        workspace=tmp_path,
        model="claude-sonnet-5-5",
        system="base\n# Project instructions (from memory files)\nuse tabs",
    )
    session = Session(config, model, default_tools(), events)
    session.submit(ops.SubmitPrompt("hello"))
    await session.wait_idle()
    b = breakdown(session)
    assert b.memory > 0 and b.tools > 500 and b.messages > 0
    assert b.cache_hit_rate == 0.9
    assert any("cache hit rate 90%" in line for line in b.lines())
    assert "Total cost" in cost_lines(session)[0]
    session.submit(ops.SetModel("claude-opus-5-5"))
    assert session.spec.model == "claude-opus-5-5"
