"""The renderer and the markdown stream, fed events directly (no engine)."""

from __future__ import annotations

import subprocess
import sys

from agent import events as ev
from frontend.sanitize import sanitize
from plain.markdown import MarkdownStream
from plain.render import Renderer
from plain.status import Status
from plain.style import Painter, color_wanted


def render(events: list[ev.Event], color: bool = False, **kw) -> list[str]:
    r = Renderer(Painter(color), **kw)
    out: list[str] = []
    for e in events:
        out += r.render(e)
    return out + r.finish_text()


def test_text_streams_by_complete_lines():
    md = MarkdownStream(Painter(False))
    assert md.feed("Hello wo") == []
    assert md.feed("rld\nnext") == ["Hello world"]
    assert md.finish() == ["next"]


def test_markdown_plain_without_colour():
    md = MarkdownStream(Painter(False))
    lines = md.feed("## Head\n- **bold** and *it* and `code`\n```py\nx = 1\n```\n")
    assert lines == ["## Head", "- bold and it and `code`", "```py", "x = 1", "```"]
    assert not any("\x1b" in ln for ln in lines)


def test_markdown_with_colour_highlights_code():
    md = MarkdownStream(Painter(True))
    lines = md.feed("# Head\n- item\n```python\ndef f():\n    return 1\n```\n")
    assert lines[0].startswith("\x1b[1;4m") and "Head" in lines[0] and "#" not in lines[0]
    assert lines[1] == "• item"
    code = "\n".join(lines[3:5])
    assert "\x1b[" in code and "def" in sanitize(code) and "return 1" in sanitize(code)


def test_tool_lines_and_states():
    start = ev.ToolCallStarted(1, "c1", "Read", {"file_path": "a.py"}, "a.py")
    done = ev.ToolCallFinished(1, "c1", "Read", "done", "1\n2\n3", False)
    refused_start = ev.ToolCallStarted(1, "c2", "Bash", {"command": "rm x"}, "rm x")
    refused = ev.ToolCallFinished(1, "c2", "Bash", "refused", "The user refused.", True)
    lines = render([start, done, refused_start, refused])
    assert lines == [
        "▸ Read(a.py)",
        "  ✓ Read(a.py) done: 3 lines",
        "▸ Bash(rm x)",
        "  ⊘ Bash(rm x) refused: The user refused.",
    ]


def test_shell_output_is_streamed_capped_and_cleaned():
    start = ev.ToolCallStarted(1, "c1", "Bash", {"command": "seq 50"}, "seq 50")
    deltas = [ev.ToolOutputDelta(1, "c1", f"\x1b[31m{i}\x1b[0m\n") for i in range(1, 51)]
    end = ev.ToolCallFinished(1, "c1", "Bash", "done", "...", False)
    lines = render([start, *deltas, end], output_lines=5)
    assert lines[1:6] == [f"  │ {i}" for i in range(1, 6)]
    assert "45 more lines" in lines[6]
    assert not any("\x1b" in ln for ln in lines)


def test_diff_is_coloured():
    display = {"kind": "diff", "diff": "--- a\n+++ b\n@@ -1 +1 @@\n-old\n+new\n", "added": 1}
    start = ev.ToolCallStarted(1, "c1", "Edit", {}, "a")
    end = ev.ToolCallFinished(1, "c1", "Edit", "done", "ok", False, display)
    lines = render([start, end], color=True)
    assert any(ln.endswith("\x1b[31m-old\x1b[0m") for ln in lines)
    assert any(ln.endswith("\x1b[32m+new\x1b[0m") for ln in lines)
    plain = render([start, end])
    assert "    +new" in plain and "  ✓ Edit(a) done: +1 -0" in plain


def test_queue_and_corrections():
    lines = render(
        [
            ev.QueueChanged(("fix it",)),
            ev.QueueChanged(("fix it", "and that")),
            ev.QueueChanged(()),
            ev.CorrectionsDelivered(1, ("fix it", "and that")),
        ]
    )
    assert lines == [
        "queued: fix it",
        "queued: and that",
        "↳ sent to the model: fix it",
        "↳ sent to the model: and that",
    ]


def test_prompt_echo_only_for_prompts_not_typed():
    r = Renderer(Painter(False))
    r.echo_next = "typed"
    assert r.render(ev.TurnStarted(1, "typed")) == []
    assert r.render(ev.TurnStarted(2, "from the queue")) == ["› from the queue"]


def test_toolbar():
    s = Status("claude-x", "default")
    s.context_tokens, s.context_window, s.cost = 5_000, 200_000, 0.0123
    assert s.line(False) == "claude-x · default · context 2% · $0.0123"
    s.queued = 1
    assert "1 queued" in s.line(True) and "Esc stops" in s.line(True)


def test_clean_and_no_color(monkeypatch):
    assert sanitize("a\x1b[2Jb\x1b]0;title\x07c\rd\x07") == "d"
    assert sanitize("ok\x1b[1mbold\x1b[0m\ttab") == "okbold\ttab"

    class Tty:
        def isatty(self) -> bool:
            return True

    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    assert color_wanted(Tty())
    monkeypatch.setenv("NO_COLOR", "1")
    assert not color_wanted(Tty())


def test_plain_never_imports_textual():
    modules = "plain.app, plain.terminal, plain.completion, plain.history"
    code = f"import sys, {modules}\nprint('textual' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def _interrupted(deltas: list[str], color: bool = False) -> list[str]:
    """What line mode prints for an answer streamed as ``deltas`` and then stopped by Esc."""
    return render([*(ev.TextDelta(1, d) for d in deltas), ev.Interrupted(1)], color=color)


def test_an_interrupted_code_block_is_closed_with_its_fence():
    lines = _interrupted(["Here:\n```python\nx = 1\ny = ", "2"])
    assert lines == [
        "Here:",
        "```python",
        "x = 1",
        "y = 2",
        "```",
        "■ interrupted: the model stopped",
    ]


def test_an_interrupted_half_line_shows_bold_and_code_closed():
    assert _interrupted(["Done. The **important", " part"])[0] == "Done. The important part"
    coloured = _interrupted(["- an **important", " item"], color=True)[0]
    assert coloured == "• an \x1b[1mimportant item\x1b[0m"
    assert _interrupted(["run `make", " test"], color=True)[0] == "run \x1b[36mmake test\x1b[0m"


def test_an_interrupted_fence_on_the_half_line_is_closed():
    assert _interrupted(["Look:\n```s", "h"])[:3] == ["Look:", "```sh", "```"]


def test_a_finished_answer_is_not_closed_by_the_renderer():
    lines = render([ev.TextDelta(1, "a **b")])  # the message ended so: shown as written
    assert lines == ["a **b"]


def test_a_background_report_is_a_line_and_the_turn_it_starts_echoes_no_prompt():
    summary = 'Agent "count files" finished'
    lines = render(
        [
            ev.BackgroundReported(1, "a1", "agent", "completed", summary),
            ev.TurnStarted(2, summary, origin="background"),
            ev.TextDelta(2, "There are 3 files.\n"),
        ]
    )
    assert lines[0] == f"● {summary}" and not any(line.startswith("›") for line in lines)
    assert "There are 3 files." in lines
