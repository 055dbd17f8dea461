"""``eddy hooks``: list the active hooks; ``eddy hooks test EVENT --input FILE.json`` runs the
hooks that match a recorded input and prints what each did (exit code, stdout, stderr, parsed
decision, time), so a policy script is checked before it silently blocks or fails."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Sequence
from pathlib import Path


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="eddy hooks", description="Show or test the hooks.")
    p.add_argument("--workspace", type=Path, default=None, help="the project (default: here)")
    sub = p.add_subparsers(dest="action")
    sub.add_parser("list", help="the active hooks and their files (the default)")
    test = sub.add_parser("test", help="run one event's matching hooks on a recorded input")
    test.add_argument("event", help="PreToolUse, PostToolUse, Stop, UserPromptSubmit, ...")
    test.add_argument("--input", required=True, type=Path, help="the stdin JSON to give them")
    return p


def run_hooks_command(argv: Sequence[str]) -> int:
    """Entry point of ``eddy hooks ...``; returns the exit status."""
    from agent.hooks.config import EVENTS, load_hooks
    from agent.hooks.report import describe, dry_run, dry_run_report
    from agent.settings.files import load_settings

    args = _parser().parse_args(list(argv))
    workspace = (args.workspace or Path.cwd()).resolve()
    settings, problems = load_settings(workspace)
    config = load_hooks(settings.raw, problems)
    for problem in problems:
        print(f"eddy: {problem}", file=sys.stderr)
    if args.action in (None, "list"):
        print("\n".join(describe(config, workspace)))
        return 0
    if args.event not in EVENTS:
        print(f"eddy: no hook event {args.event!r}; one of {', '.join(EVENTS)}", file=sys.stderr)
        return 2
    try:
        payload = json.loads(args.input.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        print(f"eddy: cannot read {args.input}: {exc}", file=sys.stderr)
        return 2
    if not isinstance(payload, dict):
        print(f"eddy: {args.input} must hold one JSON object", file=sys.stderr)
        return 2
    if config.disabled:
        print("note: disableAllHooks is set, so eddy runs none of these; testing them anyway.")
    tested, combined = asyncio.run(dry_run(config, args.event, payload, workspace))
    print("\n".join(dry_run_report(tested, combined, args.event)))
    return 0
