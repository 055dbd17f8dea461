"""Red team: a symlink swapped while the permission gate resolves it never crashes the gate.

``os.path.realpath`` reads a symlink in two steps (``lstat``, then ``readlink``); a command
running meanwhile (a background shell) can replace the link in between, and ``readlink`` then
fails. The gate must treat such a path as one it cannot prove safe (ask, or the safe side of a
rule), never let the error out: an exception out of the gate ends the turn. The race is built
deterministically: ``os.readlink`` replaces the link just before it reads it. The names are
made at run time and no command names the racing link (``find`` lists it).

Each case raised out of the gate before (checked against it): ``lists_inside`` resolved the
links ``find`` lists without a guard, a rule's specifier resolved its directories without
one, and so did the check of eddy's own folders among the protected places.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable
from pathlib import Path

import pytest

from agent.messages import ToolUseBlock
from agent.permissions.paths import path_rule
from agent.permissions.places import protected_reason
from agent.permissions.policy import Policy, Rule
from agent.session.gate import PermissionGate
from tools.base import ToolContext
from tools.bash import TOOL as BASH


def swap_when_read(
    monkeypatch: pytest.MonkeyPatch, link: Path, replace: Callable[[Path], None]
) -> list[Path]:
    """Replace the symlink ``link`` (``replace`` makes what takes its place) the first time
    ``os.readlink`` reads it: after ``lstat`` saw a symlink, before its target is read, as a
    racing command would. The list gets ``link`` once the swap happened."""
    real = os.readlink
    swapped: list[Path] = []

    def readlink(path: str | os.PathLike[str], *args: object, **kwargs: object) -> str:
        if not swapped and os.fspath(path) == str(link):
            swapped.append(link)
            os.unlink(link)
            replace(link)
        return real(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "readlink", readlink)
    return swapped


def a_file(path: Path) -> None:
    path.write_text("now a file\n")


def a_directory(path: Path) -> None:
    path.mkdir()


def name() -> str:
    """A name no command line and no rule spells out."""
    return "n" + secrets.token_hex(4)


@pytest.fixture
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "ws"
    (root / "sub").mkdir(parents=True)
    (root / "sub" / "b.py").write_text("b\n")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("CDPATH", raising=False)
    return root


async def gate_allows(ws: Path, command: str, policy: Policy) -> bool:
    """Whether the headless gate lets ``command`` run (an ask is a refusal there)."""
    ctx = ToolContext(ws)
    gate = PermissionGate(
        policy, ctx, lambda _e: None, lambda: 1, ws, headless=True, save_rules=False
    )
    decision = await gate(ToolUseBlock("toolu_1", "Bash", {"command": command}), BASH)
    return decision.allow


LISTERS = [
    "find . -name '*.py' | xargs wc -l",
    "find sub | xargs cat",
    "bash -c \"find . -name '*.py' | xargs wc -l\"",
    "bash -c 'find sub -type f | xargs grep -n b'",
]


@pytest.mark.parametrize("command", LISTERS)
@pytest.mark.parametrize("replace", [a_file, a_directory])
async def test_a_link_find_lists_swapped_while_it_is_resolved_asks(
    ws: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    command: str,
    replace: Callable[[Path], None],
) -> None:
    target = tmp_path / f"{name()}.py"
    target.write_text("elsewhere\n")
    link = ws / "sub" / f"{name()}.py"
    link.symlink_to(ws / "sub" / "b.py")  # leads inside: find | xargs may read it
    assert await gate_allows(ws, command, Policy("default"))
    swapped = swap_when_read(monkeypatch, link, replace)
    assert not await gate_allows(ws, command, Policy("default"))
    assert swapped == [link]  # the race happened inside the gate's check


def linked(ws: Path, target: Path) -> Path:
    """A new symlink in the workspace to ``target`` (each rule compiles once, then is
    remembered: every race needs a specifier not seen before)."""
    link = ws / name()
    link.symlink_to(target)
    return link


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    """A directory outside the workspace with a file in it."""
    path = tmp_path / name()
    path.mkdir()
    (path / "key.txt").write_text("CANARY\n")
    return path


@pytest.mark.parametrize(
    "command", ["cat sub/b.py", "sh -c 'cat sub/b.py'", "bash -c 'wc -l sub/b.py'"]
)
@pytest.mark.parametrize("replace", [a_file, a_directory])
async def test_a_deny_rules_directory_swapped_while_it_is_resolved_names_every_path(
    ws: Path,
    secret: Path,
    monkeypatch: pytest.MonkeyPatch,
    replace: Callable[[Path], None],
    command: str,
) -> None:
    def deny(link: Path) -> Policy:
        return Policy("default", deny=[Rule.parse(f"Read(./{link.name}/**)")])

    assert await gate_allows(ws, command, deny(linked(ws, secret)))
    link = linked(ws, secret)
    swapped = swap_when_read(monkeypatch, link, replace)
    assert not await gate_allows(ws, command, deny(link))  # the safe side of a deny rule
    assert swapped == [link]


@pytest.mark.parametrize("replace", [a_file, a_directory])
async def test_an_allow_rules_directory_swapped_while_it_is_resolved_names_nothing(
    ws: Path, secret: Path, monkeypatch: pytest.MonkeyPatch, replace: Callable[[Path], None]
) -> None:
    def allow(link: Path) -> Policy:
        return Policy("default", [Rule.parse(f"Read(./{link.name}/**)")])

    command = f"cat {secret / 'key.txt'}"  # outside: only the allow rule lets it run
    assert await gate_allows(ws, command, allow(linked(ws, secret)))
    link = linked(ws, secret)
    swapped = swap_when_read(monkeypatch, link, replace)
    assert not await gate_allows(ws, command, allow(link))  # asks
    assert swapped == [link]


def test_eddys_own_folder_swapped_while_it_is_resolved_counts_as_protected(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_config = tmp_path / name()
    real_config.mkdir()
    config = tmp_path / name()
    config.symlink_to(real_config)
    monkeypatch.setenv("EDDY_CONFIG_DIR", str(config))
    swapped = swap_when_read(monkeypatch, config, a_directory)
    assert protected_reason(tmp_path / "ws" / "notes.txt") is not None
    assert swapped == [config]


def test_a_home_swapped_while_it_is_resolved_still_gets_a_rule(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_home = tmp_path / name()
    real_home.mkdir()
    home = tmp_path / name()
    home.symlink_to(real_home)
    monkeypatch.setenv("HOME", str(home))
    swapped = swap_when_read(monkeypatch, home, a_directory)
    rule = path_rule("Read", tmp_path / "elsewhere" / "x.txt", tmp_path / "ws")
    assert rule.startswith("Read(") and swapped == [home]
