"""git commands that write git's configuration, and the keys that make git run a program.

``.git/config`` is a protected place (:mod:`agent.permissions.places`): an edit of the file
always asks. git's own commands write it too, for the user, and most of those writes are
harmless (``git remote add``, ``git config user.name``, ``git checkout --track``): they follow
the user's rules. What is protected is what runs code: :func:`runs_code` names the keys
(``core.fsmonitor``, ``core.hooksPath``, ``core.sshCommand``, ``core.pager``, filters, diff
drivers, ``alias.*`` starting with ``!``, ``include.path``, ...), and a command that sets one
always asks. :func:`config_writes` says which keys a command writes. Stdlib only, no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from agent.shell.words import Word

_HARMLESS_CORE = frozenset(
    {
        "autocrlf",
        "bare",
        "compression",
        "eol",
        "filemode",
        "ignorecase",
        "logallrefupdates",
        "precomposeunicode",
        "quotepath",
        "repositoryformatversion",
        "safecrlf",
        "symlinks",
        "whitespace",
        "abbrev",
        "longpaths",
        "sparsecheckout",
    }
)
_CODE_EXACT = frozenset(
    {
        "sequence.editor",
        "diff.external",
        "gpg.program",
        "credential.helper",
        "uploadpack.packobjectshook",
        "init.templatedir",
        "web.browser",
        "merge.tool",
        "diff.tool",
        "include.path",
    }
)
# section.<subsection>.key patterns (lower-cased) whose value git runs (or that let it run one)
_CODE_PATTERNS = tuple(
    re.compile(p)
    for p in (
        r"filter\..+\.(clean|smudge|process)",
        r"diff\..+\.(textconv|command)",
        r"merge\..+\.driver",
        r"(merge|diff)tool\..+\.(cmd|path)",
        r"credential\..+\.helper",
        r"gpg\..+\.program",
        r"remote\..+\.(uploadpack|receivepack|vcs)",
        r"includeif\..+\.path",
        r"pager\..+",
        r"man\..+\.(cmd|path)",
        r"browser\..+\.(cmd|path)",
        r"protocol\..+\.allow",
        r"protocol\.allow",
        r"url\..+\.(insteadof|pushinsteadof)",
        r"submodule\..+\.update",
        r"core\.hookspath",
    )
)


def runs_code(key: str, value: str | None) -> str | None:
    """Why setting (or unsetting) ``key`` to ``value`` can make git run a program, or None.

    Args:
        key: the configuration key as written (``core.fsmonitor``, ``alias.st``).
        value: the value set, or None (unset, or only known at run time).
    """
    lowered = key.lower()
    section, _, name = lowered.partition(".")
    if section == "core" and "." not in name and name not in _HARMLESS_CORE:
        return f"{key} can make git run a program"
    if section == "alias":
        if value is None or value.lstrip().startswith("!"):
            return f"{key} runs a shell command when the alias is used"
        return None
    if lowered in _CODE_EXACT or any(p.fullmatch(lowered) for p in _CODE_PATTERNS):
        return f"{key} makes git run a program"
    return None


@dataclass(frozen=True)
class ConfigWrite:
    """One key a git command writes in the repository's configuration.

    Attributes:
        key: the key (``remote.origin.url``); a section for ``--remove-section``.
        value: the value set, or None (removed, or only known at run time).
        outside: the command writes a configuration outside the repository (``--global``,
            ``--system``): the user's, a protected place in itself.
        unknown: why eddy cannot tell which key is written (an editor, an unknown option, a
            key only known at run time), or None.
    """

    key: str
    value: str | None = None
    outside: bool = False
    unknown: str | None = None

    def danger(self) -> str | None:
        """Why this write always asks (it can make git run a program), or None."""
        if self.unknown is not None:
            return f"eddy cannot tell which key of git's configuration it sets ({self.unknown})"
        if self.outside:
            return f"it sets {self.key} in your own git configuration (--global / --system)"
        return runs_code(self.key, self.value)


_CONFIG_FLAGS = frozenset(
    {
        "--local",
        "--worktree",
        "--add",
        "--replace-all",
        "--unset",
        "--unset-all",
        "--bool",
        "--int",
        "--path",
        "--bool-or-int",
        "--expiry-date",
        "-z",
        "--null",
        "--fixed-value",
        "--no-type",
        "--all",
    }
)
_CONFIG_READS = frozenset(
    {
        "--get",
        "--get-all",
        "--get-regexp",
        "--get-urlmatch",
        "--get-color",
        "--get-colorbool",
        "--list",
        "-l",
        "get",
        "list",
    }
)


def _static(words: tuple[Word, ...]) -> list[str] | None:
    return [w.value for w in words] if all(w.static for w in words) else None


_CONFIG_OPTIONS: dict[str, str] = {
    # lowest precedence first: a later kind wins for a word in two sets
    **dict.fromkeys(_CONFIG_FLAGS, "flag"),
    **dict.fromkeys(("--type", "--comment", "--default"), "valued"),
    **dict.fromkeys(("--rename-section", "--remove-section"), "section"),
    **dict.fromkeys(("--unset", "--unset-all"), "unset"),
    **dict.fromkeys(("--edit", "-e", "edit"), "edit"),
    **dict.fromkeys(("--file", "-f", "--blob"), "file"),
    **dict.fromkeys(("--global", "--system"), "outside"),
    **dict.fromkeys(_CONFIG_READS, "read"),
}
"""What each word ``git config`` knows does: ``read`` (only reads), ``outside`` (the user's
own configuration), ``file`` (a file of the user's naming), ``edit`` (an editor), ``unset``,
``section``, ``valued`` (an option whose value follows) or ``flag``."""


def _config_word(word: str) -> str:
    """The kind of a word of ``git config`` (see ``_CONFIG_OPTIONS``; ``unknown`` for an
    option it does not know, ``operand`` for a key or value)."""
    kind = _CONFIG_OPTIONS.get(word)
    if kind is not None:
        return kind
    if word.startswith(("--type=", "--comment=", "--default=")):
        return "flag"
    return "unknown" if word.startswith("-") else "operand"


def _git_config(args: list[str]) -> list[ConfigWrite] | None:
    """The writes of ``git config ARGS`` (None: it only reads, or is not understood)."""
    call = _ConfigCall()
    if args and args[0] in ("set", "unset", "rename-section", "remove-section"):
        call.unset = args[0] == "unset"
        call.section = args[0].endswith("-section")
        args = args[1:]
    i = 0
    while i < len(args):
        kind = _config_word(args[i])
        if kind in ("read", "file"):
            return None  # a file of the user's naming: its path is checked as an argument
        if kind in ("edit", "unknown"):
            why = "it opens the file in an editor" if kind == "edit" else f"the option {args[i]}"
            return [ConfigWrite("", None, call.outside, why)]
        call.take(kind, args[i])
        i += 2 if kind == "valued" else 1
    return call.writes()


@dataclass
class _ConfigCall:
    """What the words of ``git config`` read so far say about the write."""

    outside: bool = False
    unset: bool = False
    section: bool = False
    positional: list[str] = field(default_factory=list)

    def take(self, kind: str, word: str) -> None:
        self.outside = self.outside or kind == "outside"
        self.unset = self.unset or kind == "unset"
        self.section = self.section or kind == "section"
        if kind == "operand":
            self.positional.append(word)

    def writes(self) -> list[ConfigWrite] | None:
        """The writes once every word is read (None: it only reads)."""
        positional = self.positional
        if not positional:
            return None
        if self.section:
            return [ConfigWrite(name + ".*", None, self.outside) for name in positional]
        if len(positional) == 1 and not self.unset:
            return None  # `git config KEY` reads it
        value = None if self.unset or len(positional) < 2 else positional[1]
        return [ConfigWrite(positional[0], value, self.outside)]


def config_writes(argv: tuple[Word, ...]) -> list[ConfigWrite] | None:
    """The configuration keys a git command writes, or None when it writes none (or is not
    git). A word only known at run time where a key would be is a write of an unknown key.

    ``git config KEY VALUE`` (and ``set``, ``unset``, ``--add``, ``--unset``, sections);
    ``git remote add|set-url|rename|remove`` (``remote.NAME.*``); ``git branch -u|--track|
    --set-upstream-to|--unset-upstream|-m|-c``, ``git checkout|switch --track``, ``git push
    -u|--set-upstream`` (``branch.NAME.*``).
    """
    if not argv or not argv[0].static or argv[0].value != "git":
        return None
    args = _static(argv[1:])
    if args is None:
        if len(argv) > 1 and argv[1].static and argv[1].value == "config":
            return [ConfigWrite("", None, False, "a word only known at run time")]
        return None
    args = _after_global_options(args)
    if not args:
        return None
    writes = _SUBCOMMAND_WRITES.get(args[0])
    return writes(args[1:]) if writes is not None else None


def _after_global_options(args: list[str]) -> list[str] | None:
    """The subcommand and its words, after git's global options (None: an option such as
    ``-c``, left to the read-only table, which asks)."""
    while args and args[0].startswith("-"):
        if args[0] in ("-C", "--git-dir", "--work-tree"):
            args = args[2:]
        elif args[0] in ("--no-pager", "--bare", "--no-replace-objects", "-P", "--paginate"):
            args = args[1:]
        else:
            return None
    return args


def _remote(rest: list[str]) -> list[ConfigWrite] | None:
    if not rest:
        return None
    names = [a for a in rest[1:] if not a.startswith("-")]
    if rest[0] in ("add", "set-url", "rename", "remove", "rm", "set-branches") and names:
        return [ConfigWrite(f"remote.{names[0]}.*", names[1] if len(names) > 1 else None)]
    return None


_UPSTREAM = frozenset(
    {"-u", "--set-upstream-to", "--track", "-t", "--unset-upstream", "--set-upstream"}
)


def _upstream(rest: list[str]) -> list[ConfigWrite] | None:
    """``git checkout|switch|push|branch`` with an option that sets the upstream branch."""
    if any(a in _UPSTREAM or a.startswith(("--set-upstream-to=", "--track=")) for a in rest):
        return [ConfigWrite("branch.*.remote")]
    return None


def _branch(rest: list[str]) -> list[ConfigWrite] | None:
    """``git branch``: setting the upstream, or moving or copying a branch (and its keys)."""
    upstream = _upstream(rest)
    if upstream is not None:
        return upstream
    if any(a in ("-m", "-M", "-c", "-C", "--move", "--copy") for a in rest):
        return [ConfigWrite("branch.*")]
    return None


_SUBCOMMAND_WRITES: dict[str, Callable[[list[str]], list[ConfigWrite] | None]] = {
    "config": _git_config,
    "remote": _remote,
    "branch": _branch,
    "checkout": _upstream,
    "switch": _upstream,
    "push": _upstream,
}
"""The subcommands that can write configuration, and which keys their words write."""
