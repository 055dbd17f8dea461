"""The prompt's widgets: the input, its completion menu, the queue and the status line."""
