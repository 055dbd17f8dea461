"""The Agent tool through a real session: a child runs the loop with its own history and
tools and returns only its final text (plus a footer) as the parent's tool_result."""

from __future__ import annotations

from pathlib import Path

from agent import events as ev
from agent import ops
from agent.messages import ToolResultBlock, assistant, check_invariant
from tests.fakes.scripted import tool_call
from tests.helpers.subagents import TreeModel, tree_session


def agent_call(call_id: str, kind: str, prompt: str, **more: object):
    return tool_call(call_id, "Agent", description="look around", prompt=prompt,
                     subagent_type=kind, **more)  # fmt: skip


def results(session) -> list[ToolResultBlock]:
    return [b for m in session.history for b in m.content if isinstance(b, ToolResultBlock)]


async def test_a_child_returns_only_its_final_text_with_a_footer(tmp_path: Path) -> None:
    model = TreeModel(
        {
            "go": [assistant(agent_call("p1", "Explore", "find the answer")), "parent done"],
            "find the answer": [
                assistant(tool_call("c1", "Read", file_path="a.py")),
                "the answer is 42",
            ],
        }
    )
    session, events = tree_session(tmp_path, model)
    (tmp_path / "ws" / "a.py").write_text("x = 42\n")
    session.submit(ops.SubmitPrompt("go"))
    await session.wait_idle()
    assert session.history[-1].text == "parent done"
    (result,) = results(session)
    assert not result.is_error
    assert str(result.content).startswith("the answer is 42\n\n[agent ")
    assert "(Explore): 1 turn," in str(result.content)
    # the child's own conversation never reaches the parent's history
    assert "x = 42" not in str([m.to_param() for m in session.history])
    child_requests = model.by_prompt["find the answer"]
    assert len(child_requests) == 2 and len(model.by_prompt["go"]) == 2
    child_tools = [t["name"] for t in child_requests[0].tools]
    assert child_tools == ["Read", "Bash", "Glob", "Grep"]
    assert "read-only exploration subagent" in child_requests[0].system[0]["text"]
    for request in [*child_requests, *model.by_prompt["go"]]:
        check_invariant(list(request.messages))
    wrapped = events.of(ev.SubagentEvent)
    assert wrapped and {e.call_id for e in wrapped} == {"p1"}
    assert {e.agent_type for e in wrapped} == {"Explore"}
    kinds = [e.event["type"] for e in wrapped]
    assert kinds[0] == "turn_started" and kinds[-1] == "turn_finished"


async def test_a_tool_outside_the_childs_filter_is_refused_as_an_error(tmp_path: Path) -> None:
    model = TreeModel(
        {
            "go": [assistant(agent_call("p1", "Explore", "try to write")), "ok"],
            "try to write": [
                assistant(tool_call("c1", "Bash", command="echo hi > made.txt")),
                assistant(tool_call("c2", "Write", file_path="w.txt", content="no")),
                "could not",
            ],
        }
    )
    session, events = tree_session(tmp_path, model)
    session.submit(ops.SubmitPrompt("go"))
    await session.wait_idle()
    ws = tmp_path / "ws"
    assert not (ws / "made.txt").exists() and not (ws / "w.txt").exists()
    child = model.by_prompt["try to write"]
    first, second = (
        [b for b in r.messages[-1].content if isinstance(b, ToolResultBlock)][0] for r in child[1:3]
    )
    assert first.is_error  # plan mode (Explore's) refuses a command that writes
    assert second.is_error and "not available to the Explore agent" in str(second.content)
    assert session.history[-1].text == "ok"


async def test_an_unknown_agent_type_is_an_error_result_naming_the_types(tmp_path: Path) -> None:
    model = TreeModel({"go": [assistant(agent_call("p1", "Nope", "x")), "ok"]})
    session, _ = tree_session(tmp_path, model)
    session.submit(ops.SubmitPrompt("go"))
    await session.wait_idle()
    (result,) = results(session)
    assert result.is_error and "general-purpose, Explore, Plan" in str(result.content)
