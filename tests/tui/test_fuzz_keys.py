"""Random keys into the whole TUI while a random model answers, calls Bash and Read, and
takes its time: whatever the order (Esc mid-stream, Ctrl+B, a permission question answered
or not, slash commands half typed, the prompt history, scrolling), the app stays up, every
event is shown without a rendering error, and the history is one the API accepts.

Each seed is one run (a few seconds); CI runs :data:`QUICK` of them, ``-m fuzz`` runs
:data:`LONG` more (``EDDY_FUZZ_EXAMPLES`` changes that). A failure names its seed (a
rendering error) or shows it in the test's parameters and locals.
"""

from __future__ import annotations

import asyncio
import os
import random
from pathlib import Path
from typing import Any

import pytest

from agent.messages import Message, assistant, check_invariant
from tests.fakes.scripted import ScriptedModel, tool_call
from tests.helpers.tui import SIZE, make_app, wait_ready
from tools import default_tools
from tui.widgets.conversation.message_line import MessageLine

QUICK = 3
LONG = int(os.environ.get("EDDY_FUZZ_EXAMPLES", "100"))
KEYS = [
    *["a", "space", "backspace", "left", "right", "home", "end", "up", "down", "tab"],
    *["enter"] * 4,
    *["escape"] * 3,
    *["ctrl+b", "shift+tab", "pageup", "pagedown", "ctrl+u", "ctrl+k", "ctrl+o", "ctrl+t"],
    *["ctrl+r", "ctrl+l", "ctrl+e", "ctrl+a", "slash", "question_mark", "exclamation_mark"],
    *["at", "1", "2", "y", "n"],
]
TYPED = [
    *["/help", "/clear", "/bashes", "/cost", "/context", "/model", "/rewind", "/compact"],
    *["/permissions", "/todos", "/resume", "/status", "/memory", "/mcp", "/agents", "/hooks"],
    *["/export", "/init", "/exit", "!ls", "hello", "@NOTES", "#a note"],
]


def random_model(rng: random.Random, workspace: Path) -> ScriptedModel:
    """A tool call (Bash that asks, Read that does not) or a text answer, after a pause."""

    async def answer(messages: list[Message]) -> Any:
        await asyncio.sleep(rng.choice([0, 0, 0.05, 0.2]))
        roll = rng.random()
        call_id = f"toolu_{rng.randrange(10**9)}"
        if roll < 0.35:
            command = rng.choice(["echo hi", "sleep 0.3; echo done", "false"])
            return assistant("Running it.", tool_call(call_id, "Bash", command=command))
        if roll < 0.5:
            notes = str(workspace / "NOTES.md")
            return assistant("Reading.", tool_call(call_id, "Read", file_path=notes))
        return "Some **bold**, `code`.\n\n- a\n- b\n\n```py\nx = 1\n```\n" * rng.randrange(1, 5)

    return ScriptedModel(answer)


async def run_seed(seed: int, workspace: Path) -> None:
    rng = random.Random(seed)
    (workspace / "NOTES.md").write_text("notes\n")
    model = random_model(rng, workspace)
    app, _events = make_app(workspace, model, default_tools())
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        for _ in range(rng.randrange(20, 60)):
            if rng.random() < 0.25 and app.focused is app.main.prompt:
                app.main.prompt.insert(rng.choice(TYPED))
            else:
                await pilot.press(rng.choice(KEYS))
            if rng.random() < 0.3:
                await asyncio.sleep(rng.choice([0, 0.01, 0.1, 0.3]))
            if app._exit:  # /exit was typed and sent
                return
        for _ in range(3):  # whatever runs or asks: stopped
            await pilot.press("escape")
        session = app.session
        if session is not None:
            await asyncio.wait_for(session.wait_idle(), 30)
        await pilot.pause()
        failed = [line.text for line in app.query(MessageLine) if "Could not display" in line.text]
        assert not failed, (seed, failed)
        if session is not None and session.history:
            check_invariant(list(session.history), at_rest=True)


@pytest.mark.parametrize("seed", range(QUICK))
async def test_random_keys_leave_the_app_up_and_the_history_valid(
    seed: int, workspace: Path
) -> None:
    await run_seed(seed, workspace)


@pytest.mark.fuzz
async def test_random_keys_at_length(tmp_path: Path) -> None:
    for seed in range(QUICK, QUICK + LONG):
        workspace = tmp_path / f"seed-{seed}"
        workspace.mkdir()
        await run_seed(seed, workspace)
