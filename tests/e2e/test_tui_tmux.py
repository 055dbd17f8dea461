"""The installed `eddy` (the Textual app) in a real terminal (tmux) against the fake server.

Typed like a person: a prompt streams an answer; during a slow shell command a correction is
queued; Esc stops the command and sends the queue at once. Checked on the screen
(capture-pane) and in the requests the server received.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from agent.messages import check_invariant, message_from_param
from tests.fakes.fake_api import FakeAnthropic, Reply, text, tool_use
from tests.helpers.tmux import Pane, eddy_command

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


def start_eddy(pane: Pane, fake: FakeAnthropic, workspace: Path, *flags: str) -> None:
    command = eddy_command(fake, *flags)
    pane.start(command, workspace)
    pane.wait(lambda s: "claude-sonnet-5-5" in s and "›" in s, "the prompt and status line")


def test_prompt_queue_and_esc_in_tmux(fake_api: FakeAnthropic, tmp_path: Path, pane: Pane) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    fake_api.push(
        Reply([text("Hello from the fake model.")], delay=0.01),
        Reply(
            [text("Starting."), tool_use("toolu_1", "Bash", {"command": "sleep 30"})], "tool_use"
        ),
        Reply([text("Understood, switching.")]),
    )
    start_eddy(pane, fake_api, workspace, "--permission-mode", "bypassPermissions")
    pane.type("say hello")
    pane.keys("Enter")
    pane.wait(lambda s: "Hello from the fake model." in s, "the streamed answer")

    pane.type("run the job")
    pane.keys("Enter")
    pane.wait(lambda s: "sleep 30" in s and "running" in s, "the running shell command")
    pane.type("use the other approach")
    pane.keys("Enter")
    pane.wait(lambda s: "queued" in s and "use the other approach" in s, "the queued correction")
    pane.keys("Escape")
    screen = pane.wait(lambda s: "Understood, switching." in s, "the answer to the queue")
    assert "interrupted" in screen
    assert len(fake_api.requests) == 3
    assert not fake_api.violations
    sent = fake_api.requests[2]["messages"]
    check_invariant([message_from_param(m) for m in sent])
    tail = sent[-1]["content"]
    assert tail[0]["type"] == "tool_result" and tail[0]["is_error"] is True
    assert tail[-1]["text"] == "use the other approach"


def test_esc_esc_rewind_in_tmux(fake_api: FakeAnthropic, tmp_path: Path, pane: Pane) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "notes.txt").write_text("original\n")
    shell = {"command": "echo changed by the shell > notes.txt && echo new > extra.txt"}
    fake_api.push(
        Reply([text("First answer.")]),
        Reply([text("Changing."), tool_use("toolu_9", "Bash", shell)], "tool_use"),
        Reply([text("Changed it.")]),
        Reply([text("Fresh answer.")]),
    )
    start_eddy(pane, fake_api, workspace, "--permission-mode", "bypassPermissions")
    pane.type("first question")
    pane.keys("Enter")
    pane.wait(lambda s: "First answer." in s, "the first answer")
    pane.type("change the notes")
    pane.keys("Enter")
    pane.wait(lambda s: "Changed it." in s, "the second answer")
    assert (workspace / "notes.txt").read_text() == "changed by the shell\n"

    pane.keys("Escape")
    pane.keys("Escape")
    pane.wait(lambda s: "change the notes" in s and "2 files" in s, "the rewind list")
    pane.keys("Enter")  # the newest prompt is selected
    pane.wait(lambda s: "Restore code and conversation" in s, "the restore choices")
    pane.keys("1")
    pane.wait(lambda s: "Rewound" in s, "the rewind message")
    assert (workspace / "notes.txt").read_text() == "original\n"  # a shell change, undone
    assert not (workspace / "extra.txt").exists()
    pane.keys("Enter")  # the prompt came back into the input: send it again
    pane.wait(lambda s: "Fresh answer." in s, "the answer after the rewind")
    sent = fake_api.requests[-1]["messages"]
    check_invariant([message_from_param(m) for m in sent])
    assert [m["role"] for m in sent] == ["user", "assistant", "user"]
    assert sent[-1]["content"][-1]["text"] == "change the notes"


def test_sigterm_restores_the_terminal_and_keeps_the_session(
    fake_api: FakeAnthropic,
    tmp_path: Path,
    pane: Pane,  # noqa: F811
) -> None:
    import subprocess

    from agent.store.listing import latest_session
    from agent.store.load import load

    workspace = tmp_path / "ws"
    workspace.mkdir()
    fake_api.push(Reply([text("Saved before the kill.")]))
    start_eddy(pane, fake_api, workspace)
    assert pane.tmux("display", "-p", "-t", "eddy", "#{alternate_on}").strip() == "1"
    pane.type("remember this prompt")
    pane.keys("Enter")
    pane.wait(lambda s: "Saved before the kill." in s, "the answer")
    shell = pane.tmux("display", "-p", "-t", "eddy", "#{pane_pid}").strip()
    (pid,) = subprocess.run(["pgrep", "-P", shell], capture_output=True, text=True).stdout.split()
    subprocess.run(["kill", "-TERM", pid], check=True)
    pane.wait(lambda s: not Path(f"/proc/{pid}").exists(), "eddy to exit")
    flags = pane.tmux("display", "-p", "-t", "eddy", "#{alternate_on} #{mouse_any_flag}")
    assert flags.split() == ["0", "0"]  # the terminal is back: no alternate screen, no mouse
    pane.type("echo exit=$?")
    pane.keys("Enter")
    pane.wait(lambda s: "exit=143" in s, "the shell to take a command")
    path = latest_session(workspace)
    assert path is not None
    history = load(path).history
    assert history[0].content[0].text == "remember this prompt"
    assert history[-1].content[0].text == "Saved before the kill."
