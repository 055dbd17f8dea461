"""The ``eddy`` command line: the argparse parser and its validation into the frozen
:class:`frontend.launch.LaunchOptions` every front end reads.

Kept light, as cli/main.py is: imported before any front end, so nothing heavy at import.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agent.pricing import DEFAULT_MODEL
from frontend.launch import LaunchOptions


def eddy_version() -> str:
    """The installed package's version (from its metadata), or "unknown" in a bare checkout."""
    from importlib import metadata

    try:
        return metadata.version("eddy")
    except metadata.PackageNotFoundError:
        return "unknown"


class _VersionAction(argparse.Action):
    """``-v``: print the version and exit. The version is read from the package's metadata
    only then: reading it scans the installed distributions (10-20 ms at every start)."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, help="show the version and exit")

    def __call__(self, parser: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> None:
        print(f"{parser.prog} {eddy_version()}")  # on stdout, as argparse's own action
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="eddy", description="A terminal coding agent.")
    p.add_argument("-v", "--version", action=_VersionAction)
    p.add_argument("prompt", nargs="?", help="the first prompt (with -p: the whole task)")
    p.add_argument(
        "-p",
        "--print",
        dest="print_mode",
        action="store_true",
        help="headless: run the prompt to completion, print the result, exit",
    )
    p.add_argument(
        "--output-format",
        choices=["text", "json", "stream-json", "eddy-events"],
        default="text",
        help="with -p: the answer (text), one result object (json), Claude Code's messages "
        "one per line (stream-json), or every eddy event one per line (eddy-events)",
    )
    p.add_argument(
        "--verbose",
        action="store_true",
        help="accepted for scripts written for claude -p: stream-json always prints every message",
    )
    p.add_argument(
        "--include-partial-messages",
        action="store_true",
        help="with -p --output-format stream-json: also the raw API stream events as they "
        "come (stream_event lines, as claude -p prints them)",
    )
    p.add_argument("--max-turns", type=int, default=None, help="stop after N tool turns")
    p.add_argument("--max-budget-usd", type=float, default=None, help="stop at this spend")
    p.add_argument("--model", default=None, help=f"the model (default {DEFAULT_MODEL})")
    p.add_argument(
        "--allowed-tools",
        "--allowedTools",
        dest="allowed_tools",
        action="append",
        default=[],
        help='rules that run without asking, e.g. "Bash(git diff:*)" Edit',
    )
    p.add_argument(
        "--disallowed-tools",
        "--disallowedTools",
        dest="disallowed_tools",
        action="append",
        default=[],
        help="rules that never run",
    )
    p.add_argument(
        "--permission-mode",
        choices=["default", "acceptEdits", "plan", "bypassPermissions", "dontAsk"],
        default="default",
    )
    p.add_argument("--cwd", type=Path, default=None, help="the workspace (default: .)")
    p.add_argument(
        "--add-dir",
        dest="add_dirs",
        action="append",
        default=[],
        metavar="DIR",
        help="another directory the tools may read and change (repeatable)",
    )
    p.add_argument(
        "--mcp-config",
        dest="mcp_config",
        action="append",
        default=[],
        metavar="FILE",
        help="load MCP servers from a JSON file (or JSON text) with mcpServers (repeatable)",
    )
    p.add_argument(
        "--plugin-dir",
        dest="plugin_dirs",
        action="append",
        default=[],
        metavar="DIR",
        help="load a plugin (Claude Code's format) from DIR for this session (repeatable)",
    )
    p.add_argument(
        "--strict-mcp-config",
        action="store_true",
        help="use only the MCP servers of --mcp-config, none of the configured ones",
    )
    p.add_argument("--demo", action="store_true", help="a scripted demo, no API key needed")
    p.add_argument(
        "--plain",
        action="store_true",
        help="a line-oriented interface instead of the full-screen app (screen readers, ssh)",
    )
    p.add_argument(
        "-c",
        "--continue",
        dest="continue_",
        action="store_true",
        help="continue the latest session in this directory",
    )
    p.add_argument(
        "-r",
        "--resume",
        nargs="?",
        const="",
        default=None,
        metavar="ID",
        help="resume a session by id (without an id: pick one)",
    )
    p.add_argument(
        "--fork-session",
        action="store_true",
        help="with --continue or --resume: continue in a new session (a copy)",
    )
    p.add_argument("--session-id", default=None, help="the id for a new session")
    p.add_argument(
        "--rewind",
        type=int,
        default=None,
        metavar="N",
        help="with --resume: go back to before prompt N (1 = before the first)",
    )
    p.add_argument("--code-only", action="store_true", help="with --rewind: restore code only")
    p.add_argument(
        "--conversation-only",
        action="store_true",
        help="with --rewind: rewind the conversation only",
    )
    p.add_argument(
        "--overwrite",
        action="store_true",
        help="with --rewind: also overwrite files you changed since eddy did",
    )
    p.add_argument(
        "--checkpoints",
        action="store_true",
        help="with --resume: list the session's checkpoints and exit",
    )
    p.add_argument(
        "--acp",
        action="store_true",
        help="serve the Agent Client Protocol on stdin/stdout (for Zed, Toad and other editors)",
    )
    return p


def _split_rules(values: Sequence[str]) -> list[str]:
    out: list[str] = []
    for value in values:
        # "Read Edit,Bash(git diff:*)" -> separate rules; commas inside parentheses stay
        depth, cur = 0, ""
        for ch in value:
            if ch == "(":
                depth += 1
            elif ch == ")":
                depth -= 1
            if depth == 0 and ch in ", ":
                if cur.strip():
                    out.append(cur.strip())
                cur = ""
            else:
                cur += ch
        if cur.strip():
            out.append(cur.strip())
    return out


class UsageError(Exception):
    """The command line asks for something that cannot be done (exit code 2)."""


def parse_launch(argv: Sequence[str] | None = None) -> LaunchOptions:
    """Parse and validate the command line into the frozen options every front end reads.

    Raises:
        UsageError: with the message for the user.
        SystemExit: from argparse, for --help and unknown flags.
    """
    ns = build_parser().parse_args(argv)
    if ns.fork_session and not (ns.continue_ or ns.resume is not None):
        raise UsageError("eddy: --fork-session needs --continue or --resume")
    if (ns.rewind is not None or ns.checkpoints) and not ns.resume:
        raise UsageError("eddy: --rewind and --checkpoints need --resume ID")
    if ns.acp and (ns.print_mode or ns.plain or ns.demo or ns.prompt is not None):
        raise UsageError("eddy: --acp takes no prompt and no -p, --plain or --demo")
    if ns.include_partial_messages and not (ns.print_mode and ns.output_format == "stream-json"):
        raise UsageError("eddy: --include-partial-messages needs -p --output-format stream-json")
    fields = {f.name for f in dataclasses.fields(LaunchOptions)}
    values = {k: v for k, v in vars(ns).items() if k in fields}
    values.update(
        model=ns.model or os.environ.get("EDDY_MODEL") or DEFAULT_MODEL,
        model_explicit=ns.model is not None,
        allowed_tools=tuple(_split_rules(ns.allowed_tools)),
        disallowed_tools=tuple(_split_rules(ns.disallowed_tools)),
        add_dirs=tuple(Path(d) for d in ns.add_dirs),
        mcp_config=tuple(ns.mcp_config),
        plugin_dirs=tuple(Path(d) for d in ns.plugin_dirs),
    )
    return LaunchOptions(**values)
