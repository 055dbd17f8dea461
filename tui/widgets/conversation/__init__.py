"""The conversation's widgets: prompts, answers, thinking, tool calls, diffs, permission
questions."""
