"""The ``sandbox`` settings, the bubblewrap command line, and the environment of children."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.sandbox.bwrap import bwrap_argv
from agent.sandbox.config import SandboxSettings, parse_sandbox_settings
from agent.sandbox.seatbelt import seatbelt_profile
from tools import childenv
from tools.childenv import child_env


def test_settings_take_claude_codes_key_names() -> None:
    problems: list[str] = []
    value = {
        "enabled": False,
        "allowUnsandboxedCommands": False,
        "excludedCommands": ["docker:*"],
        "network": {"allowAll": True},
    }
    assert parse_sandbox_settings(value, problems) == SandboxSettings(
        enabled=False,
        allow_unsandboxed_commands=False,
        excluded_commands=("docker:*",),
        network=True,
    )
    assert problems == []


def test_bad_settings_are_reported_and_the_safe_default_kept() -> None:
    problems: list[str] = []
    got = parse_sandbox_settings(
        {"enabled": "yes", "excludedCommands": "git", "network": {"allowAll": 1}}, problems
    )
    assert got == SandboxSettings()
    assert len(problems) == 3 and all(p.startswith("sandbox.") for p in problems)
    assert parse_sandbox_settings(None, []) == SandboxSettings()


def test_the_factory_reads_the_sandbox_settings(tmp_path: Path) -> None:

    from frontend.session_open import build_session

    (tmp_path / ".eddy").mkdir()
    (tmp_path / ".eddy" / "settings.json").write_text(
        '{"sandbox": {"allowUnsandboxedCommands": false}, "passSecretEnv": "x"}'
    )
    from frontend.launch import LaunchOptions
    from tests.fakes.scripted import ScriptedModel

    args = LaunchOptions(cwd=tmp_path)
    opened = build_session(
        args, lambda _e: None, headless=True, model=ScriptedModel([]), persist=False
    )
    session, problems = opened.session, opened.problems
    assert session.config.sandbox.allow_unsandboxed_commands is False
    assert any("passSecretEnv" in p for p in problems)


@pytest.mark.parametrize("profile", ["read_only", "workspace"])
def test_the_bubblewrap_line_isolates_everything(tmp_path: Path, profile: str) -> None:
    secret = tmp_path / "home" / ".ssh"
    secret.mkdir(parents=True)
    netrc = tmp_path / "home" / ".netrc"
    netrc.write_text("")
    ws = tmp_path / "ws"
    argv = bwrap_argv(
        "bwrap",
        ["bash", "-c", "true"],
        cwd=ws,
        profile=profile,  # type: ignore[arg-type]
        roots=(ws,),
        writable_files=(),
        hidden=[secret, netrc],
        network=False,
    )
    for flag in ("--unshare-all", "--die-with-parent", "--new-session", "--cap-drop"):
        assert flag in argv
    assert "--share-net" not in argv
    assert argv[-3:] == ["bash", "-c", "true"]
    bind = argv.index(str(ws))
    assert argv[bind - 1] == ("--bind-try" if profile == "workspace" else "--ro-bind-try")
    assert ["--tmpfs", str(secret)] == argv[
        argv.index(str(secret)) - 1 : argv.index(str(secret)) + 1
    ]
    assert argv[argv.index(str(netrc)) - 2 : argv.index(str(netrc))] == ["--ro-bind", "/dev/null"]


def test_the_seatbelt_profile_denies_writes_network_and_secrets(tmp_path: Path) -> None:
    text = seatbelt_profile(
        profile="workspace",
        roots=(tmp_path,),
        writable_files=(),
        hidden=[tmp_path / ".ssh"],
        network=False,
    )
    assert "(deny file-write*)" in text and "(deny network*)" in text
    assert f'(subpath "{tmp_path}")' in text and f'(subpath "{tmp_path / ".ssh"}")' in text


def test_child_env_drops_eddys_secrets_unless_passed(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(name, "CANARY")
    monkeypatch.setenv("AWS_SESSION_TOKEN", "CANARY")
    monkeypatch.setenv("AWS_BEARER_TOKEN_BEDROCK", "CANARY")
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", "/creds.json")
    monkeypatch.setenv("PATH_LIKE_OTHER", "kept")
    env = child_env({"EDDY": "1"})
    assert not any(v in ("CANARY", "/creds.json") for v in env.values())
    assert env["PATH_LIKE_OTHER"] == "kept" and env["EDDY"] == "1"
    monkeypatch.setattr(childenv, "_passed", frozenset())
    childenv.allow_secrets(["AWS_SESSION_TOKEN"])
    assert child_env()["AWS_SESSION_TOKEN"] == "CANARY"
    assert "ANTHROPIC_API_KEY" not in child_env()


def test_every_spawn_site_uses_child_env() -> None:
    """A grep over the code: a new create_subprocess/Popen/run must pass ``env=child_env``."""
    import re

    root = Path(__file__).resolve().parents[2]
    spawn = re.compile(r"create_subprocess_(exec|shell)\(|subprocess\.(run|Popen|call)\(")
    offenders = []
    for folder in ("agent", "tools", "tui", "plain", "cli", "headless", "frontend"):
        for path in (root / folder).rglob("*.py") if (root / folder).is_dir() else ():
            text = path.read_text(encoding="utf-8")
            for m in spawn.finditer(text):
                call = text[m.start() : m.start() + 400]
                if "env=" not in call:
                    offenders.append(
                        f"{path.relative_to(root)}:{text[: m.start()].count(chr(10)) + 1}"
                    )
    assert offenders == []
