"""The flags the Agent SDKs pass (issue 35): each with Claude Code's meaning, and an error
naming any flag eddy cannot honour."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from cli.arguments import UsageError, parse_launch

SDK = ["--output-format", "stream-json", "--verbose", "--input-format", "stream-json"]


def test_stream_json_input_is_a_headless_sdk_session() -> None:
    args = parse_launch([*SDK, "--permission-prompt-tool", "stdio", "--include-hook-events"])
    assert args.input_format == "stream-json" and args.print_mode
    assert args.permission_prompt_tool == "stdio" and args.include_hook_events


def test_stream_json_input_needs_stream_json_output() -> None:
    with pytest.raises(UsageError, match="--output-format stream-json"):
        parse_launch(["--input-format", "stream-json"])


@pytest.mark.parametrize(
    "flag",
    [
        "--fallback-model=claude-haiku-4-5",
        "--betas=context-1m-2025-08-07",
        "--task-budget=1000",
        "--effort=high",
        "--resume-session-at=abc",
        "--agent=reviewer",
    ],
)
def test_a_flag_eddy_cannot_honour_is_an_error_naming_it(flag: str) -> None:
    with pytest.raises(UsageError, match=flag.split("=")[0]):
        parse_launch([*SDK, flag])


def test_the_sdks_plugins_option_loads_plugin_directories() -> None:
    """The SDKs' ``plugins: [{type: "local", path}]`` becomes ``--plugin-dir`` (issue 36)."""
    args = parse_launch([*SDK, "--plugin-dir=/tmp/a", "--plugin-dir", "/tmp/b"])
    assert args.plugin_dirs == (Path("/tmp/a"), Path("/tmp/b"))


def test_a_permission_prompt_tool_other_than_stdio_is_refused() -> None:
    with pytest.raises(UsageError, match="mcp__auth__ask"):
        parse_launch([*SDK, "--permission-prompt-tool", "mcp__auth__ask"])


def test_system_prompt_flags(tmp_path: Path) -> None:
    assert parse_launch([*SDK, "--system-prompt", ""]).system_prompt == ""
    assert parse_launch(SDK).system_prompt is None
    prompt = tmp_path / "prompt.md"
    prompt.write_text("From a file.")
    args = parse_launch([*SDK, "--system-prompt-file", str(prompt), "--append-system-prompt", "x"])
    assert args.system_prompt == "From a file." and args.append_system_prompt == "x"
    with pytest.raises(UsageError, match="cannot be read"):
        parse_launch([*SDK, "--system-prompt-file", str(tmp_path / "missing.md")])


def test_tools_lists_the_built_in_tools_offered() -> None:
    assert parse_launch([*SDK, "--tools", "Bash,Read,Task"]).tools == ("Bash", "Read", "Agent")
    assert parse_launch([*SDK, "--tools", ""]).tools == ()
    assert parse_launch([*SDK, "--tools", "default"]).tools is None


def test_thinking_flags_become_the_requests_thinking() -> None:
    budget = parse_launch([*SDK, "--max-thinking-tokens", "4000"]).thinking
    assert budget == {"type": "enabled", "budget_tokens": 4000}
    assert parse_launch([*SDK, "--max-thinking-tokens", "0"]).thinking == {"type": "disabled"}
    adaptive = parse_launch([*SDK, "--thinking=adaptive", "--thinking-display=summarized"])
    assert adaptive.thinking == {"type": "adaptive", "display": "summarized"}


def test_json_schema_must_be_a_json_object() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "string"}}}
    assert parse_launch([*SDK, "--json-schema", json.dumps(schema)]).json_schema == schema
    with pytest.raises(UsageError, match="not valid JSON"):
        parse_launch([*SDK, "--json-schema", "{oops"])


def test_flags_the_sdks_pass_that_change_nothing_are_accepted() -> None:
    args = parse_launch(
        [
            *SDK,
            "--await-initialize",
            "--allow-dangerously-skip-permissions",
            "--no-session-persistence",
        ]
    )
    assert args.persist is False


def test_version_answers_at_once_whatever_stdin_is(tmp_path: Path) -> None:
    exe = Path(sys.executable).with_name("eddy")
    # stdin is a pipe nobody writes to or closes: the SDK's probe must not wait on it
    with subprocess.Popen(
        [str(exe), "-v", *SDK], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    ) as proc:
        try:
            code = proc.wait(timeout=60)  # stdin stays open meanwhile
        finally:
            proc.kill()
        assert proc.stdout is not None
        out = proc.stdout.read()
    assert code == 0 and out.startswith("eddy ")
