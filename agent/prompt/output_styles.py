"""Output styles, as Claude Code has them: how the model answers, set in the system prompt.

``Default`` is eddy's own prompt. The built-ins ``Explanatory`` (short "Insight" notes on the
choices made while working) and ``Learning`` (the same, and it asks the user to write small,
meaningful pieces of code themselves, marked ``TODO(human)``) keep the coding instructions.
Custom styles are markdown files in ``~/.claude/output-styles/`` and the project's
``.claude/output-styles/`` (project beats user); front matter ``name`` (default: the file
name), ``description``, ``keep-coding-instructions`` (default false, as in Claude Code: a
custom style drops eddy's "How to work" section unless it says true). The style's body is
appended to the system prompt. Chosen by the ``outputStyle`` setting or ``/output-style``.
A session's plugins (agent/plugins) bring styles named ``plugin:name``, below the user's.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from agent.memory.files import claude_user_dir
from agent.memory.frontmatter import read_front_matter

if TYPE_CHECKING:
    from agent.plugins.plugin import Plugin

DEFAULT = "Default"

_INSIGHTS = """## Insights
To help the user learn, before and after writing code give brief explanations of the \
implementation choices, in this form:
"`★ Insight ─────────────────────────────────────`
[2-3 key points about this codebase or the choice just made]
`─────────────────────────────────────────────────`"
Keep insights specific to the code at hand, not general programming knowledge; they go in \
the conversation, never in the code."""


@dataclass(frozen=True)
class OutputStyle:
    """One output style.

    Attributes:
        name: its name (matched without regard to case).
        description: for the listing.
        body: the instructions appended to the system prompt ("" for Default).
        keep_coding: whether eddy's coding instructions stay in the prompt.
        path: its file, None for a built-in.
    """

    name: str
    description: str
    body: str = ""
    keep_coding: bool = True
    path: Path | None = None


BUILTINS: tuple[OutputStyle, ...] = (
    OutputStyle(DEFAULT, "eddy's own prompt: complete coding tasks efficiently"),
    OutputStyle(
        "Explanatory",
        "explains its implementation choices and the codebase's patterns as it works",
        "You are in the Explanatory output style: besides doing the software engineering "
        "task, you explain what you do and why, so the user understands the codebase.\n\n"
        + _INSIGHTS,
    ),
    OutputStyle(
        "Learning",
        "learn by doing: shares insights and asks you to write small pieces of code",
        "You are in the Learning output style: the user wants to learn by doing while you "
        "work on the task together.\n\n" + _INSIGHTS + "\n\n## Asking the user to contribute\n"
        "When a piece of the task is small (2-10 lines), meaningful and a good exercise "
        "(a design decision, a business rule, an algorithm's core), do not write it: leave "
        "a `TODO(human)` comment in the code where it goes, then stop and ask the user to "
        "write it, saying what it must do, the constraints and the trade-offs. Do the "
        "routine parts (boilerplate, wiring, tests scaffolding) yourself. When the user has "
        "written it, review it briefly and continue.",
    ),
)


def style_folders(workspace: Path) -> list[Path]:
    """The folders custom styles are read from, lowest precedence first."""
    return [claude_user_dir() / "output-styles", workspace / ".claude" / "output-styles"]


def load_styles(
    workspace: Path, problems: list[str] | None = None, plugins: Iterable[Plugin] = ()
) -> dict[str, OutputStyle]:
    """Every style by lower-case name: the built-ins, the ``plugins``' (``plugin:name``),
    then custom ones (which may replace a built-in of the same name). Problems are appended
    to ``problems``; never raises."""
    found = {s.name.lower(): s for s in BUILTINS}
    sink = problems if problems is not None else []
    places: list[tuple[Path, str]] = []
    for plugin in plugins:
        places += [(place, f"{plugin.name}:") for place in plugin.styles]
    places += [(folder, "") for folder in style_folders(workspace)]
    for folder, prefix in places:
        try:
            if folder.is_file():
                files = [folder]
            else:
                files = sorted(folder.glob("*.md")) if folder.is_dir() else []
        except OSError:
            continue
        for f in files:
            fm = read_front_matter(f, sink, "style skipped")
            if fm is None:
                continue
            keep = fm.fields.get("keep-coding-instructions", False)
            if not isinstance(keep, bool):
                sink.append(f"{f}: keep-coding-instructions must be true or false; false used.")
                keep = False
            name = prefix + ((fm.text("name") or f.stem).strip() or f.stem)
            style = OutputStyle(name, fm.text("description") or "", fm.body.strip(), keep, f)
            found[name.lower()] = style
    return found


def pick_style(
    workspace: Path, setting: object, problems: list[str], plugins: Iterable[Plugin] = ()
) -> OutputStyle | None:
    """The style the ``outputStyle`` setting names (None: Default); an unknown name or a
    value that is not a string is a problem and Default is used."""
    if setting is None:
        return None
    if not isinstance(setting, str):
        problems.append("outputStyle: expected a style's name; Default used.")
        return None
    styles = load_styles(workspace, problems, plugins)
    style = styles.get(setting.strip().lower())
    if style is None:
        known = ", ".join(s.name for s in styles.values())
        problems.append(f"outputStyle: no style {setting!r} (known: {known}); Default used.")
        return None
    return None if style.name == DEFAULT and style.path is None else style
