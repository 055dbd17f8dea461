"""Permission rules: ``Tool`` or ``Tool(specifier)``, and what each one names (no I/O, no UI).

The policy that weighs them against a mode is :mod:`agent.permissions.policy`.

Rules are ``Tool`` or ``Tool(specifier)`` in allow, ask and deny lists; deny beats ask beats
allow, and deny rules hold in every mode. A rule naming ``Edit`` covers Edit, MultiEdit, Write
and NotebookEdit; ``Read`` covers Read, Glob, Grep and LS (and files the shell reads with a
read-only command or ``<``); ``Write`` covers Write and shell output redirection.

* ``Bash(git status)`` matches that command exactly; ``Bash(npm run test:*)`` (or
  ``Bash(npm run test *)``) every command whose first words are ``npm run test``. Matching is
  on parsed words, each part of a compound command separately: ``cd x && rm y`` needs both
  parts allowed. Claude Code's wildcards: ``*`` anywhere matches any characters
  (``Bash(git * main)``, ``Bash(* --version)``, ``Bash(ls*)`` also ``lsof``); a space before a
  trailing ``*`` is a word boundary (``Bash(ls *)`` matches ``ls`` and ``ls -la``, not
  ``lsof``). A wildcard is matched against one part's words, never the whole line, so
  ``Bash(git *)`` does not allow ``git status; rm -rf /`` nor ``git $(rm x)``
  (agent/permissions/wildcard.py).
  Wrappers are seen through (``timeout 5 rm x`` is ``rm x``); deny and ask rules also match
  a program called by path (``/bin/rm``). An exact specifier equal to the whole
  command line (what "don't ask again" saves for a command eddy cannot parse) matches it.
* Path rules use gitignore patterns: ``Edit(src/**)`` or ``Read(.env)`` relative to the
  workspace (a pattern without a slash matches at any depth, like ``.gitignore``),
  ``Read(./.env)`` anchored at the workspace root, ``Write(~/notes/**)`` under the home
  directory, ``Read(//etc/hosts)`` absolute, ``Edit(/src/**)`` from the project root (as in
  Claude Code; a deny or ask rule ``/x`` also covers the absolute ``/x``, which older eddy rules
  meant). ``dir/**`` also covers ``dir`` itself. An ``Edit`` allow rule also allows reading what
  it names; a ``Read`` deny rule also refuses editing and writing it. Paths are
  compared as real paths, so ``..`` and symlinks neither escape nor dodge a rule.
* ``WebFetch(domain:example.com)`` matches a ``url`` argument on that host or a subdomain.
* ``mcp__server`` and ``mcp__server__*`` name every tool of that MCP server,
  ``mcp__server__tool`` one tool.
"""

from __future__ import annotations

import fnmatch
import functools
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from agent.permissions.paths import spec_matches_path
from agent.permissions.wildcard import is_wildcard, match_words
from agent.shell import parser as shellparse
from agent.shell.words import ShellParseError, Word
from tools.base import ToolContext, ToolError
from tools.web_http import canonical_host, url_host

Match = Literal["yes", "maybe", "no"]
EDIT_TOOLS = frozenset({"Write", "Edit", "MultiEdit", "NotebookEdit"})
READ_TOOLS = frozenset({"Read", "Glob", "Grep", "LS", "NotebookRead"})
_FAMILIES = {"Edit": EDIT_TOOLS, "Read": READ_TOOLS, "Write": frozenset({"Write"})}

_RULE = re.compile(r"^\s*([A-Za-z_][\w-]*(?:__\*)?)\s*(?:\((.*)\))?\s*$", re.S)


@dataclass(frozen=True)
class Rule:
    """``Tool`` or ``Tool(specifier)``; see the module docstring for the specifiers."""

    tool: str
    specifier: str | None = None
    source: str | None = field(default=None, compare=False)
    """The settings file (label) the rule was read from, or None (command line, session)."""
    line: int | None = field(default=None, compare=False)
    """The line of ``source`` where the rule's string is."""

    @classmethod
    def parse(cls, text: str) -> Rule:
        """Parse a rule.

        Raises:
            ValueError: with a message saying what is wrong with ``text``.
        """
        m = _RULE.match(text) if isinstance(text, str) else None
        if not m:
            raise ValueError(f"not a permission rule: {text!r} (expected Tool or Tool(specifier))")
        tool, spec = m.group(1), m.group(2)
        if spec is None:
            return cls(tool)
        spec = spec.strip()
        if not spec:
            raise ValueError(f"empty specifier in {text!r}: write {tool} or {tool}(specifier)")
        if spec in ("*", ":*"):
            return cls(tool)
        rule = cls(tool, spec)
        if tool == "Bash" and rule.wildcard:
            return rule
        if tool == "Bash" and rule._bash[1] and rule._bash[0] is None:
            raise ValueError(f"{text!r}: the prefix before :* is not a plain shell command")
        if tool == "WebFetch" and not spec.startswith("domain:"):
            raise ValueError(f"{text!r}: WebFetch rules take domain:HOST")
        return rule

    def __str__(self) -> str:
        return self.tool if self.specifier is None else f"{self.tool}({self.specifier})"

    def applies_to(self, name: str) -> bool:
        """Whether the rule speaks about tool ``name`` (``Edit`` also covers Write, ...;
        ``mcp__server`` and ``mcp__server__*`` every tool of that MCP server)."""
        if name == self.tool or name in _FAMILIES.get(self.tool, ()):
            return True
        if self.tool.startswith("mcp__") and name.startswith("mcp__"):
            server = self.tool.removesuffix("__*")
            return "__" not in server[len("mcp__") :] and name.startswith(server + "__")
        return False

    def denies(self, name: str) -> bool:
        """Whether, as a deny rule, it speaks about ``name``: a Read deny also blocks the edit
        tools (what may not be read may not be changed either)."""
        return self.applies_to(name) or (self.tool == "Read" and name in EDIT_TOOLS)

    def allows(self, name: str) -> bool:
        """Whether, as an allow rule, it speaks about ``name``: an Edit allow implies Read."""
        return self.applies_to(name) or (self.tool == "Edit" and name in READ_TOOLS)

    @functools.cached_property
    def wildcard(self) -> bool:
        """A Bash specifier with a star inside (``git * main``): see agent.permissions.wildcard."""
        return self.tool == "Bash" and self.specifier is not None and is_wildcard(self.specifier)

    @functools.cached_property
    def _bash(self) -> tuple[tuple[str, ...] | None, bool]:
        """(the words of a Bash specifier, or None if not plain words; whether it is a prefix)."""
        spec = self.specifier or ""
        prefix = spec.endswith((":*", " *"))
        body = spec[:-2].rstrip() if prefix else spec
        words = shellparse.split_words(body)
        return (tuple(w.value for w in words) if words is not None else None), prefix

    def match_argv(
        self, argv: tuple[Word, ...], *, open_args: bool = False, loose: bool = False
    ) -> Match:
        """Match a Bash rule against one command's words.

        Args:
            argv: the words; a word only known at run time can only "maybe" match.
            open_args: more arguments follow at run time (xargs).
            loose: also match a program called by path (``/bin/rm`` for ``rm``): deny, ask.

        Returns:
            "yes", "no", or "maybe" when run-time words could make it match.
        """
        if self.tool != "Bash" or not argv:
            return "no"
        if self.specifier is None:
            return "yes"
        if self.wildcard:
            return match_words(self.specifier, argv, open_args=open_args, loose=loose)
        words, prefix = self._bash
        if words is None:
            return "no"
        result = _length_match(len(argv), len(words), prefix=prefix, open_args=open_args)
        for i, (arg, want) in enumerate(zip(argv, words, strict=False)):
            if result == "no":
                break
            result = _worse(result, _word_match(arg, want, loose=loose and i == 0))
        return result

    def matches_command_line(self, command: str) -> bool:
        """An exact Bash specifier equal to the whole command line."""
        return (
            self.tool == "Bash"
            and self.specifier is not None
            and not self.wildcard
            and not self._bash[1]
            and self.specifier == command.strip()
        )

    def matches_path(self, path: Path, workspace: Path, *, broad: bool = False) -> bool:
        """Whether a path rule names ``path`` (a real path); ``broad`` for deny and ask rules
        (see ``spec_matches_path``)."""
        if self.specifier is None or self.tool in ("Bash", "WebFetch"):
            return False
        return spec_matches_path(self.specifier, path, workspace, broad=broad)

    def matches_args(self, name: str, args: dict[str, Any]) -> bool:
        """Specifiers that are neither commands nor paths: ``domain:`` for a url argument,
        a skill's name for ``Skill(name)``."""
        if self.specifier is not None and name == "Skill" and self.applies_to("Skill"):
            wanted = str(args.get("skill", "")).strip().lstrip("/")
            return self.specifier.strip().lstrip("/") == wanted
        if self.specifier is None or not self.specifier.startswith("domain:"):
            return False
        # both sides in the one spelling the fetch uses (tools/web_http.py canonical_host)
        host = url_host(str(args.get("url", "")))
        raw = self.specifier[len("domain:") :].strip().lower()
        domain = canonical_host(raw) or raw
        return bool(host) and (host == domain or host.endswith("." + domain))

    def matches(self, name: str, args: dict[str, Any], ctx: ToolContext | None = None) -> bool:
        """Whether this rule names the call (Bash: every part of the command; paths: any)."""
        if not self.applies_to(name):
            return False
        if self.specifier is None:
            return True
        if name == "Bash":
            command = str(args.get("command", ""))
            if self.matches_command_line(command):
                return True
            try:
                parts = shellparse.parse(command).commands
            except ShellParseError:
                return False
            return bool(parts) and all(
                self.match_argv(c.argv, open_args=c.open_args) == "yes" for c in parts if c.argv
            )
        if ctx is not None and isinstance(args.get("file_path"), str):
            try:
                return self.matches_path(ctx.resolve(args["file_path"]).path, ctx.workspace)
            except ToolError:
                return False
        return self.matches_args(name, args)


_RANK: dict[Match, int] = {"yes": 0, "maybe": 1, "no": 2}


def _worse(a: Match, b: Match) -> Match:
    return a if _RANK[a] >= _RANK[b] else b


def _length_match(given: int, wanted: int, *, prefix: bool, open_args: bool) -> Match:
    """Whether ``given`` words can be the rule's ``wanted`` ones (a prefix rule takes more;
    with ``open_args`` more follow at run time)."""
    if given < wanted:
        return "maybe" if open_args else "no"
    if not prefix and (given > wanted or open_args):
        return "no" if given > wanted else "maybe"
    return "yes"


def _word_match(arg: Word, want: str, *, loose: bool) -> Match:
    """Whether the command's word ``arg`` is the rule's word ``want`` (``loose``: the program
    called by path counts by its base name)."""
    if arg.static and not arg.glob:
        base = os.path.basename(arg.value) if loose else arg.value
        return "yes" if want in (arg.value, base) else "no"
    if not arg.static:
        return "maybe"
    if arg.value != want:  # a glob: it may expand to the rule's word
        return "maybe" if fnmatch.fnmatchcase(want, arg.value) else "no"
    return "yes"
