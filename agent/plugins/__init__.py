"""Plugins as Claude Code defines them: a directory bundling commands, agents, skills, hooks,
MCP servers and output styles, installed from marketplaces and switched on by settings.

- ``plugin``: one plugin directory: the optional manifest, the default and declared
  component places, ``${CLAUDE_PLUGIN_ROOT}``, what eddy does not support.
- ``registry``: which plugins a session loads: installed (Claude Code's and eddy's
  registries), ``enabledPlugins``, ``--plugin-dir``, skills-folder plugins.
- ``parts``: their hooks and MCP servers in the forms the existing loaders read.
- ``grants``: what a project's plugins grant, for the trust question
  (agent/settings/grants.py lists them with the project's own).
- ``marketplace``: marketplaces (a local directory, a git repository) and their catalogs.

Reading only: installing, switching and removing them edits the settings files, and is the
settings layer's (agent/settings/plugins.py: ``/plugin`` and ``eddy plugin``). The front door
(agent/open.py) composes them: it loads the session's plugins and hands each part to the
loader that reads the workspace's own.
"""
