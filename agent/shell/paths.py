"""Where the words of a shell command point: the working directories it may be in, and the
real paths a word names there.

:class:`Directories` follows ``cd`` through a command line as a *set* of directories the
shell may be in, since a ``cd`` may fail (``cd nonexistent; cat ../x`` reads from where the
shell was): after ``cd x &&`` only ``x``, after ``;``, ``||``, ``|``, a subshell or a loop
every directory seen so far. A ``cd`` through a symlink or ``..`` that a logical ``cd`` would
read differently from the kernel makes the directory unknown (None): later relative paths ask.

:func:`word_paths` turns a word into the real paths it may name in those directories:
``~`` and ``~/x`` from ``$HOME``, a glob expanded, a ``for`` loop variable (``"$f"``) as each
word of its loop. Other tilde forms (``~+``, ``~-``, ``~user``) and words only known at run
time give None: the caller asks.
"""

from __future__ import annotations

import glob
import itertools
import os
import re

from agent.shell.words import LoopVariables, Word
from tools.base import ResolvedPath, ToolContext, ToolError

GLOB_LIMIT = 1000
"""A shell glob matching more paths than this is not expanded: the command asks."""
_LOOP_VARIABLE = re.compile(r'"?\$(?:\{([A-Za-z_]\w*)\}|([A-Za-z_]\w*))"?')


class Directories:
    """The directories the shell may be in before each command of one command line."""

    def __init__(self, start: str | None) -> None:
        self.seen: list[str] | None = [start] if start is not None else None
        self.certain: list[str] | None = self.seen

    def before(self, sep: str) -> list[str] | None:
        """The directories a command joined by ``sep`` may start in (None: unknown)."""
        if sep != "&&":
            self.certain = self.seen  # a cd before may have failed, or ran in a subshell
        return self.certain

    def moved(self, targets: list[str] | None, *, subshell: bool) -> None:
        """A ``cd`` to one of ``targets`` (None: unknown) ran.

        In a subshell (a substitution, ``bash -c``) it moves nothing after the subshell; the
        commands joined to it by ``&&`` inside it then start from any directory seen so far.
        """
        if targets is None or self.seen is None:
            self.seen = self.certain = None
            return
        self.seen = self.seen + [t for t in targets if t not in self.seen]
        self.certain = self.seen if subshell else targets

    def unknown(self) -> None:
        """Where the shell is can no longer be told (``pushd``, a loop that moves)."""
        self.seen = self.certain = None


def loop_words(word: Word, loop_vars: LoopVariables, assigned: frozenset[str]) -> list[Word]:
    """The words a ``for`` loop variable (``$f``, ``"$f"``, ``${f}``) takes, else [].

    Only when the loop's words are all known and nothing else in the command line assigns
    the variable (``f=..``, ``read f``, ``export f=...``).
    """
    m = _LOOP_VARIABLE.fullmatch(word.raw)
    if m is None:
        return []
    name = m.group(1) or m.group(2)
    if name in assigned or "*" in assigned:
        return []
    values = [v for n, v in loop_vars if n == name]
    if not values or any(v is None for v in values):
        return []
    quoted = word.raw.startswith('"')
    out = [w for v in values if v is not None for w in v]
    if not quoted and any(re.search(r"\s", w.value) for w in out):
        return []  # unquoted, the value is split again
    return out


def loop_argv(
    argv: tuple[Word, ...],
    loop_vars: LoopVariables,
    assigned: frozenset[str],
    cwds: list[str] | None,
) -> tuple[tuple[Word, ...] | None, dict[int, Word]]:
    """``argv`` with each ``for`` loop variable replaced by a plain operand, to judge it.

    ``for f in *.py; do wc -l "$f"; done`` is judged as ``wc -l ./operand``, and the words
    ``$f`` takes are checked as the paths it reads. A value that could be read as an option
    (a file the glob finds that starts with ``-``) gives None.

    Returns:
        (the argv to judge or None, the loop variable word each stand-in replaces, by id).
    """
    out: list[Word] = []
    originals: dict[int, Word] = {}
    for w in argv:
        values = [] if w.static else loop_words(w, loop_vars, assigned)
        if not values:
            out.append(w)
            continue
        split = not w.raw.startswith('"')  # unquoted, each value is split and globbed
        for v in values:
            if v.value.startswith("-") or (v.glob and _glob_options(v.value, cwds, split)):
                return None, {}
        stand_in = Word("./operand", "./operand")
        originals[id(stand_in)] = w
        out.append(stand_in)
    return tuple(out), originals


def _glob_options(pattern: str, cwds: list[str] | None, split: bool) -> bool:
    """Whether a glob may expand to a word starting with ``-`` (or eddy cannot tell); with
    ``split``, also to a name with blanks or glob characters (split and globbed again)."""
    if cwds is None:
        return True
    for cwd in cwds:
        found = list(itertools.islice(glob.iglob(pattern, root_dir=cwd), GLOB_LIMIT + 1))
        if len(found) > GLOB_LIMIT or any(name.startswith("-") for name in found):
            return True
        if split and any(re.search(r"[\s*?\[]", name) for name in found):
            return True
    return False


def _expand_tilde(word: Word) -> str | None:
    value = word.value
    if not word.tilde:
        return value  # a quoted ~ is a plain name
    if value == "~" or value.startswith("~/"):
        return os.path.expanduser(value)
    return None  # ~+ is $PWD, ~- is $OLDPWD, ~user another home: not modelled


def word_paths(
    ctx: ToolContext, word: Word, cwds: list[str] | None, loop: list[Word] | None = None
) -> list[ResolvedPath] | None:
    """The real paths ``word`` may name from any of ``cwds``, or None if eddy cannot tell.

    Args:
        ctx: resolves paths (symlinks, ``..``) and says which lie inside.
        word: the word; ``loop`` gives its values when it is a loop variable.
        cwds: the directories the shell may be in (None: unknown).
    """
    words = loop if loop else [word]
    out: list[ResolvedPath] = []
    for w in words:
        bases = _bases(w, cwds)
        if bases is None:
            return None
        for name in bases:
            names = _glob_names(name) if w.glob else [name]
            if names is None:
                return None
            try:
                out.extend(ctx.resolve(n) for n in names)
            except ToolError:
                return None
    return out


def _bases(w: Word, cwds: list[str] | None) -> list[str] | None:
    """The paths a word names before globbing, one per directory the shell may be in."""
    if not w.static:
        return None
    value = _expand_tilde(w)
    if value is None or value.startswith("/proc/"):
        return None  # /proc/self/cwd is the shell's directory, not eddy's
    if w.glob and re.search(r"(^|/)\.[*?\[]", value):
        return None  # .* matches .. in older bash (macOS's 3.2), not in Python's glob
    if os.path.isabs(value):
        return [value]
    if cwds is None:
        return None
    return [os.path.join(cwd, value) for cwd in cwds]


def _glob_names(pattern: str) -> list[str] | None:
    """What a glob matches (itself when nothing does, as in bash); None past GLOB_LIMIT."""
    found = list(itertools.islice(glob.iglob(pattern), GLOB_LIMIT + 1))
    if len(found) > GLOB_LIMIT:
        return None
    return found or [pattern]


def cd_targets(
    ctx: ToolContext, args: tuple[Word, ...], cwds: list[str] | None
) -> list[ResolvedPath] | None:
    """Where ``cd ARGS`` may go from ``cwds``, or None when eddy cannot tell.

    A logical ``cd`` (the default, ``-L``) through a symlink or ``..`` differs from what the
    kernel resolves; only a path whose plain form is already its real path is followed, or
    any path with ``-P``. ``CDPATH``, ``cd -`` and ``cd`` with several words give None.
    """
    physical = any(w.static and w.value == "-P" for w in args)
    rest = [w for w in args if not (w.static and w.value in ("--", "-L", "-P"))]
    if len(rest) != 1 or not rest[0].static or rest[0].value == "-" or cwds is None:
        return None
    word = rest[0]
    value = _expand_tilde(word)
    if value is None or (os.environ.get("CDPATH") and not value.startswith(("/", "./", "../"))):
        return None
    paths = word_paths(ctx, word, cwds)
    if paths is None or len(paths) != len(cwds):
        return None  # a glob: bash takes its first match, or fails with several
    for cwd, rp in zip(cwds, paths, strict=True):
        plain = os.path.normpath(os.path.join(cwd, value))
        if not physical and plain != str(rp.path):
            return None
    return paths


LISTED_LIMIT = 20000
"""``find | xargs``: how many entries eddy looks at for symlinks that lead out."""


def lists_inside(ctx: ToolContext, lister: tuple[Word, ...], cwds: list[str] | None) -> bool:
    """Whether what ``find ARGS`` lists can only be read inside the workspace: no symlink
    under its start points leads out (``find . | xargs cat`` would read through it).

    At most :data:`LISTED_LIMIT` entries are looked at; a larger tree gives False, and so
    does a symlink that changes while eddy resolves it (it cannot tell where it leads).
    """
    starts = list(
        itertools.takewhile(lambda w: not w.value.startswith(("-", "(", "!")), lister[1:])
    )
    seen = 0
    for word in starts or [Word(".", ".")]:
        paths = word_paths(ctx, word, cwds)
        if paths is None:
            return False
        for rp in paths:
            for dirpath, dirnames, filenames in os.walk(rp.path):
                seen += len(dirnames) + len(filenames)
                if seen > LISTED_LIMIT:
                    return False
                for name in (*dirnames, *filenames):
                    path = os.path.join(dirpath, name)
                    if os.path.islink(path) and not _resolves_inside(ctx, path):
                        return False
    return True


def _resolves_inside(ctx: ToolContext, path: str) -> bool:
    """Whether ``path`` resolves inside; False when it changes while it is resolved."""
    try:
        return ctx.resolve(path).inside
    except ToolError:
        return False
