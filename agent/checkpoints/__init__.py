"""agent.checkpoints.engine."""
