"""Small programs inside shell words: which awk and sed scripts only print or substitute.

:func:`awk_read_only` recognises ``awk '{print $1}' f``: a program with no ``system``, pipes,
output redirection, ``getline`` or ``ENVIRON``; :func:`sed_edit_script` recognises the sed
scripts ``sed -i`` may run without asking (``s/a/b/g``, ``/x/d``): no ``w``, ``e``, ``r`` or
``W``, which write, run or read other files. Both refuse what they do not understand.
Used by :mod:`agent.shell.readonly` and :mod:`agent.shell.fileops`. Stdlib only, no I/O.
"""

from __future__ import annotations

import re

from agent.shell.words import Word, literal

# anything that writes, runs, reads other files (getline, ARGV) or prints the environment;
# ">" also refuses
# comparisons, which is the price of not parsing awk
_AWK_BAD = re.compile(r"system|getline|ENVIRON|PROCINFO|ARGV|ARGC|close|fflush|@|[|>]")
_AWK_ARG = frozenset("Fv")


def awk_read_only(args: tuple[Word, ...]) -> tuple[Word, ...] | None:
    """The files ``awk ARGS`` reads if its program only prints, else None.

    Options: ``-F sep``, ``-v name=value`` (values are data), ``--``; ``-f progfile``,
    gawk's ``-e``/``-i``/``-l`` and everything else refuse.
    """
    i = _awk_options(args)
    if i is None or i >= len(args):
        return None
    program, operands = args[i], args[i + 1 :]
    if not program.static or _AWK_BAD.search(program.value):
        return None
    paths: list[Word] = []
    for w in operands:
        if not w.static or w.glob or "=" in w.value:
            return None  # an operand NAME=value assigns; one only known at run time could too
        paths.append(w)
    return (literal("."), *paths)


def _awk_options(args: tuple[Word, ...]) -> int | None:
    """The index of awk's program after its options, or None for an option that refuses."""
    i = 0
    while i < len(args):
        w = args[i]
        if not w.static or w.glob:
            return None
        v = w.value
        if v == "--":
            return i + 1
        if not v.startswith("-") or v == "-":
            break
        if v[1] not in _AWK_ARG:
            return None
        if v[1] == "v" and not re.fullmatch(r"[A-Za-z_]\w*=.*", v[2:] or _at(args, i + 1)):
            return None
        i += 1 if len(v) > 2 else 2
    return i


def _at(args: tuple[Word, ...], i: int) -> str:
    return args[i].value if i < len(args) and args[i].static else ""


_SED_ADDR = r"(?:\d+|\$|/(?:[^/\\\n]|\\.)*/I?)"
_SED_RANGE = rf"(?:{_SED_ADDR}(?:\s*,\s*{_SED_ADDR})?\s*!?)?"
_SED_SIMPLE = re.compile(rf"\s*{_SED_RANGE}\s*[dpP=]\s*")


def _sed_substitute(text: str, i: int) -> int | None:
    """The end of an ``s`` command starting at ``text[i] == "s"``, or None if refused."""
    if i + 1 >= len(text):
        return None
    delim = text[i + 1]
    if delim in "\\\n" or delim.isalnum() or delim.isspace():
        return None
    j, parts = i + 2, 0
    while j < len(text) and parts < 2:
        c = text[j]
        if c == "\\":
            j += 2
            continue
        if c == "\n":
            return None
        if c == delim:
            parts += 1
        j += 1
    if parts < 2:
        return None
    flags = re.match(r"[gIipm0-9]*", text[j:])
    assert flags is not None
    return j + flags.end()  # w FILE and e are not among the flags taken


def sed_edit_script(script: str) -> bool:
    """Whether a ``sed -i`` script only substitutes, deletes and prints (``s/a/b/g; /x/d``)."""
    i, n = 0, len(script)
    while i < n:
        while i < n and script[i] in " \t\n;":
            i += 1
        if i >= n:
            return True
        address = re.compile(rf"\s*{_SED_RANGE}\s*").match(script, i)
        assert address is not None
        j = address.end()
        if j < n and script[j] == "s":
            end = _sed_substitute(script, j)
            if end is None:
                return False
            i = end
        else:
            simple = _SED_SIMPLE.match(script, i)
            if simple is None:
                return False
            i = simple.end()
        rest = re.match(r"\s*(?:[;\n]|$)", script[i:])
        if rest is None:
            return False
        i += rest.end()
    return True


def jq_read_only(args: tuple[Word, ...]) -> bool:
    """jq filters that do not print the environment (``env``, ``$ENV``) or read other files."""
    return not any(
        re.search(r"\benv\b|\$ENV|\binput_filename\b|\$__prog", w.value)
        or w.value.startswith(("--rawfile", "--slurpfile"))
        for w in args
        if w.static
    )
