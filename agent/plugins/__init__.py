"""Plugins as Claude Code defines them: a directory bundling commands, agents, skills, hooks,
MCP servers and output styles, installed from marketplaces and switched on by settings.

- ``plugin``: one plugin directory: the optional manifest, the default and declared
  component places, ``${CLAUDE_PLUGIN_ROOT}``, what eddy does not support.
- ``registry``: which plugins a session loads: installed (Claude Code's and eddy's
  registries), ``enabledPlugins``, ``--plugin-dir``, skills-folder plugins.
- ``parts``: their hooks and MCP servers in the forms the existing loaders read.
- ``grants``: what a project's plugins grant, for the trust question.
- ``marketplace``: marketplaces (a local directory, a git repository) and their catalogs.
- ``manage``: install, uninstall, enable, disable; marketplaces add, remove, update
  (``/plugin`` and ``eddy plugin``).

The front door (agent/open.py) composes them: it loads the session's plugins and hands each
part to the loader that reads the workspace's own.
"""

from agent.plugins.grants import PluginGrant, plugin_grants
from agent.plugins.plugin import Plugin, read_plugin
from agent.plugins.registry import PluginSet, load_plugins

__all__ = ["Plugin", "PluginGrant", "PluginSet", "load_plugins", "plugin_grants", "read_plugin"]
