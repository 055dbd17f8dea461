"""The ``statusLine`` setting, as Claude Code has it: a command whose output is shown in the
status area, run with the session's state as JSON on its stdin.

``{"type": "command", "command": "~/.claude/statusline.sh", "padding": 0}``. The command
runs through the shell in the workspace, at most one at a time, 300 ms after the status last
changed (debounced: a streaming response changes it many times a second); it is killed (its
whole process group) after :data:`TIMEOUT_S`. Its first :data:`MAX_LINES` lines are shown;
SGR colours are kept for the front end to turn into styles, every other control sequence is
dropped (frontend/sanitize.py). A script that fails, hangs or cannot start shows nothing
and never blocks the UI: it is an asyncio subprocess on the front end's loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from frontend.sanitize import sanitize
from tools.childenv import child_env

DEBOUNCE_S = 0.3
TIMEOUT_S = 5.0
MAX_LINES = 4
MAX_LINE_CHARS = 400


@dataclass(frozen=True)
class StatusLineSetting:
    """A valid ``statusLine`` setting."""

    command: str
    padding: int = 0


def parse_status_line(value: object, problems: list[str]) -> StatusLineSetting | None:
    """The setting, or None (absent or invalid: a problem says why)."""
    if value is None:
        return None
    if not isinstance(value, dict):
        problems.append('statusLine: expected {"type": "command", "command": "..."}; ignored.')
        return None
    kind, command, padding = (
        value.get("type", "command"),
        value.get("command"),
        value.get("padding", 0),
    )
    if kind != "command" or not isinstance(command, str) or not command.strip():
        problems.append('statusLine: expected {"type": "command", "command": "..."}; ignored.')
        return None
    if not isinstance(padding, int) or isinstance(padding, bool) or not 0 <= padding <= 20:
        problems.append("statusLine.padding: expected a number from 0 to 20; 0 used.")
        padding = 0
    return StatusLineSetting(command.strip(), padding)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("eddy")
    except PackageNotFoundError:
        return "0"


def display_name(model: str) -> str:
    """``claude-sonnet-5-5`` -> ``Sonnet 5.5`` (Claude Code shows the family and version)."""
    parts = model.removeprefix("claude-").split("-")
    if not parts or not parts[0]:
        return model
    family = parts[0].capitalize()
    numbers = [p for p in parts[1:] if p.isdigit() and len(p) <= 2]
    return f"{family} {'.'.join(numbers)}".strip()


def status_payload(
    session: Any, status: Any, started: float, style: str = "default"
) -> dict[str, Any]:
    """Claude Code's status line input for ``session`` (``Session``) and ``status`` (the front
    end's ``StatusModel``, which includes the running turn's spend).

    Args:
        session: the session (its ``status()`` and transcript are read).
        status: the front end's status model.
        started: ``time.monotonic()`` when the session was opened.
        style: the output style's name.
    """
    now = session.status()
    transcript = session.transcript
    window = status.context_window or now.context_window
    used = status.context_tokens or now.context_tokens
    percent = round(100 * used / window, 1) if window else 0
    return {
        "hook_event_name": "Status",
        "session_id": now.session_id,
        "transcript_path": str(transcript.path) if transcript is not None else "",
        "cwd": str(now.workspace),
        "model": {"id": now.model, "display_name": display_name(now.model)},
        "workspace": {"current_dir": str(now.workspace), "project_dir": str(now.workspace)},
        "version": _version(),
        "output_style": {"name": style},
        "cost": {
            "total_cost_usd": round(max(status.cost, now.total_cost), 6),
            "total_duration_ms": int((time.monotonic() - started) * 1000),
        },
        "context_window": {
            "context_window_size": window,
            "used_tokens": used,
            "used_percentage": percent,
            "remaining_percentage": round(100 - percent, 1) if window else 100,
        },
    }


def output_lines(stdout: bytes, padding: int = 0) -> list[str]:
    """The lines to show of a script's output: sanitised (SGR kept), the first few, cut."""
    text = sanitize(stdout.decode("utf-8", "replace"), keep_sgr=True)
    lines = [ln.rstrip() for ln in text.split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    return [(" " * padding + ln)[:MAX_LINE_CHARS] for ln in lines[:MAX_LINES]]


class StatusLineRunner:
    """Runs the status line command for one front end and hands it the lines to show.

    Args:
        setting: the ``statusLine`` setting.
        cwd: where the command runs.
        payload: builds the JSON input (called when the command starts, not at each poke).
        show: receives the lines to show ([] when the script failed or printed nothing).
        debounce: seconds of quiet before a run.
        timeout: seconds before the command is killed.
    """

    def __init__(
        self,
        setting: StatusLineSetting,
        cwd: Path,
        payload: Callable[[], dict[str, Any]],
        show: Callable[[list[str]], None],
        *,
        debounce: float = DEBOUNCE_S,
        timeout: float = TIMEOUT_S,
    ) -> None:
        self.setting = setting
        self.cwd = cwd
        self.payload = payload
        self.show = show
        self.debounce = debounce
        self.timeout = timeout
        self.lines: list[str] = []
        self.runs = 0
        """How many times the command was started (tests count the debouncing)."""
        self.idle = asyncio.Event()
        """Set while no run is scheduled or running (tests wait on it)."""
        self.idle.set()
        self._timer: asyncio.TimerHandle | None = None
        self._task: asyncio.Task[None] | None = None
        self._again = False
        self._closed = False

    def poke(self) -> None:
        """The status changed: run the command once things are quiet for ``debounce``."""
        if self._closed:
            return
        self.idle.clear()
        if self._task is not None and not self._task.done():
            self._again = True  # one more run after this one, with the newest state
            return
        if self._timer is not None:
            self._timer.cancel()
        self._timer = asyncio.get_running_loop().call_later(self.debounce, self._start)

    def _start(self) -> None:
        self._timer = None
        if not self._closed:
            self._task = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        try:
            self.runs += 1
            try:
                data = json.dumps(self.payload()).encode()
            except Exception:  # a session closing under us: nothing to show this time
                data = b"{}"
            lines = await self._execute(data)
            if lines != self.lines:
                self.lines = lines
                self.show(lines)
        finally:
            if self._again and not self._closed:
                self._again = False
                self._timer = asyncio.get_running_loop().call_later(self.debounce, self._start)
            else:
                self.idle.set()

    async def _execute(self, data: bytes) -> list[str]:
        try:
            proc = await asyncio.create_subprocess_shell(
                self.setting.command,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.DEVNULL,
                cwd=self.cwd,
                env=child_env(),
                start_new_session=True,  # its own process group: a timeout kills it whole
            )
        except OSError:
            return []
        try:
            stdout, _ = await asyncio.wait_for(proc.communicate(data), self.timeout)
        except TimeoutError:  # too slow: killed, nothing shown this time
            _kill_group(proc)
            with contextlib.suppress(Exception):
                await asyncio.wait_for(proc.wait(), 2)
            return []
        except asyncio.CancelledError:  # closing
            _kill_group(proc)
            raise
        except OSError:  # it closed stdin early (BrokenPipe): read what it wrote
            _kill_group(proc)
            return []
        return output_lines(stdout, self.setting.padding) if proc.returncode == 0 else []

    async def close(self) -> None:
        """Stop: no new runs; a running command is killed."""
        self._closed = True
        if self._timer is not None:
            self._timer.cancel()
        task = self._task
        if task is not None and not task.done():
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        self.idle.set()


def load_status_line(
    workspace: Path, problems: list[str] | None = None
) -> StatusLineSetting | None:
    """The workspace's ``statusLine`` setting, or None; what is wrong with it is added to
    ``problems`` (given when the session opens, frontend/session_open.py)."""
    from agent.settings.trust import approved_settings

    try:  # a project's status line runs only once the user approved it
        settings, _ = approved_settings(workspace)
    except Exception:  # the settings' problems were told when the session opened
        return None
    return parse_status_line(settings.get("statusLine"), problems if problems is not None else [])


def _kill_group(proc: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


class StatusScript:
    """A front end's status line script across its sessions (/clear and /resume switch them).

    Args:
        show: receives the lines to show (SGR colours in them), [] to show none.
    """

    def __init__(self, show: Callable[[list[str]], None]) -> None:
        self.show = show
        self.runner: StatusLineRunner | None = None
        self._session: Any = None
        self._status: Any = None
        self._started = time.monotonic()

    def attach(self, session: Any, status: Any) -> None:
        """Follow ``session`` (and the front end's status model ``status``); runs the script
        at once if the workspace has a ``statusLine`` setting."""
        self._session, self._status = session, status
        if self.runner is None:
            workspace = session.status().workspace
            setting = load_status_line(workspace)
            if setting is None:
                return
            self.runner = StatusLineRunner(setting, workspace, self._payload, self.show)
        self.runner.poke()

    def _payload(self) -> dict[str, Any]:
        if self._session is None:
            raise RuntimeError("no session")
        style = getattr(self._session.config, "output_style", None)
        name = style.name if style is not None else "default"
        return status_payload(self._session, self._status, self._started, name)

    def poke(self) -> None:
        """The status changed (an engine event): run the script, debounced."""
        if self.runner is not None and self._session is not None:
            self.runner.poke()

    async def close(self) -> None:
        """Kill a running script; no more runs."""
        if self.runner is not None:
            await self.runner.close()
