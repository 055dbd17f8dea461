"""What the quitting keys do, the same in every front end (as in Claude Code): Ctrl+C stops a
running turn, else clears the typed text, else, pressed twice on an empty prompt within
``CTRL_C_WINDOW`` seconds, quits; Ctrl+D on an empty prompt quits."""

from __future__ import annotations

CTRL_C_WINDOW = 3.0
"""Seconds within which a second Ctrl+C at an empty, idle prompt quits."""
CTRL_C_AGAIN = "Press Ctrl+C again to exit (or Ctrl+D)."
"""What the first Ctrl+C on an empty, idle prompt says."""
