"""Which background shells a resumed history last saw running (agent/session/gone_shells.py)."""

from __future__ import annotations

from agent.messages import Message, ToolResultBlock, ToolUseBlock
from agent.session.gone_shells import gone_shells


def call(call_id: str, name: str, result: str, **args: object) -> list[Message]:
    return [
        Message("assistant", [ToolUseBlock(call_id, name, dict(args))]),
        Message("user", [ToolResultBlock(call_id, result)]),
    ]


def test_shells_started_and_not_seen_ending_are_gone_and_every_id_is_named() -> None:
    history = [
        *call("a", "Bash", "Command running in background with ID: bash_1. Read…", command="a"),
        *call("b", "Bash", "Command running in background with ID: bash_2. Read…", command="b"),
        *call(
            "c",
            "Bash",
            "The user sent this command to the background; it runs on with ID: bash_3. Read…",
            command="npm  run dev",
        ),  # fmt: skip
        *call("d", "KillShell", "Successfully killed shell: bash_1 (a)", shell_id="bash_1"),
        *call(
            "e",
            "BashOutput",
            "<status>completed</status>\n\n<exit_code>0</exit_code>",
            bash_id="bash_2",
        ),  # fmt: skip
    ]
    gone, seen = gone_shells(history)
    assert [(s.id, s.command) for s in gone] == [("bash_3", "npm run dev")]
    assert seen == ["bash_1", "bash_2", "bash_3"]
    assert gone_shells([]) == ([], [])


def test_only_the_results_that_report_on_shells_are_read() -> None:
    """A file or an output that quotes the markers says nothing about this session's shells
    (and a long session's outputs are not searched: they can be megabytes)."""
    log = "old run:\nSuccessfully killed shell: bash_1 (a)\n<status>completed</status>\n"
    history = [
        *call("a", "Bash", "Command running in background with ID: bash_1. Read…", command="a"),
        *call("b", "Read", log, file_path="/tmp/old.log"),
        *call(
            "c",
            "Bash",
            "x" * 5000 + "\nCommand running in background with ID: bash_9.",
            command="cat",
        ),
        *call("d", "Grep", log, pattern="killed"),
    ]
    gone, seen = gone_shells(history)
    assert [s.id for s in gone] == ["bash_1"]
    assert seen == ["bash_1"]
