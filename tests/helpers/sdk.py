"""The HTTP library the installed anthropic SDK talks through (``httpx2`` from 2.0, ``httpx``
before): tests that expect its exceptions take them from here."""

from __future__ import annotations

from types import ModuleType

import anthropic._base_client as _base


def sdk_http() -> ModuleType:
    """The module (httpx2 or httpx) whose client the SDK uses."""
    module: ModuleType = getattr(_base, "httpx2", None) or _base.httpx  # type: ignore[attr-defined]
    return module
