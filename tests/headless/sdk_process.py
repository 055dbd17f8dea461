"""``eddy --input-format stream-json`` as a process spoken to line by line, as an Agent SDK
speaks to it (for what the SDKs' own APIs cannot send: unknown requests, raw lines)."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.fakes.fake_api import FakeAnthropic

EDDY = Path(sys.executable).with_name("eddy")
SDK_FLAGS = ("--output-format", "stream-json", "--verbose", "--input-format", "stream-json")


class SdkProcess:
    """A running eddy fed JSON lines; its stdout lines parsed as they come."""

    def __init__(
        self, fake: FakeAnthropic, cwd: Path, *args: str, env: dict[str, str] | None = None
    ):
        base = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
        base |= {"ANTHROPIC_BASE_URL": fake.base_url, "ANTHROPIC_API_KEY": "test-key"}
        self.proc = subprocess.Popen(
            [str(EDDY), *SDK_FLAGS, *args],
            cwd=cwd,
            env=base | (env or {}),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.lines: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.seen: list[dict[str, Any]] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(json.loads(line))
        self.lines.put(None)

    def send(self, message: dict[str, Any]) -> None:
        """Write one line on eddy's stdin."""
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()

    def send_raw(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def until(
        self, wanted: Callable[[dict[str, Any]], bool], timeout: float = 120
    ) -> dict[str, Any]:
        """Read lines until one is ``wanted`` (returned); fails at the end of stdout."""
        while True:
            line = self.lines.get(timeout=timeout)
            assert line is not None, f"eddy ended first: {self.stderr_text()}"
            self.seen.append(line)
            if wanted(line):
                return line

    def response(self, request_id: str) -> dict[str, Any]:
        """The control response to ``request_id``."""
        line = self.until(
            lambda m: (
                m.get("type") == "control_response"
                and m["response"].get("request_id") == request_id
            )
        )
        return line["response"]

    def finish(self, timeout: float = 120) -> int:
        """Close stdin and wait for the exit status (the rest of stdout is in ``seen``)."""
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        code = self.proc.wait(timeout=timeout)
        while (line := self.lines.get(timeout=timeout)) is not None:
            self.seen.append(line)
        return code

    def stderr_text(self) -> str:
        if self.proc.poll() is None:
            return "(still running)"
        assert self.proc.stderr is not None
        return self.proc.stderr.read()

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def request(request_id: str, subtype: str, **fields: Any) -> dict[str, Any]:
    """A control request line."""
    return {
        "type": "control_request",
        "request_id": request_id,
        "request": {"subtype": subtype, **fields},
    }


def user(content: Any, **fields: Any) -> dict[str, Any]:
    """A user message line."""
    return {"type": "user", "message": {"role": "user", "content": content}, **fields}
