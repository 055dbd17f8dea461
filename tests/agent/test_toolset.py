"""The tool set (agent/turn/toolset.py): one owner of what a call finds and what a request offers,
whose parameters stay the same list (the same bytes) until the set really changes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agent.turn.toolset import ToolSet, tool_param


@dataclass
class Fake:
    name: str
    description: str = "a tool"
    input_schema: dict[str, Any] = field(default_factory=lambda: {"type": "object"})
    read_only: bool = True


SERVER = {"type": "web_search_20250305", "name": "web_search"}


def names(params: list[dict[str, Any]]) -> list[str]:
    return [p["name"] for p in params]


def test_the_request_offers_tools_then_server_tools_then_groups_sorted() -> None:
    tools = ToolSet([Fake("Read"), Fake("Bash")], [SERVER])
    tools.set_group("mcp", [Fake("mcp__b__x"), Fake("mcp__a__y")])
    assert names(tools.params()) == ["Read", "Bash", "web_search", "mcp__a__y", "mcp__b__x"]


def test_the_params_are_the_same_list_until_the_offer_changes() -> None:
    tools = ToolSet([Fake("Read")])
    first = tools.params()
    assert tools.params() is first
    assert tools.set_group("mcp", [Fake("mcp__a__y")]) is True
    second = tools.params()
    assert second is not first and names(second) == ["Read", "mcp__a__y"]
    # the same offer again (a refresh that found nothing new): nothing changes
    assert tools.set_group("mcp", [Fake("mcp__a__y")]) is False
    assert tools.params() is second


def test_known_tools_are_callable_but_not_offered() -> None:
    tools = ToolSet([Fake("Read")])
    down = Fake("mcp__down__t")
    assert tools.set_group("mcp", [], known=[down]) is False  # nothing offered changed
    assert tools.get("mcp__down__t") is down
    assert names(tools.params()) == ["Read"]
    assert "mcp__down__t" in tools.names()


def test_a_replaced_tool_keeps_its_place_and_an_alias_finds_it() -> None:
    tools = ToolSet([Fake("Read"), Fake("Agent"), Fake("Bash")])
    new = Fake("Agent", description="lists the agent types")
    tools.put(new)
    tools.alias("Task", "Agent")
    assert names(tools.params()) == ["Read", "Agent", "Bash"]
    assert tools.params()[1] == tool_param(new)
    assert tools.get("Task") is new and "Task" not in names(tools.params())


def test_a_subset_offers_only_what_it_names_and_calls_the_rest() -> None:
    tools = ToolSet([Fake("Read"), Fake("Bash"), Fake("Agent")], [SERVER])
    tools.alias("Task", "Agent")
    tools.set_group("mcp", [Fake("mcp__a__y")])
    wrapped: list[str] = []

    def wrap(tool: Fake) -> Fake:
        wrapped.append(tool.name)
        return tool

    child = tools.subset(frozenset({"Read", "mcp__a__y"}), wrap)
    assert names(child.params()) == ["Read", "mcp__a__y"]  # no server tools for a child
    assert child.get("Bash") is not None and child.get("Task") is not None
    assert sorted(wrapped) == ["Agent", "Bash", "Read", "mcp__a__y"]
