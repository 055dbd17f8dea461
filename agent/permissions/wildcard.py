"""Claude Code's wildcard Bash rules: ``Bash(git * main)``, ``Bash(* --version)``, ``Bash(ls*)``.

``*`` matches any run of characters (spaces too) anywhere in the specifier; ``\\*`` is a
literal star. A specifier ending in `` *`` (space, star) matches at a word boundary and also
the bare command: ``Bash(ls *)`` matches ``ls`` and ``ls -la`` but not ``lsof``, while
``Bash(ls*)`` matches all three, as Claude Code documents. The legacy ``Bash(npm:*)`` and the
plain ``Bash(npm run *)`` keep the word matching of :mod:`agent.permissions.rule`; this
module serves the specifiers with a star elsewhere.

The pattern is matched against ONE simple command of a parsed command line (its words joined
by single spaces, each quoted as the shell would need), never against the raw line: so
``Bash(git * main)`` cannot allow ``git push main; rm -rf /`` (``rm -rf /`` is its own part,
and every part must be allowed) nor ``git $(rm x) main`` (a word known only at run time can
only "maybe" match, which allows nothing and makes a deny rule ask).
"""

from __future__ import annotations

import functools
import os
import re
import shlex
from dataclasses import dataclass
from typing import Literal

from agent.shell.words import Word

Match = Literal["yes", "maybe", "no"]
_STAR = object()


def is_wildcard(spec: str) -> bool:
    """Whether a Bash specifier needs wildcard matching (a star that is not the legacy
    trailing ``:*`` and not a plain trailing `` *`` after ordinary words)."""
    body = spec[:-2] if spec.endswith((":*", " *")) else spec
    return bool(_tokens(body)[1])


def _tokens(text: str) -> tuple[list[object], bool]:
    """(literal characters and _STAR markers, whether any star is unescaped)."""
    out: list[object] = []
    stars = False
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text) and text[i + 1] in "*\\":
            out.append(text[i + 1])
            i += 2
            continue
        if ch == "*":
            stars = True
            if not out or out[-1] is not _STAR:
                out.append(_STAR)
        else:
            out.append(ch)
        i += 1
    return out, stars


@dataclass(frozen=True)
class Pattern:
    """A compiled wildcard specifier."""

    tokens: tuple[object, ...]
    regex: re.Pattern[str]


@functools.lru_cache(maxsize=512)
def compile_pattern(spec: str) -> Pattern:
    """Compile a Bash specifier; a trailing `` *`` also matches the bare command."""
    optional_tail = spec.endswith(" *") and not spec.endswith("\\ *")
    body = spec[:-2] if optional_tail else spec
    tokens, _ = _tokens(body)
    regex = "".join(".*" if t is _STAR else re.escape(str(t)) for t in tokens)
    if optional_tail:
        regex += "(?: .*)?"
        tokens = [*tokens, " ", _STAR]
    return Pattern(tuple(tokens), re.compile(regex, re.S))


def _quote(word: str) -> str:
    return shlex.quote(word) if word else "''"


def _could_start(pattern: Pattern, prefix: str) -> bool:
    """Whether some string that starts with ``prefix`` matches ``pattern``."""
    tokens = pattern.tokens

    def close(states: set[int]) -> set[int]:
        out = set(states)
        for i in sorted(states):
            j = i
            while j < len(tokens) and tokens[j] is _STAR:
                j += 1
                out.add(j)
        return out

    states = close({0})
    for ch in prefix:
        nxt: set[int] = set()
        for i in states:
            if i < len(tokens):
                if tokens[i] is _STAR:
                    nxt.add(i)
                elif tokens[i] == ch:
                    nxt.add(i + 1)
        states = close(nxt)
        if not states:
            return False
    return True


def match_words(spec: str, argv: tuple[Word, ...], *, open_args: bool, loose: bool) -> Match:
    """Match a wildcard specifier against one command's words.

    Args:
        spec: the specifier (``git * main``).
        argv: the command's words.
        open_args: more words follow at run time (xargs): at best "maybe".
        loose: also try the program's base name (``/bin/rm`` for ``rm``): deny and ask rules.

    Returns:
        "yes" when every word is known and the joined words match; "maybe" when words known
        only at run time could make it match; "no" otherwise.
    """
    pattern = compile_pattern(spec)
    firsts = [argv[0].value]
    if loose and argv[0].static and os.path.basename(argv[0].value) != argv[0].value:
        firsts.append(os.path.basename(argv[0].value))
    result: Match = "no"
    for first in firsts:
        known: list[str] = []
        for i, word in enumerate(argv):
            if not word.static or word.glob:
                break
            known.append(first if i == 0 else word.value)
        joined = " ".join(_quote(w) for w in known)
        if len(known) == len(argv) and not open_args:
            if pattern.regex.fullmatch(joined):
                return "yes"
        elif _could_start(pattern, joined + " " if known else ""):
            result = "maybe"
    return result
