"""A real session (real Bash tool, the real loop, the anthropic SDK) against the fake Messages
API, with hooks loaded from settings files the test writes."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent import events as ev
from agent import ops
from agent.hooks.config import load_hooks
from agent.hooks.engine import HookEngine
from agent.model.anthropic import AnthropicModel
from agent.open import add_hooks
from agent.permissions.policy import Policy, Rule
from agent.session.config import SessionConfig
from agent.session.core import Session
from agent.settings.files import load_settings
from agent.turn.outcome import Limits
from tests.fakes.fake_api import FakeAnthropic
from tests.helpers.events import Events
from tools.bash import BashTool


@dataclass
class Run:
    session: Session
    events: Events
    fake: FakeAnthropic
    hooks: HookEngine

    def results(self, request: int) -> list[dict[str, Any]]:
        """The tool_result blocks of request ``request``'s last message."""
        last = self.fake.requests[request]["messages"][-1]["content"]
        return [b for b in last if b.get("type") == "tool_result"]

    def texts(self, request: int) -> list[str]:
        last = self.fake.requests[request]["messages"][-1]["content"]
        return [b["text"] for b in last if b.get("type") == "text"]

    def hook_runs(self, event: str | None = None) -> list[ev.HookRan]:
        return [e for e in self.events.of(ev.HookRan) if event in (None, e.hook_event)]


def open_session(
    fake: FakeAnthropic,
    workspace: Path,
    *,
    allow: tuple[str, ...] = ("Bash",),
    ask: tuple[str, ...] = (),
    deny: tuple[str, ...] = (),
    headless: bool = False,
    limits: Limits | None = None,
    tools: list[Any] | None = None,
) -> Run:
    """A session over ``workspace`` whose hooks come from its settings files."""
    settings, problems = load_settings(workspace)
    hooks = load_hooks(settings.raw, problems)
    assert problems == []
    policy = Policy(
        allow=[Rule.parse(r) for r in allow],
        ask=[Rule.parse(r) for r in ask],
        deny=[Rule.parse(r) for r in deny],
    )
    config = SessionConfig(
        workspace=workspace,
        model="claude-sonnet-5-5",
        policy=policy,
        headless=headless,
        hooks=hooks,
        limits=limits or Limits(),
    )
    model = AnthropicModel("claude-sonnet-5-5", api_key="t", base_url=fake.base_url)
    events = Events()
    session = Session(config, model, tools if tools is not None else [BashTool()], events)
    hooks = add_hooks(session)
    return Run(session, events, fake, hooks.engine)


async def prompt(run: Run, text: str) -> ev.TurnFinished:
    """Send ``text`` and wait for its turn to finish."""
    n = len(run.events.of(ev.TurnFinished))
    run.session.submit(ops.SubmitPrompt(text))
    await run.session.wait_idle()
    return run.events.of(ev.TurnFinished)[n]
