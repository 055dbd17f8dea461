"""Glob patterns: brace expansion and translation to a regular expression over ``/`` paths.

Syntax (that of shells and of node's ``glob``, which Claude Code's Glob uses):
``*`` any run of characters within one path segment, ``?`` one character, ``[abc]`` /
``[!abc]`` / ``[^abc]`` a class, ``{a,b}`` alternatives (nestable), ``**`` as a whole segment
any number of directories (zero included). Dot files match like any other. The pattern is
anchored at the directory searched: ``*.py`` matches only that directory's files, ``**/*.py``
those at any depth.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tools.base import ToolError

MAX_ALTERNATIVES = 256
"""More alternatives than this after brace expansion is refused (``{a,b}{c,d}...`` explodes)."""

_MAGIC = re.compile(r"[*?\[{]")
_NOT_A_NAME_GLOB = re.compile(r"[\[\]{},:\\]")
"""Characters whose meaning may differ in rg's glob syntax (or in ``--type-add``'s)."""


def _split_top(body: str) -> list[str] | None:
    """Split a brace body on its top-level commas; None when there is no top-level comma."""
    parts, depth, start, i = [], 0, 0, 0
    while i < len(body):
        ch = body[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(body[start:i])
            start = i + 1
        i += 1
    parts.append(body[start:])
    return parts if len(parts) > 1 else None


def _closing(pattern: str, open_at: int) -> int:
    depth, i = 0, open_at
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return -1


def expand_braces(pattern: str) -> list[str]:
    """``"src/*.{ts,tsx}"`` -> ``["src/*.ts", "src/*.tsx"]``; unbalanced braces stay literal.

    Raises:
        ToolError: when the expansion would exceed ``MAX_ALTERNATIVES`` patterns.
    """
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "{":
            end = _closing(pattern, i)
            if end < 0:
                return [pattern]
            options = _split_top(pattern[i + 1 : end])
            if options is not None:
                head, tail = pattern[:i], pattern[end + 1 :]
                out: list[str] = []
                for option in options:
                    for rest in expand_braces(option + tail):
                        out.append(head + rest)
                        if len(out) > MAX_ALTERNATIVES:
                            raise ToolError(
                                f"the pattern {pattern!r} expands to more than "
                                f"{MAX_ALTERNATIVES} alternatives; simplify its braces"
                            )
                return out
            i = end
        i += 1
    return [pattern]


def _class(segment: str, i: int) -> tuple[str, int] | None:
    """Translate the bracket expression starting at ``segment[i] == "["``."""
    j = i + 1
    negate = j < len(segment) and segment[j] in "!^"
    if negate:
        j += 1
    start = j
    if j < len(segment) and segment[j] == "]":
        j += 1
    while j < len(segment) and segment[j] != "]":
        j += 1
    if j >= len(segment):
        return None
    body = "".join(c if c == "-" else re.escape(c) for c in segment[start:j])
    return ("[^/" if negate else "[") + body + "]", j + 1


def _segment(segment: str) -> str:
    out, i = [], 0
    while i < len(segment):
        ch = segment[i]
        if ch == "*":
            while i + 1 < len(segment) and segment[i + 1] == "*":
                i += 1
            out.append("[^/]*")
        elif ch == "?":
            out.append("[^/]")
        elif ch == "[" and (cls := _class(segment, i)) is not None:
            out.append(cls[0])
            i = cls[1]
            continue
        elif ch == "\\" and i + 1 < len(segment):
            i += 1
            out.append(re.escape(segment[i]))
        else:
            out.append(re.escape(ch))
        i += 1
    return "".join(out)


def translate(pattern: str) -> str:
    """The regular expression (without anchors) for one brace-free glob pattern."""
    parts = [p for p in pattern.split("/") if p not in ("", ".")]
    out = []
    for k, part in enumerate(parts):
        last = k == len(parts) - 1
        if part == "**":
            out.append(".*" if last else "(?:.*/)?")
        else:
            out.append(_segment(part) + ("" if last else "/"))
    return "".join(out)


@dataclass(frozen=True)
class CompiledGlob:
    """A glob ready to match paths relative to ``prefix``.

    Attributes:
        prefix: the leading directories without wildcards common to all alternatives (``""``
            or ending in ``/``): the walk can start there.
        regex: matches the remainder of a path below ``prefix``.
        max_depth: how many levels below ``prefix`` a match can lie; None with ``**``.
        names: file-name globs (one per alternative's last segment) that every match's name
            matches, for a walker that filters names itself (rg's ``--type-add``); empty when a
            last segment holds ``**`` or syntax beyond ``*`` and ``?`` (classes, escapes).
    """

    prefix: str
    regex: re.Pattern[str]
    max_depth: int | None
    names: tuple[str, ...] = ()


def compile_glob(pattern: str) -> CompiledGlob:
    """Compile ``pattern`` (relative, ``/``-separated; braces allowed).

    Raises:
        ToolError: when the pattern is empty or expands to too many alternatives.
    """
    alternatives = [a for a in expand_braces(pattern) if a.strip("/")]
    if not alternatives:
        raise ToolError("the glob pattern is empty")
    split = [[p for p in a.split("/") if p not in ("", ".")] for a in alternatives]
    common: list[str] = []
    for parts in zip(*split, strict=False):
        literal = parts[0]
        # keep at least one segment for the regex, and stop at the first wildcard
        if any(p != literal for p in parts) or _MAGIC.search(literal) or "\\" in literal:
            break
        if any(len(s) <= len(common) + 1 for s in split):
            break
        common.append(literal)
    rests = ["/".join(s[len(common) :]) for s in split]
    depths = [None if "**" in r.split("/") else r.count("/") + 1 for r in rests]
    max_depth = None if None in depths else max(d for d in depths if d is not None)
    regex = re.compile("(?:" + "|".join(translate(r) for r in rests) + r")\Z", re.DOTALL)
    prefix = "".join(seg + "/" for seg in common)
    last = {r.split("/")[-1] for r in rests}
    plain = all("**" not in seg and not _NOT_A_NAME_GLOB.search(seg) for seg in last)
    return CompiledGlob(prefix, regex, max_depth, tuple(sorted(last)) if plain else ())
