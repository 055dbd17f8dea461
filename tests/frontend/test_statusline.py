"""The ``statusLine`` setting (issue 18, part M): the script gets Claude Code's JSON on stdin,
runs debounced, is killed after its timeout, its first lines show (SGR colours kept, other
sequences dropped) in the TUI's status area and line mode's toolbar; a failing or slow script
shows nothing and never blocks the UI."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from frontend.statusline import (
    MAX_LINES,
    StatusLineRunner,
    StatusLineSetting,
    display_name,
    output_lines,
    parse_status_line,
)
from tests.fakes.scripted import ScriptedModel
from tests.helpers.claude_repo import claude_status_line, write
from tests.helpers.plain import until
from tests.helpers.tui import SIZE, make_app, wait_ready

PAYLOAD = {"model": {"id": "claude-opus-5-5", "display_name": "Opus 5.5"}, "n": 1}


def runner(command: str, shown: list[list[str]], **kw: Any) -> StatusLineRunner:
    return StatusLineRunner(
        StatusLineSetting(command, kw.pop("padding", 0)),
        Path.cwd(),
        lambda: PAYLOAD,
        shown.append,
        **kw,
    )


def py(code: str) -> str:
    return f"{sys.executable} -c {json.dumps(code)}"


def test_the_setting_is_checked() -> None:
    problems: list[str] = []
    assert parse_status_line(None, problems) is None and problems == []
    assert parse_status_line({"type": "command", "command": "x", "padding": 2}, problems) == (
        StatusLineSetting("x", 2)
    )
    assert parse_status_line("x", problems) is None
    assert parse_status_line({"type": "static", "command": "x"}, problems) is None
    assert parse_status_line({"command": "x", "padding": "wide"}, problems) == StatusLineSetting(
        "x", 0
    )
    assert len(problems) == 3 and all(p.startswith("statusLine") for p in problems)


def test_output_keeps_colours_drops_other_sequences_and_cuts_lines() -> None:
    out = b"\x1b[31mred\x1b[0m \x1b]0;title\x07\x1b[2Jok\n2\n3\n4\n5\n\n"
    lines = output_lines(out, padding=1)
    assert lines[0] == " \x1b[31mred\x1b[0m ok"
    assert len(lines) == MAX_LINES
    assert display_name("claude-sonnet-5-5") == "Sonnet 5.5"
    assert display_name("claude-haiku-4-5") == "Haiku 4.5"


async def test_the_script_reads_the_json_and_many_pokes_make_one_run() -> None:
    shown: list[list[str]] = []
    r = runner(py("import json,sys; print(json.load(sys.stdin)['model']['display_name'])"), shown)
    for _ in range(20):
        r.poke()
    await asyncio.wait_for(r.idle.wait(), 30)
    assert r.runs == 1
    assert shown == [["Opus 5.5"]]
    await r.close()


async def test_a_poke_while_it_runs_runs_it_once_more_after() -> None:
    shown: list[list[str]] = []
    gate = Path(os.environ["EDDY_CONFIG_DIR"]) / "go"
    gate.parent.mkdir(parents=True, exist_ok=True)
    code = f"import os,time\nwhile not os.path.exists({str(gate)!r}): time.sleep(0.01)\nprint('x')"
    r = runner(py(code), shown, debounce=0.0)
    r.poke()
    await until(lambda: r.runs == 1)
    r.poke()
    r.poke()
    gate.write_text("")
    await asyncio.wait_for(r.idle.wait(), 30)
    assert r.runs == 2
    await r.close()


async def test_a_slow_script_is_killed_and_the_loop_never_waits_for_it(tmp_path: Path) -> None:
    shown: list[list[str]] = []
    pidfile = tmp_path / "pid"
    r = runner(f"echo $$ > {pidfile}; exec sleep 60", shown, debounce=0.0, timeout=1.0)
    r.lines = ["old"]
    r.poke()
    ticks = 0
    while not pidfile.exists() or not pidfile.read_text().strip():
        ticks += 1  # the loop keeps running while the script does
        await asyncio.sleep(0.01)
    pid = int(pidfile.read_text())
    assert not r.idle.is_set()
    await asyncio.wait_for(r.idle.wait(), 30)
    assert shown == [[]]  # nothing shown for a script that timed out
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    await r.close()


async def test_a_failing_script_shows_nothing() -> None:
    shown: list[list[str]] = []
    r = runner("echo partial; exit 3", shown, debounce=0.0)
    r.lines = ["before"]
    r.poke()
    await asyncio.wait_for(r.idle.wait(), 30)
    assert shown == [[]]
    missing = runner("/no/such/statusline-script", [], debounce=0.0)
    missing.poke()
    await asyncio.wait_for(missing.idle.wait(), 30)
    assert missing.lines == []
    await r.close()
    await missing.close()


async def test_close_kills_a_running_script(tmp_path: Path) -> None:
    pidfile = tmp_path / "pid"
    r = runner(f"echo $$ > {pidfile}; exec sleep 60", [], debounce=0.0, timeout=60)
    r.poke()
    await until(lambda: pidfile.exists() and pidfile.read_text().strip())
    pid = int(pidfile.read_text())
    await asyncio.wait_for(r.close(), 10)
    await until(lambda: _gone(pid))


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    # reaped by the child watcher soon; a zombie counts as gone, and so does one reaped
    # between the two looks (reading its /proc entry then fails: ENOENT or ESRCH)
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split()[2] == "Z"
    except OSError:
        return True


async def test_the_tui_shows_the_script_in_the_status_area(workspace: Path) -> None:
    claude_status_line(workspace)
    app, _ = make_app(workspace, ScriptedModel([]))
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        runner = app.main.status_script.runner
        assert runner is not None
        await asyncio.wait_for(runner.idle.wait(), 30)
        await pilot.pause()
        status = app.main.status
        lines = [c.plain for c in status.script_lines]
        assert len(lines) == MAX_LINES
        assert lines[0] == f"Sonnet 5.5 in {workspace}"  # colour kept as a style, no OSC
        session_id = app.main.session.status().session_id
        assert lines[1] == f"id={session_id} cost=0.0 window=1000000 style=default"
        span = status.script_lines[0].spans[0]
        assert (span.start, span.end) == (0, len("Sonnet 5.5"))
        assert span.style.foreground.ansi == 2  # SGR 32, green, as a style
        rendered = str(status.render())
        assert "line 3" in rendered and "retitled" not in rendered


async def test_line_mode_shows_the_script_in_its_toolbar(workspace: Path, harness: Any) -> None:
    claude_status_line(workspace, padding=2)
    h = harness()
    await h.start()
    runner = h.app.status_script.runner
    assert runner is not None
    await asyncio.wait_for(runner.idle.wait(), 30)
    toolbar = h.app.toolbar()
    lines = toolbar.split("\n")
    assert lines[1] == f"  \x1b[32mSonnet 5.5\x1b[0m in {workspace}"
    assert "\x1b]" not in toolbar and "\x1b[2J" not in toolbar
    assert len(lines) == 1 + MAX_LINES
    await h.exit()


def test_a_bad_setting_is_a_start_up_problem(workspace: Path, fake_api: Any) -> None:
    from tests.helpers.claude_repo import open_session

    write(workspace / ".eddy" / "settings.json", json.dumps({"statusLine": "make status"}))
    _, _, problems = open_session(fake_api, workspace)
    assert any(p.startswith("statusLine:") for p in problems)
