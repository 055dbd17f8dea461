"""``eddy plugin ...``: Claude Code's ``claude plugin`` subcommands (install, uninstall,
enable, disable, list, validate, marketplace add/list/remove/update), the same words as the
``/plugin`` slash command (frontend/plugin_commands.py). ``--cwd DIR`` names the project
(default: here). Exit status 0, or 1 when the command failed (the reason on stderr)."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path


def run_plugin_command(argv: Sequence[str]) -> int:
    """Entry point of ``eddy plugin ...``; returns the exit status."""
    from frontend.plugin_commands import plugin_command

    words = list(argv)
    workspace = Path.cwd()
    if "--cwd" in words:
        i = words.index("--cwd")
        if i + 1 >= len(words):
            print("eddy plugin: --cwd needs a directory", file=sys.stderr)
            return 2
        workspace = Path(words[i + 1])
        del words[i : i + 2]
    if words[:1] in (["-h"], ["--help"]):
        print(__doc__)
        return 0
    failed = False
    for text, kind in plugin_command(workspace.resolve(), " ".join(words)):
        if kind == "error":
            failed = True
            print(text.replace("/plugin", "eddy plugin", 1), file=sys.stderr)
        else:
            print(text)
    return 1 if failed else 0
