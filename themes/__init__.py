"""eddy's colour themes: Textual ``Theme`` objects (data only; see ``themes/eddy.py``)."""

from __future__ import annotations

from themes.eddy import DARK, HIGH_CONTRAST, LIGHT, THEMES

DEFAULT_THEME = DARK.name
"""The theme used when the user has not chosen one."""

MONOCHROME_THEME = HIGH_CONTRAST.name
"""The theme used when NO_COLOR is set (Textual also drops every colour then)."""

__all__ = ["DARK", "LIGHT", "HIGH_CONTRAST", "THEMES", "DEFAULT_THEME", "MONOCHROME_THEME"]
