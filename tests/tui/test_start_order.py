"""What the app does before a person can type (issue 24): the first frame already holds the
banner and a prompt that takes keys; only after it is drawn is the session built (its
imports run in a thread that would compete with drawing for the GIL), and the collector,
held off while the app started (cli/main.py), is back on."""

from __future__ import annotations

import gc
from pathlib import Path
from typing import Any

from tests.fakes.scripted import ScriptedModel
from tests.helpers.tui import SIZE, make_app, wait_ready
from tui.session_host import SessionHost
from tui.widgets.conversation.message_line import MessageLine


async def test_the_banner_is_mounted_before_the_session_is_built_and_gc_comes_back(
    workspace: Path, monkeypatch: Any
) -> None:
    seen: list[tuple[str, bool, bool]] = []
    real_begin, real_build = SessionHost.begin, SessionHost.build

    def begin(self: SessionHost) -> None:
        banner = any("eddy in" in str(w.render()) for w in self.app.query(MessageLine))
        seen.append(("begin", banner, self.app.screen.is_mounted))
        real_begin(self)

    def build(self: SessionHost) -> None:
        seen.append(("build", self.app.session is None, gc.isenabled()))
        real_build(self)

    monkeypatch.setattr(SessionHost, "begin", begin)
    monkeypatch.setattr(SessionHost, "build", build)
    app, _ = make_app(workspace, ScriptedModel(["hi"]))
    gc.disable()  # as the eddy command starts the app
    try:
        async with app.run_test(size=SIZE) as pilot:
            await wait_ready(app, pilot)
            assert gc.isenabled()
    finally:
        gc.enable()
    # the banner was on the mounted screen when the first frame had been drawn, and the
    # session was built only then, with the collector on again
    assert seen == [("begin", True, True), ("build", True, True)]


def test_the_first_frame_imports_neither_the_command_table_nor_the_image_code() -> None:
    """They load with the session, after the first frame: the app's start imports only what
    its first frame shows (bench_quit.py start compares it with a bare Textual app)."""
    import subprocess
    import sys

    check = (
        "import sys\n"
        "from cli.arguments import parse_launch\n"
        "from tui.app import EddyApp\n"
        "EddyApp(parse_launch([]))\n"
        "late = ('frontend.commands', 'frontend.images', 'agent.prompt.images')\n"
        "print([m for m in late if m in sys.modules])\n"
    )
    out = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True)
    assert out.stdout.strip() == "[]", out.stderr
