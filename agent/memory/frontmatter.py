"""Front matter of Claude Code's markdown files (commands, skills, rules, output styles).

A file may start with a block between two ``---`` lines of ``key: value`` lines. Claude Code's
own reader is lenient (``paths: **/*.ts`` works there although it is not valid YAML), so this
is a small reader of the subset those files use, not a YAML parser:

- ``key: value`` (quotes around the value are removed; ``true``/``false`` are booleans);
- ``key: [a, "b"]`` and ``key:`` followed by ``- item`` lines are lists;
- blank lines and ``#`` comments are skipped.

Anything else is a problem (reported with its file and line) and the line is ignored.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

Value = str | bool | list[str]

_KEY = re.compile(r"^([A-Za-z_][A-Za-z0-9_-]*)\s*:\s*(.*)$")


@dataclass
class FrontMatter:
    """A markdown file split into its front matter and its body.

    Attributes:
        fields: the front matter's keys and values.
        body: the text after the front matter (the whole text when there is none).
        problems: what could not be read, each naming the file and line.
        body_line: the line number (1-based) where the body starts.
    """

    fields: dict[str, Value] = field(default_factory=dict)
    raw: dict[str, str] = field(default_factory=dict)
    """Each ``key: value`` line's value as written (quotes removed), for free text such as
    ``argument-hint: [file] [focus]``."""
    body: str = ""
    problems: list[str] = field(default_factory=list)
    body_line: int = 1

    def text(self, key: str) -> str | None:
        """The value of ``key`` as one string (a list joined by ", "), or None."""
        value = self.fields.get(key)
        if value is None:
            return None
        if isinstance(value, list):
            return ", ".join(value)
        if isinstance(value, bool):
            return "true" if value else "false"
        return value

    def items(self, key: str) -> list[str]:
        """The value of ``key`` as a list: a list as it is, a string split on commas."""
        value = self.fields.get(key)
        if value is None or isinstance(value, bool):
            return []
        if isinstance(value, list):
            return value
        return [v.strip() for v in _split_commas(value) if v.strip()]


def _unquote(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return text[1:-1]
    return text


def _split_commas(text: str) -> list[str]:
    """Split on commas outside braces (``src/**/*.{ts,tsx}`` is one glob)."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth = max(0, depth - 1)
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [_unquote(p) for p in parts]


def _scalar(raw: str) -> Value:
    raw = raw.strip()
    if raw.startswith("[") and raw.endswith("]") and raw.count("[") == 1:
        return [p for p in _split_commas(raw[1:-1]) if p]
    if raw.lower() in ("true", "false"):
        return raw.lower() == "true"
    return _unquote(raw)


def parse_front_matter(text: str, source: Path | str) -> FrontMatter:
    """Split ``text`` (the contents of ``source``) into front matter and body.

    Never raises: an unclosed block or a line that is not ``key: value`` is a problem.
    """
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].strip() != "---":
        return FrontMatter(body=text)
    end = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), None)
    if end is None:
        return FrontMatter(
            body=text, problems=[f"{source}:1: the front matter has no closing '---'; ignored."]
        )
    out = FrontMatter(body="".join(lines[end + 1 :]), body_line=end + 2)
    key: str | None = None
    for number, line in enumerate(lines[1:end], start=2):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if stripped.startswith("- ") or stripped == "-":
            current = out.fields.get(key) if key is not None else None
            if key is None or not isinstance(current, list):
                out.problems.append(f"{source}:{number}: a list item outside a list; ignored.")
                continue
            current.append(_unquote(stripped[1:]))
            continue
        match = _KEY.match(stripped)
        if match is None or line[:1].isspace():
            out.problems.append(f"{source}:{number}: expected 'key: value'; ignored.")
            key = None
            continue
        key, raw = match.group(1), match.group(2)
        out.fields[key] = _scalar(raw) if raw.strip() else []
        out.raw[key] = _unquote(raw)
    return out


def read_front_matter(
    path: Path, problems: list[str], skipped: str = "skipped"
) -> FrontMatter | None:
    """Read and parse the markdown file ``path``; None (and a problem saying it was
    ``skipped``) when it cannot be read. The parser's own problems are appended too."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        problems.append(f"{path} cannot be read ({exc.strerror or exc}); {skipped}.")
        return None
    fm = parse_front_matter(text, path)
    problems.extend(fm.problems)
    return fm
