"""A child asks the session's user through the same gate (tagged with the agent, answered by
the same op), under the parent's rules; its permissionMode can only narrow the parent's."""

from __future__ import annotations

from pathlib import Path

from agent import events as ev
from agent import ops
from agent.messages import ToolResultBlock, assistant
from agent.subagents.child import narrower
from agent.subagents.definitions import load_agents
from plain.render import Renderer
from plain.style import Painter
from tests.fakes.scripted import tool_call
from tests.helpers.subagents import TreeModel, tree_session


def write_agent(ws: Path, name: str, mode: str) -> None:
    folder = ws / ".claude" / "agents"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.md").write_text(
        f"---\nname: {name}\ndescription: writes\npermissionMode: {mode}\n---\nWrite files.\n"
    )


def script(kind: str) -> dict[str, list]:
    call = tool_call("p1", "Agent", description="w", prompt="write it", subagent_type=kind)
    return {
        "go": [assistant(call), "parent done"],
        "write it": [
            assistant(tool_call("w1", "Write", file_path="out.txt", content="hi\n")),
            "wrote",
        ],
    }


async def test_a_childs_question_reaches_the_user_tagged_and_the_answer_runs_it(
    tmp_path: Path,
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    write_agent(ws, "wider", "bypassPermissions")  # cannot widen the parent's default mode
    model = TreeModel(script("wider"))
    catalog = load_agents(ws, home=tmp_path / "home", config=tmp_path / "cfg")
    session, events = tree_session(tmp_path, model, mode="default", catalog=catalog)
    session.submit(ops.SubmitPrompt("go"))
    asked = await events.wait_for(ev.PermissionRequested)
    assert asked.name == "Write" and asked.call_id == "w1"
    assert asked.agent.endswith("(wider)") and asked.turn_id == 1
    assert (
        Renderer(Painter(False))
        .permission(asked)[0]
        .startswith(f"? Write needs your permission (asked by the agent {asked.agent}):")
    )
    session.submit(ops.AnswerPermission(asked.request_id, "allow"))
    await session.wait_idle()
    assert (ws / "out.txt").read_text() == "hi\n"
    result = model.by_prompt["write it"][1].messages[-1].content[0]
    assert isinstance(result, ToolResultBlock) and not result.is_error
    assert session.history[-1].text == "parent done"


async def test_a_child_in_plan_mode_cannot_write_under_a_bypassing_parent(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    write_agent(ws, "planner", "plan")
    model = TreeModel(script("planner"))
    catalog = load_agents(ws, home=tmp_path / "home", config=tmp_path / "cfg")
    session, events = tree_session(tmp_path, model, mode="bypassPermissions", catalog=catalog)
    session.submit(ops.SubmitPrompt("go"))
    await session.wait_idle()
    assert not (ws / "out.txt").exists() and not events.of(ev.PermissionRequested)
    result = model.by_prompt["write it"][1].messages[-1].content[0]
    assert isinstance(result, ToolResultBlock) and result.is_error


def test_a_childs_mode_is_the_narrower_of_its_own_and_its_parents() -> None:
    assert narrower("default", "bypassPermissions") == "default"
    assert narrower("default", "acceptEdits") == "default"
    assert narrower("bypassPermissions", "plan") == "plan"
    assert narrower("acceptEdits", "default") == "default"
    assert narrower("plan", None) == "plan"
