"""The shell lexer (the first stage of :mod:`agent.shell.parser`).

:class:`Lexer` reads a command line into :class:`Token` s (operators, words, redirections),
here-document bodies included. The commands in a word's substitutions (``$(...)``,
backticks, ``<(...)``, unquoted here-documents) are parsed as they are read, by the token
parser the caller passes in (``agent.shell.parser`` passes its own), and kept in ``Word.subs``.
The words, redirections and commands it produces are in :mod:`agent.shell.words`.

Syntax it does not understand raises :class:`ShellParseError`. Stdlib only, no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from agent.shell.words import ParseState, Redirect, ShellParseError, SimpleCommand, Word

MAX_DEPTH = 8
"""How deeply ``$(...)``, backticks and ``sh -c`` may nest before the command is refused."""

_META = frozenset(" \t\n;&|()<>")

_REDIR_OPS = ("&>>", "<<<", "<<-", "&>", ">>", ">|", ">&", "<&", "<>", "<<", ">", "<")
_CONTROL_OPS = (";;&", ";;", ";&", "&&", "||", "|&", "|", "&", ";", "(", ")")
_ALL_OPS = sorted(_REDIR_OPS + _CONTROL_OPS, key=len, reverse=True)
_HEREDOC_DELIMITER = re.compile(r"[A-Za-z0-9_.-]+|'[A-Za-z0-9_.-]+'|\"[A-Za-z0-9_.-]+\"")
# the escapes of $'...' that are modelled; \0, \x, octal, \u, \c are not (bash ends the
# string at a NUL byte, and reads \x and octal escapes by rules of its own)
_ANSI_C_ESCAPES = {
    "n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "f": "\f", "v": "\v",
    "e": "\x1b", "E": "\x1b", "\\": "\\", "'": "'", '"': '"', "?": "?",
}  # fmt: skip
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_BRACE = re.compile(r"\{[^{}]*(,|\.\.)[^{}]*\}")
# ${name}, ${#name}, ${name:-word} and other forms that never evaluate arithmetic or indirect
_SAFE_PARAM = re.compile(
    r"#?([A-Za-z_][A-Za-z0-9_]*|\d+|[@*#?$!-])(:?[-=+?].*|%%?.*|##?.*|//?.*|\^\^?|,,?)?", re.S
)


_ARITH = re.compile(
    r"(?:[\s0-9A-Za-z_+\-*/%<>=!&|^~?:,()#]|\$[A-Za-z_][A-Za-z0-9_]*|\$\{[A-Za-z_][A-Za-z0-9_]*\}|\$[#?$!])*"
)


def arithmetic_names(body: str) -> set[str]:
    """The variable names an arithmetic expression (``$((n + 1))``'s ``n + 1``) reads.

    bash evaluates a variable's value as an expression of its own, and an array subscript in
    it runs command substitutions (``n='a[$(touch x)]'``), so the caller checks that each
    name can only hold a number (:func:`agent.shell.variables.numeric_names`). Subscripts,
    substitutions, quotes and other expansions inside are refused here.

    Raises:
        ShellParseError: the expression is more than numbers, operators and plain names.
    """
    if not _ARITH.fullmatch(body):
        raise ShellParseError(
            "arithmetic with subscripts, substitutions or quotes is not supported"
        )
    names = set(re.findall(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)", body))
    bare = re.sub(r"\$\{?[A-Za-z_][A-Za-z0-9_]*\}?", " ", body)
    bare = re.sub(r"\b[0-9]+#[0-9A-Za-z@_]+", " ", bare)  # 16#ff: a number in a base
    names.update(re.findall(r"(?<![0-9A-Za-z_])[A-Za-z_][A-Za-z0-9_]*", bare))
    return names


@dataclass
class Token:
    """An operator, a word or a redirection (a here-document's body is read at the newline)."""

    kind: Literal["op", "word", "redir"]
    text: str = ""
    word: Word | None = None
    redirect: Redirect | None = None
    heredoc: tuple[str, bool, bool] | None = None  # delimiter, quoted, strip tabs


TokenParser = Callable[[list[Token], ParseState], list[SimpleCommand]]
"""Parses tokens into simple commands, those of their substitutions included."""


class Lexer:
    """Reads ``src`` into tokens; ``parse_tokens`` parses the commands of substitutions.

    Raises:
        ShellParseError: (from ``tokens``) for syntax eddy does not understand.
    """

    def __init__(
        self,
        src: str,
        depth: int,
        state: ParseState,
        parse_tokens: TokenParser,
        *,
        in_subst: bool = False,
    ) -> None:
        if depth > MAX_DEPTH:
            raise ShellParseError("commands are nested too deeply")
        self.src, self.pos, self.depth, self.state = src, 0, depth, state
        self.parse_tokens = parse_tokens
        self.in_subst = in_subst
        self.parens = 0
        self.pending: list[Token] = []

    def error(self, message: str) -> ShellParseError:
        return ShellParseError(message)

    def tokens(self) -> list[Token]:
        """The tokens of ``src`` from ``pos`` (in a substitution: up to its closing ``)``)."""
        out: list[Token] = []
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
                out.append(Token("op", "\n"))
                self.pos += 1
                self._read_heredocs()
            elif src.startswith("((", self.pos):
                # an arithmetic command: names inside are evaluated as expressions, and an
                # array subscript in a value runs command substitutions
                raise self.error("the arithmetic command ((...)) is not supported")
            elif src.startswith(("<(", ">("), self.pos):
                out.append(Token("word", word=self._word()))
            elif self._token(out):
                return self._finish(out, closed=True)
        return self._finish(out, closed=False)

    def _token(self, out: list[Token]) -> bool:
        """Read an operator, a redirection or a word into ``out``; True when it is the ``)``
        that closes this substitution (not added)."""
        fd_match = re.match(r"\d+(?=[<>])", self.src[self.pos :])
        start = self.pos + (fd_match.end() if fd_match else 0)
        op = next((o for o in _ALL_OPS if self.src.startswith(o, start)), None)
        if op is None:
            out.append(self._plain_word())
            return False
        self.pos = start + len(op)
        if op in _REDIR_OPS:
            out.append(self._redirect(op, int(fd_match.group()) if fd_match else None))
            return False
        if op == "(":
            self.parens += 1
        elif op == ")":
            if self.in_subst and self.parens == 0:
                return True
            self.parens -= 1
        out.append(Token("op", op))
        return False

    def _plain_word(self) -> Token:
        word = self._word()
        if self.in_subst and word.raw in ("case", "esac"):
            # a pattern's ")" would end the substitution here, not in bash
            raise self.error("a case statement inside $( ) is not supported")
        return Token("word", word=word)

    def _finish(self, out: list[Token], *, closed: bool) -> list[Token]:
        if self.in_subst and not closed:
            raise self.error("unterminated $( or <(")
        if self.pending:  # here-document without a body: bash reads to the end, so do we
            self._read_heredocs()
        return out

    def _redirect(self, op: str, fd: int | None) -> Token:
        while self.pos < len(self.src) and self.src[self.pos] in " \t":
            self.pos += 1
        rest = self.src[self.pos :]
        if not rest or (rest[0] in _META and not rest.startswith(("<(", ">("))):
            raise self.error(f"the redirection {op} has no target")
        target = self._word()
        if op in ("<<", "<<-"):
            if not _HEREDOC_DELIMITER.fullmatch(target.raw):
                # bash's rules for odd delimiters (continuations, partial quotes, expansions)
                # decide where the body ends: only plain ones are modelled
                raise self.error(f"the here-document delimiter {target.raw!r} is not supported")
            tok = Token("redir", op, heredoc=(target.value, target.quoted, op == "<<-"))
            tok.redirect = Redirect(op, None, fd)
            self.pending.append(tok)
            return tok
        return Token("redir", op, redirect=Redirect(op, target, fd))

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
                if not quoted and line.endswith("\\"):
                    # bash joins the next line to this one before it looks for the delimiter
                    raise self.error("a line continuation in a here-document is not supported")
                if (line.lstrip("\t") if strip else line) == delim:
                    break
                lines.append(line + "\n")
            body = "".join(lines)
            if quoted:
                word = Word(body, body, quoted=True)
            else:
                sub = Lexer(body, self.depth, self.state, self.parse_tokens)
                value, dynamic, subs = sub._double_quoted(None)
                word = Word(value, body, dynamic=dynamic, subs=tuple(subs))
            tok.redirect = Redirect(tok.text, word, tok.redirect.fd if tok.redirect else None)
        self.pending = []

    def _word(self) -> Word:
        """Read one word: its parts up to an unquoted metacharacter."""
        start, parts = self.pos, _WordParts()
        while self.pos < len(self.src):
            c = self.src[self.pos]
            if c in _META and not (c in "<>" and self.src.startswith("(", self.pos + 1)):
                break
            read = _WORD_PARTS.get(c)
            if read is None:
                parts.add(c, c)
                self.pos += 1
            else:
                read(self, parts)
        return parts.word(self.src[start : self.pos])

    def _process_substitution(self, parts: _WordParts) -> None:
        begin = self.pos
        subs = self._substitution(self.pos + 2)
        parts.add(self.src[begin : self.pos], dynamic=True, subs=subs)

    def _backslash(self, parts: _WordParts) -> None:
        src, n = self.src, len(self.src)
        if self.pos + 1 >= n:
            parts.add("\\", None)
            self.pos += 1
        elif src[self.pos + 1] == "\n":
            self.pos += 2
        else:
            parts.add(src[self.pos + 1], quoted=True)
            self.pos += 2

    def _single_quoted(self, parts: _WordParts) -> None:
        end = self.src.find("'", self.pos + 1)
        if end < 0:
            raise self.error("unterminated single quote")
        parts.add(self.src[self.pos + 1 : end], quoted=True)
        self.pos = end + 1

    def _double_quoted_part(self, parts: _WordParts) -> None:
        self.pos += 1
        value, dynamic, subs = self._double_quoted('"')
        parts.add(value, quoted=True, dynamic=dynamic, subs=subs)

    def _dollar_part(self, parts: _WordParts) -> None:
        """``$'...'``, ``$"..."`` (read as "...") or an expansion."""
        if self.src.startswith("$'", self.pos):
            parts.add(self._ansi_c(), quoted=True)
        elif self.src.startswith('$"', self.pos):
            self.pos += 1
        else:
            text, dynamic, subs = self._dollar()
            parts.add(text, "\0" if dynamic else text, dynamic=dynamic, subs=subs)

    def _backtick_part(self, parts: _WordParts) -> None:
        text, subs = self._backtick()
        parts.add(text, dynamic=True, subs=subs)

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
            self.state.arith_names.update(arithmetic_names(body))
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
        sub = Lexer(self.src, self.depth + 1, self.state, self.parse_tokens, in_subst=True)
        sub.pos = start
        tokens = sub.tokens()
        self.pos = sub.pos
        return self.parse_tokens(tokens, self.state)

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
        inner = Lexer("".join(chunk), self.depth + 1, self.state, self.parse_tokens)
        return src[start : self.pos], self.parse_tokens(inner.tokens(), self.state)

    def _ansi_c(self) -> str:
        src, i = self.src, self.pos + 2
        out: list[str] = []
        while i < len(src) and src[i] != "'":
            if src[i] == "\\" and i + 1 < len(src):
                escape = _ANSI_C_ESCAPES.get(src[i + 1])
                if escape is None:
                    raise self.error(f"the escape \\{src[i + 1]} in $'...' is not supported")
                out.append(escape)
                i += 2
                continue
            out.append(src[i])
            i += 1
        if i >= len(src):
            raise self.error("unterminated $'...'")
        self.pos = i + 1
        return "".join(out)


_WordPartReader = Callable[[Lexer, "_WordParts"], None]
_WORD_PARTS: dict[str, _WordPartReader] = {
    "<": Lexer._process_substitution,
    ">": Lexer._process_substitution,
    "\\": Lexer._backslash,
    "'": Lexer._single_quoted,
    '"': Lexer._double_quoted_part,
    "$": Lexer._dollar_part,
    "`": Lexer._backtick_part,
}
"""How a word's part is read, by its first character (others are literal characters)."""


@dataclass
class _WordParts:
    """The parts of a word read so far: its value, its unquoted characters (those of a
    quoted or run-time part are ``\\0``, so they never glob or brace-expand), whether any
    part is quoted or only known at run time, and the commands of its substitutions."""

    buf: list[str] = field(default_factory=list)
    unquoted: list[str] = field(default_factory=list)
    dynamic: bool = False
    quoted: bool = False
    subs: list[SimpleCommand] = field(default_factory=list)

    def add(
        self,
        text: str,
        bare: str | None = "\0",
        *,
        quoted: bool = False,
        dynamic: bool = False,
        subs: list[SimpleCommand] | None = None,
    ) -> None:
        """Add a part: ``text`` to the value, ``bare`` (unless None) to the unquoted text."""
        self.buf.append(text)
        if bare is not None:
            self.unquoted.append(bare)
        self.quoted = self.quoted or quoted
        self.dynamic = self.dynamic or dynamic
        self.subs.extend(subs or ())

    def word(self, raw: str) -> Word:
        bare = "".join(self.unquoted)
        return Word(
            "".join(self.buf),
            raw,
            dynamic=self.dynamic,
            glob=any(ch in bare for ch in "*?["),
            brace=bool(_BRACE.search(bare)),
            tilde=bare.startswith("~"),
            quoted=self.quoted,
            subs=tuple(self.subs),
        )
