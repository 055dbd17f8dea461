"""Background-agent tests through the real loop and the fake Messages API: a session whose
model is the real SDK pointed at the fake, with subagents, and a responder that answers each
agent (parent or child) from its own script, chosen by the agent's first prompt."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agent.model.anthropic import AnthropicModel
from agent.session.config import SessionConfig
from agent.session.core import Session
from agent.store.transcript import Transcript
from agent.subagents.attach import attach_subagents
from agent.subagents.definitions import load_agents
from tests.fakes.fake_api import FakeAnthropic, Reply, ScriptItem, text, tool_use
from tests.helpers.events import Events
from tools import default_tools

Item = ScriptItem | Callable[[dict[str, Any]], ScriptItem]


def call(call_id: str, name: str, **args: Any) -> Reply:
    """A response that calls one tool."""
    return Reply([tool_use(call_id, name, args)], "tool_use")


def bg_agent(call_id: str, prompt: str) -> Reply:
    """A response that starts a background general-purpose agent on ``prompt``."""
    return call(call_id, "Agent", description="bg", prompt=prompt,
                subagent_type="general-purpose", run_in_background=True)  # fmt: skip


def first_text(body: dict[str, Any]) -> str:
    """The text of the request's first user message (the agent's first prompt)."""
    content = body["messages"][0]["content"]
    if isinstance(content, str):
        return content
    return " ".join(b.get("text", "") for b in content if b.get("type") == "text")


def texts(message: dict[str, Any]) -> str:
    """Every text and tool_result text of one request message, joined."""
    content = message["content"]
    if isinstance(content, str):
        return content
    out = []
    for block in content:
        if block.get("type") == "text":
            out.append(block["text"])
        elif block.get("type") == "tool_result":
            inner = block["content"]
            out.append(inner if isinstance(inner, str) else " ".join(b["text"] for b in inner))
    return "\n".join(out)


class Agents:
    """The fake API's responder: ``scripts[key]`` answers the agent whose first prompt
    contains ``key``; an item may be a function of the request body. ``requests[key]`` are the
    bodies each agent sent."""

    def __init__(self, fake: FakeAnthropic, scripts: dict[str, list[Item]]) -> None:
        self.scripts = scripts
        self.requests: dict[str, list[dict[str, Any]]] = {k: [] for k in scripts}
        self._lock = threading.Lock()
        fake.responder = self

    def __call__(self, body: dict[str, Any]) -> ScriptItem:
        first = first_text(body)
        key = next(k for k in self.scripts if k in first)
        with self._lock:
            self.requests[key].append(body)
            script = self.scripts[key]
            item = script.pop(0) if script else Reply([text(f"(no script left for {key})")])
        return item(body) if callable(item) else item


def signal(loop: asyncio.AbstractEventLoop, event: asyncio.Event, item: ScriptItem) -> Item:
    """An item that sets ``event`` (in the test's loop) when the agent's request arrives."""

    def answer(body: dict[str, Any]) -> ScriptItem:
        loop.call_soon_threadsafe(event.set)
        return item

    return answer


def held(gate: threading.Event, item: ScriptItem) -> Item:
    """An item answered only once ``gate`` is set (a scripted slow model call)."""

    def answer(body: dict[str, Any]) -> ScriptItem:
        gate.wait(60)
        return item

    return answer


STALL = Reply([text("never sent")], stall_after=1)
"""A model call that never ends until the client goes away (a stopped child's last call)."""


def bg_session(fake: FakeAnthropic, tmp_path: Path) -> tuple[Session, Events]:
    """A session (bypassPermissions) on the fake API with a transcript, every tool and
    subagents."""
    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    events = Events()
    config = SessionConfig(workspace=ws, model="claude-sonnet-5-5")
    config.policy.mode = "bypassPermissions"
    model = AnthropicModel("claude-sonnet-5-5", api_key="t", base_url=fake.base_url)
    session = Session(config, model, default_tools(), events)
    session.attach_transcript(Transcript.create(ws, model="claude-sonnet-5-5"))
    attach_subagents(session, load_agents(ws, home=tmp_path / "home"))
    return session, events


def child_transcript(session: Session, agent_id: str) -> Path:
    """Where the child ``agent_id``'s transcript is saved."""
    main = session.transcript
    assert main is not None
    return main.path.parent / main.session_id / "subagents" / f"agent-{agent_id}.jsonl"
