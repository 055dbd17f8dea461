"""Grep without ripgrep: the same options and the same output, in pure Python.

Used when no ``rg`` binary can be found. It walks like ripgrep (``--hidden --no-require-git
--sort path``, see :mod:`tools.ignore`) and prints what ``rg --no-heading --with-filename``
prints for the three output modes: ``path`` (files_with_matches), ``path:N`` (count: matching
lines) and ``path:line:text`` / ``path-line-text`` for context lines, ``--`` between groups
that are not adjacent (content).

Known differences from ripgrep:

- Patterns are Python ``re`` patterns. The common syntax is shared; Rust-only constructs (e.g.
  ``[[:alpha:]]``, ``\\z``, ``(?<name>...)``) fail or differ, and Python-only ones
  (look-around, backreferences) work here although rg rejects them.
- A file holding a NUL byte anywhere is skipped as binary (rg stops at the first NUL but may
  have printed matches found before it). UTF-16 files with a BOM are decoded, as rg does; other
  non-UTF-8 bytes are replaced.
- git's global excludes file is not read; see :mod:`tools.ignore` for the rest.
"""

from __future__ import annotations

import bisect
import codecs
import fnmatch
import os
import re
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from tools.base import ToolError
from tools.globpattern import expand_braces
from tools.ignore import IgnoreRules, PatternSet, compile_patterns, walk_files

TYPE_GLOBS: dict[str, tuple[str, ...]] = {
    "py": ("*.py", "*.pyi"),
    "js": ("*.cjs", "*.js", "*.jsx", "*.mjs", "*.vue"),
    "ts": ("*.cts", "*.mts", "*.ts", "*.tsx"),
    "rust": ("*.rs",),
    "go": ("*.go",),
    "java": ("*.java", "*.jsp", "*.jspx", "*.properties"),
    "c": ("*.[chH]", "*.[chH].in", "*.cats"),
    "cpp": ("*.[ChH]", "*.[ChH].in", "*.[ch]pp", "*.[ch]pp.in", "*.[ch]xx", "*.[ch]xx.in")
    + ("*.cc", "*.cc.in", "*.hh", "*.hh.in", "*.inl"),
    "md": ("*.markdown", "*.md", "*.mdown", "*.mdwn", "*.mdx", "*.mkd", "*.mkdn"),
    "json": ("*.json", "*.sarif", "composer.lock"),
    "yaml": ("*.yaml", "*.yml"),
    "toml": ("*.toml", "Cargo.lock"),
    "sh": ("*.bash", "*.bashrc", "*.csh", "*.ksh", "*.sh", "*.tcsh", "*.zsh", ".bashrc")
    + (".bash_profile", ".profile", ".zshrc", ".zprofile", "bashrc", "profile", "zshrc"),
    "html": ("*.ejs", "*.htm", "*.html"),
    "css": ("*.css", "*.scss"),
    "ruby": ("*.gemspec", "*.rb", "*.rbw", ".irbrc", "Gemfile", "Rakefile", "config.ru"),
    "php": ("*.php", "*.php3", "*.php4", "*.php5", "*.php7", "*.php8", "*.pht", "*.phtml"),
    "kotlin": ("*.kt", "*.kts"),
    "swift": ("*.swift",),
    "csharp": ("*.cs",),
    "sql": ("*.psql", "*.sql"),
    "xml": ("*.dtd", "*.rng", "*.sch", "*.xhtml", "*.xjb", "*.xml", "*.xml.dist", "*.xsd")
    + ("*.xsl", "*.xslt"),
    "txt": ("*.txt",),
    "lua": ("*.lua",),
}
"""ripgrep's definitions (``rg --type-list``) of the types the fallback knows."""
TYPE_GLOBS["markdown"] = TYPE_GLOBS["md"]

_UTF16_BOMS = ((codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"))


@dataclass(frozen=True)
class GrepOptions:
    """A Grep call's options, already checked and defaulted.

    Attributes:
        pattern: the regular expression.
        mode: ``content``, ``files_with_matches`` or ``count``.
        ignore_case: ``-i``.
        line_numbers: ``-n`` (content mode only).
        before: lines of context before each match (content mode only).
        after: lines of context after each match (content mode only).
        multiline: ``.`` matches newlines and matches may span lines (``rg -U
            --multiline-dotall``).
        globs: ``--glob`` filters, ripgrep's override semantics (``!`` excludes).
        type: a ripgrep file type (``py``, ``js``...).
    """

    pattern: str
    mode: str = "files_with_matches"
    ignore_case: bool = False
    line_numbers: bool = True
    before: int = 0
    after: int = 0
    multiline: bool = False
    globs: tuple[str, ...] = field(default_factory=tuple)
    type: str | None = None


def compile_regex(opts: GrepOptions) -> re.Pattern[str]:
    """The pattern as a Python regex. Raises ToolError with ``re``'s complaint."""
    flags = re.MULTILINE | (re.IGNORECASE if opts.ignore_case else 0)
    flags |= re.DOTALL if opts.multiline else 0
    try:
        return re.compile(opts.pattern, flags)
    except re.error as exc:
        raise ToolError(f"Invalid regex pattern {opts.pattern!r}: {exc}") from None


def type_regex(name: str) -> re.Pattern[str]:
    """The file names of a type. Raises ToolError for an unknown type."""
    globs = TYPE_GLOBS.get(name)
    if globs is None:
        known = ", ".join(sorted(TYPE_GLOBS))
        raise ToolError(f"unrecognized file type: {name} (known types: {known})")
    return re.compile("|".join(fnmatch.translate(g) for g in globs))


def override_rules(globs: tuple[str, ...]) -> tuple[PatternSet | None, bool]:
    """``--glob`` filters as gitignore-style rules with inverted meaning, and whether any
    glob is positive (then a file matching none is skipped)."""
    lines: list[str] = []
    for glob in globs:
        negated = glob.startswith("!")
        for alt in expand_braces(glob[1:] if negated else glob):
            # a positive glob whitelists (an "ignore" line); "!" ignores (a negated line)
            lines.append(("!" if negated else "") + alt)
    return compile_patterns(lines), any(not g.startswith("!") for g in globs)


def _decode(data: bytes) -> str | None:
    for bom, codec in _UTF16_BOMS:
        if data.startswith(bom):
            return data[len(bom) :].decode(codec, errors="replace")
    if b"\x00" in data:
        return None
    return data.decode("utf-8-sig", errors="replace")


def can_match_newline(pattern: str) -> bool:
    r"""Whether ``pattern`` (in multiline mode) might match a line break, judged by its text.

    ripgrep searches line by line, even with ``--multiline``, when the regex can never match
    ``\n``; that changes what ``--count`` counts (lines instead of matches). It decides from
    the compiled regex; this looks for the usual suspects: ``.``, ``\n``, ``\s``, negated
    classes and escapes (``\W``, ``\D``, ``\S``, ``\x..``, ``\p{..}``).
    """
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            if pattern[i + 1 : i + 2] in ("n", "s", "S", "W", "D", "x", "u", "p", "P", "0"):
                return True
            i += 2
            continue
        if ch in ".\n" or (ch == "[" and pattern[i + 1 : i + 2] == "^"):
            return True
        i += 1
    return False


def _hits(regex: re.Pattern[str], text: str, multiline: bool) -> tuple[list[int], int]:
    r"""The 0-based numbers of the lines holding (part of) a match, sorted and unique, and
    the number of matches."""
    starts = [0]
    starts.extend(m.end() for m in re.finditer("\n", text))
    n_lines = len(starts) - (1 if text.endswith("\n") or not text else 0)
    found: set[int] = set()
    count = 0
    for m in regex.finditer(text):
        first = bisect.bisect_right(starts, m.start()) - 1
        if not multiline and "\n" in m.group():
            # rg never matches across lines without multiline: ask line by line instead
            lines = text.split("\n")
            hits = [i for i in range(n_lines) if regex.search(lines[i])]
            return hits, len(hits)
        if first >= n_lines:
            continue
        last = bisect.bisect_right(starts, max(m.start(), m.end() - 1)) - 1
        found.update(range(first, last + 1))
        count += 1
    return sorted(found), count


def _content(
    path: str, lines: list[str], hits: list[int], opts: GrepOptions, state: list[int]
) -> Iterator[str]:
    """The rg content lines for one file; ``state[0]`` is the last line printed (-1: none)."""
    hit_set = set(hits)
    context = opts.before > 0 or opts.after > 0
    last = -2  # last line index printed in this file
    for hit in hits:
        start = max(hit - opts.before, last + 1, 0)
        end = min(hit + opts.after, len(lines) - 1)
        if context and start > last + 1 and state[0] >= 0:
            yield "--"
        for i in range(start, end + 1):
            if i > hit and i in hit_set:
                break  # the next hit prints itself (and its own context)
            sep = ":" if i in hit_set else "-"
            number = f"{i + 1}{sep}" if opts.line_numbers else ""
            yield f"{path}{sep}{number}{lines[i]}"
            last = i
            state[0] = i


@dataclass(frozen=True)
class _Filter:
    """Which files and directories a search looks at: not the denied, what ``--glob`` keeps,
    of the ``--type`` asked for, and not what the ignore rules ignore (the walk's ``keep``)."""

    denied: Callable[[str], bool] | None
    overrides: PatternSet | None
    whitelist: bool
    kind: re.Pattern[str] | None

    @classmethod
    def of(cls, opts: GrepOptions, denied: Callable[[str], bool] | None) -> _Filter:
        """The filter of ``opts`` (its globs and type) and the read deny rules ``denied``."""
        kind = type_regex(opts.type) if opts.type else None
        overrides, whitelist = override_rules(opts.globs)
        return cls(denied, overrides, whitelist, kind)

    def __call__(self, path: str, rel: str, is_dir: bool, rules: IgnoreRules) -> bool:
        if self.denied is not None and self.denied(path):
            return False
        if self.overrides is not None:
            verdict = self.overrides.decide(rel + "/" if is_dir else rel)
            if verdict is not None:
                return verdict
        if not is_dir and self.whitelist:
            return False
        if not is_dir and self.kind is not None and self.kind.match(os.path.basename(path)) is None:
            return False  # before the ignore rules: same answer, cheaper
        return not rules.ignored(path, is_dir)


def search(
    root: Path,
    opts: GrepOptions,
    workspace: Path | None = None,
    stop: threading.Event | None = None,
    denied: Callable[[str], bool] | None = None,
) -> Iterator[str]:
    """Yield rg's output lines for a search below ``root`` (a directory or a file).

    ``denied`` names paths (files, and directories with all they hold) that are never read
    nor named: the read deny rules.

    Raises:
        ToolError: for an invalid pattern or an unknown type.
    """
    regex = compile_regex(opts)
    keep = _Filter.of(opts, denied)
    if root.is_dir():
        rules = IgnoreRules.for_start(root, workspace)
        files: Iterator[str] = (
            p for p, _rel in walk_files(str(root), rules, sort=True, stop=stop, keep=keep)
        )
    else:
        files = iter([str(root)])
    state = [-1]
    for path in files:
        if denied is not None and denied(path):
            continue
        text = _read_text(path)
        first = regex.search(text) if text is not None else None
        if first is None or text is None:
            continue
        if opts.mode == "files_with_matches" and (opts.multiline or "\n" not in first.group()):
            yield path
            continue
        hits, matches = _hits(regex, text, opts.multiline)
        if hits:
            yield from _file_lines(path, text, hits, matches, opts, state)


def _read_text(path: str) -> str | None:
    """The text of the file at ``path``; None when it cannot be read or is binary."""
    try:
        with open(path, "rb") as f:
            return _decode(f.read())
    except OSError:
        return None


def _file_lines(
    path: str, text: str, hits: list[int], matches: int, opts: GrepOptions, state: list[int]
) -> Iterator[str]:
    """What the output mode prints for one file with ``hits`` (line numbers) and ``matches``:
    its path, its count, or its content lines (``state`` as for :func:`_content`)."""
    if opts.mode == "files_with_matches":
        yield path
    elif opts.mode == "count":
        count_matches = opts.multiline and can_match_newline(opts.pattern)
        yield f"{path}:{matches if count_matches else len(hits)}"
    else:
        lines = text.split("\n")
        if text.endswith("\n"):
            lines.pop()
        yield from _content(path, lines, hits, opts, state)
