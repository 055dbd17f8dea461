"""Ordinary file commands acceptEdits runs without asking: ``mkdir``, ``touch``, ``cp``, ``mv``,
``rm``, ``rmdir`` and ``sed -i``.

:func:`file_command` recognises them and names the paths they write (and, for ``cp``, read);
:mod:`agent.permissions.bash` allows them in acceptEdits when every path lies inside the
workspace and none is a protected place (:mod:`agent.permissions.places`), and the gate runs
them in the writable sandbox. Options eddy does not know, words only known at run time and
options that follow symlinks out (``cp -L``) refuse. Stdlib only, no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from agent.shell.scripts import sed_edit_script
from agent.shell.words import Word, word_set


@dataclass(frozen=True)
class FileOp:
    """A recognised file command.

    Attributes:
        writes: the paths it creates, changes or removes.
        reads: the paths it only reads (``cp`` sources, ``touch -r``).
        removes: it deletes what it names (``rm``, ``rmdir``, ``mv`` sources): never the
            workspace itself or a directory above it.
    """

    writes: tuple[Word, ...]
    reads: tuple[Word, ...] = ()
    removes: bool = False


@dataclass(frozen=True)
class _Options:
    flags: frozenset[str]
    """Options without an argument (long ones with ``=value`` too, for --backup=...)."""
    short_arg: str = ""
    long_arg: frozenset[str] = frozenset()
    """Long options whose argument follows (``--target-directory DIR`` or ``=DIR``)."""


_TABLE: dict[str, _Options] = {
    "mkdir": _Options(word_set("-p -v --parents --verbose"), "m", word_set("--mode")),
    "touch": _Options(
        word_set("-a -c -m -h --no-create --no-dereference"), "dtr", word_set("--date --reference")
    ),
    "cp": _Options(
        word_set(
            "-r -R -a -p -f -i -n -v -u -P -d -x -T -b --recursive --archive --force "
            "--no-clobber --verbose --update --parents --preserve --no-preserve --backup "
            "--no-dereference --no-target-directory --interactive --one-file-system --sparse "
            "--reflink --attributes-only --remove-destination --strip-trailing-slashes"
        ),
        "tS",
        word_set("--target-directory --suffix"),
    ),
    "mv": _Options(
        word_set(
            "-f -i -n -v -u -T -b --force --interactive --no-clobber --verbose --update --backup "
            "--no-target-directory --strip-trailing-slashes"
        ),
        "tS",
        word_set("--target-directory --suffix"),
    ),
    "rm": _Options(
        word_set("-f -r -R -i -I -v -d --force --recursive --dir --verbose --one-file-system"),
    ),
    "rmdir": _Options(word_set("-v --verbose --ignore-fail-on-non-empty")),
}


def _split(name: str, args: tuple[Word, ...]) -> tuple[list[Word], dict[str, list[Word]]] | None:
    """Operands and option arguments (by option letter/name), or None for what is unknown."""
    split = _Split(_TABLE[name], args)
    return (split.operands, split.given) if split.read() else None


class _Split:
    """One pass over a file command's words by its :class:`_Options`."""

    def __init__(self, spec: _Options, args: tuple[Word, ...]) -> None:
        self.spec, self.args = spec, args
        self.i = 0  # the next word
        self.operands: list[Word] = []
        self.given: dict[str, list[Word]] = {}

    def read(self) -> bool:
        """Read every word; False for a word only known at run time or an unknown option."""
        done = False
        while self.i < len(self.args):
            w = self.args[self.i]
            self.i += 1
            if not w.static:
                return False
            v = w.value
            if done or not v.startswith("-") or v == "-":
                self.operands.append(w)
            elif v == "--":
                done = True
            elif not (self._long(v) if v.startswith("--") else self._short(v[1:])):
                return False
        return True

    def _long(self, v: str) -> bool:
        key, eq, value = v.partition("=")
        if key in self.spec.long_arg:
            return self._argument(key, value if eq else None)
        return key in self.spec.flags

    def _short(self, letters: str) -> bool:
        """A cluster of short options; the letters after one taking an argument are it."""
        for k, ch in enumerate(letters):
            if ch in self.spec.short_arg:
                return self._argument(ch, letters[k + 1 :] or None)
            if f"-{ch}" not in self.spec.flags:
                return False
        return True

    def _argument(self, key: str, glued: str | None) -> bool:
        """Record option ``key``'s argument: ``glued`` to it, else the next word (False if
        there is none)."""
        if glued is not None:
            self.given.setdefault(key, []).append(Word(glued, glued))
            return True
        if self.i < len(self.args):
            self.given.setdefault(key, []).append(self.args[self.i])
            self.i += 1
            return True
        return False


def _sed_in_place(args: tuple[Word, ...]) -> FileOp | None:
    words = _SedWords()
    if not words.read(args) or not words.in_place:
        return None
    scripts, files = words.scripts, words.files
    if not scripts:
        if not files:
            return None
        scripts, files = [files[0].value], files[1:]
    if not files or not all(sed_edit_script(s) for s in scripts):
        return None
    return FileOp(tuple(files))


class _SedWords:
    """``sed``'s words: the scripts its options give, its files, whether it edits in place."""

    def __init__(self) -> None:
        self.scripts: list[str] = []
        self.files: list[Word] = []
        self.in_place = False

    def read(self, args: tuple[Word, ...]) -> bool:
        """Read ``args``; False for a word only known at run time or an unknown option."""
        i = 0
        while i < len(args):
            w = args[i]
            i += 1
            if not w.static:
                return False
            v = w.value
            if v in ("-e", "--expression"):
                if i >= len(args) or not args[i].static:
                    return False
                self.scripts.append(args[i].value)
                i += 1
            elif not v.startswith("-") or v == "-":
                self.files.append(w)
            elif not self._option(v):
                return False
        return True

    def _option(self, v: str) -> bool:
        if v.startswith("--expression="):
            self.scripts.append(v.partition("=")[2])
            return True
        if v.startswith("--in-place") or re.fullmatch(r"-[Ensuz]*i.*", v):
            suffix = v.partition("=")[2] if v.startswith("--") else v[v.index("i") + 1 :]
            self.in_place = True
            # a backup suffix with a directory puts the backup elsewhere
            return "/" not in suffix and "*" not in suffix
        return bool(re.fullmatch(r"-[Ensuz]+", v)) or v in ("--posix", "--regexp-extended")


def file_command(argv: tuple[Word, ...]) -> FileOp | None:
    """The paths an ordinary file command writes and reads, or None if it is not one.

    ``cp a b dir`` writes ``dir`` and reads ``a`` and ``b``; ``mv a b`` writes both; ``rm -r x``
    writes (removes) ``x``; ``sed -i 's/a/b/' f`` writes ``f`` (only s, d and p scripts).
    """
    if not argv or not argv[0].static:
        return None
    name, args = argv[0].value, argv[1:]
    if name == "sed":
        return _sed_in_place(args)
    if name not in _TABLE:
        return None
    split = _split(name, args)
    if split is None:
        return None
    operands, given = split
    target = given.get("t", []) + given.get("--target-directory", [])
    if name in ("cp", "mv"):
        if not target and len(operands) < 2:
            return None
        sources = operands if target else operands[:-1]
        destination = target or operands[-1:]
        if name == "cp":
            return FileOp(tuple(destination), tuple(sources))
        return FileOp((*destination, *sources), removes=True)
    if not operands:
        return None
    reads = tuple(given.get("r", []) + given.get("--reference", []))
    return FileOp(tuple(operands), reads, removes=name in ("rm", "rmdir"))
