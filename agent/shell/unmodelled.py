"""Commands whose meaning eddy's model of bash does not capture: they always ask.

:func:`unmodelled` names what in one command (its words as :mod:`agent.shell.parser` found
them) depends on something eddy does not model:

- builtins that change how later words are read or run code of their own (``let``,
  ``shopt``, ``set -k``, ``trap``, ``declare -i``, ``read``/``printf -v`` into a variable);
- options of programs with option parsers of their own that run programs or write files
  (``find -exec``, ``sort -o``/``--compress-program``, ``rg --pre``, ``git grep -O``,
  ``tar --to-command``, ...), including the abbreviations and clusters those parsers accept
  (git's parse-options takes ``--open`` for ``--open-files-in-pager``, ``-iO`` for ``-i -O``);
- pagers and ``man``, which run programs eddy does not see.

Such a command is neither read-only nor matched by an allow rule that does not name it
exactly: :mod:`agent.permissions.bash` asks (plan mode and headless refuse). Stdlib only, no I/O.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable

from agent.shell.words import Word, word_seq, word_set

_BUILTINS = {
    "let": "let evaluates arithmetic",
    "shopt": "shopt changes how bash reads later words",
    "enable": "enable loads or switches builtins",
    "hash": "hash -p maps a name to any program",
    "alias": "alias changes what later words run",
    "trap": "trap runs code of its own later",
    "bind": "bind configures readline",
    "fc": "fc runs an editor and the commands it writes",
    "history": "history reads and writes the history file",
    "mapfile": "mapfile assigns arrays and may run a callback",
    "readarray": "readarray assigns arrays and may run a callback",
    "getopts": "getopts assigns variables",
    "read": "read assigns variables from input",
    "coproc": "coproc is not modelled",
    "complete": "complete may run commands of its own",
    "compgen": "compgen may run commands of its own",
    "pushd": "pushd and popd move through a directory stack eddy does not see",
    "popd": "pushd and popd move through a directory stack eddy does not see",
    "less": "a pager runs commands eddy does not see",
    "more": "a pager runs commands eddy does not see",
    "most": "a pager runs commands eddy does not see",
    "pg": "a pager runs commands eddy does not see",
    "man": "man runs formatters and a pager eddy does not see",
    "info": "info runs commands eddy does not see",
}
_SET_LETTERS = frozenset("euxvC")
_SET_O = word_set("errexit nounset pipefail xtrace verbose noclobber")
_DECLARE_BAD = frozenset("inaAluctI")
"""declare/typeset/local attributes: integer (evaluates arithmetic), nameref, arrays, case."""

# long options that run a program or write a file; any prefix of them counts, since
# getopt_long and git's parse-options accept unambiguous abbreviations
_BAD_LONG: dict[str, tuple[str, ...]] = {
    "git": word_seq(
        "--output --open-files-in-pager --ext-diff --upload-pack --receive-pack --exec "
        "--config-env --exec-path"
    ),
    "sort": word_seq("--output --compress-program --temporary-directory"),
    "rg": word_seq("--pre --hostname-bin --search-zip"),
    "tar": word_seq(
        "--to-command --use-compress-program --checkpoint-action --info-script "
        "--new-volume-script --rsh-command --rmt-command --index-file --compress-program"
    ),
    "zip": word_seq("--unzip-command"),
    "rsync": word_seq("--rsh --rsync-path"),
}
# short options (in any cluster) that run a program or write a file
_BAD_SHORT: dict[str, str] = {
    "git": "O",
    "sort": "oT",
    "rg": "z",
    "tar": "IFg",
    "zip": "T",
    "rsync": "e",
}
# short options whose argument may be glued to them: letters after them are not options
_ARG_SHORT: dict[str, str] = {
    "git": "",  # subcommands differ (-n: a count in log, a flag in grep): any -O counts
    "sort": "kSt",
    "rg": "efgtTABCmMjrEd",
    "tar": "fCbKLNTVX",
    "zip": "bnPt",
    "rsync": "fB",
}
_FIND_BAD = word_set("-exec -execdir -ok -okdir -delete -fprint -fprint0 -fprintf -fls")
_GIT_GLOBAL_BAD = ("-c", "--config-env", "--exec-path", "--git-dir", "--work-tree")
_SSH_OPTIONS = re.compile(r"(?i)(ProxyCommand|LocalCommand|PermitLocalCommand|KnownHostsCommand)")


def _long_prefix(value: str, bad: tuple[str, ...]) -> str | None:
    """The bad long option that ``value`` (``--name[=x]``) names or abbreviates."""
    name = value.split("=", 1)[0]
    if len(name) < 3:
        return None
    return next((b for b in bad if b.startswith(name)), None)


def _cluster_hit(letters: str, bad: str, takes_arg: str) -> str | None:
    """The bad letter in a cluster such as ``-iO`` (letters after one taking an argument end it)."""
    for ch in letters:
        if ch in bad:
            return ch
        if ch in takes_arg:
            return None
    return None


def _options(program: str, args: tuple[Word, ...]) -> str | None:
    """A bad option of ``program`` among ``args`` (before ``--``)."""
    if program == "find":
        return _find_options(args)
    for k, w in enumerate(args):
        if not w.static:
            continue
        if w.value == "--":
            break
        if program == "tar" and k == 0 and re.fullmatch(r"[A-Za-z]+", w.value):
            why = _tar_cluster(w.value)
        else:
            why = _bad_option(program, w.value)
        if why is not None:
            return why
    return None


def _find_options(args: tuple[Word, ...]) -> str | None:
    """A bad ``find`` action among ``args`` (a word not known before running counts)."""
    for w in args:
        if not w.static:
            return f"`{w.text}` is only known at run time and could be -exec"
        if w.value == "--":
            break
        if w.value in _FIND_BAD:
            return f"find {w.value} runs a program or writes a file"
    return None


def _tar_cluster(value: str) -> str | None:
    """An old-style tar cluster as first word (``tar cIf prog ...``) with a bad letter."""
    hit = _cluster_hit(value, _BAD_SHORT["tar"], "")
    return f"tar {value} (the option -{hit}) runs a program or writes a file" if hit else None


def _bad_option(program: str, value: str) -> str | None:
    """Why the option word ``value`` (a long option or a short cluster) is bad, or None."""
    if value.startswith("--"):
        bad = _long_prefix(value, _BAD_LONG.get(program, ()))
        if bad:
            return f"{program} {value} (that is {bad}) runs a program or writes a file"
    elif value.startswith("-") and len(value) > 1:
        hit = _cluster_hit(value[1:], _BAD_SHORT.get(program, ""), _ARG_SHORT.get(program, ""))
        if hit:
            return f"{program} {value} (the option -{hit}) runs a program or writes a file"
    return None


def _set(_program: str, args: tuple[Word, ...]) -> str | None:
    i = 0
    while i < len(args):
        w = args[i]
        if not w.static:
            return "set with options only known at run time"
        v = w.value
        if v == "--" or not v.startswith(("-", "+")):
            return None
        letters = v[1:]
        if "o" in letters:
            value = args[i + 1].value if i + 1 < len(args) and args[i + 1].static else ""
            if value not in _SET_O:
                return f"set {v} {value}".rstrip() + " changes how bash reads later words"
            letters = letters.replace("o", "")
            i += 1
        bad = sorted(set(letters) - _SET_LETTERS)
        if bad:
            return f"set -{bad[0]} changes how bash reads later words"
        i += 1
    return None


def _declare(name: str, args: tuple[Word, ...]) -> str | None:
    for w in args:
        if not w.static:
            return f"{name} with words only known at run time"
        v = w.value
        if v.startswith(("-", "+")) and len(v) > 1:
            bad = sorted(set(v[1:]) & _DECLARE_BAD)
            if bad:
                return f"{name} -{bad[0]} (integer, nameref or array variables)"
            if name == "export" and "f" in v:
                return "export -f exports a function to every child"
        elif "[" in v.split("=", 1)[0]:
            return f"{name} of an array element (its subscript is evaluated)"
    return None


ONLY_PRINTS = frozenset({"printenv"})
"""Programs whose one action is the reason they are not modelled (printing variables): an
allow rule naming the program can only mean that, so it is the user's choice and allows it
(:class:`agent.permissions.bash.BashCheck`), where a rule for ``set -e`` or ``export X=1``
says nothing about printing every variable."""


def _prints_variables(program: str, args: tuple[Word, ...]) -> str | None:
    """``set``, ``export -p``, ``declare``, ``env``, ``printenv``: they print every variable
    (secrets included), whatever a rule allowing ``set -e`` or ``export X=1`` meant."""
    why = f"{program} without names prints every variable, secrets included"
    names = [w for w in args if not (w.static and w.value.startswith(("-", "+")))]
    if program == "printenv":
        return "printenv prints variables, secrets included"
    if program == "env":
        return None if names else why  # with a command, env runs it (a layer of its own)
    declarer = program in ("declare", "typeset", "export", "readonly", "local")
    if declarer and (not names or any(w.static and w.value in ("-p", "-P") for w in args)):
        return why
    if program == "set" and not args:
        return why
    return None


def unmodelled(argv: tuple[Word, ...]) -> str | None:
    """Why eddy's model does not capture what ``argv`` does, or None if it does.

    Args:
        argv: one command's words, wrappers seen through.

    Returns:
        A reason for the user (``find -exec runs a program or writes a file``), or None.
    """
    if not argv or not argv[0].static:
        return None
    program, args = os.path.basename(argv[0].value), argv[1:]
    if program in _BUILTINS:
        return _BUILTINS[program]
    printed = _prints_variables(program, args)
    if printed is not None:
        return printed
    check = _CHECKS.get(program)
    return check(program, args) if check is not None else None


def _printf(program: str, args: tuple[Word, ...]) -> str | None:
    if any(w.static and w.value.startswith("-v") for w in args[:2]):
        return "printf -v assigns a variable (its subscript is evaluated)"
    return None


def _job_control(program: str, args: tuple[Word, ...]) -> str | None:
    if any(w.static and re.fullmatch(r"-[a-z]*[xp][a-z]*", w.value) for w in args):
        return f"{program} -x/-p runs a command or assigns a variable"
    return None


def _ssh(program: str, args: tuple[Word, ...]) -> str | None:
    if any(_SSH_OPTIONS.search(w.value) for w in args if w.static):
        return f"{program} -o ...Command runs a local command"
    return None


def _git(program: str, args: tuple[Word, ...]) -> str | None:
    """git's global options before the subcommand, then its subcommands' options."""
    for w in args:
        if not w.static or not w.value.startswith("-"):
            break
        if w.value.split("=", 1)[0] in _GIT_GLOBAL_BAD:
            return f"git {w.value} can make git run any program"
    return _options(program, args)


_Check = Callable[[str, tuple[Word, ...]], "str | None"]
_CHECKS: dict[str, _Check] = {
    **dict.fromkeys(("find", *_BAD_LONG, *_BAD_SHORT), _options),
    **dict.fromkeys(("declare", "typeset", "local", "export", "readonly"), _declare),
    "set": _set,
    "printf": _printf,
    "jobs": _job_control,
    "wait": _job_control,
    "ssh": _ssh,
    "scp": _ssh,
    "sftp": _ssh,
    "git": _git,
}
"""The check of each program whose options or words may leave eddy's model."""
