"""`eddy -p` as a real process (issue 22): a background shell started in the run is killed,
its whole tree, when eddy exits; AskUserQuestion is refused with a clear result."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

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


def start_a_shell_then_answer(go: Path, delay: float = 0.0) -> Callable[[dict[str, Any]], Reply]:
    """The model: starts a background shell that ends once ``go`` exists, answers its start
    (touching ``go`` as that answer begins, streamed with ``delay`` between events), then
    answers the shell's report."""
    command = f"while [ ! -e {go} ]; do sleep 0.02; done; echo done"

    def respond(body: dict[str, Any]) -> Reply:
        last = str(body["messages"][-1]["content"])
        if "<task-notification>" in last:
            return Reply([text("I saw the notification.")])
        if "tool_result" in last:
            go.touch()  # the shell ends once its start was answered: after the tool results
            return Reply([text("Started it in the background.")], delay=delay)
        args = {"command": command, "run_in_background": True, "description": "Wait"}
        return Reply([tool_use("toolu_1", "Bash", args)], "tool_use")

    return respond


def test_headless_waits_for_a_background_shell_and_its_report_starts_a_turn(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    """As Claude Code's print mode: the run waits for the shell, its report starts a turn of
    its own, and stream-json writes task_notification, a new init and a second result."""
    import json

    fake_api.responder = start_a_shell_then_answer(tmp_path / "go")
    done = eddy(
        fake_api, tmp_path, "-p", "start it", "--output-format", "stream-json",
        "--permission-mode", "bypassPermissions",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    kinds = [(d["type"], d.get("subtype")) for d in lines]
    assert kinds.count(("result", "success")) == 2
    first, second = [i for i, k in enumerate(kinds) if k == ("result", "success")]
    assert lines[first]["result"] == "Started it in the background."
    assert kinds[second - 2 : second + 1] == [
        ("system", "init"),
        ("assistant", None),
        kinds[second],
    ]
    assert first < second - 2  # the second turn's init comes after the first result
    (note,) = [d for d in lines if d.get("subtype") == "task_notification"]
    assert note["task_id"] == "bash_1" and note["status"] == "completed"
    assert note["summary"] == 'Background command "Wait" completed (exit code 0)'
    assert lines[second]["result"] == "I saw the notification."
    assert fake_api.violations == []


def test_a_report_that_comes_while_the_last_answer_streams_follows_that_turns_result(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    """The shell ends while the turn's last answer still streams (its events 0.3 s apart): its
    report starts the next turn, so the finished turn's result is written at once, before the
    notification and the next turn's init, not at the end of the run."""
    import json

    fake_api.responder = start_a_shell_then_answer(tmp_path / "go", delay=0.3)
    done = eddy(
        fake_api, tmp_path, "-p", "start it", "--output-format", "stream-json",
        "--permission-mode", "bypassPermissions",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    kinds = [(d["type"], d.get("subtype")) for d in map(json.loads, done.stdout.splitlines())]
    first = kinds.index(("result", "success"))
    assert kinds[first - 1 : first + 3] == [
        ("assistant", None),
        ("result", "success"),
        ("system", "init"),
        ("assistant", None),
    ]
    assert kinds.index(("system", "task_notification")) < first  # written as the shell ended
    assert kinds[-1] == ("result", "success") and kinds.count(("result", "success")) == 2
    assert fake_api.violations == []
