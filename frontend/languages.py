"""Languages both UIs highlight ahead of the first answer (their pygments lexers compile on first
use, 2-20 ms each): names only, so the line mode does not import the TUI for them."""

COMMON_LANGUAGES = ("python", "bash", "diff", "javascript", "typescript", "rust", "go")
"""Languages whose lexers are compiled ahead: the first code block of each cost 2-20 ms."""
