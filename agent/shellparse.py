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
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

MAX_DEPTH = 8
"""How deeply ``$(...)``, backticks and ``sh -c`` may nest before the command is refused."""


class ShellParseError(ValueError):
    """The command uses syntax eddy does not understand; the caller must ask the user."""


@dataclass(frozen=True)
class Word:
    """One shell word.

    Attributes:
        value: the word after quote removal; run-time parts are kept as written (``$X``).
        raw: the word as written in the source.
        dynamic: it contains a parameter, command or arithmetic expansion.
        glob: it contains unquoted ``*``, ``?`` or ``[`` (pathname expansion).
        brace: it contains an unquoted brace expansion (``{a,b}``, ``{1..3}``).
        tilde: it starts with an unquoted ``~``.
        quoted: some part of it was quoted or escaped.
        subs: the commands its substitutions run (already flattened).
    """

    value: str
    raw: str = ""
    dynamic: bool = False
    glob: bool = False
    brace: bool = False
    tilde: bool = False
    quoted: bool = False
    subs: tuple[SimpleCommand, ...] = ()

    @property
    def static(self) -> bool:
        """Its value is known before the command runs (globs aside)."""
        return not self.dynamic and not self.brace

    @property
    def text(self) -> str:
        return self.raw or self.value


def literal(value: str) -> Word:
    """A word with a known value (for wrappers' defaults and tests)."""
    return Word(value, value)


RedirectKind = Literal["write", "read", "dup", "data"]


@dataclass(frozen=True)
class Redirect:
    """A redirection: ``op`` is one of > >> >| &> &>> <> < >& <& << <<- <<<."""

    op: str
    target: Word | None
    fd: int | None = None

    @property
    def kind(self) -> RedirectKind:
        """write/read a file, dup a descriptor, or data (here-document, here-string)."""
        if self.op in ("<<", "<<-", "<<<"):
            return "data"
        target = self.target
        if (
            self.op in (">&", "<&")
            and target is not None
            and target.static
            and re.fullmatch(r"\d*-?", target.value)
        ):
            return "dup"
        if self.op in ("<", "<&"):
            return "read"
        return "write"


@dataclass(frozen=True)
class SimpleCommand:
    """Assignments, words and redirections of one simple command, as written."""

    words: tuple[Word, ...] = ()
    assignments: tuple[Word, ...] = ()
    redirects: tuple[Redirect, ...] = ()


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
    """

    argv: tuple[Word, ...]
    layers: tuple[tuple[Word, ...], ...] = ()
    assignments: tuple[Word, ...] = ()
    redirects: tuple[Redirect, ...] = ()
    open_args: bool = False
    opaque: str | None = None

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


@dataclass
class _State:
    loops: bool = False


def parse(source: str) -> Script:
    """Parse a Bash command line into the commands it may run.

    Raises:
        ShellParseError: for syntax eddy does not understand (the caller asks).
    """
    state = _State()
    commands: list[Command] = []
    for simple in _parse_script(source, 0, state):
        commands.extend(_analyze(simple, 0, state))
    return Script(tuple(commands), state.loops)


def split_words(text: str) -> list[Word] | None:
    """The words of ``text`` if it is a single simple command of plain words, else None."""
    try:
        tokens = _Lexer(text, 0, _State()).tokens()
    except ShellParseError:
        return None
    if any(t.kind != "word" for t in tokens):
        return None
    return [t.word for t in tokens if t.word is not None]


# -- lexer -----------------------------------------------------------------------------------
_META = frozenset(" \t\n;&|()<>")


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


def _seq(text: str) -> tuple[str, ...]:
    return tuple(text.split())


_REDIR_OPS = ("&>>", "<<<", "<<-", "&>", ">>", ">|", ">&", "<&", "<>", "<<", ">", "<")
_CONTROL_OPS = (";;&", ";;", ";&", "&&", "||", "|&", "|", "&", ";", "(", ")")
_ALL_OPS = sorted(_REDIR_OPS + _CONTROL_OPS, key=len, reverse=True)
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_BRACE = re.compile(r"\{[^{}]*(,|\.\.)[^{}]*\}")
# ${name}, ${#name}, ${name:-word} and other forms that never evaluate arithmetic or indirect
_SAFE_PARAM = re.compile(
    r"#?([A-Za-z_][A-Za-z0-9_]*|\d+|[@*#?$!-])(:?[-=+?].*|%%?.*|##?.*|//?.*|\^\^?|,,?)?", re.S
)


@dataclass
class _Tok:
    kind: Literal["op", "word", "redir"]
    text: str = ""
    word: Word | None = None
    redirect: Redirect | None = None
    heredoc: tuple[str, bool, bool] | None = None  # delimiter, quoted, strip tabs


class _Lexer:
    def __init__(self, src: str, depth: int, state: _State, *, in_subst: bool = False) -> None:
        if depth > MAX_DEPTH:
            raise ShellParseError("commands are nested too deeply")
        self.src, self.pos, self.depth, self.state = src, 0, depth, state
        self.in_subst = in_subst
        self.parens = 0
        self.pending: list[_Tok] = []

    def error(self, message: str) -> ShellParseError:
        return ShellParseError(message)

    def tokens(self) -> list[_Tok]:
        out: list[_Tok] = []
        src, n = self.src, len(self.src)
        while self.pos < n:
            c = src[self.pos]
            if c in " \t":
                self.pos += 1
            elif src.startswith("\\\n", self.pos):
                self.pos += 2
            elif c == "#":
                end = src.find("\n", self.pos)
                self.pos = n if end < 0 else end
            elif c == "\n":
                out.append(_Tok("op", "\n"))
                self.pos += 1
                self._read_heredocs()
            elif src.startswith(("<(", ">("), self.pos):
                out.append(_Tok("word", word=self._word()))
            else:
                fd_match = re.match(r"\d+(?=[<>])", src[self.pos :])
                start = self.pos + (fd_match.end() if fd_match else 0)
                op = next((o for o in _ALL_OPS if src.startswith(o, start)), None)
                if op is None:
                    out.append(_Tok("word", word=self._word()))
                    continue
                self.pos = start + len(op)
                if op in _REDIR_OPS:
                    out.append(self._redirect(op, int(fd_match.group()) if fd_match else None))
                    continue
                if op == "(":
                    self.parens += 1
                elif op == ")":
                    if self.in_subst and self.parens == 0:
                        return self._finish(out, closed=True)
                    self.parens -= 1
                out.append(_Tok("op", op))
        return self._finish(out, closed=False)

    def _finish(self, out: list[_Tok], *, closed: bool) -> list[_Tok]:
        if self.in_subst and not closed:
            raise self.error("unterminated $( or <(")
        if self.pending:  # here-document without a body: bash reads to the end, so do we
            self._read_heredocs()
        return out

    def _redirect(self, op: str, fd: int | None) -> _Tok:
        while self.pos < len(self.src) and self.src[self.pos] in " \t":
            self.pos += 1
        rest = self.src[self.pos :]
        if not rest or (rest[0] in _META and not rest.startswith(("<(", ">("))):
            raise self.error(f"the redirection {op} has no target")
        target = self._word()
        if op in ("<<", "<<-"):
            if not target.static:
                raise self.error("a here-document delimiter with expansions is not supported")
            tok = _Tok("redir", op, heredoc=(target.value, target.quoted, op == "<<-"))
            tok.redirect = Redirect(op, None, fd)
            self.pending.append(tok)
            return tok
        return _Tok("redir", op, redirect=Redirect(op, target, fd))

    def _read_heredocs(self) -> None:
        src, n = self.src, len(self.src)
        for tok in self.pending:
            assert tok.heredoc is not None
            delim, quoted, strip = tok.heredoc
            lines: list[str] = []
            while self.pos < n:
                end = src.find("\n", self.pos)
                line = src[self.pos : n if end < 0 else end]
                self.pos = n if end < 0 else end + 1
                if (line.lstrip("\t") if strip else line) == delim:
                    break
                lines.append(line + "\n")
            body = "".join(lines)
            if quoted:
                word = Word(body, body, quoted=True)
            else:
                sub = _Lexer(body, self.depth, self.state)
                value, dynamic, subs = sub._double_quoted(None)
                word = Word(value, body, dynamic=dynamic, subs=tuple(subs))
            tok.redirect = Redirect(tok.text, word, tok.redirect.fd if tok.redirect else None)
        self.pending = []

    def _word(self) -> Word:
        src, n, start = self.src, len(self.src), self.pos
        buf: list[str] = []
        unquoted: list[str] = []  # the unquoted characters; quoted parts become "\0"
        dynamic = quoted = False
        subs: list[SimpleCommand] = []
        while self.pos < n:
            c = src[self.pos]
            if c in _META:
                if c in "<>" and src.startswith("(", self.pos + 1):
                    begin = self.pos
                    subs.extend(self._substitution(self.pos + 2))
                    buf.append(src[begin : self.pos])
                    unquoted.append("\0")
                    dynamic = True
                    continue
                break
            if c == "\\":
                if self.pos + 1 >= n:
                    buf.append("\\")
                    self.pos += 1
                elif src[self.pos + 1] == "\n":
                    self.pos += 2
                else:
                    buf.append(src[self.pos + 1])
                    unquoted.append("\0")
                    quoted = True
                    self.pos += 2
            elif c == "'":
                end = src.find("'", self.pos + 1)
                if end < 0:
                    raise self.error("unterminated single quote")
                buf.append(src[self.pos + 1 : end])
                unquoted.append("\0")
                quoted = True
                self.pos = end + 1
            elif c == '"':
                self.pos += 1
                value, dyn, inner = self._double_quoted('"')
                buf.append(value)
                unquoted.append("\0")
                quoted, dynamic = True, dynamic or dyn
                subs.extend(inner)
            elif c == "$" and src.startswith("$'", self.pos):
                buf.append(self._ansi_c())
                unquoted.append("\0")
                quoted = True
            elif c == "$" and src.startswith('$"', self.pos):
                self.pos += 1
            elif c == "$":
                text, dyn, inner = self._dollar()
                buf.append(text)
                unquoted.append("\0" if dyn else text)
                dynamic = dynamic or dyn
                subs.extend(inner)
            elif c == "`":
                text, inner = self._backtick()
                buf.append(text)
                unquoted.append("\0")
                dynamic = True
                subs.extend(inner)
            else:
                buf.append(c)
                unquoted.append(c)
                self.pos += 1
        bare = "".join(unquoted)
        return Word(
            "".join(buf),
            src[start : self.pos],
            dynamic=dynamic,
            glob=any(ch in bare for ch in "*?["),
            brace=bool(_BRACE.search(bare)),
            tilde=bare.startswith("~"),
            quoted=quoted,
            subs=tuple(subs),
        )

    def _double_quoted(self, term: str | None) -> tuple[str, bool, list[SimpleCommand]]:
        """Read up to ``term`` (or the end): the body of "..." or of an unquoted here-doc."""
        src, n = self.src, len(self.src)
        buf: list[str] = []
        dynamic = False
        subs: list[SimpleCommand] = []
        while True:
            if self.pos >= n:
                if term is None:
                    break
                raise self.error("unterminated double quote")
            c = src[self.pos]
            if term is not None and c == term:
                self.pos += 1
                break
            if c == "\\" and self.pos + 1 < n and src[self.pos + 1] in '$`"\\\n':
                if src[self.pos + 1] != "\n":
                    buf.append(src[self.pos + 1])
                self.pos += 2
            elif c == "$":
                text, dyn, inner = self._dollar()
                buf.append(text)
                dynamic = dynamic or dyn
                subs.extend(inner)
            elif c == "`":
                text, inner = self._backtick()
                buf.append(text)
                dynamic = True
                subs.extend(inner)
            else:
                buf.append(c)
                self.pos += 1
        return "".join(buf), dynamic, subs

    def _dollar(self) -> tuple[str, bool, list[SimpleCommand]]:
        src, start = self.src, self.pos
        nxt = src[start + 1 : start + 2]
        if src.startswith("$((", start):
            inner_close = self._matching_paren(start + 2)
            if src[inner_close + 1 : inner_close + 2] != ")":
                raise self.error("$(( ... )) that is not plain arithmetic is not supported")
            body = src[start + 3 : inner_close]
            if re.search(r"[A-Za-z_$`\[]", body):
                # arithmetic evaluates variables' values as expressions, which can run commands
                raise self.error("arithmetic with variables is not supported")
            self.pos = inner_close + 2
            return src[start : self.pos], True, []
        if nxt == "(":
            subs = self._substitution(start + 2)
            return src[start : self.pos], True, subs
        if nxt == "[":
            raise self.error("$[ ... ] arithmetic is not supported")
        if nxt == "{":
            end = self._matching_brace(start + 1)
            body = src[start + 2 : end]
            if not _SAFE_PARAM.fullmatch(body) or re.search(r"\$[({\[]|`|<\(|>\(", body):
                raise self.error(f"the parameter expansion ${{{body}}} is not supported")
            self.pos = end + 1
            return src[start : self.pos], True, []
        m = _NAME.match(src, start + 1)
        if m is not None:
            self.pos = m.end()
            return src[start : self.pos], True, []
        if nxt and nxt in "0123456789@*#?-$!":
            self.pos = start + 2
            return src[start : self.pos], True, []
        self.pos = start + 1
        return "$", False, []

    def _matching_paren(self, i: int) -> int:
        depth = 0
        for j in range(i, len(self.src)):
            if self.src[j] == "(":
                depth += 1
            elif self.src[j] == ")":
                depth -= 1
                if depth == 0:
                    return j
        raise self.error("unbalanced parentheses")

    def _matching_brace(self, i: int) -> int:
        depth, j, src = 0, i, self.src
        while j < len(src):
            c = src[j]
            if c == "\\":
                j += 2
                continue
            if c == "'" and depth > 0:
                end = src.find("'", j + 1)
                if end < 0:
                    break
                j = end + 1
                continue
            if c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
                if depth == 0:
                    return j
            j += 1
        raise self.error("unterminated ${")

    def _substitution(self, start: int) -> list[SimpleCommand]:
        sub = _Lexer(self.src, self.depth + 1, self.state, in_subst=True)
        sub.pos = start
        tokens = sub.tokens()
        self.pos = sub.pos
        return _parse_tokens(tokens, self.state)

    def _backtick(self) -> tuple[str, list[SimpleCommand]]:
        src, start = self.src, self.pos
        self.pos += 1
        chunk: list[str] = []
        while self.pos < len(src) and src[self.pos] != "`":
            if src[self.pos] == "\\" and src[self.pos + 1 : self.pos + 2] in ("$", "`", "\\"):
                chunk.append(src[self.pos + 1])
                self.pos += 2
                continue
            chunk.append(src[self.pos])
            self.pos += 1
        if self.pos >= len(src):
            raise self.error("unterminated backtick")
        self.pos += 1
        return src[start : self.pos], _parse_script("".join(chunk), self.depth + 1, self.state)

    def _ansi_c(self) -> str:
        src, i = self.src, self.pos + 2
        out: list[str] = []
        while i < len(src) and src[i] != "'":
            if src[i] == "\\" and i + 1 < len(src):
                i += 2
                out.append("\\" + src[i - 1])
                continue
            out.append(src[i])
            i += 1
        if i >= len(src):
            raise self.error("unterminated $'...'")
        self.pos = i + 1
        raw = "".join(out)
        try:
            return raw.encode("latin-1", "backslashreplace").decode("unicode_escape")
        except UnicodeDecodeError as exc:
            raise self.error("an escape in $'...' eddy cannot decode") from exc


# -- parser ----------------------------------------------------------------------------------
_SEPARATORS = frozenset({"\n", ";", "&", "&&", "||", "|", "|&"})
_SKIP = frozenset(
    {"if", "then", "elif", "else", "fi", "do", "done", "while", "until", "{", "}", "!"}
)
_UNSUPPORTED = frozenset({"case", "esac", "function", "coproc", "select"})
_ARITH_TESTS = frozenset({"-eq", "-ne", "-lt", "-le", "-gt", "-ge", "-v", "-R"})
ASSIGNMENT = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(\[[^\]]*\])?\+?=")
"""``NAME=``, ``NAME+=`` or ``NAME[sub]=`` at the start of a word's source text."""


def _parse_script(source: str, depth: int, state: _State) -> list[SimpleCommand]:
    return _parse_tokens(_Lexer(source, depth, state).tokens(), state)


def _parse_tokens(tokens: list[_Tok], state: _State) -> list[SimpleCommand]:
    out: list[SimpleCommand] = []
    words: list[Word] = []
    assigns: list[Word] = []
    redirects: list[Redirect] = []
    depth = 0

    def finish() -> None:
        nonlocal words, assigns, redirects
        if words or assigns or redirects:
            for w in (*assigns, *words, *(r.target for r in redirects if r.target)):
                out.extend(w.subs)
            out.append(SimpleCommand(tuple(words), tuple(assigns), tuple(redirects)))
        words, assigns, redirects = [], [], []

    i = 0
    while i < len(tokens):
        tok = tokens[i]
        i += 1
        if tok.kind == "op":
            if tok.text in _SEPARATORS:
                finish()
            elif tok.text == "(":
                if words or assigns or redirects:
                    raise ShellParseError("function definitions and arrays are not supported")
                depth += 1
            elif tok.text == ")":
                finish()
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
                continue
            if w.value in _UNSUPPORTED:
                raise ShellParseError(f"{w.value!r} is not supported")
            if w.value == "for":
                i = _for_header(tokens, i, out)
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


def _for_header(tokens: list[_Tok], i: int, out: list[SimpleCommand]) -> int:
    """Skip ``NAME [in WORDS]`` after ``for``; the words' substitutions still count."""
    if i >= len(tokens) or tokens[i].word is None:
        raise ShellParseError("this form of for loop is not supported")
    i += 1
    after = tokens[i].word if i < len(tokens) else None
    if after is not None and after.raw == "in":
        i += 1
        while i < len(tokens) and not (tokens[i].kind == "op" and tokens[i].text in (";", "\n")):
            word = tokens[i].word
            if word is None:
                raise ShellParseError("this form of for loop is not supported")
            out.extend(word.subs)
            i += 1
    return i


def _double_bracket(tokens: list[_Tok], i: int, out: list[SimpleCommand]) -> int:
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


# -- wrappers --------------------------------------------------------------------------------
class _Opaque(Exception):
    pass


def _skip_options(
    args: list[Word],
    flags: frozenset[str] = frozenset(),
    short_arg: str = "",
    long_arg: frozenset[str] = frozenset(),
) -> int:
    """The index of the first operand after the options; unknown options raise _Opaque."""
    i = 0
    while i < len(args):
        w = args[i]
        if not w.static:
            raise _Opaque(f"the option {w.text} is only known at run time")
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
            raise _Opaque(f"eddy does not know the option {v}")
    return i


Unwrapped = tuple[list[Word] | None, list[Word]]
"""(the inner command, or None when the wrapper is itself the program; assignments it adds)."""


def _env(args: list[Word]) -> Unwrapped:
    i, assigns = 0, []
    while i < len(args):
        w = args[i]
        if not w.static:
            raise _Opaque(f"the argument {w.text} of env is only known at run time")
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
            raise _Opaque(f"eddy does not know the env option {v}")
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
            raise _Opaque("a wrapper without a command")
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
    flags = _words(
        "-0 --null -r --no-run-if-empty -t --verbose -x --exit -p --interactive -o --open-tty "
        "-i -l -e"
    )
    long_arg = _words(
        "--arg-file --delimiter --eof --replace --max-lines --max-args --max-procs --max-chars "
        "--process-slot-var"
    )
    # -i, -l and -e take an optional argument, glued to them: -i{} -l1 -eEOF
    glued = [
        literal(w.value[:2]) if w.static and re.fullmatch(r"-[ile].+", w.value) else w for w in args
    ]
    i = _skip_options(glued, flags, "ILnPdaEs", long_arg)
    return (args[i:] or [literal("echo")]), []


_SUDO = _simple(
    frozenset({"-E", "-H", "-n", "-S", "-k", "-K", "-b", "-P", "--preserve-env", "--login"}),
    "ugDChprtTU",
    frozenset({"--user", "--group", "--chdir", "--host", "--prompt"}),
)
_WRAPPERS: dict[str, Callable[[list[Word]], Unwrapped]] = {
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
_PRIVILEGED = frozenset({"sudo", "doas"})
SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh"})


def _shell_script(args: list[Word]) -> Word | None:
    """The script of ``sh -c SCRIPT``; None when the shell runs a file or stdin."""
    has_c, i = False, 0
    while i < len(args):
        w = args[i]
        if not w.static:
            raise _Opaque("a shell option only known at run time")
        v = w.value
        if v in ("--norc", "--noprofile", "--login", "--posix"):
            i += 1
        elif re.fullmatch(r"[-+][A-Za-z]+", v):
            has_c = has_c or "c" in v
            i += 2 if re.search("[oO]", v[1:]) else 1
        elif v == "--":
            i += 1
            break
        else:
            break
    if not has_c:
        return None
    if i >= len(args):
        raise _Opaque("sh -c without a script")
    return args[i]


def _analyze(sc: SimpleCommand, depth: int, state: _State) -> list[Command]:
    argv = list(sc.words)
    assigns = list(sc.assignments)
    layers: list[tuple[Word, ...]] = []
    privileged: int | None = None
    open_args = False

    def command(effective: tuple[Word, ...], opaque: str | None = None) -> Command:
        if privileged is not None:
            effective = layers[privileged]
        return Command(effective, tuple(layers), tuple(assigns), sc.redirects, open_args, opaque)

    while argv:
        layers.append(tuple(argv))
        head = argv[0]
        if not head.static or head.glob:
            return [command(tuple(argv), "the program name is only known at run time")]
        base = os.path.basename(head.value)
        script: Word | None = None
        try:
            if base in SHELLS:
                script = _shell_script(argv[1:])
                if script is None:
                    break
            elif base == "eval":
                if not all(w.static for w in argv[1:]):
                    raise _Opaque("eval of text only known at run time")
                script = literal(" ".join(w.value for w in argv[1:]))
        except _Opaque as exc:
            return [command(tuple(argv), str(exc))]
        if script is not None:
            if not script.static:
                return [command(tuple(argv), "a shell script only known at run time")]
            inner: list[Command] = []
            for simple in _parse_script(script.value, depth + 1, state):
                inner.extend(_analyze(simple, depth + 1, state))
            return [command(()), *inner]
        unwrap = _WRAPPERS.get(base)
        if unwrap is None:
            break
        try:
            inner_argv, extra = unwrap(argv[1:])
        except _Opaque as exc:
            return [command(tuple(argv), str(exc))]
        if base in _PRIVILEGED and privileged is None:
            privileged = len(layers) - 1
        open_args = open_args or base == "xargs"
        assigns.extend(extra)
        if inner_argv is None:
            break
        argv = inner_argv
    return [command(tuple(argv))]


# -- variables -------------------------------------------------------------------------------
_UNSAFE_VARIABLES = _words(
    "PATH IFS ENV BASH_ENV SHELLOPTS BASHOPTS PS4 PROMPT_COMMAND CDPATH GLOBIGNORE HOME "
    "BASH_XTRACEFD PYTHONPATH PYTHONSTARTUP NODE_OPTIONS PERL5OPT RUBYOPT"
)
_READ_ONLY_VARIABLES = _words(
    "LANG LANGUAGE TZ NO_COLOR FORCE_COLOR TERM COLUMNS LINES CLICOLOR CLICOLOR_FORCE"
)


def assignment_name(word: Word) -> str:
    """The variable a ``NAME=value`` word sets (with ``[...]`` if it sets an array element)."""
    m = ASSIGNMENT.match(word.raw) or ASSIGNMENT.match(word.value)
    return (m.group(1) + (m.group(2) or "")) if m else word.value.split("=", 1)[0]


def unsafe_assignment(word: Word) -> bool:
    """Whether setting this variable can change which program runs or run code itself."""
    name = assignment_name(word)
    if name in ("PAGER", "GIT_PAGER"):
        return not (word.static and word.value.split("=", 1)[1] in ("", "cat"))
    return (
        "[" in name
        or name in _UNSAFE_VARIABLES
        or name.startswith(("LD_", "DYLD_", "BASH_FUNC_", "GIT_"))
    )


def read_only_assignment(word: Word) -> bool:
    """Whether a read-only command stays read-only with this variable set (locale, colour)."""
    name = assignment_name(word)
    if name in ("PAGER", "GIT_PAGER"):
        return word.static and word.value.split("=", 1)[1] in ("", "cat")
    return name in _READ_ONLY_VARIABLES or name.startswith("LC_")


# -- read-only commands ----------------------------------------------------------------------
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
_GREP_LONG = _seq(
    "--regexp --file --after-context --before-context --context --max-count --directories "
    "--devices --include --exclude --exclude-dir --exclude-from --label --binary-files --group- "
    "separator"
)
_RG_LONG = _seq(
    "--regexp --file --glob --iglob --type --type-not --type-add --type-clear --after-context "
    "--before-context --context --max-count --max-columns --threads --replace --encoding --max- "
    "depth --sort --sortr --colors --color --path-separator --max-filesize --ignore-file --pre- "
    "glob --engine --context-separator --field-context-separator --field-match-separator --dfa- "
    "size-limit --regex-size-limit --hyperlink-format --generate --hostname-bin"
)
_SPECS: dict[str, _Spec] = {
    **dict.fromkeys(
        _seq(
            "cat head tail wc ls stat du diff cmp comm cut nl tac rev od hexdump strings column "
            "fold jq md5sum sha1sum sha224sum sha256sum sha384sum sha512sum b2sum cksum"
        ),
        _PATHS,
    ),
    **dict.fromkeys(
        _seq(
            "echo pwd true false : whoami id uname nproc seq basename dirname which type realpath "
            "readlink tr expr sleep df set shift wait"
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
        bad_short="o",
        bad_long=("--output", "--compress-program"),
        arg_short="ktST",
        arg_long=_seq(
            "--key --field-separator --buffer-size --temporary-directory --parallel --batch-size "
            "--files0-from"
        ),
    ),
    "uniq": _Spec(max_operands=1, arg_short="fsw"),
    "xxd": _Spec(bad_short="r", max_operands=1),
    "tree": _Spec(bad_short="oR", arg_short="LPIH"),
    "find": _Spec(
        bad_words=_seq("-exec -execdir -ok -okdir -delete -fprint -fprint0 -fprintf -fls")
    ),
    **dict.fromkeys(
        ("grep", "egrep", "fgrep"),
        _Spec(pattern_first=True, arg_short="efABCmdD", arg_long=_GREP_LONG),
    ),
    "rg": _Spec(
        pattern_first=True, arg_short="efgtTABCmMjrEd", arg_long=_RG_LONG, bad_long=("--pre",)
    ),
}


def _path_like(text: str) -> bool:
    return text.startswith(("/", "~", ".")) or "/" in text


def _long_hits(name: str, bad: tuple[str, ...] | frozenset[str]) -> bool:
    """``--outp`` abbreviates ``--output``: getopt accepts unambiguous prefixes."""
    return any(b == name or (len(name) > 3 and b.startswith(name)) for b in bad)


def _generic(spec: _Spec, args: tuple[Word, ...]) -> ReadOnly | None:
    paths: list[Word] = []
    operands: list[Word] = []
    options_done = skip_next = pattern_given = False
    for w in args:
        if skip_next:
            skip_next = False
            paths.append(w)
            continue
        if not w.static or w.glob:
            if spec.risky:  # it could expand to an option that writes
                return None
            operands.append(w)
            continue
        v = w.value
        if options_done or not v.startswith("-") or v == "-":
            operands.append(w)
            continue
        if v == "--":
            options_done = True
            continue
        if v in spec.bad_words:
            return None
        if v.startswith("--"):
            name, eq, value = v.partition("=")
            if _long_hits(name, spec.bad_long):
                return None
            pattern_given = pattern_given or name in ("--regexp", "--file")
            if name in spec.arg_long and not eq:
                skip_next = True
            elif eq and _path_like(value):
                paths.append(literal(value))
            continue
        if spec.bad_words:  # find-style single-dash words are not option clusters
            continue
        letters = v[1:]
        for k, ch in enumerate(letters):
            if ch in spec.bad_short:
                return None
            if ch in spec.arg_short:
                pattern_given = pattern_given or ch in "ef"
                rest = letters[k + 1 :]
                if not rest:
                    skip_next = True
                elif _path_like(rest):
                    paths.append(literal(rest))
                break
    if spec.pattern_first and not pattern_given and operands:
        operands = operands[1:]
    if spec.max_operands is not None and len(operands) > spec.max_operands:
        return None
    if spec.operand_prefix and not all(o.value.startswith(spec.operand_prefix) for o in operands):
        return None
    if not spec.takes_paths:
        return ReadOnly()
    return ReadOnly((literal("."), *paths, *operands), True)


_GIT_READ = _words(
    "status diff log show rev-parse ls-files ls-tree blame annotate describe shortlog cat-file "
    "merge-base grep show-ref count-objects rev-list name-rev diff-tree diff-files diff-index "
    "whatchanged check-ignore version for-each-ref cherry"
)
_GIT_GLOBAL = _words(
    "--no-pager -P --no-optional-locks --literal-pathspecs --no-replace-objects -p --paginate"
)


def _git_listing(
    values: list[str], bad: frozenset[str], bad_letters: str, arg_opts: frozenset[str]
) -> bool:
    """``git branch``/``git tag`` that only list: no operands unless --list, no changing flag."""
    listing = any(v in ("-l", "--list", "--show-current") for v in values)
    operands, i = 0, 0
    while i < len(values):
        v = values[i]
        name = v.split("=", 1)[0]
        if v.startswith("--") and _long_hits(name, bad):
            return False
        if re.fullmatch(r"-[A-Za-z]+", v) and any(ch in bad_letters for ch in v[1:]):
            return False
        if name in arg_opts and "=" not in v:
            i += 2
            continue
        operands += not v.startswith("-")
        i += 1
    return operands == 0 or listing


_BRANCH_BAD = _words(
    "--delete --move --copy --force --set-upstream-to --unset-upstream --edit-description "
    "--track --no-track --create-reflog"
)
_TAG_BAD = _words(
    "--delete --annotate --sign --force --message --file --local-user --edit --create-reflog "
    "--verify"
)
_REF_ARGS = frozenset(
    {"--contains", "--no-contains", "--merged", "--no-merged", "--points-at", "--sort", "--format"}
)


def _git(args: tuple[Word, ...]) -> ReadOnly | None:
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
    if i >= len(args):
        return ReadOnly(tuple(paths), True)
    sub, rest = args[i].value, args[i + 1 :]
    if any(not w.static or w.glob for w in rest):
        return None
    values = [w.value for w in rest]
    if any(v.startswith("--") and _long_hits(v.split("=", 1)[0], ("--output",)) for v in values):
        return None
    first = values[0] if values else ""
    if sub == "grep":
        ok = not any(v.startswith(("-O", "--open-files-in-pager")) for v in values)
    elif sub in _GIT_READ:
        ok = True
    elif sub == "branch":
        ok = _git_listing(values, _BRANCH_BAD, "dDmMcCfut", _REF_ARGS)
    elif sub == "tag":
        ok = _git_listing(values, _TAG_BAD, "dasfmFuev", _REF_ARGS)
    elif sub == "remote":
        ok = all(v in ("-v", "--verbose") for v in values) or first in ("get-url", "show")
    elif sub == "stash":
        ok = first in ("list", "show")
    elif sub == "worktree":
        ok = first == "list"
    elif sub == "reflog":
        ok = first not in ("expire", "delete", "drop")
    elif sub == "config":
        reads = {"--get", "--get-all", "--get-regexp", "--list", "-l", "--get-urlmatch"}
        writes = {
            "--add",
            "--unset",
            "--unset-all",
            "--replace-all",
            "--rename-section",
            "--remove-section",
            "-e",
            "--edit",
        }
        ok = (bool(reads & set(values)) or first in ("get", "list")) and not writes & set(values)
    else:
        ok = False
    if not ok:
        return None
    for w in rest:
        name, eq, value = w.value.partition("=")
        if not w.value.startswith("-"):
            paths.append(w)
        elif eq and _path_like(value):
            paths.append(literal(value))
    return ReadOnly(tuple(paths), True)


_SED_ADDR = r"(?:\d+|\$|/[^/\\\n]*/)"
_SED_CMD = rf"\s*(?:{_SED_ADDR}(?:\s*,\s*{_SED_ADDR})?)?\s*[pdlq=]\s*"
_SED_SAFE = re.compile(rf"{_SED_CMD}(?:[;\n]{_SED_CMD})*;?\s*")


def _sed(args: tuple[Word, ...]) -> ReadOnly | None:
    """``sed -n '10,20p' file``: only print/delete/quit scripts, never -i, w, e or s."""
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
        if v.startswith("--expression="):
            scripts.append(v.partition("=")[2])
        elif v in _seq(
            "--quiet --silent --regexp-extended --separate --unbuffered --null-data --posix --debug"
        ):
            pass
        elif re.fullmatch(r"-[nErsuz]*e.+", v):
            scripts.append(v[v.index("e") + 1 :])
        elif re.fullmatch(r"-[nErsuz]+", v):
            pass
        elif v == "--":
            operands.extend(args[i + 1 :])
            break
        elif v.startswith("-") and v != "-":
            return None
        else:
            operands.append(w)
        i += 1
    if not scripts:
        if not operands:
            return None
        scripts, operands = [operands[0].value], operands[1:]
    if not all(_SED_SAFE.fullmatch(s) for s in scripts):
        return None
    return ReadOnly((literal("."), *operands), True)


_DECLARE_OPTIONS = frozenset({"-x", "-r", "-g", "-p", "-f", "-F", "-v"})


def _declare(args: tuple[Word, ...]) -> ReadOnly | None:
    """export/unset/declare/local/readonly/typeset: harmless unless they touch PATH & co."""
    for w in args:
        if not w.static:
            return None
        if w.value.startswith("-"):
            if w.value not in _DECLARE_OPTIONS:
                return None
        elif "[" in w.value.split("=", 1)[0] or unsafe_assignment(literal(w.value + "=")):
            return None
    return ReadOnly()


_CUSTOM: dict[str, Callable[[tuple[Word, ...]], ReadOnly | None]] = {
    "git": _git,
    "sed": _sed,
    **dict.fromkeys(("export", "unset", "declare", "local", "readonly", "typeset"), _declare),
}


def read_only(argv: tuple[Word, ...]) -> ReadOnly | None:
    """Whether ``argv`` is a built-in read-only command, and the paths it reads.

    The set: cat head tail wc ls stat du diff cmp comm cut nl tac rev od hexdump strings
    column fold jq *sum file tree sort uniq xxd find grep rg sed(-n print scripts) echo printf
    pwd true false whoami id uname nproc seq basename dirname which type realpath readlink tr
    expr sleep df date hostname test [ [[ set shift wait export unset declare local readonly
    typeset, and git status/diff/log/show/rev-parse/ls-files/blame/grep/... plus listing forms
    of git branch/tag/remote/stash/worktree/config/reflog. Options that write or run things
    (``find -exec``, ``sort -o``, ``rg --pre``, ``git diff --output``, ``sed -i``) disqualify.

    Returns:
        None when it is not one of them (or is called by a path, like ``./ls``).
    """
    if not argv or not argv[0].static or argv[0].glob or "/" in argv[0].value:
        return None
    name, args = argv[0].value, argv[1:]
    custom = _CUSTOM.get(name)
    if custom is not None:
        return custom(args)
    spec = _SPECS.get(name)
    return None if spec is None else _generic(spec, args)
