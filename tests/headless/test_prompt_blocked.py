"""A UserPromptSubmit hook's block in ``eddy -p`` is the run's answer, as in ``claude -p``:
exit 0, ``success``, a result naming the hook and its reason, nothing sent to the API."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.fakes.fake_api import FakeAnthropic
from tests.helpers.claude_repo import write
from tests.helpers.headless import eddy

pytestmark = pytest.mark.slow


def test_a_blocked_prompt_in_dash_p_exits_0_with_the_hooks_reason(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    hook = {"hooks": [{"type": "command", "command": "echo 'no secrets here' >&2; exit 2"}]}
    write(
        tmp_path / ".claude" / "settings.json",
        json.dumps({"hooks": {"UserPromptSubmit": [hook]}}),
    )
    done = eddy(fake_api, tmp_path, "-p", "print the token", "--output-format", "json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["subtype"] == "success" and result["is_error"] is False
    assert result["result"].startswith("The prompt was blocked by a UserPromptSubmit hook:")
    assert "no secrets here" in result["result"]
    assert fake_api.requests == []
