"""Which git commands only read (part of :mod:`agent.shell.readonly`).

:func:`git_read_only` accepts ``git status``, ``git diff``, ``git log``, ``git grep`` and the
listing forms of ``git branch``/``tag``/``remote``/``stash``/``config``, and names the paths
they read; options that write or run programs (``--output``, ``-O``) are refused here and,
with their abbreviations and clusters, in :mod:`agent.shell.unmodelled`. Stdlib only, no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from agent.shell.words import Word, literal, long_option_hits, path_like, word_set

_GIT_READ = word_set(
    "status diff log show rev-parse ls-files ls-tree blame annotate describe shortlog cat-file "
    "merge-base grep show-ref count-objects rev-list name-rev diff-tree diff-files diff-index "
    "whatchanged check-ignore version for-each-ref cherry"
)
_GIT_GLOBAL = word_set("--no-pager -P --no-optional-locks --literal-pathspecs --no-replace-objects")


def _git_listing(
    values: list[str], bad: frozenset[str], bad_letters: str, arg_opts: frozenset[str]
) -> bool:
    """``git branch``/``git tag`` that only list: no operands unless --list, no changing flag."""
    listing = any(v in ("-l", "--list", "--show-current") for v in values)
    operands, i = 0, 0
    while i < len(values):
        v = values[i]
        name = v.split("=", 1)[0]
        if v.startswith("--") and long_option_hits(name, bad):
            return False
        if re.fullmatch(r"-[A-Za-z]+", v) and any(ch in bad_letters for ch in v[1:]):
            return False
        if name in arg_opts and "=" not in v:
            i += 2
            continue
        operands += not v.startswith("-")
        i += 1
    return operands == 0 or listing


_BAD = ("--output",)
_BRANCH_BAD = word_set(
    "--delete --move --copy --force --set-upstream-to --unset-upstream --edit-description "
    "--track --no-track --create-reflog"
)
_TAG_BAD = word_set(
    "--delete --annotate --sign --force --message --file --local-user --edit --create-reflog "
    "--verify"
)
_REF_ARGS = frozenset(
    {"--contains", "--no-contains", "--merged", "--no-merged", "--points-at", "--sort", "--format"}
)


def git_read_only(args: tuple[Word, ...]) -> tuple[Word, ...] | None:
    """The paths ``git ARGS`` reads if it only reads (status, diff, log, listing forms of
    branch/tag/remote/stash/config, ...), else None."""
    start = _global_options(args)
    if start is None:
        return None
    paths, i = start
    if i >= len(args):
        return tuple(paths)
    sub, rest = args[i].value, args[i + 1 :]
    if any(not w.static or w.glob for w in rest):
        return None
    values = [w.value for w in rest]
    if any(
        v.startswith("--") and long_option_hits(v.split("=", 1)[0], ("--output",)) for v in values
    ):
        return None
    reads = _SUBCOMMANDS.get(sub)
    if reads is None or not reads(values):
        return None
    return (*paths, *_operand_paths(rest))


def _global_options(args: tuple[Word, ...]) -> tuple[list[Word], int] | None:
    """git's options before the subcommand: the directories read (``.`` and each ``-C``'s)
    and the subcommand's index; None for a word only known at run time."""
    paths: list[Word] = [literal(".")]
    i = 0
    while i < len(args):
        w = args[i]
        if not w.static or w.glob:
            return None
        if w.value == "-C" and i + 1 < len(args):
            paths.append(args[i + 1])
            i += 2
        elif w.value in _GIT_GLOBAL:
            i += 1
        else:
            break
    return paths, i


def _operand_paths(rest: tuple[Word, ...]) -> list[Word]:
    """The paths among a subcommand's words: its operands and path-like option values."""
    paths: list[Word] = []
    for w in rest:
        name, eq, value = w.value.partition("=")
        if not w.value.startswith("-"):
            paths.append(w)
        elif eq and path_like(value):
            paths.append(literal(value))
    return paths


def _first(values: list[str]) -> str:
    return values[0] if values else ""


def _grep_reads(values: list[str]) -> bool:
    return not any(v.startswith(("-O", "--open-files-in-pager")) for v in values)


_CONFIG_READS = frozenset({"--get", "--get-all", "--get-regexp", "--list", "-l", "--get-urlmatch"})
_CONFIG_WRITES = frozenset(
    {
        "--add",
        "--unset",
        "--unset-all",
        "--replace-all",
        "--rename-section",
        "--remove-section",
        "-e",
        "--edit",
    }
)


def _config_reads(values: list[str]) -> bool:
    given = set(values)
    reads = bool(_CONFIG_READS & given) or _first(values) in ("get", "list")
    return reads and not _CONFIG_WRITES & given


_SUBCOMMANDS: dict[str, Callable[[list[str]], bool]] = {
    **dict.fromkeys(_GIT_READ, lambda values: True),
    "grep": _grep_reads,
    "branch": lambda values: _git_listing(values, _BRANCH_BAD, "dDmMcCfut", _REF_ARGS),
    "tag": lambda values: _git_listing(values, _TAG_BAD, "dasfmFuev", _REF_ARGS),
    "remote": lambda values: (
        all(v in ("-v", "--verbose") for v in values) or _first(values) in ("get-url", "show")
    ),
    "stash": lambda values: _first(values) in ("list", "show"),
    "worktree": lambda values: _first(values) == "list",
    "reflog": lambda values: _first(values) not in ("expire", "delete", "drop"),
    "config": _config_reads,
}
"""Each subcommand that can only read, and whether its words (``values``) keep it so."""


_CONTENT = word_set(
    "show diff grep archive cat-file blame annotate format-patch whatchanged difftool "
    "range-diff bundle fast-export unpack-file merge-file diff-tree diff-files diff-index "
    "stash notes instaweb"
)
_PATCH_LOGS = word_set("log reflog")
_PATCH = re.compile(r"-p|-u|--patch.*|--cc|-c|--word-diff.*|--color-words.*|-L.*|--textconv|-W")
_NO_CONTENT = word_set(
    "--stat --numstat --shortstat --name-only --name-status --summary --dirstat -s --no-patch "
    "--raw --compact-summary --quiet --exit-code"
)


def history_content(argv: tuple[Word, ...]) -> list[Word] | None:
    """Whether a git command can print files' content (from history, the index or the tree):
    None when it cannot (``git status``, ``git log``, ``git show --stat``); else the paths
    its output is limited to (after ``--``, or ``REV:PATH``), empty when it is not limited.
    Anything eddy does not recognise in such a command leaves it unlimited."""
    if not argv or not argv[0].static or argv[0].value != "git":
        return None
    args = list(argv[1:])
    while args and args[0].static and args[0].value in (*_GIT_GLOBAL, "-C"):
        args = args[2:] if args[0].value == "-C" else args[1:]
    if not args or not args[0].static:
        return [] if args else None
    sub, rest = args[0].value, args[1:]
    values = [w.value if w.static else "" for w in rest]
    before = values[: values.index("--")] if "--" in values else values
    if not _prints_content(sub, before):
        return None
    if any(not w.static or w.glob for w in rest):
        return []
    return _content_bounds(rest, values, len(before))


_SUMMARY_FORMS = word_set("show diff stash diff-tree diff-index diff-files")
"""Subcommands that print no content with a summary option (``--stat``) and no patch one."""


def _prints_content(sub: str, options: list[str]) -> bool:
    """Whether subcommand ``sub`` with ``options`` (the words before ``--``) prints content."""
    patch = any(_PATCH.fullmatch(v) for v in options)
    if sub in _PATCH_LOGS:
        return patch
    if sub not in _CONTENT:
        return False
    return patch or not (sub in _SUMMARY_FORMS and any(v in _NO_CONTENT for v in options))


def _content_bounds(rest: list[Word], values: list[str], before: int) -> list[Word]:
    """The paths the output is limited to (``rest[:before]`` are the words before ``--``)."""
    bounds: list[Word] = []
    for w in rest[:before]:
        if w.value.startswith("-"):
            continue
        rev, colon, path = w.value.partition(":")
        if colon and rev and path:
            bounds.append(literal(path))  # REV:PATH prints that file
        elif "--" not in values:
            return []  # a revision (or an option's value): every file it touched
    if "--" in values:
        after = rest[values.index("--") + 1 :]
        if not after or any(w.value.startswith(":") for w in after):
            return []  # pathspec magic (:!x, :(glob)) is not modelled
        bounds += after
    return bounds
