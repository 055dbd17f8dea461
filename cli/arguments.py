"""The ``eddy`` command line: the argparse parser and its validation into the frozen
:class:`frontend.launch.LaunchOptions` every front end reads.

Kept light, as cli/main.py is: imported before any front end, so nothing heavy at import.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agent.model.pricing import DEFAULT_MODEL
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
        metavar="MODE",
        help=(
            "how tool calls are permitted: default (ask before changes), acceptEdits (file "
            "edits run without asking), plan (nothing that changes state runs), "
            "bypassPermissions (nothing asks; deny rules still hold), dontAsk (what would "
            "ask is refused)"
        ),
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
    _add_sdk_arguments(p)
    return p


def _add_sdk_arguments(p: argparse.ArgumentParser) -> None:
    """The flags the Claude Agent SDKs pass (Python ``_build_command``, TypeScript
    ``ProcessTransport``), with Claude Code's meaning; those eddy cannot honour are parsed so
    that the error names them (``_refuse_unsupported``)."""
    p.add_argument(
        "--input-format",
        choices=["text", "stream-json"],
        default="text",
        help="stream-json: user messages and the Agent SDK's control protocol as JSON lines on "
        "stdin, one long-lived session (needs --output-format stream-json)",
    )
    p.add_argument("--system-prompt", default=None, help="the system prompt instead of eddy's")
    p.add_argument("--system-prompt-file", default=None, metavar="FILE")
    p.add_argument("--append-system-prompt", default=None, help="added to the system prompt")
    p.add_argument("--append-system-prompt-file", default=None, metavar="FILE")
    p.add_argument(
        "--tools",
        default=None,
        metavar="LIST",
        help='the built-in tools offered: "Bash,Read,Edit", "" for none, "default" for all',
    )
    p.add_argument(
        "--permission-prompt-tool",
        default=None,
        metavar="stdio",
        help="stdio: questions the rules would ask go to the Agent SDK's can_use_tool",
    )
    p.add_argument("--include-hook-events", action="store_true")
    p.add_argument("--replay-user-messages", action="store_true")
    p.add_argument("--json-schema", default=None, metavar="JSON")
    p.add_argument("--max-thinking-tokens", type=int, default=None, metavar="N")
    p.add_argument("--thinking", choices=["adaptive", "enabled", "disabled"], default=None)
    p.add_argument("--thinking-display", default=None)
    p.add_argument("--no-session-persistence", action="store_true")
    p.add_argument("--settings", default=None, help="more settings: a file or JSON text")
    p.add_argument(
        "--setting-sources",
        default=None,
        metavar="LIST",
        help='the settings files to read: "user,project,local" (the managed file always)',
    )
    for flag in _ACCEPTED_SDK_FLAGS:
        p.add_argument(flag, action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--debug-file", default=None, help=argparse.SUPPRESS)
    for flag in _UNSUPPORTED:
        p.add_argument(flag, default=None, help=argparse.SUPPRESS)


_ACCEPTED_SDK_FLAGS = ("--await-initialize", "--allow-dangerously-skip-permissions", "--debug")
"""Accepted as no-ops: eddy always waits for the SDK's ``initialize``; bypassPermissions needs
no second opt-in; logs go to stderr."""

_UNSUPPORTED = {
    "--fallback-model": "eddy does not switch models on errors (it retries the same model)",
    "--betas": "eddy sends no beta headers chosen by the caller",
    "--task-budget": "eddy has no token budget for a task (--max-budget-usd caps the spend)",
    "--effort": "eddy does not set the model's effort",
    "--resume-session-at": "eddy's transcripts do not resume at a message uuid (resume, then "
    "rewind)",
    "--resume-drops-turn": "eddy's transcripts do not resume at a message uuid",
    "--session-mirror": "eddy does not mirror transcripts to a session store",
    "--agent": "eddy's main agent is its own (subagents are started with the Agent tool)",
}
"""Flags of Claude Code that eddy cannot honour, and why: each is an error naming it."""


def _refuse_unsupported(ns: argparse.Namespace) -> None:
    for flag, why in _UNSUPPORTED.items():
        if getattr(ns, flag[2:].replace("-", "_")) is not None:
            raise UsageError(f"eddy: {flag} is not supported: {why}.")
    if ns.permission_prompt_tool not in (None, "stdio"):
        raise UsageError(
            f"eddy: --permission-prompt-tool {ns.permission_prompt_tool} is not supported: eddy "
            "asks an Agent SDK's can_use_tool over stdio only (--permission-prompt-tool stdio)."
        )


def _read_text(path: str, flag: str) -> str:
    try:
        return Path(path).expanduser().read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"eddy: {flag} {path}: cannot be read ({exc}).") from exc


def _sdk_values(ns: argparse.Namespace) -> dict[str, Any]:
    """The LaunchOptions fields of the Agent SDK's flags."""
    system = ns.system_prompt
    if ns.system_prompt_file is not None:
        system = _read_text(ns.system_prompt_file, "--system-prompt-file")
    append = ns.append_system_prompt or ""
    if ns.append_system_prompt_file is not None:
        append = _read_text(ns.append_system_prompt_file, "--append-system-prompt-file")
    tools: tuple[str, ...] | None = None
    if ns.tools is not None and ns.tools.strip() != "default":
        # Claude Code's older name for the Agent tool is Task
        tools = tuple("Agent" if t == "Task" else t for t in _split_rules([ns.tools]))
    schema = None
    if ns.json_schema is not None:
        try:
            schema = json.loads(ns.json_schema)
        except ValueError as exc:
            raise UsageError(f"eddy: --json-schema is not valid JSON ({exc}).") from exc
        if not isinstance(schema, dict):
            raise UsageError("eddy: --json-schema must be a JSON object (a JSON Schema).")
    sources = None
    if ns.setting_sources is not None:
        sources = tuple(s.strip() for s in ns.setting_sources.split(",") if s.strip())
        unknown = [s for s in sources if s not in ("user", "project", "local")]
        if unknown:
            raise UsageError(
                f"eddy: --setting-sources: unknown source {unknown[0]!r} (user, project, local)."
            )
    return {
        "setting_sources": sources,
        "system_prompt": system,
        "append_system_prompt": append,
        "tools": tools,
        "json_schema": schema,
        "thinking": _thinking(ns),
        "persist": not ns.no_session_persistence,
    }


def _thinking(ns: argparse.Namespace) -> dict[str, Any] | None:
    """The request's ``thinking`` for --max-thinking-tokens / --thinking (Claude Code's:
    a budget of 0 turns thinking off)."""
    thinking: dict[str, Any] | None = None
    if ns.max_thinking_tokens is not None:
        budget = ns.max_thinking_tokens
        thinking = (
            {"type": "disabled"}
            if budget <= 0
            else {"type": "enabled", "budget_tokens": max(budget, 1024)}
        )
    if ns.thinking in ("adaptive", "enabled") and thinking is None:
        thinking = {"type": "adaptive"}
    elif ns.thinking == "disabled":
        thinking = {"type": "disabled"}
    if thinking is not None and thinking["type"] != "disabled" and ns.thinking_display:
        thinking["display"] = ns.thinking_display
    return thinking


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
    _refuse_unsupported(ns)
    sdk = ns.input_format == "stream-json"
    if sdk and ns.output_format != "stream-json":
        raise UsageError("eddy: --input-format stream-json needs --output-format stream-json")
    if sdk and (ns.acp or ns.plain or ns.demo or ns.prompt is not None):
        raise UsageError(
            "eddy: --input-format stream-json reads its prompts from stdin: no prompt "
            "argument, --acp, --plain or --demo"
        )
    if ns.fork_session and not (ns.continue_ or ns.resume is not None):
        raise UsageError("eddy: --fork-session needs --continue or --resume")
    if (ns.rewind is not None or ns.checkpoints) and not ns.resume:
        raise UsageError("eddy: --rewind and --checkpoints need --resume ID")
    if ns.acp and (ns.print_mode or ns.plain or ns.demo or ns.prompt is not None):
        raise UsageError("eddy: --acp takes no prompt and no -p, --plain or --demo")
    streamed = (ns.print_mode or sdk) and ns.output_format == "stream-json"
    if ns.include_partial_messages and not streamed:
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
        **_sdk_values(ns),
    )
    if sdk:
        values["print_mode"] = True  # headless: nobody at a terminal answers
    return LaunchOptions(**values)
