"""Line mode asks whether a new folder's files are trusted before it reads any of them."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from agent.settings.trust import is_trusted
from tests.helpers.plain import ENTER, until


@pytest.fixture(autouse=True)
def _untrusted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("EDDY_TRUSTED_FOLDERS")


async def test_no_exits_with_1_and_yes_trusts_the_folder(harness, workspace: Path) -> None:
    h = harness()
    h.task = asyncio.create_task(h.app.run())
    await h.printed("Do you trust the files in this folder?")
    assert str(workspace.resolve()) in h.output and h.app.session is None
    h.type("n" + ENTER)
    assert await asyncio.wait_for(h.task, 10) == 1
    assert "not trusted" in h.output and not is_trusted(workspace)

    h = harness()
    h.task = asyncio.create_task(h.app.run())
    await h.printed("Trust it?")
    h.type("y" + ENTER)
    await until(lambda: h.app.session is not None, what="the session")
    assert is_trusted(workspace)
    assert await h.exit() == 0
