"""A front end's answer to each engine event, as data: event type -> handler.

A consumer of the whole event stream (the line mode's renderer, the status model, the
stream-json writer) names every member of :data:`agent.events.Event`: a handler for those it
acts on, and the types it lets pass on purpose. The table is checked when it is built, so a
new event that a consumer does not name fails at import (every test that touches the
consumer), as a ``match`` ending in ``assert_never`` fails mypy.
"""

from __future__ import annotations

import typing
from collections.abc import Iterable, Mapping
from typing import Generic, TypeVar

from agent import events as ev

H = TypeVar("H")

EVENT_CLASSES: frozenset[type[ev.Event]] = frozenset(typing.get_args(ev.Event))
"""Every member of the ``Event`` union."""


class EventTable(Generic[H]):
    """Each event type's handler, and the event types that have none on purpose.

    Args:
        owner: who consumes the events (named in the error).
        handlers: the handler of each event type acted on.
        ignored: the event types let pass.

    Raises:
        TypeError: a member of the ``Event`` union is neither handled nor ignored, a type is
            both, or a key is no event type.
    """

    def __init__(
        self, owner: str, handlers: Mapping[type[ev.Event], H], ignored: Iterable[type[ev.Event]]
    ) -> None:
        self.owner = owner
        self.handlers: dict[type[ev.Event], H] = dict(handlers)
        self.ignored = frozenset(ignored)
        named = self.handlers.keys() | self.ignored
        problems = [
            *(f"{c.__name__} is not handled" for c in EVENT_CLASSES - named),
            *(f"{c.__name__} is handled and ignored" for c in self.handlers.keys() & self.ignored),
            *(f"{c!r} is no event" for c in named - EVENT_CLASSES),
        ]
        if problems:
            raise TypeError(f"{owner}'s event table: {'; '.join(sorted(problems))}")

    def get(self, event: ev.Event) -> H | None:
        """The handler of ``event``'s type; None for a type let pass."""
        return self.handlers.get(type(event))
