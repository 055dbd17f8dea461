"""``/plugin`` (every front end) and ``eddy plugin`` (the command line): Claude Code's plugin
commands over agent/settings/plugins.py, one parser for both.

    /plugin                                  installed plugins, this session's, marketplaces
    /plugin install NAME[@MARKETPLACE] [SCOPE]   (SCOPE: user, project or local; --scope too)
    /plugin uninstall NAME [SCOPE]           (also: remove, rm)
    /plugin enable NAME [SCOPE] / disable NAME [SCOPE]
    /plugin validate DIR                     read a plugin directory, say what is wrong
    /plugin marketplace add SOURCE [SCOPE]   (a directory, a git URL, owner/repo)
    /plugin marketplace list | remove NAME | update [NAME]
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from agent.plugins.plugin import Plugin

USAGE = (
    "Usage: /plugin [list] | install NAME[@MARKETPLACE] [user|project|local] | uninstall NAME"
    " | enable NAME | disable NAME | validate DIR | marketplace add SOURCE | marketplace list"
    " | marketplace remove NAME | marketplace update [NAME]"
)

Said = list[tuple[str, str]]
"""Lines to show, each with its kind (``hint``, ``error``)."""


def _scope(words: list[str]) -> tuple[list[str], str | None]:
    """The words without a scope (``--scope X``, ``-s X`` or a trailing scope word)."""
    scope = None
    rest = []
    i = 0
    while i < len(words):
        if words[i] in ("--scope", "-s") and i + 1 < len(words):
            scope = words[i + 1]
            i += 2
            continue
        rest.append(words[i])
        i += 1
    if scope is None and len(rest) > 1 and rest[-1] in ("user", "project", "local"):
        scope = rest.pop()
    return rest, scope


def plugin_command(workspace: Path, arg: str, loaded: Sequence[Plugin] | None = None) -> Said:
    """Run ``/plugin arg`` in ``workspace``; what to say (never raises for a user's mistake).

    Args:
        workspace: the project.
        arg: the words after ``/plugin``.
        loaded: the session's plugins, listed as this session's (None: no session).
    """
    from agent.plugins.marketplace import PluginError
    from agent.settings import plugins as manage

    words, scope = _scope(arg.split())
    words = words or ["list"]
    verb = words[0]
    try:
        if verb == "list" and len(words) == 1:
            return [("\n".join(manage.listing(workspace, loaded)), "hint")]
        if verb == "install" and len(words) == 2:
            return [(manage.install(workspace, words[1], scope or "user"), "hint")]
        if verb in ("uninstall", "remove", "rm") and len(words) == 2:
            return [(manage.uninstall(workspace, words[1], scope), "hint")]
        if verb in ("enable", "disable") and len(words) == 2:
            return [(manage.set_enabled(workspace, words[1], verb == "enable", scope), "hint")]
        if verb == "validate" and len(words) == 2:
            return validate(workspace / Path(words[1]).expanduser())
        if verb == "marketplace" and len(words) >= 2:
            return _marketplace(workspace, words[1:], scope)
    except PluginError as exc:
        return [(f"/plugin {verb}: {exc}", "error")]
    return [(USAGE, "error")]


def _marketplace(workspace: Path, words: list[str], scope: str | None) -> Said:
    from agent.settings import plugins as manage

    verb = words[0]
    if verb == "add" and len(words) == 2:
        return [(manage.add_marketplace(workspace, words[1], scope or "user"), "hint")]
    if verb in ("remove", "rm") and len(words) == 2:
        return [(manage.remove_marketplace(workspace, words[1]), "hint")]
    if verb == "update" and len(words) <= 2:
        name = words[1] if len(words) == 2 else None
        return [("\n".join(manage.update_marketplaces(workspace, name)), "hint")]
    if verb == "list" and len(words) == 1:
        lines = manage.listing(workspace)
        start = lines.index("Marketplaces:")
        return [("\n".join(lines[start:]), "hint")]
    return [(USAGE, "error")]


def validate(root: Path) -> Said:
    """``/plugin validate DIR``: read the plugin, say what is wrong and what eddy leaves out."""
    from agent.plugins.plugin import read_plugin
    from agent.plugins.registry import PluginSet

    plugin = read_plugin(root.resolve(), f"{root.name}@inline")
    found = PluginSet()
    found.add(plugin)
    messages = found.messages()
    if plugin.failed:
        return [("\n".join(messages), "error")]
    parts = [
        f"{len(plugin.commands)} command place(s)",
        f"{len(plugin.skills)} skill folder(s)",
        f"{len(plugin.agents)} agent place(s)",
        f"{len(plugin.hooks)} hook file(s)",
        f"{len(plugin.mcp_servers)} MCP server(s)",
        f"{len(plugin.styles)} output style place(s)",
    ]
    head = f"Plugin {plugin.name} {plugin.version or ''}".rstrip() + ": " + ", ".join(parts) + "."
    return [(head, "hint"), *[(m, "error") for m in messages]]
