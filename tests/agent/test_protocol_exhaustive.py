"""Every consumer of events handles the whole union, and mypy or the consumer's table proves it.

Three checks: each dispatcher accepts every member of ``Event`` (built with neutral values);
mypy, run on a copy of the code whose ``Event`` union has one member more (and ``Op`` one
more), reports the ``assert_never`` of every consumer that is a ``match`` (the TUI's router,
headless output, the ACP updates, the session's dispatcher); and a consumer that is an event
table (``frontend.event_table``: the line mode's renderer, the status model, the stream-json
writer) cannot be built without an entry for every member, each handler taking the event
type it is the entry of. So a new event (or op) cannot be ignored silently.
"""

from __future__ import annotations

import dataclasses
import re
import shutil
import subprocess
import sys
import typing
from pathlib import Path
from typing import Any

import pytest

from acp_agent.updates import UpdateMapper
from agent import events as ev
from frontend.event_table import EVENT_CLASSES, EventTable
from frontend.status import StatusModel
from headless.claude_stream import ClaudeStream
from headless.run import stderr_line
from plain.render import Renderer
from plain.status import Status
from plain.style import Painter

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("agent", "tools", "frontend", "headless", "plain", "tui", "themes", "acp_agent")
EVENT_CONSUMERS = (
    "headless/run.py",
    "tui/screens/main_events.py",
    "acp_agent/updates.py",
)
OP_CONSUMERS = ("agent/session/core.py",)
EVENT_TABLES: tuple[EventTable[Any], ...] = (
    Renderer.HANDLERS,
    StatusModel.HANDLERS,
    ClaudeStream.HANDLERS,
)
NOT_NEVER = 'Argument 1 to "assert_never" has incompatible type'
NEUTRAL: dict[str, Any] = {
    "int": 0,
    "str": "",
    "bool": False,
    "float": 0.0,
    "ToolStatus": "done",
    "TurnSubtype": "success",
}


def neutral(field: dataclasses.Field[Any]) -> Any:
    """A harmless value for a field without a default (annotations are strings here)."""
    kind = str(field.type)
    if kind in NEUTRAL:
        return NEUTRAL[kind]
    if kind.startswith("tuple"):
        return ()
    if kind.startswith("dict"):
        return {}
    if kind.startswith("str | list"):
        return ""
    if kind.endswith("| None"):
        return None
    if kind.startswith("Literal["):  # the first of the values it allows
        return kind.removeprefix("Literal[").split(",")[0].strip(" ]'\"")
    raise AssertionError(f"no neutral value for {field.name}: {kind}")


def every_event() -> list[ev.Event]:
    """One instance of each member of the ``Event`` union."""
    made = []
    for cls in typing.get_args(ev.Event):
        required = {
            f.name: neutral(f)
            for f in dataclasses.fields(cls)
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
        }
        made.append(cls(**required))
    return made


def test_every_dispatcher_accepts_every_member_of_the_union() -> None:
    events = every_event()
    assert len(events) == len(typing.get_args(ev.Event)) >= 23
    renderer, status = Renderer(Painter(False)), Status("", "")
    acp_updates = UpdateMapper(Path.cwd())
    for event in events:
        assert isinstance(acp_updates.updates(event), list)
        assert isinstance(renderer.render(event), list)
        status.follow(event)
        assert stderr_line(event, "text") is None or isinstance(event, ev.Error)


def with_probe(source: str, union: str, probe: str) -> str:
    """``source`` with class ``probe`` defined and added to the union named ``union``."""
    head = f"{union} = (\n"
    assert head in source, union
    fields = '    turn_id: int = 0\n    type: str = "probe"\n'
    extra = f"@dataclass(frozen=True)\nclass {probe}:\n{fields}\n\n"
    return source.replace(head, f"{extra}{head}    {probe}\n    | ", 1)


def test_mypy_fails_where_a_new_event_or_op_is_not_handled(tmp_path: Path) -> None:
    for name in PACKAGES:
        ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
        shutil.copytree(ROOT / name, tmp_path / name, ignore=ignore)
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    events = tmp_path / "agent" / "events.py"
    events.write_text(with_probe(events.read_text(), "Event", "ProbeEvent"))
    op_file = tmp_path / "agent" / "ops.py"
    op_file.write_text(with_probe(op_file.read_text(), "Op", "ProbeOp"))
    checked = [*EVENT_CONSUMERS, *OP_CONSUMERS]
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / ".cache"), *checked],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=900,
    )
    out = run.stdout + run.stderr
    assert run.returncode == 1, out
    for paths, probe in ((EVENT_CONSUMERS, "ProbeEvent"), (OP_CONSUMERS, "ProbeOp")):
        for path in paths:
            pattern = rf'{re.escape(path)}:\d+: error: {NOT_NEVER} "{probe}"'
            assert re.search(pattern, out), f"{path} does not fail on a new {probe}:\n{out}"
    errors = [ln for ln in out.splitlines() if ": error:" in ln and "assert_never" not in ln]
    assert not errors, out  # the probes break nothing else: the code type-checks as it is


def test_an_event_table_without_an_entry_for_every_event_type_is_not_built() -> None:
    all_but_one = [c for c in EVENT_CLASSES if c is not ev.TurnStarted]
    with pytest.raises(TypeError, match="probe's event table: TurnStarted is not handled"):
        EventTable("probe", {}, ignored=all_but_one)
    with pytest.raises(TypeError, match="Notice is handled and ignored"):
        EventTable("probe", {ev.Notice: print}, ignored=EVENT_CLASSES)
    assert EventTable("probe", {}, ignored=EVENT_CLASSES).get(ev.Notice(0, "x")) is None


def test_each_handler_of_an_event_table_takes_the_event_type_it_is_the_entry_of() -> None:
    for table in EVENT_TABLES:
        assert set(table.handlers) | table.ignored == set(typing.get_args(ev.Event))
        for cls, handler in table.handlers.items():
            hint = typing.get_type_hints(handler)["event"]
            assert cls in (typing.get_args(hint) or (hint,)), f"{table.owner}: {cls.__name__}"
