"""Path rules: gitignore-style specifiers, matched against real paths, and made for a path.

:func:`spec_matches_path` says whether a specifier (``Edit(src/**)``'s ``src/**``) names a
path; :func:`path_rule` is the rule "don't ask again" saves for a path. The specifier forms
are described in :mod:`agent.permissions.rule`. No I/O beyond resolving the literal directories of
a specifier (``os.path.realpath``).
"""

from __future__ import annotations

import functools
import os
import re
from pathlib import Path
from typing import Any

_GLOB_CHARS = re.compile(r"[*?\[\\]")


def _home() -> Path:
    home = os.path.expanduser("~")
    try:
        return Path(os.path.realpath(home))
    except OSError:  # a symlink on its way replaced while it was read: home as spelled
        return Path(os.path.abspath(home))


def compile_spec(spec: str, workspace: Path) -> tuple[Path, str, Any]:
    """A path specifier as (base directory, gitignore pattern relative to it, matcher or None
    when the pattern is "" = all of base): what :func:`spec_matches_path` matches with.

    Raises:
        OSError: a symlink among its literal directories was replaced while it was read.
    """
    return _compile(spec, workspace, _home())


@functools.lru_cache(maxsize=512)
def _compile(spec: str, workspace: Path, home: Path) -> tuple[Path, str, Any]:
    """(base directory, gitignore pattern relative to it, matcher); pattern "" = all of base."""
    if spec.startswith("//"):
        base, pat = Path("/"), spec[1:]
    elif spec.startswith("/"):  # Claude Code: relative to the project root
        base, pat = workspace, spec
    elif spec == "~" or spec.startswith("~/"):
        base, pat = home, "/" + spec[2:]
    elif spec == "." or spec.startswith("./"):
        base, pat = workspace, "/" + spec[2:]
    else:
        base, pat = workspace, spec
    if pat.startswith("/"):
        parts = [p for p in pat.split("/") if p]
        literal: list[str] = []
        for part in parts:
            if _GLOB_CHARS.search(part):
                break
            literal.append(part)
        # resolve the literal directories, so a rule names the same real path the tools see
        if len(literal) == len(parts):
            base, pat = Path(os.path.realpath(base.joinpath(*literal))), ""
        elif literal:
            base = Path(os.path.realpath(base.joinpath(*literal)))
            pat = "/" + "/".join(parts[len(literal) :])
    import pathspec

    matcher = pathspec.GitIgnoreSpec.from_lines([pat]) if pat else None
    return base, pat, matcher


def spec_matches_path(spec: str, path: Path, workspace: Path, *, broad: bool = False) -> bool:
    """Whether the path specifier ``spec`` (``src/**``, ``~/x``, ``//etc``) names ``path``.

    ``path`` is a real path; ``dir/**`` also names ``dir`` itself. ``/x`` is relative to the
    project root (Claude Code's meaning); with ``broad`` (deny and ask rules, where naming too
    much is the safe mistake) it also names the absolute ``/x``, which older eddy rules meant.
    A specifier whose directories change while they are resolved (a symlink on the way
    replaced in between) names every path with ``broad`` and none without (an allow rule).
    """
    single = spec.startswith("/") and not spec.startswith("//")
    if broad and single and spec_matches_path("/" + spec, path, workspace):
        return True
    try:
        base, pat, matcher = compile_spec(spec, workspace)
    except OSError:  # not cached: the next call resolves it again
        return broad
    if path == base:
        return pat == "" or pat.rstrip("/") in ("/**", "**")
    if base not in path.parents:
        return False
    rel = path.relative_to(base).as_posix()
    if matcher is None or pat.rstrip("/") in ("/**", "**"):
        return True
    if pat.endswith("/**") and rel == pat[:-3].lstrip("/"):
        return True
    return bool(matcher.match_file(rel))


def _escape(text: str) -> str:
    text = _GLOB_CHARS.sub(lambda m: "\\" + m.group(), text)
    return "\\" + text if text.startswith(("!", "#")) else text


def path_rule(tool: str, path: Path, workspace: Path, *, directory: bool = False) -> str:
    """The rule "don't ask again" saves for a path: its directory, or the file at a top level.

    ``src/a.py`` -> ``Edit(src/**)``; ``README.md`` -> ``Edit(./README.md)``;
    ``~/notes/x.md`` -> ``Edit(~/notes/**)``; ``/tmp/x`` -> ``Edit(//tmp/**)``.
    """
    target = path if directory else path.parent
    for root, prefix in ((workspace, ""), (_home(), "~/"), (Path("/"), "//")):
        if target == root or root in target.parents:
            rel = target.relative_to(root).as_posix()
            if rel == ".":
                if directory and prefix == "":
                    return f"{tool}(./**)"
                name = _escape(path.name)
                return f"{tool}({prefix or './'}{name})"
            return f"{tool}({prefix}{_escape(rel)}/**)"
    return f"{tool}(/{_escape(path.as_posix())})"  # pragma: no cover - every path is under /
