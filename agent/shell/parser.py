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

``case`` statements are read as their commands (every branch, as if each ran; patterns are
data). A shell function defined unconditionally at the top level (``f() { ...; }``) is
expanded at each later call: the call stands for its body's commands, checked where the call
is (never inside ``sh -c``, which starts a shell without it); one defined conditionally, in a
loop or a subshell, with ``unset`` or ``export -f`` around, is refused. Arithmetic
(``$((n + 1))``, ``[[ $n -eq 1 ]]``) records the variables it reads in
:attr:`Script.arith_names`: bash evaluates their values as expressions, so the caller checks
each can only hold a number (:func:`agent.shell.variables.numeric_names`).

Anything this module does not understand raises :class:`ShellParseError` (arrays, subscripts
in arithmetic, ``${!x}``, ``select``, ...), or marks a command ``opaque`` (a program name only
known at run time, a wrapper option it does not know). The caller asks the user in both
cases. Stdlib only, no I/O.

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
    """A parsed command line: its commands in source order, whether it loops, and the
    variables its arithmetic reads (each must hold a number for the line to be modelled)."""

    commands: tuple[Command, ...]
    loops: bool = False
    arith_names: frozenset[str] = frozenset()


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
    if state.functions:
        _check_functions(commands)
    return Script(tuple(commands), state.loops, frozenset(state.arith_names))


def _check_functions(commands: list[Command]) -> None:
    """With functions defined, what would make a call run something else is refused:
    ``unset`` (a call after it runs the program of that name) and ``export -f`` /
    ``declare -fx`` (child shells would run the function where eddy sees the program)."""
    for cmd in commands:
        program = cmd.program
        if program == "unset":
            raise ShellParseError("unset with shell functions is not modelled")
        if program in ("export", "declare", "typeset", "readonly", "local") and any(
            w.static and w.value.startswith("-") and "f" in w.value for w in cmd.argv[1:]
        ):
            raise ShellParseError("exported shell functions are not modelled")


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
_CASE_ENDS = frozenset({";;", ";&", ";;&"})
_SKIP = frozenset(
    {"if", "then", "elif", "else", "fi", "do", "done", "while", "until", "{", "}", "!"}
)
_OPENERS = frozenset({"if", "while", "until", "{"})
_CLOSERS = frozenset({"fi", "done", "}"})
_UNSUPPORTED = frozenset({"coproc", "select"})
_RESERVED = _SKIP | {"case", "esac", "for", "in", "function", "select", "time", "[[", "]]"}
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ARITH_TESTS = frozenset({"-eq", "-ne", "-lt", "-le", "-gt", "-ge"})
_VARIABLE_TESTS = frozenset({"-v", "-R"})
_SIMPLE_PARAM = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)|\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$[#?$!]")
_NUMBER = re.compile(r"[-+]?[0-9]+")
_COUNTS = frozenset({"-l", "-c", "-w", "-m", "--lines", "--bytes", "--words", "--chars"})


def _parse_script(source: str, depth: int, state: ParseState) -> list[SimpleCommand]:
    return _parse_tokens(Lexer(source, depth, state, _parse_tokens).tokens(), state)


def _parse_tokens(tokens: list[Token], state: ParseState) -> list[SimpleCommand]:
    return _Parser(tokens, state).parse()


class _Parser:
    """One pass over a command line's tokens: the simple commands it runs, in source order.

    The grammar's rules are its methods; the fields are where the pass stands: the command
    being read (``words``, ``assigns``, ``redirects``) and the constructs around it.
    """

    def __init__(self, tokens: list[Token], state: ParseState) -> None:
        self.tokens = tokens
        self.state = state
        self.i = 0  # the next token
        self.out: list[SimpleCommand] = []
        self.words: list[Word] = []
        self.assigns: list[Word] = []
        self.redirects: list[Redirect] = []
        self.depth = 0  # subshells ( ) we are in
        # compound commands around (if, while, until, for, case, { }): a function defined
        # inside one may or may not be defined when it is called
        self.nest = 0
        self.cases = 0  # case statements whose body we are in
        self.sep = ""  # the operator before the next command
        self.closed = False  # a subshell just ended
        self.previous: tuple[Word, ...] = ()  # the command before, for a pipe's stdin
        self.loops: list[tuple[str, tuple[Word, ...] | None] | None] = []  # the loops we are in
        self.header: tuple[str, tuple[Word, ...] | None] | None = None  # a for before its do

    def parse(self) -> list[SimpleCommand]:
        """Every simple command of the tokens.

        Raises:
            ShellParseError: for syntax eddy does not understand.
        """
        while self.i < len(self.tokens):
            tok = self.tokens[self.i]
            self.i += 1
            if tok.kind == "op":
                self._operator(tok.text)
            elif tok.kind == "redir":
                assert tok.redirect is not None
                self.redirects.append(tok.redirect)
            else:
                assert tok.word is not None
                self._word(tok.word)
        self._finish()
        if self.depth:
            raise ShellParseError("unbalanced parentheses")
        if self.cases:
            raise ShellParseError("unterminated case statement")
        return self.out

    # -- commands --------------------------------------------------------------------------
    def _word(self, w: Word) -> None:
        """A word: a reserved word at a command's start, an assignment, or an argument."""
        at_start = not self.words and not self.assigns
        if at_start and not w.quoted and not w.dynamic and self._keyword(w.value):
            return
        if not self.words and ASSIGNMENT.match(w.raw):
            self.assigns.append(w)
        else:
            self.words.append(w)

    def _finish(self) -> None:
        """The command read so far is complete: record it and start the next."""
        if self.words or self.assigns or self.redirects:
            self._emit()
            self.previous, self.closed = tuple(self.words), False
        self.words, self.assigns, self.redirects = [], [], []

    def _emit(self) -> None:
        """Record the command read so far: the substitutions in its words first, then itself
        (or, for a call of a shell function, the function's body)."""
        for w in (*self.assigns, *self.words, *(r.target for r in self.redirects if r.target)):
            self.out.extend(replace(sub, subshell=True) for sub in w.subs)
        loop_vars = tuple(v for v in self.loops if v is not None)
        if self._calls_function():
            self.out.extend(
                _call(self.words, self.assigns, self.redirects, self.sep, loop_vars, self.state)
            )
            return
        piped = self.sep in ("|", "|&") and not self.closed
        self.out.append(
            SimpleCommand(
                tuple(self.words),
                tuple(self.assigns),
                tuple(self.redirects),
                sep=")" if self.closed else self.sep,
                loop_vars=loop_vars,
                stdin_words=self.previous if piped else (),
            )
        )

    def _calls_function(self) -> bool:
        head = self.words[0] if self.words else None
        return (
            head is not None
            and head.static
            and not head.quoted
            and head.value in self.state.functions
        )

    def _unsure(self) -> object:
        """Whether a function defined here may not be defined when called (see ``_define``)."""
        return self.nest or self.depth or self.sep not in _PLAIN

    # -- operators -------------------------------------------------------------------------
    def _operator(self, text: str) -> None:
        if text in _SEPARATORS:
            self._finish()
            self.sep = text
        elif text in _CASE_ENDS and self.cases:
            self._finish()
            self.sep = ";"
            self._case_branch()
        elif text == "(":
            self._open_paren()
        elif text == ")":
            self._close_paren()
        else:
            raise ShellParseError(f"{text!r} outside a case statement is not supported")

    def _open_paren(self) -> None:
        """``NAME ( )`` defines a function; ``(`` at a command's start opens a subshell."""
        if _is_definition(self.words, self.assigns, self.redirects, self.tokens, self.i):
            name = self.words[0].value
            self.words = []
            self.i = _define(name, self.tokens, self.i + 1, self.state, self._unsure())
            return
        if self.words or self.assigns or self.redirects:
            raise ShellParseError("arrays are not supported")
        self.depth += 1

    def _close_paren(self) -> None:
        self._finish()
        self.closed, self.previous = True, ()
        self.depth -= 1
        if self.depth < 0:
            raise ShellParseError("unbalanced parentheses")

    # -- reserved words --------------------------------------------------------------------
    def _keyword(self, value: str) -> bool:
        """Read the reserved word ``value`` at a command's start; False when it is none."""
        if value in _SKIP:
            self._skip(value)
        elif value in _UNSUPPORTED:
            raise ShellParseError(f"{value!r} is not supported")
        elif value == "for":
            self._for()
        elif value == "[[":
            self.i = _double_bracket(self.tokens, self.i, self.out, self.state)
        elif value == "case":
            self._case()
        elif value == "esac" and self.cases:
            self._end_case()
        elif value == "function":
            self._function()
        else:
            return False
        return True

    def _skip(self, value: str) -> None:
        """A keyword of ``if``/``while``/``until``/``{ }``: its commands are read as they
        come; what it tells is whether we loop and how deep we are."""
        self.state.loops = self.state.loops or value in ("while", "until")
        self.nest += (value in _OPENERS) - (value in _CLOSERS)
        if value == "do":
            self.loops.append(self.header)
            self.header = None
        elif value == "done" and self.loops:
            self.loops.pop()

    def _for(self) -> None:
        self.i, self.header = _for_header(self.tokens, self.i, self.out)
        self.state.loops = True
        self.nest += 1

    def _case(self) -> None:
        self.i = _case_head(self.tokens, self.i, self.out)
        self.i, ended = _case_patterns(self.tokens, self.i, self.out)
        if not ended:
            self.cases, self.nest = self.cases + 1, self.nest + 1

    def _case_branch(self) -> None:
        """After ``;;``: the next branch's patterns, or ``esac``."""
        self.i, ended = _case_patterns(self.tokens, self.i, self.out)
        if ended:
            self._end_case()

    def _end_case(self) -> None:
        self.cases, self.nest = self.cases - 1, self.nest - 1

    def _function(self) -> None:
        """``function NAME [()] BODY``."""
        named = self.tokens[self.i].word if self.i < len(self.tokens) else None
        if named is None or not named.static or not _NAME.fullmatch(named.value):
            raise ShellParseError("this form of function definition is not supported")
        self.i += 1
        if _is_op(self.tokens, self.i, "(") and _is_op(self.tokens, self.i + 1, ")"):
            self.i += 2
        self.i = _define(named.value, self.tokens, self.i, self.state, self._unsure())


_PLAIN = frozenset({"", ";", "\n"})
"""Separators after which a command certainly runs (not ``&&``, ``||``, ``|``, ``&``)."""


def _is_op(tokens: list[Token], i: int, text: str) -> bool:
    return i < len(tokens) and tokens[i].kind == "op" and tokens[i].text == text


def _is_definition(
    words: list[Word], assigns: list[Word], redirects: list[Redirect], tokens: list[Token], i: int
) -> bool:
    """``NAME ( )``: a function definition starts (``tokens[i]`` follows the ``(``)."""
    return (
        len(words) == 1
        and not assigns
        and not redirects
        and words[0].static
        and not words[0].quoted
        and bool(_NAME.fullmatch(words[0].value))
        and _is_op(tokens, i, ")")
    )


def _define(name: str, tokens: list[Token], i: int, state: ParseState, unsure: object) -> int:
    """Record function ``name`` whose body starts at ``tokens[i]``; the index after it.

    Args:
        unsure: the definition may not run, or not in this shell (inside a compound command,
            a subshell, after ``&&``): refused, since a later call might run a program.

    Raises:
        ShellParseError: a definition eddy would not follow to every call.
    """
    if unsure or state.calling:
        raise ShellParseError(
            "a shell function defined conditionally, in a loop, a subshell or another "
            "function is not modelled"
        )
    if name in _RESERVED or name == "command_not_found_handle":
        raise ShellParseError(f"a shell function named {name} is not modelled")
    while _is_op(tokens, i, "\n"):
        i += 1
    paren = _is_op(tokens, i, "(")
    brace = i < len(tokens) and tokens[i].kind == "word" and tokens[i].word is not None
    if not paren and not (brace and tokens[i].word.raw == "{"):  # type: ignore[union-attr]
        raise ShellParseError("a function body that is not { ... } or ( ... ) is not supported")
    end = _body_end(tokens, i)
    if end < len(tokens) and not (tokens[end].kind == "op" and tokens[end].text in (";", "\n")):
        raise ShellParseError(
            "a function definition followed by a redirection, a pipe or && is not supported"
        )
    state.functions[name] = (tokens[i + 1 : end - 1], paren)
    return end


def _body_end(tokens: list[Token], i: int) -> int:
    """The index after the ``}`` or ``)`` closing the body that opens at ``tokens[i]``."""
    if tokens[i].kind == "op":
        return _paren_body_end(tokens, i)
    return _brace_body_end(tokens, i)


def _paren_body_end(tokens: list[Token], i: int) -> int:
    """The index after the ``)`` matching the ``(`` at ``tokens[i]``."""
    level = 0
    for j in range(i, len(tokens)):
        if _is_op(tokens, j, "("):
            level += 1
        elif _is_op(tokens, j, ")"):
            level -= 1
            if level == 0:
                return j + 1
    raise ShellParseError("unterminated function body")


_STAY_AT_START = (_SKIP - {"}"}) | {"for", "case", "function", "esac"}
"""Reserved words after which the next word still starts a command (``{`` and ``}`` count
only there)."""


def _brace_body_end(tokens: list[Token], i: int) -> int:
    """The index after the ``}`` matching the ``{`` at ``tokens[i]``."""
    level, start = 0, True
    for j in range(i, len(tokens)):
        tok = tokens[j]
        if tok.kind == "op":
            start = tok.text in _SEPARATORS or tok.text in _CASE_ENDS or tok.text in "()"
        elif tok.kind == "word" and tok.word is not None:
            w = tok.word
            bare = w.raw if start and not w.quoted and not w.dynamic else None
            level += (bare == "{") - (bare == "}")
            if bare == "}" and level == 0:
                return j + 1
            start = bare in _STAY_AT_START
    raise ShellParseError("unterminated function body")


def _call(
    words: list[Word],
    assigns: list[Word],
    redirects: list[Redirect],
    sep: str,
    loop_vars: tuple[tuple[str, tuple[Word, ...] | None], ...],
    state: ParseState,
) -> list[SimpleCommand]:
    """A call ``NAME ARGS`` of a function: its body's commands, as they run where the call is
    (``"$1"``, ``$1`` and ``"$@"`` in it are the call's arguments; its assignments and
    redirections are kept as a command of their own)."""
    name = words[0].value
    out: list[SimpleCommand] = []
    if assigns or redirects:
        out.append(
            SimpleCommand((), tuple(assigns), tuple(redirects), sep=sep, loop_vars=loop_vars)
        )
    if name in state.calling:
        return out  # a recursive call runs the body being checked again
    body, paren = state.functions[name]
    state.calling.add(name)
    try:
        commands = _parse_tokens(_with_arguments(body, words[1:]), state)
    finally:
        state.calling.discard(name)
    for k, sc in enumerate(commands):
        out.append(
            replace(
                sc,
                sep=sep if k == 0 else sc.sep,
                subshell=sc.subshell or paren,
                loop_vars=loop_vars + sc.loop_vars,
            )
        )
    return out


_POSITIONAL = re.compile(r'("?)\$(?:([1-9])|\{([1-9])\}|(@))\1')
_SPLIT = re.compile(r"[\s*?\[\]{}~]")


def _with_arguments(body: list[Token], args: list[Word]) -> list[Token]:
    """The body's tokens with the positional parameters that are whole words replaced by the
    call's arguments (an unquoted one only when its argument has nothing to split or glob).
    A body that can move them (``shift``, ``set --``) keeps them unknown."""
    if any(t.word is not None and t.word.raw in ("shift", "set", "eval") for t in body):
        return body
    out: list[Token] = []
    for tok in body:
        word = tok.word
        m = _POSITIONAL.fullmatch(word.raw) if tok.kind == "word" and word is not None else None
        if m is None:
            out.append(tok)
            continue
        quoted = bool(m.group(1))
        if m.group(4):  # "$@": every argument, each a word
            if quoted:
                out.extend(Token("word", word=a) for a in args)
                continue
            chosen = args
        else:
            n = int(m.group(2) or m.group(3))
            chosen = args[n - 1 : n]
            if quoted and not chosen:
                chosen = [literal("")]
        if all(quoted or (a.static and not _SPLIT.search(a.value)) for a in chosen):
            out.extend(Token("word", word=a) for a in chosen)
        else:
            out.append(tok)
    return out


def _case_head(tokens: list[Token], i: int, out: list[SimpleCommand]) -> int:
    """``case WORD in``: the subject's substitutions are commands; the index after ``in``."""
    subject = tokens[i].word if i < len(tokens) else None
    if subject is None:
        raise ShellParseError("this form of case statement is not supported")
    out.extend(replace(sub, subshell=True) for sub in subject.subs)
    i += 1
    while _is_op(tokens, i, "\n"):
        i += 1
    keyword = tokens[i].word if i < len(tokens) else None
    if keyword is None or keyword.raw != "in":
        raise ShellParseError("this form of case statement is not supported")
    return i + 1


def _case_patterns(tokens: list[Token], i: int, out: list[SimpleCommand]) -> tuple[int, bool]:
    """Read ``[(] PATTERN [| PATTERN]... )`` (patterns are data; their substitutions are
    commands) or ``esac``: (the index after it, whether the case statement ended)."""
    while _is_op(tokens, i, "\n"):
        i += 1
    first = tokens[i].word if i < len(tokens) else None
    if first is not None and first.raw == "esac":
        return i + 1, True
    if _is_op(tokens, i, "("):
        i += 1
    while i < len(tokens):
        tok = tokens[i]
        i += 1
        if tok.kind == "word" and tok.word is not None:
            out.extend(replace(sub, subshell=True) for sub in tok.word.subs)
        elif tok.kind == "op" and tok.text == ")":
            return i, False
        elif not (tok.kind == "op" and tok.text == "|"):
            break
    raise ShellParseError("this form of case statement is not supported")


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


def _double_bracket(
    tokens: list[Token], i: int, out: list[SimpleCommand], state: ParseState
) -> int:
    """``[[ ... ]]``: operators inside are data; the operands of arithmetic comparisons
    (``-eq``, ``-lt``, ...) are evaluated as arithmetic, so each must be a number, a plain
    variable (recorded in ``state.arith_names``) or the count ``wc`` prints."""
    inside: list[Word] = []
    while i < len(tokens):
        tok = tokens[i]
        i += 1
        word = tok.word or (tok.redirect.target if tok.redirect else None)
        if word is None:
            continue
        if tok.kind == "word" and word.raw == "]]":
            for k, w in enumerate(inside):
                if w.static and w.value in _VARIABLE_TESTS:
                    raise ShellParseError(f"[[ {w.value} ]] evaluates a subscript; not supported")
                if w.static and w.value in _ARITH_TESTS:
                    _arith_operand(inside[k - 1] if k else None, state)
                    _arith_operand(inside[k + 1] if k + 1 < len(inside) else None, state)
            out.append(SimpleCommand((literal("[["),)))
            return i
        inside.append(word)
        out.extend(word.subs)
    raise ShellParseError("unterminated [[")


def _arith_operand(word: Word | None, state: ParseState) -> None:
    """Check one operand of an arithmetic comparison in ``[[ ]]`` (see ``_double_bracket``).

    Raises:
        ShellParseError: an operand that could hold an expression eddy cannot follow.
    """
    if word is None:
        raise ShellParseError("an arithmetic comparison without operands is not supported")
    if word.static and _NUMBER.fullmatch(word.value):
        return
    if word.static and not word.quoted and _NAME.fullmatch(word.value):
        state.arith_names.add(word.value)  # a bare name is read as a variable
        return
    param = _SIMPLE_PARAM.fullmatch(word.raw.strip('"'))
    if param is not None:
        name = param.group(1) or param.group(2)
        if name:
            state.arith_names.add(name)
        return
    if _counts_only(word):
        return
    raise ShellParseError(
        f"[[ ]] compares {word.text} as arithmetic, which eddy cannot follow; not supported"
    )


def _counts_only(word: Word) -> bool:
    """``$(wc -l < f)``, ``"$(ls | wc -l)"``: a substitution whose output is a count (one
    pipeline ending in ``wc`` with count options and no file operands)."""
    raw = word.raw.strip('"')
    if not (raw.startswith("$(") and raw.endswith(")")) or not word.subs:
        return False
    subs = word.subs
    if any(sc.sep not in ("|", "|&") for sc in subs[1:]) or subs[0].sep not in ("", "|"):
        return False
    last = subs[-1].words
    return (
        bool(last)
        and last[0].static
        and last[0].value == "wc"
        and all(w.static and w.value in _COUNTS for w in last[1:])
        and len(last) > 1
    )


def _analyze(sc: SimpleCommand, depth: int, state: ParseState) -> list[Command]:
    return _Unwrapping(sc, depth, state).commands()


class _Unwrapping:
    """One simple command seen through its wrappers, layer by layer: the fields are what
    the layers peeled so far add to the command (assignments, ``sudo``, ``xargs``)."""

    def __init__(self, sc: SimpleCommand, depth: int, state: ParseState) -> None:
        self.sc = sc
        self.depth = depth
        self.state = state
        self.assigns = list(sc.assignments)
        self.layers: list[tuple[Word, ...]] = []
        self.privileged: int | None = None  # the layer of the privileged command
        self.open_args = False

    def commands(self) -> list[Command]:
        """The command, and the commands of the shell script it runs, if any."""
        argv = list(self.sc.words)
        while argv:
            self.layers.append(tuple(argv))
            head = argv[0]
            if not head.static or head.glob:
                return [self._command(tuple(argv), "the program name is only known at run time")]
            base = os.path.basename(head.value)
            if base in shell_wrappers.SHELLS or base == "eval":
                return self._shell(base, argv)
            try:
                inner = self._unwrap(base, argv)
            except shell_wrappers.Opaque as exc:
                return [self._command(tuple(argv), str(exc))]
            if inner is None:
                break
            argv = inner
        return [self._command(tuple(argv))]

    def _unwrap(self, base: str, argv: list[Word]) -> list[Word] | None:
        """The command that wrapper ``base`` runs, or None (not a wrapper, or it runs none).

        Raises:
            Opaque: a wrapper option eddy does not know.
        """
        unwrap = shell_wrappers.WRAPPERS.get(base)
        if unwrap is None:
            return None
        inner_argv, extra = unwrap(argv[1:])
        if base in shell_wrappers.PRIVILEGED and self.privileged is None:
            self.privileged = len(self.layers) - 1
        self.open_args = self.open_args or base == "xargs"
        self.assigns.extend(extra)
        return inner_argv

    def _shell(self, base: str, argv: list[Word]) -> list[Command]:
        """A shell (``sh -c``, ``bash``) or ``eval``: the script's commands follow it."""
        try:
            script = _script(base, argv)
        except shell_wrappers.Opaque as exc:
            return [self._command(tuple(argv), str(exc))]
        if script is None:
            return [self._command(tuple(argv))]
        if not script.static:
            return [self._command(tuple(argv), "a shell script only known at run time")]
        if base not in ("bash", "eval") and not shell_wrappers.plain_words(script.value):
            # /bin/sh is dash here, not bash: only plain words read the same in both
            return [self._command(tuple(argv), f"{base} is not bash; its grammar is not modelled")]
        inner: list[Command] = []
        outer = self.state.functions
        if base != "eval":  # a new shell: the functions defined here do not exist there
            self.state.functions = {}
        try:
            for simple in _parse_script(script.value, self.depth + 1, self.state):
                inner.extend(_analyze(replace(simple, subshell=True), self.depth + 1, self.state))
        finally:
            self.state.functions = outer
        return [self._command(()), *inner]

    def _command(self, effective: tuple[Word, ...], opaque: str | None = None) -> Command:
        if self.privileged is not None:
            effective = self.layers[self.privileged]
        sc = self.sc
        return Command(
            effective,
            tuple(self.layers),
            tuple(self.assigns),
            sc.redirects,
            self.open_args,
            opaque,
            sc.sep,
            sc.subshell,
            sc.loop_vars,
            sc.stdin_words,
        )


def _script(base: str, argv: list[Word]) -> Word | None:
    """The script a shell runs (None: it reads its standard input), or ``eval``'s text.

    Raises:
        Opaque: a shell option eddy does not know, or ``eval`` of run-time text.
    """
    if base in shell_wrappers.SHELLS:
        return shell_wrappers.shell_script(argv[1:])
    if not all(w.static for w in argv[1:]):
        raise shell_wrappers.Opaque("eval of text only known at run time")
    return literal(" ".join(w.value for w in argv[1:]))
