"""The `eddy` command's headless entry: arguments, missing key, exit codes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run_eddy(
    args: list[str], env_extra: dict[str, str], cwd: Path, stdin: str = ""
) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    env.update(env_extra)
    return subprocess.run(
        [sys.executable, "-m", "cli.main", *args],
        cwd=cwd,
        env={**env, "PYTHONPATH": str(ROOT)},
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_no_api_key_explains_and_exits_2(tmp_path: Path) -> None:
    out = run_eddy(["-p", "hello"], {}, tmp_path)
    assert out.returncode == 2
    assert "ANTHROPIC_API_KEY" in out.stderr
    assert "Traceback" not in out.stderr


def test_missing_prompt_exits_2(tmp_path: Path) -> None:
    out = run_eddy(["-p"], {"ANTHROPIC_API_KEY": "x"}, tmp_path)
    assert out.returncode == 2
    assert "needs a prompt" in out.stderr


def test_the_hooks_subcommand_is_not_a_prompt(tmp_path: Path) -> None:
    out = run_eddy(["hooks", "list"], {"HOME": str(tmp_path)}, tmp_path)
    assert out.returncode == 0 and "No hooks are configured" in out.stdout


def test_print_mode_resume_needs_a_session_id(tmp_path: Path) -> None:
    out = run_eddy(["-p", "hello", "--resume", ""], {"ANTHROPIC_API_KEY": "x"}, tmp_path)
    assert out.returncode == 2 and "needs a session id" in out.stderr


def test_rules_are_split() -> None:
    from cli.arguments import _split_rules

    assert _split_rules(["Read Edit", "Bash(git diff:*),Write"]) == [
        "Read",
        "Edit",
        "Bash(git diff:*)",
        "Write",
    ]


def test_the_help_says_what_each_permission_mode_does() -> None:
    from cli.arguments import build_parser

    text = " ".join(build_parser().format_help().split())
    assert "--permission-mode MODE how tool calls are permitted: default (ask before" in text
    for mode in ("acceptEdits", "plan", "bypassPermissions", "dontAsk"):
        assert f"{mode} (" in text
