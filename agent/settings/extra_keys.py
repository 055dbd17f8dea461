"""Top-level settings keys beyond permissions and model: ``env``, ``respectGitignore``,
``cleanupPeriodDays``, ``apiKeyHelper`` (checked and merged into ``Settings``), ``sandbox``
(merged per key into ``Settings.extra``); every other key is kept as it is in
``Settings.extra`` for the feature that reads it (hooks, statusLine, outputStyle ...). What a
project's files may set of them is decided before (:mod:`agent.settings.withhold`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agent.settings.files import Settings, SettingsSource

_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


Bad = Callable[[str, str], None]
"""Reports a problem with a key (``bad(key, text)``; the file is named by it)."""


def merge_key(
    settings: Settings,
    key: str,
    value: Any,
    source: SettingsSource,
    bad: Bad,
) -> bool:
    """Merge one top-level key of one file into ``settings``.

    Args:
        settings: the settings being merged (lower files already in).
        key, value: the key and its JSON value.
        source: the file it comes from.
        bad: reports a problem with ``key`` (the file is named by it).

    Returns:
        Whether the value belongs in ``settings.extra`` too (False when it was invalid).
    """
    merge = _MERGERS.get(key)
    return True if merge is None else merge(settings, value, source, bad)


def _env(settings: Settings, value: Any, _source: SettingsSource, bad: Bad) -> bool:
    if not isinstance(value, dict):
        bad("env", "expected an object of variable names and string values; ignored.")
        return False
    for name, text in value.items():
        if not _ENV_NAME.fullmatch(name):
            bad(f"env.{name}", "not a variable name; skipped.")
        elif isinstance(text, bool) or not isinstance(text, (str, int, float)):
            bad(f"env.{name}", "expected a string; skipped.")
        else:  # a project's names were limited before (agent/settings/withhold.py)
            settings.env[name] = str(text)
    return True


def _respect_gitignore(settings: Settings, value: Any, _source: SettingsSource, bad: Bad) -> bool:
    if isinstance(value, bool):
        settings.respect_gitignore = value
        return True
    bad("respectGitignore", "expected true or false; ignored.")
    return False


def _cleanup_period(settings: Settings, value: Any, _source: SettingsSource, bad: Bad) -> bool:
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        settings.cleanup_period_days = value
        return True
    bad("cleanupPeriodDays", "expected a whole number of days (0 or more); ignored.")
    return False


def _api_key_helper(settings: Settings, value: Any, source: SettingsSource, bad: Bad) -> bool:
    if not isinstance(value, str) or not value.strip():
        bad("apiKeyHelper", "expected a command line; ignored.")
        return False
    settings.api_key_helper = (value.strip(), source.label)  # a project's: approved
    return True


def _sandbox(settings: Settings, value: Any, _source: SettingsSource, bad: Bad) -> bool:
    if not isinstance(value, dict):
        bad("sandbox", "expected an object; ignored.")
        return False
    merged = settings.extra.setdefault("sandbox", {})
    for name, item in value.items():  # per key, so a file overrides only what it sets
        if isinstance(item, dict) and isinstance(merged.get(name), dict):
            merged[name] = {**merged[name], **item}
        else:
            merged[name] = item
    return False


_MERGERS: dict[str, Callable[[Settings, Any, SettingsSource, Bad], bool]] = {
    "env": _env,
    "respectGitignore": _respect_gitignore,
    "cleanupPeriodDays": _cleanup_period,
    "apiKeyHelper": _api_key_helper,
    "sandbox": _sandbox,
}
"""How each checked key merges into ``Settings``; whether it belongs in ``extra`` too."""
