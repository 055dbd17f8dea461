"""Lazy re-exports for the packages' ``__init__`` (PEP 562): ``from agent.session import
Session`` works without ``import agent`` loading every package, which start-up would pay for."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any


def exports(package: str, names: dict[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` that imports ``names[attr]`` (a module path) on first use."""

    def __getattr__(attr: str) -> Any:
        module = names.get(attr)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {attr!r}")
        return getattr(importlib.import_module(module), attr)

    return __getattr__
