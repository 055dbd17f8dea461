"""The MCP SDK's client side without its server side, for eddy's MCP host process.

``import mcp`` runs the package's ``__init__``, which imports the SDK's client and its server:
``mcp.client.client`` takes ``Server``, ``MCPServer`` and ``modern_on_request`` from the server
side at module level (to connect a client to a server object in the same process, as the SDK's
own tests do), and re-exports from ``mcp.server`` follow. On a 2-core machine the server side
is a sixth to a quarter of the import (0.2-0.3 s of 1.1-1.4 s), and the import is most of
what ``eddy -p`` waits for before its first request when it has MCP servers
(``bench_mcp.py``).

The host (:mod:`agent.mcp.host`) reaches its servers through transports only: no server object
is made or received in its process. There, :class:`ServerShells` makes the three server
modules the client imports by name shells: a shell's submodules import as usual (it has the
real package's path), and a name taken from it is a stand-in class of which no object is an
instance (none can be: the real class was never imported) and which cannot be called. If the
SDK's import fails with the shells (a later SDK using one of those names in a way a stand-in
cannot serve), the shells go and the SDK is imported whole: slower, never wrong.

eddy's own process imports the SDK whole: a test there may run a server object in process.
"""

from __future__ import annotations

import importlib.machinery
import sys
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any, ClassVar

SERVER_SIDE = ("mcp.server", "mcp.server.mcpserver", "mcp.server.runner")
"""The SDK's server modules its client imports names from at module level."""


class StandIn(type):
    """The class of a stand-in for a server-side name: no object is its instance."""

    def __instancecheck__(cls, obj: object) -> bool:
        return False

    def __subclasscheck__(cls, sub: type) -> bool:
        return sub is cls

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(
            f"{cls.__module__}.{cls.__qualname__} is not loaded: eddy's MCP host imports the "
            "MCP SDK without its server side"
        )

    def __getitem__(cls, item: Any) -> StandIn:  # ``Server[Any]`` in an evaluated annotation
        return cls


def stand_in(module: str, name: str) -> StandIn:
    """A stand-in for ``module.name``."""
    return StandIn(name, (), {"__module__": module, "__qualname__": name})


class _Shell:
    """The loader of a shell module: its names are stand-ins, made once each (not an
    ``importlib.abc.Loader``: that module's import alone is ~17 ms, before the SDK's)."""

    def __init__(self, make: Callable[[str, str], Any]) -> None:
        self._make = make

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return None

    def exec_module(self, module: ModuleType) -> None:
        made: dict[str, Any] = {}
        make, name = self._make, module.__name__

        def __getattr__(attr: str) -> Any:
            if attr.startswith("__"):
                raise AttributeError(attr)
            if attr not in made:
                made[attr] = make(name, attr)
            return made[attr]

        module.__getattr__ = __getattr__  # type: ignore[method-assign]


class ServerShells:
    """A finder, first on ``sys.meta_path`` while installed, that loads ``names`` as shells.

    Args:
        names: the modules to load as shells.
        make: makes the stand-in for a name (a test's can fail, to see the fallback).
    """

    installed: ClassVar[ServerShells | None] = None
    """The shells installed in this process (the MCP host's), if any."""

    def __init__(
        self,
        names: Sequence[str] = SERVER_SIDE,
        make: Callable[[str, str], Any] = stand_in,
    ) -> None:
        self._names = frozenset(names)
        self._loader = _Shell(make)

    def find_spec(
        self, name: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if name not in self._names:
            return None
        real = importlib.machinery.PathFinder.find_spec(name, path)
        if real is None:
            return None
        package = real.submodule_search_locations
        loader: Any = self._loader
        spec = importlib.machinery.ModuleSpec(name, loader, is_package=package is not None)
        if package is not None:
            spec.submodule_search_locations = list(package)
        return spec

    def install(self) -> ServerShells:
        sys.meta_path.insert(0, self)
        ServerShells.installed = self
        return self

    def remove(self) -> None:
        """Stop making shells and forget those made: the next import of one is the real one
        (modules that took a stand-in keep it: they are never given a server object)."""
        if self in sys.meta_path:
            sys.meta_path.remove(self)
        for name in self._names:
            module = sys.modules.get(name)
            if module is not None and getattr(module, "__loader__", None) is self._loader:
                del sys.modules[name]


def import_sdk(load: Callable[[], None]) -> None:
    """Run ``load`` (an import of the SDK); if it fails where shells were installed, remove
    them and run it again. Every import of the SDK goes through here (``load_sdk``), so a
    thread that imports it beside the first one (a connection's) falls back alike.

    Raises:
        Exception: what ``load`` raised without shells (ImportError: no SDK).
    """
    try:
        load()
    except Exception:
        shells = ServerShells.installed
        if shells is None:
            raise
        shells.remove()
        load()
