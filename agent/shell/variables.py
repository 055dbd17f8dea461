"""Which variable assignments are safe: ``NAME=value`` words before a command or in ``env``.

:func:`unsafe_assignment` flags the variables that can change which program runs or run code
themselves (``PATH``, ``LD_PRELOAD``, ``GIT_*``, a pager); :func:`read_only_assignment` the
ones a read-only command stays read-only with (locale, colour). The permission layer and
:mod:`agent.shell.readonly` ask them. Stdlib only, no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from agent.shell.words import ASSIGNMENT, Word, word_set

if TYPE_CHECKING:
    from agent.shell.parser import Command

_UNSAFE_VARIABLES = word_set(
    "PATH IFS ENV BASH_ENV SHELLOPTS BASHOPTS PS4 PROMPT_COMMAND CDPATH GLOBIGNORE HOME "
    "BASH_XTRACEFD PYTHONPATH PYTHONSTARTUP NODE_OPTIONS PERL5OPT RUBYOPT PERL5LIB RUBYLIB "
    "NODE_PATH EDITOR VISUAL PAGER MANPAGER MANOPT LESS LESSOPEN LESSCLOSE LESSKEY SHELL "
    "TMPDIR TAR_OPTIONS RIPGREP_CONFIG_PATH GREP_OPTIONS POSIXLY_CORRECT JAVA_TOOL_OPTIONS "
    "MAKEFLAGS HISTFILE HISTCONTROL INPUTRC TERMINFO FIGNORE EXECIGNORE SUDO_ASKPASS SSH_ASKPASS "
    "GNUPGHOME CURL_HOME WGETRC ZDOTDIR OLDPWD PWD"
)
_UNSAFE_PREFIXES = (
    "LD_",
    "DYLD_",
    "BASH_FUNC_",
    "GIT_",
    "npm_config_",
    "NPM_CONFIG_",
    "XDG_",
    "PYTHON",
    "PIP_",
    "SSH_",
    "BASH_",
    "COMP_",
    "HIST",
)
# integer variables: bash evaluates what they are set to as arithmetic, and an array
# subscript in it runs command substitutions (OPTIND='a[$(touch x)]')
_INTEGER_VARIABLES = word_set(
    "OPTIND OPTERR RANDOM SRANDOM SECONDS LINENO HISTCMD COLUMNS LINES TMOUT MAILCHECK "
    "EPOCHSECONDS EPOCHREALTIME FUNCNEST BASH_ARGV0 BASH_COMPAT HISTSIZE HISTFILESIZE"
)
_SECRET = re.compile(
    r"KEY|TOKEN|SECRET|PASSW|CREDENTIAL|AUTH|COOKIE|SESSION|PRIVATE|^ANTHROPIC_|^AWS_|^GOOGLE_"
    r"|^GCP_|^GCLOUD|^AZURE_|^OPENAI_|^GH_|^GITHUB_|^CLAUDE|^EDDY_|^NPM_TOKEN|^DOCKER_|^VAULT_",
    re.I,
)
_EXPANSION = re.compile(r"\$\{?#?!?([A-Za-z_][A-Za-z0-9_]*)")
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
    if name in _INTEGER_VARIABLES:
        return not re.fullmatch(r"=-?\d*", word.value[len(name) :])
    return "[" in name or name in _UNSAFE_VARIABLES or name.startswith(_UNSAFE_PREFIXES)


def secret_variable(name: str) -> bool:
    """Whether a variable of this name likely holds a secret (``ANTHROPIC_API_KEY``)."""
    return bool(_SECRET.search(name))


def secret_expansions(text: str) -> list[str]:
    """The secret-looking variables ``text`` expands (quoted or not: over-inclusive)."""
    return [name for name in _EXPANSION.findall(text) if secret_variable(name)]


def read_only_assignment(word: Word) -> bool:
    """Whether a read-only command stays read-only with this variable set (locale, colour)."""
    name = assignment_name(word)
    if name in ("PAGER", "GIT_PAGER"):
        return word.static and word.value.split("=", 1)[1] in ("", "cat")
    return name in _READ_ONLY_VARIABLES or name.startswith("LC_")


_DECLARERS = word_set("export declare typeset local readonly")
# commands that set the variables they name
_SETTERS = word_set("read export declare typeset local readonly unset getopts mapfile readarray")


def declared_assignments(argv: tuple[Word, ...]) -> list[Word]:
    """The ``NAME=value`` arguments of export/declare/local/readonly/typeset: assignments."""
    if not argv or not argv[0].static or argv[0].value not in _DECLARERS:
        return []
    return [w for w in argv[1:] if ASSIGNMENT.match(w.value)]


def assigned_names(commands: Iterable[Command]) -> frozenset[str]:
    """The variables these commands may set; ``*`` when one is only known at run time."""
    names: set[str] = set()
    for cmd in commands:
        names.update(assignment_name(a).split("[")[0] for a in cmd.assignments)
        if cmd.program in _SETTERS:
            for w in cmd.argv[1:]:
                names.add(w.value.split("=", 1)[0] if w.static else "*")
        if any(not w.static for w in cmd.assignments):
            names.add("*")
    return frozenset(names)


NUMERIC_SPECIALS = word_set("RANDOM SRANDOM SECONDS LINENO BASHPID PPID UID EUID EPOCHSECONDS")
"""Variables bash itself keeps numeric (assigning one is unsafe: :data:`_INTEGER_VARIABLES`)."""
_NUMBER = re.compile(r"\s*[-+]?[0-9]+\s*")
_ARITH_VALUE = re.compile(r"(\"?)\$\(\([^`\[\]'\"]*\)\)\1")


def numeric_names(
    names: Iterable[str], commands: Iterable[Command], environ: Mapping[str, str]
) -> str | None:
    """The first of ``names`` (variables arithmetic reads) that may hold something other than
    a number, or None when each can only hold a number: its value in ``environ`` (what the
    command inherits) is a number or unset, every assignment to it in the command line is a
    number or an arithmetic expansion (whose own names are checked too), and every ``for``
    loop over it runs over numbers. ``read``, ``getopts``, ``printf -v`` and ``mapfile``
    assign too, but they ask on their own (:mod:`agent.shell.unmodelled`).

    Args:
        names: the variables (``ParseState.arith_names``).
        commands: the command line's commands.
        environ: the environment the command will inherit.
    """
    commands = list(commands)
    for name in sorted(names):
        if not _numeric(name, commands, environ):
            return name
    return None


def _numeric(name: str, commands: list[Command], environ: Mapping[str, str]) -> bool:
    value = environ.get(name)
    if name not in NUMERIC_SPECIALS and value is not None and not _NUMBER.fullmatch(value):
        return False
    for cmd in commands:
        for word in (*cmd.assignments, *declared_assignments(cmd.argv)):
            if assignment_name(word) != name:
                continue
            if name in NUMERIC_SPECIALS:
                return False
            raw = word.raw.split("=", 1)[1] if "=" in word.raw else ""
            number = word.static and _NUMBER.fullmatch(word.value.split("=", 1)[1])
            if not (number or _ARITH_VALUE.fullmatch(raw)):
                return False
        for var, values in cmd.loop_vars:
            if var == name and (
                values is None or not all(w.static and _NUMBER.fullmatch(w.value) for w in values)
            ):
                return False
    return True
