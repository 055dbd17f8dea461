"""agent.session.core."""
