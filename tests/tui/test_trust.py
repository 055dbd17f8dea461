"""The first start in a folder asks whether its files are trusted, before reading any of them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent.settings.trust import is_trusted, trust_path
from tests.fakes.scripted import ScriptedModel
from tests.helpers.tui import SIZE, make_app, wait_ready
from tui.screens.trust import TrustScreen


@pytest.fixture
def untrusted(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("EDDY_TRUSTED_FOLDERS")
    (workspace / ".eddy").mkdir()
    (workspace / ".eddy" / "settings.json").write_text(
        json.dumps({"permissions": {"allow": ["Bash(make deploy)"]}})
    )
    return workspace


async def until_trust_screen(app, pilot) -> TrustScreen:  # type: ignore[no-untyped-def]
    for _ in range(100):
        if isinstance(app.screen, TrustScreen):
            return app.screen
        await pilot.pause()
    raise AssertionError(f"no trust question (screen: {app.screen})")


@pytest.mark.parametrize("key", ["2", "escape"])
async def test_no_ends_eddy_before_the_project_is_read(untrusted: Path, key: str) -> None:
    app, _ = make_app(untrusted, ScriptedModel(["unused"]))
    async with app.run_test(size=SIZE) as pilot:
        screen = await until_trust_screen(app, pilot)
        shown = " ".join(str(s.render()) for s in screen.query("Static"))
        assert str(untrusted.resolve()) in shown
        assert ".eddy/settings.json: allows Bash(make deploy)" in shown
        assert app.session is None  # nothing built, no settings applied
        await pilot.press(key)
        await pilot.pause()
    assert app.return_code == 1
    assert not is_trusted(untrusted) and not trust_path().exists()


async def test_yes_trusts_the_folder_and_starts_the_session(untrusted: Path) -> None:
    app, _ = make_app(untrusted, ScriptedModel(["unused"]))
    async with app.run_test(size=SIZE) as pilot:
        await until_trust_screen(app, pilot)
        await pilot.press("enter")  # "Yes" is the highlighted choice
        await wait_ready(app, pilot)
        assert not isinstance(app.screen, TrustScreen)
        assert is_trusted(untrusted) and is_trusted(untrusted / "src")
        allowed = [str(rule) for rule in app.session.config.policy.allow]
        assert any("make deploy" in rule for rule in allowed)  # the project's settings apply


async def test_a_trusted_folder_is_not_asked_again(untrusted: Path) -> None:
    from agent.settings.trust import trust

    trust(untrusted)
    app, _ = make_app(untrusted, ScriptedModel(["unused"]))
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        assert not isinstance(app.screen, TrustScreen)


async def test_a_folder_trusted_above_is_still_asked_about_its_own_grants(untrusted: Path) -> None:
    from agent.settings.trust import trust

    trust(untrusted.parent)  # the folder is trusted; what its settings grant was never listed
    app, _ = make_app(untrusted, ScriptedModel(["unused"]))
    async with app.run_test(size=SIZE) as pilot:
        screen = await until_trust_screen(app, pilot)
        shown = " ".join(str(s.render()) for s in screen.query("Static"))
        assert "grant more than you approved" in shown
        assert ".eddy/settings.json: allows Bash(make deploy)" in shown
