"""How the ``eddy`` command starts (issue 25): ``--version``, and text piped into ``eddy``
as Claude Code users pipe it (``echo "explain this" | eddy``)."""

from __future__ import annotations

import shutil
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
