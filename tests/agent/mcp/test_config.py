"""MCP configuration as Claude Code users write it: sources, precedence, forms, variables."""

from __future__ import annotations

import json
from pathlib import Path

from agent.mcp.config import expand, load_mcp_config
from agent.paths import claude_json_path
from agent.settings.files import load_settings


def write(path: Path, data: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def stdio(command: str) -> dict[str, object]:
    return {"command": command, "args": ["--flag"]}


def test_the_three_forms_are_read_from_dot_mcp_json(tmp_path: Path) -> None:
    write(
        tmp_path / ".mcp.json",
        {
            "mcpServers": {
                "files": {"command": "npx", "args": ["-y", "srv"], "env": {"A": "1"}},
                "web": {"type": "http", "url": "https://x.test/mcp", "headers": {"H": "v"}},
                "old": {"type": "sse", "url": "https://x.test/sse"},
            }
        },
    )
    config = load_mcp_config(tmp_path, env={})
    assert config.problems == []
    files, web, old = (config.servers[n] for n in ("files", "web", "old"))
    assert (files.kind, files.command, files.args, dict(files.env)) == (
        "stdio",
        "npx",
        ("-y", "srv"),
        {"A": "1"},
    )
    assert (web.kind, web.url, dict(web.headers), web.scope) == (
        "http",
        "https://x.test/mcp",
        {"H": "v"},
        "project",
    )
    assert (old.kind, old.url) == ("sse", "https://x.test/sse")


def test_local_beats_project_beats_user(tmp_path: Path) -> None:
    workspace = tmp_path / "w"
    workspace.mkdir()
    write(
        claude_json_path(),
        {
            "mcpServers": {"a": stdio("user-a"), "b": stdio("user-b"), "c": stdio("user-c")},
            "projects": {str(workspace.resolve()): {"mcpServers": {"a": stdio("local-a")}}},
        },
    )
    write(workspace / ".mcp.json", {"mcpServers": {"a": stdio("proj-a"), "b": stdio("proj-b")}})
    config = load_mcp_config(workspace, env={})
    got = {n: (c.command, c.scope) for n, c in config.servers.items()}
    assert got == {"a": ("local-a", "local"), "b": ("proj-b", "project"), "c": ("user-c", "user")}


def test_eddys_own_settings_add_servers_in_their_scope(tmp_path: Path) -> None:
    write(tmp_path / ".mcp.json", {"mcpServers": {"a": stdio("from-mcp-json")}})
    write(tmp_path / ".eddy" / "settings.local.json", {"mcpServers": {"a": stdio("eddy-local")}})
    write(tmp_path / ".eddy" / "settings.json", {"mcpServers": {"p": stdio("eddy-project")}})
    settings, _ = load_settings(tmp_path)
    config = load_mcp_config(tmp_path, settings.raw, env={})
    assert config.servers["a"].command == "eddy-local"
    assert config.servers["a"].scope == "local"
    assert config.servers["p"].scope == "project"


def test_mcp_config_files_win_and_strict_reads_only_them(tmp_path: Path) -> None:
    write(tmp_path / ".mcp.json", {"mcpServers": {"a": stdio("proj"), "b": stdio("proj-b")}})
    flag = write(tmp_path / "extra.json", {"mcpServers": {"a": stdio("flag")}})
    both = load_mcp_config(tmp_path, mcp_config_files=[flag], env={})
    assert {n: c.command for n, c in both.servers.items()} == {"a": "flag", "b": "proj-b"}
    strict = load_mcp_config(tmp_path, mcp_config_files=[flag], strict=True, env={})
    assert list(strict.servers) == ["a"]
    assert strict.servers["a"].scope == "flag"


def test_variables_are_expanded_with_defaults_and_a_warning_for_unset_ones(
    tmp_path: Path,
) -> None:
    write(
        tmp_path / ".mcp.json",
        {
            "mcpServers": {
                "s": {
                    "command": "${BIN}",
                    "args": ["${ARG:-fallback}", "x${MISSING}y"],
                    "env": {"TOKEN": "${TOKEN}"},
                },
                "h": {
                    "type": "http",
                    "url": "${HOST:-https://h.test}/mcp",
                    "headers": {"Authorization": "Bearer ${TOKEN}"},
                },
            }
        },
    )
    env = {"BIN": "/usr/bin/srv", "TOKEN": "t0k"}
    config = load_mcp_config(tmp_path, env=env)
    s, h = config.servers["s"], config.servers["h"]
    assert (s.command, s.args, dict(s.env)) == (
        "/usr/bin/srv",
        ("fallback", "xy"),
        {"TOKEN": "t0k"},
    )
    assert (h.url, dict(h.headers)) == ("https://h.test/mcp", {"Authorization": "Bearer t0k"})
    assert len(config.problems) == 1
    assert "mcpServers.s" in config.problems[0] and "${MISSING}" in config.problems[0]


def test_expand_keeps_text_without_variables_and_uses_the_default_for_empty() -> None:
    missing: list[str] = []
    assert expand("plain $HOME text", {"HOME": "/h"}, missing) == "plain $HOME text"
    assert expand("${E:-d}", {"E": ""}, missing) == "d"
    assert missing == []


def test_a_url_without_a_type_is_an_error_naming_the_entry(tmp_path: Path) -> None:
    write(tmp_path / ".mcp.json", {"mcpServers": {"remote": {"url": "https://x.test"}}})
    config = load_mcp_config(tmp_path, env={})
    assert config.servers == {}
    assert len(config.problems) == 1
    assert ".mcp.json: mcpServers.remote" in config.problems[0]
    assert '"type"' in config.problems[0]


def test_bad_entries_are_problems_and_the_rest_still_loads(tmp_path: Path) -> None:
    write(
        tmp_path / ".mcp.json",
        {
            "mcpServers": {
                "ok": stdio("fine"),
                "nocmd": {"args": []},
                "badargs": {"command": "x", "args": "no"},
                "weird": {"type": "carrier-pigeon", "url": "x"},
                "bad name": stdio("x"),
                "notobj": 3,
            }
        },
    )
    config = load_mcp_config(tmp_path, env={})
    assert list(config.servers) == ["ok"]
    assert len(config.problems) == 5


def test_invalid_json_is_a_problem_not_a_crash(tmp_path: Path) -> None:
    (tmp_path / ".mcp.json").write_text("{not json", encoding="utf-8")
    config = load_mcp_config(tmp_path, env={})
    assert config.servers == {}
    assert "not valid JSON" in config.problems[0]


def test_mcp_config_takes_json_text_too_and_names_a_missing_file(tmp_path: Path) -> None:
    inline = '{"mcpServers": {"x": {"command": "srv"}, "w": {"type": "http", "url": "http://h/m"}}}'
    config = load_mcp_config(
        tmp_path, mcp_config_files=[inline, tmp_path / "gone.json"], strict=True, env={}
    )
    assert config.servers["x"].command == "srv"
    assert config.servers["w"].url == "http://h/m"
    assert config.problems == [f"--mcp-config {tmp_path / 'gone.json'}: no such file."]
