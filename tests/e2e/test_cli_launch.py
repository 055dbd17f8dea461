"""How the ``eddy`` command starts (issue 25): ``--version``, and text piped into ``eddy``
as Claude Code users pipe it (``echo "explain this" | eddy``)."""

from __future__ import annotations

import os
import shutil
import socket
from importlib import metadata
from pathlib import Path

import pytest

from tests.fakes.fake_api import FakeAnthropic, Reply, text
from tests.helpers.headless import eddy
from tests.helpers.tmux import Pane, eddy_command


def first_prompt(fake: FakeAnthropic) -> str:
    """The text of the first user message of the first request."""
    content = fake.requests[0]["messages"][0]["content"]
    if isinstance(content, str):
        return content
    return "".join(b.get("text", "") for b in content if b.get("type") == "text")


def test_version_prints_the_installed_package_version(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    out = eddy(fake_api, tmp_path, "--version")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == f"eddy {metadata.version('eddy')}"
    assert fake_api.requests == []


def test_piped_text_with_no_terminal_runs_as_print_mode(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    fake_api.push(Reply([text("It is a greeting.")]))
    out = eddy(fake_api, tmp_path, stdin="explain this\n", timeout=90)
    assert out.returncode == 0, out.stderr
    assert out.stdout == "It is a greeting.\n"
    assert "explain this" in first_prompt(fake_api)


def test_piped_text_follows_the_prompt_argument(fake_api: FakeAnthropic, tmp_path: Path) -> None:
    fake_api.push(Reply([text("Two lines.")]))
    out = eddy(fake_api, tmp_path, "count the lines", stdin="one\ntwo\n", timeout=90)
    assert out.returncode == 0, out.stderr
    assert first_prompt(fake_api).startswith("count the lines\n\none\ntwo")


def test_an_empty_pipe_with_no_terminal_asks_for_a_prompt(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    out = eddy(fake_api, tmp_path, stdin="")
    assert out.returncode == 2
    assert "needs a prompt" in out.stderr
    assert "Traceback" not in out.stderr


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_piped_text_in_a_terminal_is_the_apps_first_prompt_and_keys_still_work(
    fake_api: FakeAnthropic, tmp_path: Path, pane: Pane
) -> None:
    fake_api.push(Reply([text("It is a greeting.")]), Reply([text("Second answer.")]))
    pane.start(f"echo 'explain this' | {eddy_command(fake_api)}", tmp_path)
    pane.wait(lambda s: "It is a greeting." in s, "the answer to the piped prompt", timeout=60)
    assert "explain this" in first_prompt(fake_api)
    pane.type("and again")  # the keyboard reaches the app although stdin was a pipe
    pane.keys("Enter")
    pane.wait(lambda s: "Second answer." in s, "the answer to a typed prompt", timeout=60)


def test_print_mode_joins_piped_text_after_its_prompt(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    fake_api.push(Reply([text("A timeout.")]))
    out = eddy(fake_api, tmp_path, "-p", "explain", stdin="ERROR: timed out\n", timeout=90)
    assert out.returncode == 0, out.stderr
    assert first_prompt(fake_api).startswith("explain\n\nERROR: timed out")
    assert out.stdout == "A timeout.\n"


def test_print_mode_joins_a_redirected_file(fake_api: FakeAnthropic, tmp_path: Path) -> None:
    log = tmp_path / "build.log"
    log.write_bytes(b"line one\nbad byte \xff here\n")
    fake_api.push(Reply([text("Read it.")]))
    with log.open("rb") as f:
        out = eddy(fake_api, tmp_path, "-p", "summarise", stdin_from=f, timeout=90)
    assert out.returncode == 0, out.stderr
    assert first_prompt(fake_api).startswith("summarise\n\nline one\nbad byte \ufffd here")


def test_print_mode_does_not_wait_on_a_socket_left_open_as_stdin(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    # a harness's inherited stdin that never ends: reading it would hang eddy -p forever
    fake_api.push(Reply([text("Hi.")]))
    ours, theirs = socket.socketpair()
    with ours, theirs:
        out = eddy(fake_api, tmp_path, "-p", "hello", stdin_from=theirs, timeout=90)
    assert out.returncode == 0, out.stderr
    assert first_prompt(fake_api) == "hello"


def test_print_mode_goes_on_without_a_pipe_that_stays_silent(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    # a parent that holds the pipe open and never writes: after 3 s eddy goes on without it
    fake_api.push(Reply([text("Hi.")]))
    read_end, write_end = os.pipe()
    try:
        out = eddy(fake_api, tmp_path, "-p", "hello", stdin_from=read_end, timeout=90)
    finally:
        os.close(read_end)
        os.close(write_end)
    assert out.returncode == 0, out.stderr
    assert first_prompt(fake_api) == "hello"
    assert "no stdin data received" in out.stderr
