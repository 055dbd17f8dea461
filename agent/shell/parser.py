"""Shell commands as the permission layer sees them: parsed, never pattern-matched as strings.

``parse(source)`` turns a Bash command line into every simple command it can run, flattened in
source order: the parts of lists and pipelines (``&&``, ``||``, ``;``, ``|``, ``&``, newlines),
the bodies of subshells ``( )``, groups ``{ }`` and ``if``/``while``/``for``, and the commands
inside command substitutions ``$(...)``, backticks, process substitutions ``<(...)`` and
unquoted here-documents. Words are quote-removed (``'r'm`` and ``\\rm`` are ``rm``); a word that
depends on run time (``$X``, ``$(...)``, ``{a,b}``) is marked so that it never equals a literal.

Wrappers are seen through: ``FOO=1 env -i timeout 5 nice -n 5 rm x`` is the command ``rm x``
(its outer forms are kept as *layers*, so deny rules can name any of them); ``xargs rm`` is
``rm`` with arguments unknown until run time; ``sh -c "..."``, ``bash -lc '...'`` and
``eval '...'`` are parsed recursively. ``sudo``/``doas`` are seen through for deny rules, but
what must be allowed is the privileged command as written.

Anything this module does not understand raises :class:`ShellParseError` (case statements,
function definitions, arrays, arithmetic that can expand variables, ``${!x}``, ...), or marks
a command ``opaque`` (a program name only known at run time, a wrapper option it does not
know). The caller asks the user in both cases. Stdlib only, no I/O.

The words are in :mod:`agent.shell.words`, the lexer in :mod:`agent.shell.lexer`, the
wrappers in :mod:`agent.shell.wrappers`; which commands only read is
:mod:`agent.shell.readonly`.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, replace

from agent.shell import wrappers as shell_wrappers
from agent.shell.lexer import Lexer, Token
from agent.shell.words import (
    ASSIGNMENT,
    LoopVariables,
    ParseState,
    Redirect,
    ShellParseError,
    SimpleCommand,
    Word,
    literal,
)


@dataclass(frozen=True)
class Command:
    """A simple command with its wrappers seen through.

    Attributes:
        argv: what allow rules must match (the innermost command; the privileged command for
            ``sudo``); empty when the command runs no program of its own (``X=1``, ``exec``
            with only redirections, or the ``sh -c`` shell whose script follows as commands).
        layers: every form of the command, outermost first (``timeout 5 rm x``, ``rm x``);
            deny and ask rules are checked against each.
        assignments: variable assignments, including ``env NAME=value``.
        redirects: the redirections of the outermost command.
        open_args: ``xargs`` appends arguments known only at run time.
        opaque: why eddy cannot tell what this command runs, or None.
        sep, subshell, loop_vars, stdin_words: where it stands in the command line, as in
            :class:`agent.shell.words.SimpleCommand`.
    """

    argv: tuple[Word, ...]
    layers: tuple[tuple[Word, ...], ...] = ()
    assignments: tuple[Word, ...] = ()
    redirects: tuple[Redirect, ...] = ()
    open_args: bool = False
    opaque: str | None = None
    sep: str = ""
    subshell: bool = False
    loop_vars: LoopVariables = ()
    stdin_words: tuple[Word, ...] = ()

    @property
    def program(self) -> str | None:
        return self.argv[0].value if self.argv and self.argv[0].static else None

    def text(self) -> str:
        """The command as written, for messages."""
        words = self.argv or (self.layers[0] if self.layers else ())
        return " ".join(w.text for w in words) or " ".join(w.text for w in self.assignments)


@dataclass(frozen=True)
class Script:
    """A parsed command line: its commands in source order, and whether it loops."""

    commands: tuple[Command, ...]
    loops: bool = False


def parse(source: str) -> Script:
    """Parse a Bash command line into the commands it may run.

    Raises:
        ShellParseError: for syntax eddy does not understand (the caller asks).
    """
    if "\0" in source:
        # bash never sees what follows a NUL byte: its argument ends there
        raise ShellParseError("a NUL byte in the command is not supported")
    state = ParseState()
    commands: list[Command] = []
    for simple in _parse_script(source, 0, state):
        commands.extend(_analyze(simple, 0, state))
    return Script(tuple(commands), state.loops)


def split_words(text: str) -> list[Word] | None:
    """The words of ``text`` if it is a single simple command of plain words, else None."""
    try:
        tokens = Lexer(text, 0, ParseState(), _parse_tokens).tokens()
    except ShellParseError:
        return None
    if any(t.kind != "word" for t in tokens):
        return None
    return [t.word for t in tokens if t.word is not None]


# -- parser ----------------------------------------------------------------------------------
_SEPARATORS = frozenset({"\n", ";", "&", "&&", "||", "|", "|&"})
_SKIP = frozenset(
    {"if", "then", "elif", "else", "fi", "do", "done", "while", "until", "{", "}", "!"}
)
_UNSUPPORTED = frozenset({"case", "esac", "function", "coproc", "select"})
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ARITH_TESTS = frozenset({"-eq", "-ne", "-lt", "-le", "-gt", "-ge", "-v", "-R"})


def _parse_script(source: str, depth: int, state: ParseState) -> list[SimpleCommand]:
    return _parse_tokens(Lexer(source, depth, state, _parse_tokens).tokens(), state)


def _parse_tokens(tokens: list[Token], state: ParseState) -> list[SimpleCommand]:
    out: list[SimpleCommand] = []
    words: list[Word] = []
    assigns: list[Word] = []
    redirects: list[Redirect] = []
    depth = 0
    sep, closed = "", False  # the operator before the next command; a subshell just ended
    previous: tuple[Word, ...] = ()
    loops: list[tuple[str, tuple[Word, ...] | None] | None] = []  # the loops we are in
    header: tuple[str, tuple[Word, ...] | None] | None = None  # a for header before its do

    def finish() -> None:
        nonlocal words, assigns, redirects, previous, closed
        if words or assigns or redirects:
            for w in (*assigns, *words, *(r.target for r in redirects if r.target)):
                out.extend(replace(sub, subshell=True) for sub in w.subs)
            out.append(
                SimpleCommand(
                    tuple(words),
                    tuple(assigns),
                    tuple(redirects),
                    sep=")" if closed else sep,
                    loop_vars=tuple(v for v in loops if v is not None),
                    stdin_words=previous if sep in ("|", "|&") and not closed else (),
                )
            )
            previous, closed = tuple(words), False
        words, assigns, redirects = [], [], []

    i = 0
    while i < len(tokens):
        tok = tokens[i]
        i += 1
        if tok.kind == "op":
            if tok.text in _SEPARATORS:
                finish()
                sep = tok.text
            elif tok.text == "(":
                if words or assigns or redirects:
                    raise ShellParseError("function definitions and arrays are not supported")
                depth += 1
            elif tok.text == ")":
                finish()
                closed, previous = True, ()
                depth -= 1
                if depth < 0:
                    raise ShellParseError("unbalanced parentheses")
            else:
                raise ShellParseError(f"{tok.text!r} (a case statement) is not supported")
            continue
        if tok.kind == "redir":
            assert tok.redirect is not None
            redirects.append(tok.redirect)
            continue
        w = tok.word
        assert w is not None
        if not words and not assigns and not w.quoted and not w.dynamic:
            if w.value in _SKIP:
                state.loops = state.loops or w.value in ("while", "until")
                if w.value == "do":
                    loops.append(header)
                    header = None
                elif w.value == "done" and loops:
                    loops.pop()
                continue
            if w.value in _UNSUPPORTED:
                raise ShellParseError(f"{w.value!r} is not supported")
            if w.value == "for":
                i, header = _for_header(tokens, i, out)
                state.loops = True
                continue
            if w.value == "[[":
                i = _double_bracket(tokens, i, out)
                continue
        if not words and ASSIGNMENT.match(w.raw):
            assigns.append(w)
            continue
        words.append(w)
    finish()
    if depth:
        raise ShellParseError("unbalanced parentheses")
    return out


def _for_header(
    tokens: list[Token], i: int, out: list[SimpleCommand]
) -> tuple[int, tuple[str, tuple[Word, ...] | None]]:
    """Read ``NAME [in WORDS]`` after ``for``: the variable and the words it takes.

    The words' substitutions still count as commands; the words are None when the loop
    runs over ``"$@"`` (no ``in``) or a word only known at run time.
    """
    name = tokens[i].word if i < len(tokens) else None
    if name is None or name.quoted or not _NAME.fullmatch(name.raw):
        raise ShellParseError("this form of for loop is not supported")
    i += 1
    after = tokens[i].word if i < len(tokens) else None
    if after is None or after.raw != "in":
        return i, (name.value, None)
    i += 1
    values: list[Word] | None = []
    while i < len(tokens) and not (tokens[i].kind == "op" and tokens[i].text in (";", "\n")):
        word = tokens[i].word
        if word is None:
            raise ShellParseError("this form of for loop is not supported")
        out.extend(replace(sub, subshell=True) for sub in word.subs)
        if values is not None and word.static:
            values.append(word)
        else:
            values = None
        i += 1
    return i, (name.value, tuple(values) if values is not None else None)


def _double_bracket(tokens: list[Token], i: int, out: list[SimpleCommand]) -> int:
    """``[[ ... ]]``: operators inside are data; arithmetic comparisons are refused."""
    while i < len(tokens):
        tok = tokens[i]
        i += 1
        word = tok.word or (tok.redirect.target if tok.redirect else None)
        if word is None:
            continue
        if tok.kind == "word" and word.raw == "]]":
            out.append(SimpleCommand((literal("[["),)))
            return i
        if word.value in _ARITH_TESTS:
            raise ShellParseError(f"[[ {word.value} ]] evaluates arithmetic; not supported")
        out.extend(word.subs)
    raise ShellParseError("unterminated [[")


def _analyze(sc: SimpleCommand, depth: int, state: ParseState) -> list[Command]:
    argv = list(sc.words)
    assigns = list(sc.assignments)
    layers: list[tuple[Word, ...]] = []
    privileged: int | None = None
    open_args = False

    def command(effective: tuple[Word, ...], opaque: str | None = None) -> Command:
        if privileged is not None:
            effective = layers[privileged]
        return Command(
            effective,
            tuple(layers),
            tuple(assigns),
            sc.redirects,
            open_args,
            opaque,
            sc.sep,
            sc.subshell,
            sc.loop_vars,
            sc.stdin_words,
        )

    while argv:
        layers.append(tuple(argv))
        head = argv[0]
        if not head.static or head.glob:
            return [command(tuple(argv), "the program name is only known at run time")]
        base = os.path.basename(head.value)
        script: Word | None = None
        try:
            if base in shell_wrappers.SHELLS:
                script = shell_wrappers.shell_script(argv[1:])
                if script is None:
                    break
            elif base == "eval":
                if not all(w.static for w in argv[1:]):
                    raise shell_wrappers.Opaque("eval of text only known at run time")
                script = literal(" ".join(w.value for w in argv[1:]))
        except shell_wrappers.Opaque as exc:
            return [command(tuple(argv), str(exc))]
        if script is not None:
            if not script.static:
                return [command(tuple(argv), "a shell script only known at run time")]
            if base not in ("bash", "eval") and not shell_wrappers.plain_words(script.value):
                # /bin/sh is dash here, not bash: only plain words read the same in both
                return [command(tuple(argv), f"{base} is not bash; its grammar is not modelled")]
            inner: list[Command] = []
            for simple in _parse_script(script.value, depth + 1, state):
                inner.extend(_analyze(replace(simple, subshell=True), depth + 1, state))
            return [command(()), *inner]
        unwrap = shell_wrappers.WRAPPERS.get(base)
        if unwrap is None:
            break
        try:
            inner_argv, extra = unwrap(argv[1:])
        except shell_wrappers.Opaque as exc:
            return [command(tuple(argv), str(exc))]
        if base in shell_wrappers.PRIVILEGED and privileged is None:
            privileged = len(layers) - 1
        open_args = open_args or base == "xargs"
        assigns.extend(extra)
        if inner_argv is None:
            break
        argv = inner_argv
    return [command(tuple(argv))]
