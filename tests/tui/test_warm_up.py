"""The SDK client is made in a thread after start-up, once, so the first prompt does not
stop the screen while ``anthropic`` is imported and a TLS context is built."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from agent import events as ev
from agent.model.anthropic import AnthropicModel
from tests.fakes.fake_api import FakeAnthropic, Reply, text
from tests.helpers.tui import SIZE, Events, make_args, settle, type_and_send, wait_ready
from tests.helpers.wait import until


def real_sdk_app(
    workspace: Path, fake_api: FakeAnthropic, monkeypatch: pytest.MonkeyPatch, **env: str
) -> tuple[Any, Events]:
    """The app with the real SDK against ``fake_api`` (one answer scripted), its client
    made 10 ms after the session is ready; ``env`` set besides."""
    from tui import session_host
    from tui.app import EddyApp

    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake_api.base_url)
    monkeypatch.delenv("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(session_host, "WARM_UP_DELAY", 0.01)
    fake_api.push(Reply([text("Hello.")]))
    events = Events()
    return EddyApp(make_args(workspace), frozen_clock=True, event_hook=events), events


async def test_the_client_is_ready_before_the_first_prompt_and_used_by_it(
    workspace: Path, fake_api: FakeAnthropic, monkeypatch: pytest.MonkeyPatch
) -> None:
    app, events = real_sdk_app(workspace, fake_api, monkeypatch)
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        model = app.main.session.model
        assert isinstance(model, AnthropicModel)
        for _ in range(500):
            if model._client is not None:
                break
            await pilot.pause()
        client = model._client
        assert client is not None  # made by the warm-up thread, no prompt sent yet
        assert fake_api.requests == []
        await type_and_send(pilot, "hi")
        await events.wait_for(ev.TurnFinished)
        await settle(app, pilot)
        assert model._client is client and len(fake_api.requests) == 1


async def test_the_connection_is_opened_while_the_user_types(
    workspace: Path, fake_api: FakeAnthropic, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once the client exists, eddy opens the connection the first prompt will use, as
    Claude Code does at start-up (``HEAD /api/hello``): the first request finds it open."""
    app, events = real_sdk_app(workspace, fake_api, monkeypatch)
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await until(lambda: bool(fake_api.probes), what="the probe")
        ((path, peer),) = fake_api.probes
        assert path == "/api/hello" and fake_api.requests == []
        await type_and_send(pilot, "hi")
        await events.wait_for(ev.TurnFinished)
        await settle(app, pilot)
    assert fake_api.peers == [peer]  # the prompt went on the connection opened ahead


async def test_no_connection_ahead_without_nonessential_traffic(
    workspace: Path, fake_api: FakeAnthropic, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = {"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"}
    app, events = real_sdk_app(workspace, fake_api, monkeypatch, **env)
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await until(lambda: app.main.connected, what="the client")
        await type_and_send(pilot, "hi")
        await events.wait_for(ev.TurnFinished)
        await settle(app, pilot)
    assert fake_api.probes == [] and len(fake_api.peers) == 1


def test_two_threads_asking_at_once_get_one_client(monkeypatch: pytest.MonkeyPatch) -> None:
    model = AnthropicModel("claude-sonnet-4-5", api_key="k", base_url="http://127.0.0.1:9")
    made: list[object] = []
    inside, release = threading.Event(), threading.Event()

    def make() -> tuple[object, None]:
        made.append(object())
        inside.set()
        release.wait(5)  # the first caller is still making it when the second asks
        return made[-1], None

    monkeypatch.setattr(model, "_make_client", make)
    got: list[object] = []
    first = threading.Thread(target=lambda: got.append(model.client()))
    first.start()
    assert inside.wait(5)
    second = threading.Thread(target=lambda: got.append(model.client()))
    second.start()
    second.join(0.2)
    assert second.is_alive()  # waiting for the first, not making a second client
    assert len(made) == 1
    release.set()
    first.join(5)
    second.join(5)
    assert len(made) == 1 and got == [made[0], made[0]]


def test_line_mode_makes_the_client_in_the_background_too() -> None:
    from plain.session_setup import warm_up_sdk

    model = AnthropicModel("claude-sonnet-4-5", api_key="k", base_url="http://127.0.0.1:9")
    warm_up_sdk(model).join(30)
    assert model._client is not None
    warm_up_sdk(object()).join(30)  # a model without a client (a scripted one): nothing to make


@pytest.mark.parametrize(
    "warm_up",
    [
        "from tui.warm_up import warm_up_highlighting\nwarm_up_highlighting()",
        # line mode's warm-up thread; a model without an SDK client: only the lexers
        "from plain.session_setup import warm_up_sdk\nwarm_up_sdk(object()).join(30)",
    ],
    ids=["tui", "line mode"],
)
def test_the_warm_up_compiles_the_common_lexers_ahead(warm_up: str) -> None:
    """In a fresh process (lexers compile once per process): none before, all after."""
    import subprocess
    import sys

    check = (
        "from pygments.lexers import find_lexer_class_by_name as find\n"
        "from tui.warm_up import HIGHLIGHTED\n"
        "ready = lambda: [n for n in HIGHLIGHTED if '_tokens' in find(n).__dict__]\n"
        "before = ready()\n"
        f"{warm_up}\n"
        "print(before, ready() == list(HIGHLIGHTED))\n"
    )
    out = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True)
    assert out.stdout.strip() == "[] True", out.stderr


async def test_the_css_of_a_turns_widgets_is_added_before_the_first_prompt(
    workspace: Path,
) -> None:
    from tests.fakes.scripted import ScriptedModel
    from tests.helpers.tui import make_app
    from tui.widgets.conversation.assistant_text import AssistantText

    app, _ = make_app(workspace, ScriptedModel(["unused"]))
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        added = {where[1] for where in app.stylesheet.source}
        assert not app.query(AssistantText)  # no answer mounted yet, its CSS is there
        assert "FrozenMarkdown.DEFAULT_CSS" in added  # an answer
        assert "Input.DEFAULT_CSS" in added  # a permission question's reason field


def test_a_textual_without_the_css_lookup_only_loses_the_head_start(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from textual.dom import DOMNode

    from tui.warm_up import register_turn_css

    class Sheet:
        def __init__(self) -> None:
            self.source: dict[object, object] = {}

    monkeypatch.delattr(DOMNode, "_get_default_css")
    sheet = Sheet()
    register_turn_css(type("App", (), {"stylesheet": sheet})())
    assert sheet.source == {}
