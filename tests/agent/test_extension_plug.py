"""The one plug (agent/extension.py): an extension registered through the front door
(agent/open.py) sees every hook point, in order, and its answers act as documented; a
failing extension is a notice, never a broken turn."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent import events as ev
from agent import ops
from agent.extension import (
    Extension,
    Extensions,
    PermissionAnswer,
    PermissionQuestion,
    PromptAddition,
    StopRequest,
    ToolCall,
    ToolVerdict,
    combine,
)
from agent.messages import Message, TextBlock
from agent.open import SessionOptions, open_session
from tests.fakes.scripted import ScriptedModel, tool_call
from tests.helpers.events import Events
from tools.base import ToolResult


class Toy(Extension):
    """Records every hook point it is asked at, with what it was asked."""

    name = "toy"

    def __init__(self) -> None:
        self.points: list[str] = []
        self.events: list[str] = []
        self.stops = 0

    async def on_prompt(self, text: str) -> PromptAddition | None:
        self.points.append(f"on_prompt:{text}")
        return PromptAddition(None, ("toy context",))

    async def before_model_call(self) -> None:
        self.points.append("before_model_call")

    async def before_tool(self, call: ToolCall) -> ToolVerdict | None:
        self.points.append(f"before_tool:{call.use.name}")
        return ToolVerdict("allow", context="toy saw it")

    def tool_ended(self, call: ToolCall) -> None:
        self.points.append(f"tool_ended:{call.use.name}")

    async def after_tool(self, call: ToolCall, result: ToolResult) -> ToolResult:
        self.points.append(f"after_tool:{call.use.name}")
        return result.with_note("toy note")

    async def on_stop(self, stop: StopRequest) -> str | None:
        self.points.append(f"on_stop:{stop.active}")
        self.stops += 1
        return "one more look" if self.stops == 1 else None

    async def before_compact(self, trigger: str, focus: str, turn_id: int) -> str | None:
        self.points.append(f"before_compact:{trigger}:{focus}")
        return None

    async def after_compact(self) -> None:
        self.points.append("after_compact")

    def on_event(self, event: ev.Event) -> None:
        self.events.append(type(event).__name__)

    def status(self) -> str:
        return "toy ok"

    async def aclose(self, reason: str) -> None:
        self.points.append(f"aclose:{reason}")


def model_for(workspace: Path) -> ScriptedModel:
    def script(history: list[Message]) -> Any:
        last = history[-1]
        text = " ".join(b.text for b in last.content if isinstance(b, TextBlock))
        if "summar" in text.lower() or "compact" in text.lower():
            return "the summary"
        if any(b for b in last.content if not isinstance(b, TextBlock)):
            return "done reading"
        if "one more look" in text:
            return "looked again"
        return Message("assistant", (tool_call("t1", "Read", file_path="a.py"),))

    return ScriptedModel(script)


async def test_a_toy_extension_sees_every_hook_point_in_order(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("print('a')\n")
    events = Events()
    toy = Toy()
    model = model_for(tmp_path)
    opened = open_session(
        SessionOptions(tmp_path, allowed_tools=("Read",)),
        events,
        model=model,
        extensions=[toy],
    )
    session = opened.session
    assert session.extension(Toy) is toy
    session.submit(ops.SubmitPrompt("read a.py"))
    await session.wait_idle()
    assert session.status().mcp.endswith("toy ok")
    session.submit(ops.Compact("keep the reads"))
    await session.wait_idle()
    await session.close("clear")

    assert toy.points == [
        "on_prompt:read a.py",
        "before_model_call",
        "before_tool:Read",
        "tool_ended:Read",
        "after_tool:Read",
        "before_model_call",
        "on_stop:False",  # "one more look": the model is sent back once
        "before_model_call",
        "on_stop:True",
        "before_compact:manual:keep the reads",
        "after_compact",
        "aclose:clear",
    ]
    # what its answers did: the prompt's block, the result's note and context, the stop text
    prompt = model.requests[0].messages[0]
    assert [b.text for b in prompt.content if isinstance(b, TextBlock)][-1] == "toy context"
    finished = events.of(ev.ToolCallFinished)[0]
    assert "toy note" in str(finished.content) and "toy saw it" in str(finished.content)
    assert "TurnStarted" in toy.events and "TurnFinished" in toy.events
    assert "TextDelta" not in toy.events  # deltas are not shown to extensions


class Broken(Extension):
    name = "broken"

    async def before_tool(self, call: ToolCall) -> ToolVerdict | None:
        raise RuntimeError("boom")

    async def after_tool(self, call: ToolCall, result: ToolResult) -> ToolResult:
        raise RuntimeError("bang")


async def test_a_failing_extension_is_a_notice_and_the_call_still_runs(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("print('a')\n")
    events = Events()
    opened = open_session(
        SessionOptions(tmp_path, allowed_tools=("Read",)),
        events,
        model=ScriptedModel(
            [Message("assistant", (tool_call("t1", "Read", file_path="a.py"),)), "ok"]
        ),
        extensions=[Broken()],
    )
    session = opened.session
    session.submit(ops.SubmitPrompt("go"))
    await session.wait_idle()
    await session.close()
    notices = [n.text for n in events.of(ev.Notice)]
    assert any("broken failed in before_tool (RuntimeError: boom)" in n for n in notices)
    assert any("broken failed in after_tool (RuntimeError: bang)" in n for n in notices)
    finished = events.of(ev.ToolCallFinished)[0]
    assert not finished.is_error and "print('a')" in str(finished.content)
    assert events.of(ev.TurnFinished)[-1].subtype == "success"


def test_verdicts_combine_halt_then_deny_then_ask_then_allow() -> None:
    allow = ToolVerdict("allow", "a", context="c1")
    ask = ToolVerdict("ask", "why ask", context="c2")
    deny = ToolVerdict("deny", "no")
    halt = ToolVerdict(halt="stop")
    assert combine([allow, ask]).decision == "ask"
    assert combine([allow, ask]).context == "c1\nc2"
    assert combine([allow, deny, ask]).reason == "no"
    assert combine([deny, halt]).halt == "stop"
    assert combine([]).decision is None
    assert combine(
        [ToolVerdict(updated_input={"x": 1}), ToolVerdict(updated_input={"x": 2})]
    ).updated_input == {"x": 2}


async def test_an_invalid_rewrite_is_refused_naming_the_extension(tmp_path: Path) -> None:
    from agent.messages import ToolUseBlock
    from tools.read import ReadTool

    class Rewriter(Extension):
        name = "rewriter"

        async def before_tool(self, call: ToolCall) -> ToolVerdict | None:
            return ToolVerdict(updated_input={"file_path": 42})

    class Later(Extension):
        name = "later"
        asked = False

        async def before_tool(self, call: ToolCall) -> ToolVerdict | None:
            Later.asked = True
            return None

    exts = Extensions(lambda _e: None)
    exts.add(Rewriter())
    exts.add(Later())
    call = ToolCall(ToolUseBlock("t", "Read", {"file_path": "a"}), ReadTool(), {"file_path": "a"})
    verdict = await exts.before_tool(call)
    assert verdict.decision == "deny"
    assert "The rewriter extension rewrote this Read call's input" in verdict.reason
    assert not Later.asked  # a deny stops the chain


class Answerer(Extension):
    """Answers permission questions the way an Agent SDK's can_use_tool would."""

    name = "answerer"

    def __init__(self, answers: list[PermissionAnswer]) -> None:
        self.answers = answers
        self.asked: list[str] = []

    async def ask(self, question: PermissionQuestion) -> PermissionAnswer | None:
        self.asked.append(f"{question.use.name}:{question.summary}")
        return self.answers.pop(0) if self.answers else None


async def test_an_extension_answers_what_the_rules_would_ask_even_headless(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("old\n")
    write = tool_call("t1", "Write", file_path="a.txt", content="from the model\n")
    read = tool_call("t2", "Read", file_path="a.txt")
    answerer = Answerer(
        [PermissionAnswer(True, updated_input={"file_path": "a.txt", "content": "rewritten\n"})]
    )
    events = Events()
    opened = open_session(
        SessionOptions(tmp_path, headless=True, allowed_tools=("Read",), persist=False),
        events,
        model=ScriptedModel(
            [
                Message("assistant", (read,)),
                Message("assistant", (write,)),
                "done",
            ]
        ),
        extensions=[answerer],
    )
    session = opened.session
    session.submit(ops.SubmitPrompt("go"))
    await session.wait_idle()
    await session.close()
    # Read was allowed by a rule: never asked; Write would ask: the extension answered
    assert answerer.asked == ["Write:a.txt"]
    assert (tmp_path / "a.txt").read_text() == "rewritten\n"


async def test_an_extensions_refusal_with_interrupt_ends_the_turn(tmp_path: Path) -> None:
    first = tool_call("t1", "Bash", command="touch one")
    second = tool_call("t2", "Bash", command="touch two")
    answerer = Answerer([PermissionAnswer(False, "not now", interrupt=True)])
    events = Events()
    model = ScriptedModel([Message("assistant", (first, second)), "never asked for"])
    opened = open_session(
        SessionOptions(tmp_path, headless=True, persist=False),
        events,
        model=model,
        extensions=[answerer],
    )
    session = opened.session
    session.submit(ops.SubmitPrompt("go"))
    await session.wait_idle()
    await session.close()
    results = [e for e in events.of(ev.ToolCallFinished)]
    assert [r.is_error for r in results] == [True, True]
    assert "not now" in str(results[0].content)
    assert model.calls == 1  # the turn ended after the batch: no second model call
    assert not (tmp_path / "one").exists() and not (tmp_path / "two").exists()
