"""Which variable assignments are safe: ``NAME=value`` words before a command or in ``env``.

:func:`unsafe_assignment` flags the variables that can change which program runs or run code
themselves (``PATH``, ``LD_PRELOAD``, ``GIT_*``, a pager); :func:`read_only_assignment` the
ones a read-only command stays read-only with (locale, colour). The permission layer and
:mod:`agent.shell.readonly` ask them. Stdlib only, no I/O.
"""

from __future__ import annotations

from agent.shell.words import ASSIGNMENT, Word, word_set

_UNSAFE_VARIABLES = word_set(
    "PATH IFS ENV BASH_ENV SHELLOPTS BASHOPTS PS4 PROMPT_COMMAND CDPATH GLOBIGNORE HOME "
    "BASH_XTRACEFD PYTHONPATH PYTHONSTARTUP NODE_OPTIONS PERL5OPT RUBYOPT"
)
_READ_ONLY_VARIABLES = word_set(
    "LANG LANGUAGE TZ NO_COLOR FORCE_COLOR TERM COLUMNS LINES CLICOLOR CLICOLOR_FORCE"
)


def assignment_name(word: Word) -> str:
    """The variable a ``NAME=value`` word sets (with ``[...]`` if it sets an array element)."""
    m = ASSIGNMENT.match(word.raw) or ASSIGNMENT.match(word.value)
    return (m.group(1) + (m.group(2) or "")) if m else word.value.split("=", 1)[0]


def unsafe_assignment(word: Word) -> bool:
    """Whether setting this variable can change which program runs or run code itself."""
    name = assignment_name(word)
    if name in ("PAGER", "GIT_PAGER"):
        return not (word.static and word.value.split("=", 1)[1] in ("", "cat"))
    return (
        "[" in name
        or name in _UNSAFE_VARIABLES
        or name.startswith(("LD_", "DYLD_", "BASH_FUNC_", "GIT_"))
    )


def read_only_assignment(word: Word) -> bool:
    """Whether a read-only command stays read-only with this variable set (locale, colour)."""
    name = assignment_name(word)
    if name in ("PAGER", "GIT_PAGER"):
        return word.static and word.value.split("=", 1)[1] in ("", "cat")
    return name in _READ_ONLY_VARIABLES or name.startswith("LC_")
