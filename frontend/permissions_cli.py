"""``eddy permissions why "Bash(git push origin main)" [--cwd DIR]``: the decision for one call
in this project, with the rule, file and line that made it (``agent/permissions/why.py``),
without starting a session or the SDK.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

USAGE = 'usage: eddy permissions why "Tool(what)" [--cwd DIR] [--permission-mode MODE]'


def permissions_command(argv: Sequence[str]) -> int:
    """Run ``eddy permissions ...``; returns the exit code (0 done, 2 usage or bad call)."""
    from agent.permissions.why import decide
    from agent.settings.files import build_policy, load_settings
    from tools.base import ToolContext

    args = list(argv)
    if not args or args[0] != "why":
        print(USAGE, file=sys.stderr)
        return 2
    args = args[1:]
    options: dict[str, str] = {}
    for flag in ("--cwd", "--permission-mode"):
        if flag in args:
            i = args.index(flag)
            if i + 1 >= len(args):
                print(USAGE, file=sys.stderr)
                return 2
            options[flag] = args[i + 1]
            del args[i : i + 2]
    if len(args) != 1:
        print(USAGE, file=sys.stderr)
        return 2
    workspace = Path(options.get("--cwd", ".")).resolve()
    settings, problems = load_settings(workspace)
    policy, more = build_policy(settings, options.get("--permission-mode"))
    for problem in [*problems, *more]:
        print(f"eddy: {problem}", file=sys.stderr)
    ctx = ToolContext(workspace, extra_dirs=tuple(settings.additional_directories))
    try:
        _decision, text = decide(policy, ctx, args[0])
    except ValueError as exc:
        print(f"eddy permissions why: {exc}", file=sys.stderr)
        return 2
    print(text)
    return 0
