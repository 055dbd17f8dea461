"""The tools of a session (or of a subagent): one owner of what a call's name finds and of
what each request offers.

A tool is *callable* when a call naming it reaches it (the runner finds it here), and
*offered* when the request's ``tools`` lists it. Most tools are both. Some are callable
without being offered: an alias kept for old transcripts (``Task`` for ``Agent``), the last
known tools of an MCP server that went down (a call says the server is down, not that no such
tool exists), a subagent's parent tools outside its filter (its gate refuses them by name).

The request's ``tools`` list (:meth:`ToolSet.params`) is built once and handed out as the same
list object until the set changes, so its bytes stay identical between calls (the prompt
cache). Its order: the tools added one by one, in the order they were added (a replaced tool
keeps its place), then the server tools (run by the API), then each group (MCP) sorted by
name, groups in the order they were first set.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from tools.base import Tool


def tool_param(tool: Tool) -> dict[str, Any]:
    """The tool as the API's ``tools`` entry."""
    return {"name": tool.name, "description": tool.description, "input_schema": tool.input_schema}


class ToolSet:
    """Name -> tool, and the API parameters of the offered ones.

    Args:
        tools: the tools, offered, in this order.
        server_tools: tools the API runs itself (their parameters as sent), after them.
    """

    def __init__(
        self, tools: Iterable[Tool] = (), server_tools: Sequence[dict[str, Any]] = ()
    ) -> None:
        self._tools: dict[str, Tool] = {}
        self._offered: set[str] = set()
        self._aliases: dict[str, str] = {}
        self._groups: dict[str, dict[str, tuple[Tool, bool]]] = {}
        self._server = [dict(p) for p in server_tools]
        self._params: list[dict[str, Any]] | None = None
        for tool in tools:
            self.put(tool)

    # -- what a call finds ----------------------------------------------------------------
    def get(self, name: str) -> Tool | None:
        """The tool a call of ``name`` runs, or None (no such tool)."""
        tool = self._tools.get(name)
        if tool is not None:
            return tool
        for group in self._groups.values():
            entry = group.get(name)
            if entry is not None:
                return entry[0]
        target = self._aliases.get(name)
        return self.get(target) if target is not None else None

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.get(name) is not None

    def names(self) -> list[str]:
        """Every callable name, aliases included, sorted (for "no such tool" messages)."""
        names = {*self._tools, *self._aliases}
        for group in self._groups.values():
            names.update(group)
        return sorted(names)

    def tools(self) -> list[Tool]:
        """Every callable tool once (no aliases), in the request's order."""
        out = list(self._tools.values())
        for group in self._groups.values():
            out += [tool for tool, _ in group.values()]
        return out

    def __iter__(self) -> Iterator[Tool]:
        return iter(self.tools())

    def offered_names(self) -> frozenset[str]:
        """The names the request offers (server tools aside)."""
        names = set(self._offered)
        for group in self._groups.values():
            names.update(n for n, (_, offered) in group.items() if offered)
        return frozenset(names)

    # -- changes --------------------------------------------------------------------------
    def put(self, tool: Tool, *, offered: bool = True) -> None:
        """Add ``tool``, or replace the tool of that name where it stands."""
        self._tools[tool.name] = tool
        if offered:
            self._offered.add(tool.name)
        else:
            self._offered.discard(tool.name)
        self._params = None

    def alias(self, name: str, target: str) -> None:
        """Let a call of ``name`` run ``target`` (never offered under ``name``)."""
        self._aliases[name] = target

    def set_group(self, group: str, offered: Sequence[Tool], known: Sequence[Tool] = ()) -> bool:
        """Replace the tools of ``group`` (an MCP manager's): ``offered`` are offered,
        ``known`` only callable. True if what the request offers changed."""
        entries: dict[str, tuple[Tool, bool]] = {}
        for tool in sorted(known, key=lambda t: t.name):
            entries[tool.name] = (tool, False)
        for tool in sorted(offered, key=lambda t: t.name):
            entries[tool.name] = (tool, True)
        before = self._groups.get(group, {})
        old = [tool_param(t) for n, (t, o) in sorted(before.items()) if o]
        new = [tool_param(t) for n, (t, o) in sorted(entries.items()) if o]
        self._groups[group] = dict(sorted(entries.items()))
        if old == new:
            return False
        self._params = None
        return True

    # -- what the request sends -----------------------------------------------------------
    def params(self) -> list[dict[str, Any]]:
        """The request's ``tools``: the same list object until the set changes."""
        if self._params is None:
            out = [tool_param(t) for n, t in self._tools.items() if n in self._offered]
            out += self._server
            for group in self._groups.values():
                out += [tool_param(t) for t, offered in group.values() if offered]
            self._params = out
        return self._params

    def subset(self, offered: frozenset[str], wrap: Any = None) -> ToolSet:
        """A set with every tool of this one callable, ``offered`` offered (a subagent's:
        its gate refuses the rest by name), each tool passed through ``wrap`` if given;
        aliases kept; no server tools, no groups (their tools join as plain tools)."""
        child = ToolSet()
        for tool in self.tools():
            t = wrap(tool) if wrap is not None else tool
            child.put(t, offered=tool.name in offered)
        for name, target in self._aliases.items():
            child.alias(name, target)
        return child
