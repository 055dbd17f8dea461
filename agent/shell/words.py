"""The vocabulary of parsed shell commands, shared by the lexer, the parser and the tables.

- :class:`Word` is one word, quote-removed, with what depends on run time marked
  (``$X``, ``$(...)``, globs, braces, ``~``); :class:`Redirect` a redirection and
  :class:`SimpleCommand` the assignments, words and redirections of one command as written.
- :class:`ParseState` is what one parse has found so far; :class:`ShellParseError` is raised
  for syntax eddy does not understand.
- :data:`ASSIGNMENT` recognises ``NAME=value`` words; :func:`word_set` and :func:`word_seq`
  build the tables of names the parser and :mod:`agent.shell.readonly` use.

Stdlib only, no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal


class ShellParseError(ValueError):
    """The command uses syntax eddy does not understand; the caller must ask the user."""


@dataclass(frozen=True)
class Word:
    """One shell word.

    Attributes:
        value: the word after quote removal; run-time parts are kept as written (``$X``).
        raw: the word as written in the source.
        dynamic: it contains a parameter, command or arithmetic expansion.
        glob: it contains unquoted ``*``, ``?`` or ``[`` (pathname expansion).
        brace: it contains an unquoted brace expansion (``{a,b}``, ``{1..3}``).
        tilde: it starts with an unquoted ``~``.
        quoted: some part of it was quoted or escaped.
        subs: the commands its substitutions run (already flattened).
    """

    value: str
    raw: str = ""
    dynamic: bool = False
    glob: bool = False
    brace: bool = False
    tilde: bool = False
    quoted: bool = False
    subs: tuple[SimpleCommand, ...] = ()

    @property
    def static(self) -> bool:
        """Its value is known before the command runs (globs aside)."""
        return not self.dynamic and not self.brace

    @property
    def text(self) -> str:
        return self.raw or self.value


def literal(value: str) -> Word:
    """A word with a known value (for wrappers' defaults and tests)."""
    return Word(value, value)


RedirectKind = Literal["write", "read", "dup", "data"]


@dataclass(frozen=True)
class Redirect:
    """A redirection: ``op`` is one of > >> >| &> &>> <> < >& <& << <<- <<<."""

    op: str
    target: Word | None
    fd: int | None = None

    @property
    def kind(self) -> RedirectKind:
        """write/read a file, dup a descriptor, or data (here-document, here-string)."""
        if self.op in ("<<", "<<-", "<<<"):
            return "data"
        target = self.target
        if (
            self.op in (">&", "<&")
            and target is not None
            and target.static
            and re.fullmatch(r"\d*-?", target.value)
        ):
            return "dup"
        if self.op in ("<", "<&"):
            return "read"
        return "write"


LoopVariables = tuple[tuple[str, tuple[Word, ...] | None], ...]
"""The ``for`` loops around a command: (variable, the words it takes, or None if unknown)."""


@dataclass(frozen=True)
class SimpleCommand:
    """Assignments, words and redirections of one simple command, as written.

    Attributes:
        sep: the operator before it (``&&``, ``;``, ``|``, ...; ``""`` for the first command,
            ``)`` right after a subshell closed), which says whether a ``cd`` before it
            certainly took effect.
        subshell: it runs in a child shell of the commands around it (a substitution, the
            script of ``bash -c``), so a ``cd`` in it moves nothing after it.
        loop_vars: the variables of the ``for`` loops whose body it is in.
        stdin_words: the words of the command piped into it (``find . | xargs wc -l``).
    """

    words: tuple[Word, ...] = ()
    assignments: tuple[Word, ...] = ()
    redirects: tuple[Redirect, ...] = ()
    sep: str = ""
    subshell: bool = False
    loop_vars: LoopVariables = ()
    stdin_words: tuple[Word, ...] = ()


@dataclass
class ParseState:
    """What one parse has found so far, shared by the nested lexers and parsers."""

    loops: bool = False
    """Whether the command line has a ``while``, ``until`` or ``for`` loop."""
    arith_names: set[str] = field(default_factory=set)
    """The variables arithmetic reads (``$((n+1))``, ``[[ $n -eq 1 ]]``): each must be
    shown to hold a number (:func:`agent.shell.variables.numeric_names`)."""
    functions: dict[str, tuple[list[Any], bool]] = field(default_factory=dict)
    """The shell functions defined so far: name -> (the body's tokens, a ``( )`` body)."""
    calling: set[str] = field(default_factory=set)
    """The functions whose bodies are being expanded at a call (a recursive call adds none)."""


ASSIGNMENT = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(\[[^\]]*\])?\+?=")
"""``NAME=``, ``NAME+=`` or ``NAME[sub]=`` at the start of a word's source text."""


def word_set(text: str) -> frozenset[str]:
    """The space-separated words of ``text``, as a set (tables of names and options)."""
    return frozenset(text.split())


def word_seq(text: str) -> tuple[str, ...]:
    """The space-separated words of ``text``, in order."""
    return tuple(text.split())


def path_like(text: str) -> bool:
    """Whether an option's value looks like a path (``--file=src/x``, ``-o/tmp/x``)."""
    return text.startswith(("/", "~", ".")) or "/" in text


def long_option_hits(name: str, bad: tuple[str, ...] | frozenset[str]) -> bool:
    """``--outp`` abbreviates ``--output``: getopt accepts unambiguous prefixes."""
    return any(b == name or (len(name) > 2 and b.startswith(name)) for b in bad)
