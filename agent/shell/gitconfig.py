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
from dataclasses import dataclass

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


def _git_config(args: list[str]) -> list[ConfigWrite] | None:
    """The writes of ``git config ARGS`` (None: it only reads, or is not understood)."""
    outside = False
    positional: list[str] = []
    unset = section = False
    i = 0
    if args and args[0] in ("set", "unset", "rename-section", "remove-section"):
        sub, args = args[0], args[1:]
        unset = sub == "unset"
        section = sub.endswith("-section")
    while i < len(args):
        a = args[i]
        i += 1
        if a in _CONFIG_READS:
            return None
        if a in ("--global", "--system"):
            outside = True
        elif a in ("--file", "-f", "--blob"):
            return None  # a file of the user's naming: its path is checked as an argument
        elif a in ("--edit", "-e", "edit"):
            return [ConfigWrite("", None, outside, "it opens the file in an editor")]
        elif a in ("--unset", "--unset-all"):
            unset = True
        elif a in ("--rename-section", "--remove-section"):
            section = True
        elif a.startswith("--type=") or a.startswith("--comment=") or a.startswith("--default="):
            continue
        elif a in ("--type", "--comment", "--default"):
            i += 1
        elif a in _CONFIG_FLAGS:
            continue
        elif a.startswith("-"):
            return [ConfigWrite("", None, outside, f"the option {a}")]
        else:
            positional.append(a)
    if not positional:
        return None
    if section:
        return [ConfigWrite(name + ".*", None, outside) for name in positional]
    value = None if unset or len(positional) < 2 else positional[1]
    if len(positional) == 1 and not unset:
        return None  # `git config KEY` reads it
    return [ConfigWrite(positional[0], value, outside)]


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
    while args and args[0].startswith("-"):
        if args[0] in ("-C", "--git-dir", "--work-tree"):
            args = args[2:]
        elif args[0] in ("--no-pager", "--bare", "--no-replace-objects", "-P", "--paginate"):
            args = args[1:]
        else:
            return None  # -c and others: left to the read-only table (they ask)
    if not args:
        return None
    sub, rest = args[0], args[1:]
    if sub == "config":
        return _git_config(rest)
    if sub == "remote" and rest:
        action = rest[0]
        names = [a for a in rest[1:] if not a.startswith("-")]
        if action in ("add", "set-url", "rename", "remove", "rm", "set-branches") and names:
            return [ConfigWrite(f"remote.{names[0]}.*", names[1] if len(names) > 1 else None)]
        return None
    upstream = {"-u", "--set-upstream-to", "--track", "-t", "--unset-upstream", "--set-upstream"}
    if sub in ("branch", "checkout", "switch", "push") and any(
        a in upstream or a.startswith(("--set-upstream-to=", "--track=")) for a in rest
    ):
        return [ConfigWrite("branch.*.remote")]
    if sub == "branch" and any(a in ("-m", "-M", "-c", "-C", "--move", "--copy") for a in rest):
        return [ConfigWrite("branch.*")]
    return None
