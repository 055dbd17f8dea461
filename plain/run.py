"""Starting line mode from the command line: ``eddy --plain``.

What happens before the app exists: no API key (and no demo) is said and ends it; ``--resume``
without an id takes the latest session (line mode has no picker); stdout is made safe for any
text; ``--demo`` gets its scratch project and scripted model. The app itself is plain/app.py.
"""

from __future__ import annotations

import asyncio
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from frontend.launch import LaunchOptions

DEMO_NOTE = "Or try `eddy --plain --demo`: a scripted demo in a scratch project, no key needed."


def run_plain(args: LaunchOptions) -> int:
    """``eddy --plain``: run the line-mode front end; returns the exit code.

    Without an API key (and without ``--demo``) it says how to set one and returns 2.
    """
    from frontend.launch import NO_KEY_MESSAGE, has_api_key
    from plain.app import PlainApp  # here: plain.app imports this module

    if not args.demo and not has_api_key():
        print(NO_KEY_MESSAGE + "\n" + DEMO_NOTE, file=sys.stderr)
        return 2
    if args.resume == "":
        args = args.opening(continue_=True)  # no picker in line mode: the latest session
    with_reconfigure = getattr(sys.stdout, "reconfigure", None)
    if with_reconfigure is not None:
        try:
            with_reconfigure(errors="replace", line_buffering=True)
        except (ValueError, OSError):
            pass
    model_factory = None
    if args.demo:
        from frontend.demo import DemoModel, prepare_workspace

        args = args.replace(cwd=prepare_workspace())
        model_factory = DemoModel
    app = PlainApp(args, model_factory=model_factory)
    try:
        return asyncio.run(app.run())
    except KeyboardInterrupt:
        return 130
