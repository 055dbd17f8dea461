"""``eddy hooks test EVENT --input FILE.json`` and the start-up report of a hook whose script
does not exist, through the installed ``eddy`` command."""

from __future__ import annotations

import json
from pathlib import Path

from tests.fakes.fake_api import FakeAnthropic, Reply, text
from tests.helpers.headless import eddy


def _settings(workspace: Path, hooks: dict) -> None:
    path = workspace / ".eddy" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"hooks": hooks}))


def test_hooks_test_prints_each_handlers_result(fake_api: FakeAnthropic, tmp_path: Path) -> None:
    guard = tmp_path / "guard.sh"
    guard.write_text(
        '#!/bin/bash\ngrep -q "rm -rf" && { echo "refused: rm -rf" >&2; exit 2; }\nexit 0\n'
    )
    guard.chmod(0o755)
    _settings(tmp_path, {"PreToolUse": [{"matcher": "Bash", "hooks": [{"command": str(guard)}]}]})
    recorded = tmp_path / "input.json"
    recorded.write_text(json.dumps({"tool_name": "Bash", "tool_input": {"command": "rm -rf /"}}))
    out = eddy(fake_api, tmp_path, "hooks", "test", "PreToolUse", "--input", str(recorded))
    assert out.returncode == 0, out.stderr
    assert f"$ {guard}  (.eddy/settings.json)" in out.stdout
    assert "exit code: 2" in out.stdout and "stderr: refused: rm -rf" in out.stdout
    assert "decision: deny (refused: rm -rf)" in out.stdout and " ms" in out.stdout
    listing = eddy(fake_api, tmp_path, "hooks")
    assert listing.stdout.startswith("PreToolUse:\n  [Bash] ")
    assert fake_api.requests == []


def test_a_missing_hook_script_is_reported_at_start_up(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    _settings(tmp_path, {"Stop": [{"hooks": [{"command": "python3 .claude/hooks/gone.py"}]}]})
    fake_api.push(Reply([text("done")]))
    out = eddy(fake_api, tmp_path, "-p", "hello", timeout=90)
    assert out.returncode == 0, out.stderr
    assert (
        "Stop hook runs" in out.stderr
        and ".claude/hooks/gone.py, which does not exist" in out.stderr
    )
    assert out.stdout == "done\n" and fake_api.violations == []
