"""A unified diff, coloured (added green, removed red) with the file's syntax highlighted.

The diff an Edit/Write/MultiEdit *would* make comes with its permission request
(``PermissionRequested.preview``, computed by the engine).
"""

from __future__ import annotations

from textual.content import Content
from textual.highlight import guess_language
from textual.widgets import Static

from frontend.tool_summary import more_lines
from tui.widgets.conversation.code_highlight import highlight_code


def render_diff(diff: str, path: str | None = None, max_lines: int | None = None) -> Content:
    """Colour a unified diff, highlighting the code with pygments (theme-aware styles).

    Args:
        diff: the unified diff text.
        path: the file's path (picks the lexer).
        max_lines: show at most this many lines, then a "+N more lines" note.
    """
    lines = diff.splitlines()
    shown = [ln.expandtabs(4) for ln in (lines if max_lines is None else lines[:max_lines])]
    code_lines = [
        ln[1:] if ln[:1] in "+- " and not ln.startswith(("+++", "---")) else "" for ln in shown
    ]
    code = "\n".join(code_lines)
    language = guess_language(code, path) if path else "text"
    highlighted = highlight_code(code + "\n", language).split("\n")
    widths = [Content(ln).cell_length for ln in shown]
    width = max(widths, default=0)
    out: list[Content] = []
    for i, line in enumerate(shown):
        # padded so that added/removed backgrounds form an even block
        code_part = code_part_at(highlighted, code_lines, i).pad_right(width - widths[i])
        if line.startswith(("+++", "---")):
            out.append(Content.styled(line, "bold $text-muted"))
        elif line.startswith("@@"):
            out.append(Content.styled(line, "$hint"))
        elif line.startswith("+"):
            out.append(
                Content.assemble(("+", "bold $text-success"), code_part).stylize_before(
                    "on $diff-added"
                )
            )
        elif line.startswith("-"):
            out.append(
                Content.assemble(("-", "bold $text-error"), code_part).stylize_before(
                    "on $diff-removed"
                )
            )
        elif line.startswith(" "):
            out.append(Content.assemble(" ", code_part))
        else:
            out.append(Content.styled(line, "$text-muted"))
    if max_lines is not None and len(lines) > max_lines:
        out.append(Content.styled(more_lines(len(lines) - max_lines), "$text-muted"))
    return Content("\n").join(out)


def code_part_at(highlighted: list[Content], code_lines: list[str], i: int) -> Content:
    return highlighted[i] if i < len(highlighted) else Content(code_lines[i])


class DiffView(Static):
    """A rendered diff (see :func:`render_diff`)."""

    def __init__(self, diff: str, path: str | None = None, max_lines: int | None = None) -> None:
        super().__init__(render_diff(diff, path, max_lines), classes="diff")
        self.diff = diff
