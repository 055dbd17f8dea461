"""Wrappers seen through: the command ``env``, ``timeout``, ``sudo``, ``xargs``, ... run.

:data:`WRAPPERS` maps a wrapper's name to a function that skips its options and returns the
inner command and the assignments it adds (``env NAME=value``); :data:`PRIVILEGED` names the
wrappers (``sudo``, ``doas``) whose own command line is what allow rules must match;
:func:`shell_script` finds the script of ``sh -c SCRIPT``. A wrapper option eddy does not
know raises :class:`Opaque`. Used by :func:`agent.shell.parser.parse`. Stdlib only, no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from agent.shell.words import ASSIGNMENT, Word, literal, word_set


class Opaque(Exception):
    """eddy cannot tell what a wrapper runs (an option it does not know, ...): says why."""


def _skip_options(
    args: list[Word],
    flags: frozenset[str] = frozenset(),
    short_arg: str = "",
    long_arg: frozenset[str] = frozenset(),
) -> int:
    """The index of the first operand after the options; unknown options raise Opaque."""
    i = 0
    while i < len(args):
        w = args[i]
        if not w.static:
            raise Opaque(f"the option {w.text} is only known at run time")
        v = w.value
        if v == "--":
            return i + 1
        if not v.startswith("-") or v == "-":
            return i
        if v in flags:
            i += 1
        elif v.startswith("--") and v.split("=", 1)[0] in long_arg:
            i += 1 if "=" in v else 2
        elif not v.startswith("--") and v[1] in short_arg:
            i += 1 if len(v) > 2 else 2
        else:
            raise Opaque(f"eddy does not know the option {v}")
    return i


Unwrapped = tuple[list[Word] | None, list[Word]]
"""(the inner command, or None when the wrapper is itself the program; assignments it adds)."""


def _env(args: list[Word]) -> Unwrapped:
    i, assigns = 0, []
    while i < len(args):
        w = args[i]
        if not w.static:
            raise Opaque(f"the argument {w.text} of env is only known at run time")
        v = w.value
        if ASSIGNMENT.match(v):
            assigns.append(w)
            i += 1
        elif v in ("-i", "-", "--ignore-environment", "-0", "--null", "--"):
            i += 1
        elif v in ("-u", "--unset"):
            i += 2
        elif v.startswith(("-u", "--unset=")):
            i += 1
        elif v.startswith("-"):
            raise Opaque(f"eddy does not know the env option {v}")
        else:
            break
    return (args[i:] or None), assigns


def _simple(
    flags: frozenset[str] = frozenset(),
    short_arg: str = "",
    long_arg: frozenset[str] = frozenset(),
    operand: bool = False,
    bare_is_program: bool = True,
) -> Callable[[list[Word]], Unwrapped]:
    def unwrap(args: list[Word]) -> Unwrapped:
        i = _skip_options(args, flags, short_arg, long_arg)
        i += 1 if operand else 0  # timeout's duration
        inner = args[i:]
        if not inner:
            if bare_is_program:
                return None, []
            raise Opaque("a wrapper without a command")
        return inner, []

    return unwrap


def _nice(args: list[Word]) -> Unwrapped:
    if args and args[0].static and re.fullmatch(r"-\d+", args[0].value):
        args = args[1:]
    return _simple(short_arg="n", long_arg=frozenset({"--adjustment"}))(args)


def _command(args: list[Word]) -> Unwrapped:
    if any(w.static and w.value in ("-v", "-V") for w in args[:2]):
        return None, []
    return _simple(frozenset({"-p"}))(args)


def _exec(args: list[Word]) -> Unwrapped:
    i = _skip_options(args, frozenset({"-c", "-l"}), "a")
    return args[i:], []


def _xargs(args: list[Word]) -> Unwrapped:
    flags = word_set(
        "-0 --null -r --no-run-if-empty -t --verbose -x --exit -p --interactive -o --open-tty "
        "-i -l -e"
    )
    long_arg = word_set(
        "--arg-file --delimiter --eof --replace --max-lines --max-args --max-procs --max-chars "
        "--process-slot-var"
    )
    # -i, -l and -e take an optional argument, glued to them: -i{} -l1 -eEOF
    glued = [
        literal(w.value[:2]) if w.static and re.fullmatch(r"-[ile].+", w.value) else w for w in args
    ]
    i = _skip_options(glued, flags, "ILnPdaEs", long_arg)
    for w in glued[:i]:
        v = w.value
        if re.fullmatch(r"-[IJia].*", v) or v.startswith(("--replace", "--arg-file")):
            # a replacement string puts input anywhere in the command, even as its program;
            # -a reads the arguments from a file eddy does not see
            raise Opaque(f"the xargs option {v} (replacement strings, argument files)")
    return (args[i:] or [literal("echo")]), []


_SUDO = _simple(
    frozenset({"-E", "-H", "-n", "-S", "-k", "-K", "-b", "-P", "--preserve-env", "--login"}),
    "ugDChprtTU",
    frozenset({"--user", "--group", "--chdir", "--host", "--prompt"}),
)
WRAPPERS: dict[str, Callable[[list[Word]], Unwrapped]] = {
    "env": _env,
    "timeout": _simple(
        frozenset({"--preserve-status", "--foreground", "-v", "--verbose"}),
        "sk",
        frozenset({"--signal", "--kill-after"}),
        operand=True,
        bare_is_program=False,
    ),
    "nice": _nice,
    "nohup": _simple(bare_is_program=False),
    "time": _simple(frozenset({"-p"})),
    "command": _command,
    "builtin": _simple(),
    "exec": _exec,
    "stdbuf": _simple(
        short_arg="ioe",
        long_arg=frozenset({"--input", "--output", "--error"}),
        bare_is_program=False,
    ),
    "xargs": _xargs,
    "sudo": _SUDO,
    "doas": _simple(frozenset({"-n", "-s"}), "uC"),
}
"""Each wrapper's unwrapper: its arguments -> (the inner command, the assignments it adds)."""
PRIVILEGED = frozenset({"sudo", "doas"})
"""Wrappers seen through for deny rules only: allow rules must match the command as written."""
SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh"})
"""Shells whose ``-c SCRIPT`` is parsed as commands."""


_SHELL_FLAGS = frozenset("ceuxvnfhBCEHPTr")
"""Single-letter shell options that change nothing eddy models (not -i, -l, -k, -a, -O, -s)."""
_SHELL_SET_O = word_set("errexit nounset pipefail xtrace verbose noclobber noglob posix")
_PLAIN_WORD = re.compile(r"(?:[\w./=:,+@%^-]|'[^'\\]*')+")


def plain_words(script: str) -> bool:
    """Whether ``script`` is only plain words, which every POSIX shell reads the same way.

    No operators, redirections, expansions, globs, braces or tildes: what dash makes of
    anything else is not what bash does (``echo &>/dev/null cmd`` runs ``cmd`` in dash).
    """
    words = script.split()
    return bool(words) and all(_PLAIN_WORD.fullmatch(w) for w in words)


def shell_script(args: list[Word]) -> Word | None:
    """The script of ``sh -c SCRIPT``; None when the shell runs a file or stdin.

    Raises:
        Opaque: for options that make the shell read files eddy does not see (``-i`` and
            ``-l`` read rc files, ``--rcfile``), or change how words are read (``-k``,
            ``-a``, ``-O extglob``).
    """
    has_c, i = False, 0
    while i < len(args):
        w = args[i]
        if not w.static:
            raise Opaque("a shell option only known at run time")
        v = w.value
        if v in ("--norc", "--noprofile", "--posix"):
            i += 1
        elif re.fullmatch(r"[-+][A-Za-z]+", v):
            letters, i = _shell_flags(args, i)
            has_c = has_c or "c" in letters
        elif v == "--":
            i += 1
            break
        elif v.startswith("-"):
            raise Opaque(f"eddy does not know the shell option {v}")
        else:
            break
    if not has_c:
        return None
    if i >= len(args):
        raise Opaque("sh -c without a script")
    return args[i]


def _shell_flags(args: list[Word], i: int) -> tuple[str, int]:
    """The letters of the flag cluster ``args[i]`` (``-euo pipefail``: ``-o``'s value is
    checked and consumed) and the index after it.

    Raises:
        Opaque: a flag that reads rc files or changes how words are read.
    """
    v = args[i].value
    letters = v[1:]
    if "o" in letters:
        value = args[i + 1] if i + 1 < len(args) else None
        if value is None or not value.static or value.value not in _SHELL_SET_O:
            raise Opaque(f"the shell option {v} {value.text if value else ''}".strip())
        letters = letters.replace("o", "")
        i += 1
    bad = sorted(set(letters) - _SHELL_FLAGS)
    if bad:
        raise Opaque(f"the shell option -{bad[0]} (rc files, word meaning)")
    return letters, i + 1
