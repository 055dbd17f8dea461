"""Which shell commands only read: the built-in read-only set.

:func:`read_only` recognises ``cat``, ``grep``, ``git status``, ``sed -n '1,5p'`` and the
like, refusing the options that make them write or run things, and names the paths they read.
The permission layer asks it about the commands :func:`agent.shell.parser.parse` finds; the
variables such a command may be run with are judged by :mod:`agent.shell.variables`.
Stdlib only, no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from agent.shell.readonly_git import git_read_only
from agent.shell.scripts import awk_read_only, jq_read_only
from agent.shell.unmodelled import unmodelled
from agent.shell.variables import unsafe_assignment
from agent.shell.words import Word, literal, long_option_hits, path_like, word_seq, word_set


@dataclass(frozen=True)
class ReadOnly:
    """A recognised read-only invocation.

    Attributes:
        paths: the words it may read as paths (``.`` stands for the working directory), to be
            checked by the caller; a word that is not static cannot be checked.
        takes_paths: whether its operands are paths (``cat``) or not (``echo``).
    """

    paths: tuple[Word, ...] = ()
    takes_paths: bool = False


@dataclass(frozen=True)
class _Spec:
    takes_paths: bool = True
    bad_short: str = ""
    """Short options that make it write a file or run a program (``sort -o``)."""
    bad_long: tuple[str, ...] = ()
    bad_words: tuple[str, ...] = ()
    """Whole words that make it write or run (``find -exec``); short options are not split."""
    max_operands: int | None = None
    operand_prefix: str = ""
    pattern_first: bool = False
    """grep, rg: the first operand is the pattern unless -e/-f give it."""
    arg_short: str = ""
    """Short options whose argument follows (exactly those: the pattern is found by them)."""
    arg_long: tuple[str, ...] = ()

    @property
    def risky(self) -> bool:
        return bool(
            self.bad_short
            or self.bad_long
            or self.bad_words
            or self.pattern_first
            or self.max_operands is not None
            or self.operand_prefix
        )


_PLAIN = _Spec(takes_paths=False)
_PATHS = _Spec()
_GREP_LONG = word_seq(
    "--regexp --file --after-context --before-context --context --max-count --directories "
    "--devices --include --exclude --exclude-dir --exclude-from --label --binary-files "
    "--group-separator"
)
_RG_LONG = word_seq(
    "--regexp --file --glob --iglob --type --type-not --type-add --type-clear --after-context "
    "--before-context --context --max-count --max-columns --threads --replace --encoding "
    "--max-depth --sort --sortr --colors --color --path-separator --max-filesize --ignore-file "
    "--pre-glob --engine --context-separator --field-context-separator --field-match-separator "
    "--dfa-size-limit --regex-size-limit --hyperlink-format --generate"
)
_SPECS: dict[str, _Spec] = {
    **dict.fromkeys(
        word_seq(
            "cat head tail ls stat diff cmp comm cut nl tac rev od hexdump strings column "
            "fold md5sum sha1sum sha224sum sha256sum sha384sum sha512sum b2sum cksum"
        ),
        _PATHS,
    ),
    # --files0-from reads the names of the files to read from a file eddy does not see
    **dict.fromkeys(("wc", "du"), _Spec(bad_long=("--files0-from",))),
    "jq": _Spec(arg_short="fL", bad_words=()),
    **dict.fromkeys(
        word_seq(
            "echo pwd true false : whoami id uname nproc seq basename dirname which type realpath "
            "readlink tr expr sleep df shift wait"
        ),
        _PLAIN,
    ),
    "printf": _Spec(takes_paths=False, bad_short="v"),
    "test": _Spec(takes_paths=False, bad_short="v"),
    "[": _Spec(takes_paths=False, bad_short="v"),
    "[[": _PLAIN,
    "date": _Spec(
        takes_paths=False, bad_short="s", bad_long=("--set",), arg_short="dfr", operand_prefix="+"
    ),
    "hostname": _Spec(
        takes_paths=False, bad_short="Fb", bad_long=("--file", "--boot"), max_operands=0
    ),
    "file": _Spec(bad_short="C", bad_long=("--compile",), arg_short="fmFeP"),
    "sort": _Spec(
        bad_short="oT",
        bad_long=("--output", "--compress-program", "--temporary-directory", "--files0-from"),
        arg_short="ktS",
        arg_long=word_seq("--key --field-separator --buffer-size --parallel --batch-size"),
    ),
    "uniq": _Spec(max_operands=1, arg_short="fsw"),
    "xxd": _Spec(bad_short="r", max_operands=1),
    # following symlinks (tree -l, find -L, grep -R, rg -L) reads outside through them
    "tree": _Spec(bad_short="oRl", arg_short="LPIH"),
    "find": _Spec(
        bad_words=word_seq(
            "-exec -execdir -ok -okdir -delete -fprint -fprint0 -fprintf -fls -L -follow "
            "-files0-from"
        )
    ),
    **dict.fromkeys(
        ("grep", "egrep", "fgrep"),
        _Spec(
            pattern_first=True,
            arg_short="efABCmdD",
            arg_long=_GREP_LONG,
            bad_short="R",
            bad_long=("--dereference-recursive",),
        ),
    ),
    "rg": _Spec(
        pattern_first=True,
        arg_short="efgtTABCmMjrEd",
        arg_long=_RG_LONG,
        bad_short="Lz",
        bad_long=("--pre", "--follow", "--search-zip", "--hostname-bin"),
    ),
}


def _git(args: tuple[Word, ...]) -> ReadOnly | None:
    paths = git_read_only(args)
    return None if paths is None else ReadOnly(paths, True)


def _generic(spec: _Spec, args: tuple[Word, ...]) -> ReadOnly | None:
    scan = _Scan(spec)
    if not all(scan.word(w) for w in args):
        return None
    return scan.result()


class _Scan:
    """One pass over a command's words by its :class:`_Spec`: the paths its options name,
    its operands, and whether the pattern (grep, rg) came with an option."""

    def __init__(self, spec: _Spec) -> None:
        self.spec = spec
        self.paths: list[Word] = []
        self.operands: list[Word] = []
        self.options_done = False
        self.skip_next = False  # the next word is the argument of an option
        self.pattern_given = False

    def word(self, w: Word) -> bool:
        """Take the next word; False when it can make the command write or run something."""
        if self.skip_next:
            self.skip_next = False
            self.paths.append(w)
            return True
        if not w.static or w.glob:
            self.operands.append(w)
            return not self.spec.risky  # it could expand to an option that writes
        v = w.value
        if self.options_done or not v.startswith("-") or v == "-":
            self.operands.append(w)
            return True
        if v == "--":
            self.options_done = True
            return True
        if v in self.spec.bad_words:
            return False
        if v.startswith("--"):
            return self._long(v)
        # find-style single-dash words are not option clusters
        return bool(self.spec.bad_words) or self._short(v[1:])

    def _long(self, v: str) -> bool:
        name, eq, value = v.partition("=")
        if long_option_hits(name, self.spec.bad_long):
            return False
        self.pattern_given = self.pattern_given or name in ("--regexp", "--file")
        if name in self.spec.arg_long and not eq:
            self.skip_next = True
        elif eq and path_like(value):
            self.paths.append(literal(value))
        return True

    def _short(self, letters: str) -> bool:
        """A cluster of short options (``-nA3``): the letters after one taking an argument
        are that argument."""
        for k, ch in enumerate(letters):
            if ch in self.spec.bad_short:
                return False
            if ch in self.spec.arg_short:
                self.pattern_given = self.pattern_given or ch in "ef"
                rest = letters[k + 1 :]
                if not rest:
                    self.skip_next = True
                elif path_like(rest):
                    self.paths.append(literal(rest))
                break
        return True

    def result(self) -> ReadOnly | None:
        """The invocation once every word is taken, or None if its operands do not fit."""
        spec, operands = self.spec, self.operands
        if spec.pattern_first and not self.pattern_given and operands:
            operands = operands[1:]
        if spec.max_operands is not None and len(operands) > spec.max_operands:
            return None
        if spec.operand_prefix and not all(
            o.value.startswith(spec.operand_prefix) for o in operands
        ):
            return None
        if not spec.takes_paths:
            return ReadOnly()
        return ReadOnly((literal("."), *self.paths, *operands), True)


_SED_ADDR = r"(?:\d+|\$|/[^/\\\n]*/)"
_SED_CMD = rf"\s*(?:{_SED_ADDR}(?:\s*,\s*{_SED_ADDR})?)?\s*[pdlq=]\s*"
_SED_SAFE = re.compile(rf"{_SED_CMD}(?:[;\n]{_SED_CMD})*;?\s*")


def _sed(args: tuple[Word, ...]) -> ReadOnly | None:
    """``sed -n '10,20p' file``: only print/delete/quit scripts, never -i, w, e or s."""
    words = _sed_words(args)
    if words is None:
        return None
    scripts, operands = words
    if not scripts:
        if not operands:
            return None
        scripts, operands = [operands[0].value], operands[1:]
    if not all(_SED_SAFE.fullmatch(s) for s in scripts):
        return None
    return ReadOnly((literal("."), *operands), True)


def _sed_words(args: tuple[Word, ...]) -> tuple[list[str], list[Word]] | None:
    """sed's scripts given by options and its operands; None for a word only known at run
    time or an option that is not modelled."""
    scripts: list[str] = []
    operands: list[Word] = []
    i = 0
    while i < len(args):
        w = args[i]
        if not w.static or w.glob:
            return None
        v = w.value
        if v in ("-e", "--expression") and i + 1 < len(args):
            if not args[i + 1].static:
                return None
            scripts.append(args[i + 1].value)
            i += 2
            continue
        if v == "--":
            operands.extend(args[i + 1 :])
            break
        if not v.startswith("-") or v == "-":
            operands.append(w)
        else:
            given = _sed_option(v)
            if given is None:
                return None
            scripts.extend(given)
        i += 1
    return scripts, operands


_SED_FLAGS = word_seq(
    "--quiet --silent --regexp-extended --separate --unbuffered --null-data --posix --debug"
)


def _sed_option(v: str) -> list[str] | None:
    """The script an option word of sed gives (``-ne 10p``, ``--expression=10p``): [] for a
    harmless flag, None for an option that is not modelled."""
    if v.startswith("--expression="):
        return [v.partition("=")[2]]
    if v in _SED_FLAGS or re.fullmatch(r"-[nErsuz]+", v):
        return []
    if re.fullmatch(r"-[nErsuz]*e.+", v):
        return [v[v.index("e") + 1 :]]
    return None


_DECLARE_OPTIONS = frozenset({"-x", "-r", "-g", "-f", "-F"})


def _declare(args: tuple[Word, ...]) -> ReadOnly | None:
    """export/unset/declare/local/readonly/typeset: harmless unless they touch PATH & co.

    Without names (or with -p) they print variables, secrets included: not read-only.
    """
    if not any(w.static and not w.value.startswith("-") for w in args):
        return None
    for w in args:
        if not w.static:
            return None
        if w.value.startswith("-"):
            if w.value not in _DECLARE_OPTIONS:
                return None
        elif "[" in w.value.split("=", 1)[0] or unsafe_assignment(literal(w.value + "=")):
            return None
    return ReadOnly()


def _awk(args: tuple[Word, ...]) -> ReadOnly | None:
    paths = awk_read_only(args)
    return None if paths is None else ReadOnly(paths, True)


def _jq(args: tuple[Word, ...]) -> ReadOnly | None:
    return _generic(_SPECS["jq"], args) if jq_read_only(args) else None


def _set(args: tuple[Word, ...]) -> ReadOnly | None:
    """``set -euo pipefail`` (unmodelled options are refused before); bare ``set`` prints
    every variable, secrets included."""
    return ReadOnly() if args else None


def _command_v(args: tuple[Word, ...]) -> ReadOnly | None:
    """``command -v NAME`` / ``command -V NAME``: print how a name would be run (a path or
    a description), never run it; its operands are names, not paths to read."""
    options = [w.value for w in args if w.static and w.value.startswith("-")]
    names = [w for w in args if not (w.static and w.value.startswith("-"))]
    if not names or not options or not set(options) <= {"-v", "-V", "-p", "-pv", "-pV"}:
        return None
    if not any("v" in o.lower() for o in options):
        return None
    return ReadOnly() if all(w.static for w in names) else None


_CUSTOM: dict[str, Callable[[tuple[Word, ...]], ReadOnly | None]] = {
    "command": _command_v,
    "git": _git,
    "sed": _sed,
    "jq": _jq,
    "set": _set,
    **dict.fromkeys(("awk", "gawk", "mawk"), _awk),
    **dict.fromkeys(("export", "unset", "declare", "local", "readonly", "typeset"), _declare),
}


def read_only(argv: tuple[Word, ...]) -> ReadOnly | None:
    """Whether ``argv`` is a built-in read-only command, and the paths it reads.

    The set: cat head tail wc ls stat du diff cmp comm cut nl tac rev od hexdump strings
    column fold jq *sum file tree sort uniq xxd find grep rg sed(-n print scripts) echo printf
    pwd true false whoami id uname nproc seq basename dirname which type command -v realpath
    readlink tr
    expr sleep df date hostname test [ [[ set shift wait export unset declare local readonly
    typeset, and git status/diff/log/show/rev-parse/ls-files/blame/grep/... plus listing forms
    of git branch/tag/remote/stash/worktree/config/reflog. Options that write or run things
    (``find -exec``, ``sort -o``, ``rg --pre``, ``git diff --output``, ``sed -i``) disqualify.

    Returns:
        None when it is not one of them (or is called by a path, like ``./ls``).
    """
    if not argv or not argv[0].static or argv[0].glob or "/" in argv[0].value:
        return None
    if unmodelled(argv) is not None:
        return None
    name, args = argv[0].value, argv[1:]
    custom = _CUSTOM.get(name)
    if custom is not None:
        return custom(args)
    spec = _SPECS.get(name)
    return None if spec is None else _generic(spec, args)


# commands that print paths under the directories they are given, never others (find -L,
# which follows symlinks, is not read-only): what they pipe into xargs stays where they look
_LISTERS = word_set("find fd fdfind")
# programs that stay read-only with any number of paths appended, whatever their names
# (xargs splits names at blanks: no option of theirs writes or runs; uniq IN OUT writes OUT)
_XARGS_READERS = word_set(
    "cat head tail wc ls stat du md5sum sha1sum sha256sum sha512sum cksum b2sum nl tac od "
    "hexdump strings cut fold grep egrep fgrep"
)


def xargs_reads_listed(program: str | None, stdin_words: tuple[Word, ...]) -> bool:
    """``find . | xargs wc -l``: xargs appends what a read-only lister found where it looked
    (the lister's own paths are checked as its own command), to a program that only reads."""
    return (
        program in _XARGS_READERS
        and bool(stdin_words)
        and stdin_words[0].static
        and stdin_words[0].value in _LISTERS
        and read_only(stdin_words) is not None
    )
