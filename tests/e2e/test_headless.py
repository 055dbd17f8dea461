"""`eddy -p` as a real process against the fake Messages API server.

The three-turn scenario of the issue: run the tests, read two files in parallel, edit and rerun.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent.messages import check_invariant, message_from_param
from tests.fakes.fake_api import FakeAnthropic, Reply, text, tool_use
from tests.helpers.headless import eddy

CALC = "def add(a, b):\n    return a - b\n"
TEST = "from calc import add\n\nassert add(2, 3) == 5, 'add is broken'\nprint('all tests passed')\n"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / "calc.py").write_text(CALC)
    (tmp_path / "test_calc.py").write_text(TEST)
    return tmp_path


def fix_script() -> list[Reply]:
    run_tests = {"command": "python3 test_calc.py", "description": "Run the tests"}
    return [
        Reply([text("Running the tests."), tool_use("toolu_1", "Bash", run_tests)], "tool_use"),
        Reply(
            [
                tool_use("toolu_2", "Read", {"file_path": "calc.py"}),
                tool_use("toolu_3", "Read", {"file_path": "test_calc.py"}),
            ],
            "tool_use",
        ),
        Reply(
            [
                tool_use(
                    "toolu_4",
                    "Edit",
                    {"file_path": "calc.py", "old_string": "a - b", "new_string": "a + b"},
                ),
                tool_use("toolu_5", "Bash", run_tests),
            ],
            "tool_use",
        ),
        Reply([text("Fixed: `add` subtracted instead of adding. The tests pass.")]),
    ]


def result_text(body: dict, index: int) -> str:
    """The text of the index-th block of the last message of a request."""
    block = body["messages"][-1]["content"][index]
    content = block["content"]
    return content if isinstance(content, str) else "".join(b.get("text", "") for b in content)


def test_fixes_a_failing_test_in_three_tool_turns(fake_api: FakeAnthropic, repo: Path) -> None:
    fake_api.push(*fix_script())
    out = eddy(
        fake_api,
        repo,
        "-p",
        "fix the failing test",
        "--output-format",
        "eddy-events",
        "--allowed-tools",
        "Bash,Edit",
    )
    assert out.returncode == 0, out.stderr
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    result = lines[-1]
    assert result["type"] == "result" and result["subtype"] == "success"
    assert result["num_turns"] == 3
    assert result["total_cost_usd"] > 0 and result["session_id"]
    assert "Fixed" in result["result"]
    assert (repo / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"
    assert len(fake_api.requests) == 4
    assert fake_api.violations == []
    for body in fake_api.requests:
        check_invariant([message_from_param(m) for m in body["messages"]])
        assert body["system"][-1]["cache_control"] == {"type": "ephemeral"}
        assert body["messages"][-1]["content"][-1]["cache_control"] == {"type": "ephemeral"}
    assert "add is broken" in result_text(fake_api.requests[1], 0)
    assert "return a - b" in result_text(fake_api.requests[2], 0)
    assert "all tests passed" in result_text(fake_api.requests[3], 1)
    types = [line["type"] for line in lines]
    assert types.count("tool_call_started") == types.count("tool_call_finished") == 5
    assert "text_delta" in types and "usage_updated" in types


def test_denied_call_is_a_visible_refusal_and_nothing_runs(
    fake_api: FakeAnthropic, repo: Path
) -> None:
    fake_api.push(
        Reply(
            [tool_use("toolu_1", "Bash", {"command": "touch pwned"})],
            "tool_use",
        ),
        Reply([text("I was not allowed to run it.")]),
    )
    out = eddy(fake_api, repo, "-p", "touch a file", "--output-format", "eddy-events")
    assert out.returncode == 0, out.stderr
    assert not (repo / "pwned").exists()
    events = [json.loads(line) for line in out.stdout.splitlines()]
    refused = [e for e in events if e["type"] == "tool_call_finished"]
    assert refused[0]["status"] == "refused" and refused[0]["is_error"] is True
    assert "--allowed-tools 'Bash(touch pwned:*)'" in refused[0]["content"]
    assert "`touch pwned` needs permission" in refused[0]["content"]
    assert fake_api.requests[1]["messages"][-1]["content"][0]["is_error"] is True


def test_max_turns_and_text_output(fake_api: FakeAnthropic, repo: Path) -> None:
    fake_api.push(*fix_script())
    out = eddy(fake_api, repo, "-p", "fix it", "--max-turns", "1", "--allowed-tools", "Bash,Edit")
    assert out.returncode == 1
    assert "error_max_turns" in out.stdout
    assert len(fake_api.requests) == 2


def test_json_output_and_api_error_exit_code(fake_api: FakeAnthropic, repo: Path) -> None:
    from tests.fakes.fake_api import HttpError

    fake_api.push(HttpError(401, message="invalid x-api-key"))
    out = eddy(fake_api, repo, "-p", "hi", "--output-format", "json")
    assert out.returncode == 1
    result = json.loads(out.stdout)
    assert result["subtype"] == "error_during_execution"
    assert "ANTHROPIC_API_KEY" in result["error"]
    assert "Traceback" not in out.stderr


def test_no_key_exits_2(fake_api: FakeAnthropic, repo: Path) -> None:
    out = eddy(fake_api, repo, "-p", "hi", key=False)
    assert out.returncode == 2
    assert "ANTHROPIC_API_KEY" in out.stderr
    assert fake_api.requests == []


def test_a_headless_run_is_not_asked_about_trust(
    fake_api: FakeAnthropic, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As ``claude -p``: no one to answer, so no question; the folder is not marked trusted."""
    from agent.settings.trust import is_trusted

    fake_api.push(Reply([text("Hi.")]))
    monkeypatch.delenv("EDDY_TRUSTED_FOLDERS")
    out = eddy(fake_api, repo, "-p", "hello")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "Hi." and "trust" not in out.stderr
    assert not is_trusted(repo)
