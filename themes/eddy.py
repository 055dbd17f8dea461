"""The three built-in themes: dark, light and high contrast.

The TCSS of the app uses only the variables these define (``$primary``, ``$error``, ...), plus
four of eddy's own: ``$diff-added`` / ``$diff-removed`` (diff line backgrounds) and ``$hint``
(cyan hints) and ``$dim-text`` (secondary text). Secondary text is dim, errors red, additions
green, hints cyan.
"""

from __future__ import annotations

from textual.theme import Theme

DARK = Theme(
    name="eddy-dark",
    primary="#D97757",
    secondary="#8A9BB0",
    accent="#5FB3B3",
    warning="#E5C07B",
    error="#E06C75",
    success="#98C379",
    foreground="#E6E6E6",
    background="#1A1A1A",
    surface="#222222",
    panel="#2C2C2C",
    dark=True,
    variables={
        "diff-added": "#2B4A2B",
        "diff-removed": "#4F2A2D",
        "hint": "#56B6C2",
        "dim-text": "#8C8C8C",
        "footer-key-foreground": "#D97757",
    },
)
"""The default: warm orange primary on near-black."""

LIGHT = Theme(
    name="eddy-light",
    primary="#B4532F",
    secondary="#4F6275",
    accent="#1F7A7A",
    warning="#8A6D00",
    error="#C0392B",
    success="#2E7D32",
    foreground="#1F1F1F",
    background="#FAFAF7",
    surface="#F0EFEA",
    panel="#E6E4DC",
    dark=False,
    variables={
        "diff-added": "#D5F0D5",
        "diff-removed": "#F7D7D4",
        "hint": "#00796B",
        "dim-text": "#6B6B6B",
        "footer-key-foreground": "#B4532F",
    },
)
"""For light terminals."""

HIGH_CONTRAST = Theme(
    name="eddy-high-contrast",
    primary="#FFFF00",
    secondary="#FFFFFF",
    accent="#00FFFF",
    warning="#FFFF00",
    error="#FF5555",
    success="#55FF55",
    foreground="#FFFFFF",
    background="#000000",
    surface="#000000",
    panel="#000000",
    dark=True,
    luminosity_spread=0.0,
    text_alpha=1.0,
    variables={
        "diff-added": "#003300",
        "diff-removed": "#330000",
        "hint": "#00FFFF",
        "dim-text": "#C0C0C0",
        "footer-key-foreground": "#FFFF00",
    },
)
"""Pure black and white with saturated accents; also the theme under NO_COLOR."""

THEMES: tuple[Theme, ...] = (DARK, LIGHT, HIGH_CONTRAST)
