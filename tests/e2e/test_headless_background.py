"""`eddy -p` as a real process (issue 22): a background shell started in the run is killed,
its whole tree, when eddy exits; AskUserQuestion is refused with a clear result."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.fakes.fake_api import FakeAnthropic, Reply, text, tool_use
from tests.helpers.headless import eddy

MARK = "31415"
"""A sleep length no other process of the machine uses: it names the tree's processes."""


def marked_processes() -> list[int]:
    pids = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
            with open(f"/proc/{name}/stat") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if b"sleep" in argv[0] and MARK.encode() in argv and state != "Z":
            pids.append(int(name))
    return pids


def test_headless_exit_kills_the_background_tree(
    fake_api: FakeAnthropic, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EDDY_BACKGROUND_WAIT_S", "1")  # -p waits for it that long, then stops it
    command = f"sleep {MARK} & (sleep {MARK} & wait) & sleep {MARK}"
    fake_api.push(
        Reply(
            [tool_use("toolu_1", "Bash", {"command": command, "run_in_background": True})],
            "tool_use",
        ),
        Reply([tool_use("toolu_2", "BashOutput", {"bash_id": "bash_1"})], "tool_use"),
        Reply(
            [
                tool_use(
                    "toolu_3",
                    "AskUserQuestion",
                    {
                        "questions": [
                            {
                                "question": "Keep it running?",
                                "header": "Server",
                                "options": [
                                    {"label": "Yes", "description": "leave it"},
                                    {"label": "No", "description": "stop it"},
                                ],
                                "multiSelect": False,
                            }
                        ]
                    },
                )
            ],
            "tool_use",
        ),
        Reply([text("Started it.")]),
    )
    done = eddy(
        fake_api, tmp_path, "-p", "start the server", "--permission-mode", "bypassPermissions"
    )
    assert done.returncode == 0, done.stderr
    assert "Started it." in done.stdout
    assert fake_api.violations == []
    results = {
        b["tool_use_id"]: b
        for m in fake_api.requests[-1]["messages"]
        for b in m["content"]
        if isinstance(b, dict) and b.get("type") == "tool_result"
    }
    assert "Command running in background with ID: bash_1" in str(results["toolu_1"]["content"])
    assert "<status>running</status>" in str(results["toolu_2"]["content"])
    asked = results["toolu_3"]
    assert asked["is_error"] and "eddy runs headless" in str(asked["content"])
    assert marked_processes() == []  # eddy's exit ended the whole tree
    assert "background work still running after 1 s is stopped: bash_1" in done.stderr
