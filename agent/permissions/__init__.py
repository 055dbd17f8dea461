"""agent.permissions.policy."""
