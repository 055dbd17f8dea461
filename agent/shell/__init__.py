"""agent.shell."""
