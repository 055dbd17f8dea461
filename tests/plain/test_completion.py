"""Completion of slash commands and @ paths."""

from __future__ import annotations

from pathlib import Path

from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

from plain.completion import PlainCompleter, WorkspaceFiles


def complete(completer: PlainCompleter, text: str) -> list[str]:
    doc = Document(text, len(text))
    return [c.text for c in completer.get_completions(doc, CompleteEvent(text_inserted=True))]


def make(tmp_path: Path) -> PlainCompleter:
    commands = {"/rewind": "go back", "/help": "help", "/exit": "quit"}
    return PlainCompleter(lambda: commands, WorkspaceFiles(tmp_path))


def test_slash_commands(tmp_path: Path):
    c = make(tmp_path)
    assert complete(c, "/re") == ["/rewind"]
    assert set(complete(c, "/")) == {"/rewind", "/help", "/exit"}
    assert complete(c, "say /re") == []  # only at the start of the prompt


def test_at_paths_honour_gitignore(tmp_path: Path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "main.py").write_text("")
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "main.py").write_text("")
    (tmp_path / ".gitignore").write_text("build/\n")
    (tmp_path / "my notes.md").write_text("")
    c = make(tmp_path)
    assert complete(c, "look at @mai") == ["@src/main.py"]
    assert complete(c, "@my")[0] == "@my\\ notes.md"  # fuzzy: the best match first
    assert complete(c, "mail me@example") == []  # not a mention: no space before the @


def test_the_file_list_is_cached_then_refreshed(tmp_path: Path):
    now = [0.0]
    files = WorkspaceFiles(tmp_path, ttl=5, clock=lambda: now[0])
    (tmp_path / "a.py").write_text("")
    assert files.match("b") == []
    (tmp_path / "b.py").write_text("")
    assert files.match("b") == []
    now[0] = 6
    assert files.match("b") == ["b.py"]
