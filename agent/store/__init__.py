"""agent.store.transcript."""
