"""Helpers for subagent tests: a session with the Agent tool and one scripted model that
answers each agent from its own script (chosen by the agent's first prompt)."""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from agent.messages import Message, TextBlock, check_invariant
from agent.model.protocol import ModelRequest, ModelResponse, as_response
from agent.session.config import SessionConfig
from agent.session.core import Session
from agent.subagents.attach import attach_subagents
from agent.subagents.definitions import AgentCatalog, load_agents
from tests.fakes.scripted import ScriptedModel
from tests.helpers.events import Events
from tools import default_tools

Script = list[Any]
"""What one agent answers, call by call (items as ``ScriptedModel`` takes them, or a function
of the agent's history that returns one)."""


def first_prompt(history: list[Message]) -> str:
    """The agent's first prompt: the first text block (an interrupt note or the next prompt
    may join that message later)."""
    return next((b.text for b in history[0].content if isinstance(b, TextBlock)), "")


class TreeModel(ScriptedModel):
    """A scripted model for a tree of agents: ``scripts[first prompt]`` answers that agent.

    Every request is checked against the pairing invariant and kept per agent in
    ``by_prompt``. ``cost`` is each response's cost; ``hold`` (optional) is awaited before a
    response of the agent whose prompt it names (a test holds a child there to press Esc).
    """

    def __init__(
        self,
        scripts: dict[str, Script],
        *,
        cost: float | None = None,
        hold: dict[str, Callable[[], Awaitable[None]]] | None = None,
    ) -> None:
        super().__init__(self._answer, cost_per_call=cost)
        self.scripts = {k: list(v) for k, v in scripts.items()}
        self.by_prompt: dict[str, list[ModelRequest]] = {}
        self.hold = hold or {}

    async def respond(self, request: ModelRequest, sink: Any) -> ModelResponse:
        request = dataclasses.replace(request, messages=list(request.messages))
        check_invariant(request.messages)
        first = first_prompt(request.messages)
        self.by_prompt.setdefault(first, []).append(request)
        return await super().respond(request, sink)

    async def _answer(self, history: list[Message]) -> Any:
        first = first_prompt(history)
        if first in self.hold:
            await self.hold[first]()
        script = self.scripts.get(first)
        if not script:
            return f"(no script left for {first!r})"
        item = script.pop(0)
        if callable(item):  # decided from the agent's history (what its last call returned)
            item = item(history)
        return as_response(item, self._cost) if isinstance(item, Message) else item


def tree_session(
    tmp_path: Path,
    model: ScriptedModel,
    *,
    mode: str = "bypassPermissions",
    catalog: AgentCatalog | None = None,
    concurrency: int = 4,
) -> tuple[Session, Events]:
    """A session over ``tmp_path / "ws"`` with every tool (Agent included) and subagents."""
    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    events = Events()
    config = SessionConfig(workspace=ws, model="claude-sonnet-5-5")
    config.policy.mode = mode  # type: ignore[assignment]
    session = Session(config, model, default_tools(), events)
    attach_subagents(
        session, catalog or load_agents(ws, home=tmp_path / "home"), concurrency=concurrency
    )
    return session, events
