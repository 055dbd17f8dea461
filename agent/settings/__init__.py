"""agent.settings.files."""
