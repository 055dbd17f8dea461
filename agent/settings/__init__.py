"""Settings files, rule editing, trusted folders and the plugins switched on.

- files.py: the settings files (user, project, local), merged: ``load_settings``, ``build_policy``.
- sources.py: where the settings files are (per scope, eddy's and Claude Code's; managed).
- extra_keys.py: the top-level keys beyond permissions and model (``env``, ``apiKeyHelper``, ...).
- located.py: JSON whose strings remember their line (for messages and ``/permissions why``).
- apply.py: what the merged settings change in the process at start-up.
- edit.py: writing permission rules into them ("yes, don't ask again").
- rule_editor.py: the /permissions editor and its text commands.
- grants.py: what a project's own files grant, per kind (for the trust question).
- trust.py: trusted folders and the approved grants (a project's files steer eddy only once
  the user said yes to what they grant, as it is now).
- withhold.py: what a project's settings file may not do until approved; its env allow-list.
- plugins.py: installing, switching and removing plugins and marketplaces (``enabledPlugins``,
  ``extraKnownMarketplaces``, eddy's plugin registry): ``/plugin`` and ``eddy plugin``.
"""
