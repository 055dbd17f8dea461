"""Trusted folders (agent/settings/trust.py): kept per folder, covering the folders below, with
what their files grant approved per kind."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent.settings import trust as trust


@pytest.fixture(autouse=True)
def _nothing_trusted(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("EDDY_TRUSTED_FOLDERS", raising=False)
    monkeypatch.setenv("EDDY_CONFIG_DIR", str(tmp_path / "config"))


def test_a_trusted_folder_covers_the_folders_below_it_only(tmp_path: Path) -> None:
    project, sibling = tmp_path / "work" / "project", tmp_path / "work" / "other"
    (project / "sub").mkdir(parents=True)
    sibling.mkdir()
    assert not trust.is_trusted(project)
    trust.trust(project)
    trust.trust(project / "." / "sub" / "..")  # the same folder: kept once
    assert trust.is_trusted(project) and trust.is_trusted(project / "sub")
    assert not trust.is_trusted(sibling) and not trust.is_trusted(tmp_path / "work")
    saved = json.loads(trust.trust_path().read_text())
    assert saved == {"folders": [str(project.resolve())], "grants": {str(project.resolve()): {}}}


def test_a_broken_file_trusts_nothing_and_is_rewritten(tmp_path: Path) -> None:
    trust.trust_path().parent.mkdir(parents=True)
    trust.trust_path().write_text("{not json")
    assert not trust.is_trusted(tmp_path)
    trust.trust(tmp_path)
    assert trust.is_trusted(tmp_path)


def test_the_environment_can_trust_folders_and_some_starts_never_ask(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert trust.needs_asking(tmp_path, mode="default")
    assert trust.needs_asking(tmp_path, mode="acceptEdits")
    assert trust.needs_asking(tmp_path, mode="bypassPermissions")  # a mode, not a vouch
    assert not trust.needs_asking(tmp_path, mode="default", demo=True)
    monkeypatch.setenv("EDDY_TRUSTED_FOLDERS", f"/nowhere{':'}{tmp_path}")
    assert not trust.needs_asking(tmp_path / "deeper", mode="default")
    assert not trust.trust_path().exists()  # nothing written


def test_the_question_names_what_the_folders_settings_would_allow(tmp_path: Path) -> None:
    assert trust.question(tmp_path)[0] == "Do you trust the files in this folder?"
    assert len(trust.question(tmp_path)) == 3  # no settings: no list
    (tmp_path / ".eddy").mkdir()
    (tmp_path / ".eddy" / "settings.json").write_text(
        json.dumps({"permissions": {"allow": ["Bash(npm test)", "Edit"], "deny": ["Read"]}})
    )
    (tmp_path / ".eddy" / "settings.local.json").write_text(
        json.dumps({"permissions": {"defaultMode": "acceptEdits"}})
    )
    lines = trust.question(tmp_path)
    assert lines[1] == str(tmp_path.resolve())
    assert lines[3:] == [
        "Its files grant, once you trust them:",
        "Permission rules, modes and added directories:",
        "  • .eddy/settings.json: allows Bash(npm test)",
        "  • .eddy/settings.json: allows Edit",
        "  • .eddy/settings.local.json: starts in acceptEdits mode",
    ]
