"""The Tool protocol and what every tool shares: its context, its result, its error.

A tool is a small object with a name the model knows (Claude Code's names), a description
written for the model, a JSON schema for its input, a ``read_only`` flag that lets the loop run
it concurrently with other read-only calls, and an async ``run``. Failures are raised as
:class:`ToolError` and become ``is_error`` tool results; nothing else may escape a tool.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

if TYPE_CHECKING:
    from tools.client_files import ClientFiles
    from tools.client_terminal import ClientTerminal


class ToolError(Exception):
    """A failure the model can act on; its message becomes an is_error tool result."""


BASH_OUTPUT_CEILING = 90_000
"""``BASH_MAX_OUTPUT_LENGTH`` is capped here: the runner's last-resort cut is at 100,000."""


def _env_int(name: str) -> int | None:
    """A positive integer from the environment, or None (unset or not a positive number)."""
    raw = os.environ.get(name, "").strip()
    try:
        value = int(raw)
    except ValueError:
        return None
    return value if value > 0 else None


def _env_ms(name: str, default: int) -> int:
    return _env_int(name) or default


def _env_chars(name: str) -> int | None:
    value = _env_int(name)
    return None if value is None else min(value, BASH_OUTPUT_CEILING)


@dataclass(frozen=True)
class ToolLimits:
    """Caps that keep one tool call from flooding the context or the machine."""

    read_max_bytes: int = 10 * 1024 * 1024
    """Largest file Read opens (larger files need offset/limit, which streams lines)."""
    read_max_lines: int = 2000
    """Lines Read returns when no limit is given."""
    read_max_line_chars: int = 2000
    """Longer lines are cut with a note."""
    read_max_chars: int = 80_000
    """Characters of numbered lines one Read returns at most: it stops at a whole line and says
    which offset reads on, well below the runner's last-resort cut (which cuts blindly)."""
    output_max_chars: int = 30_000
    """Bash output kept (head and tail) and the cap on Glob/Grep output."""
    bash_default_timeout_ms: int = field(
        default_factory=lambda: _env_ms("BASH_DEFAULT_TIMEOUT_MS", 120_000)
    )
    """Bash timeout when the model gives none (2 minutes; ``BASH_DEFAULT_TIMEOUT_MS``)."""
    bash_max_timeout_ms: int = field(
        default_factory=lambda: _env_ms("BASH_MAX_TIMEOUT_MS", 600_000)
    )
    """The largest timeout the model may ask for (10 minutes; ``BASH_MAX_TIMEOUT_MS``)."""
    bash_output_max_chars: int | None = field(
        default_factory=lambda: _env_chars("BASH_MAX_OUTPUT_LENGTH")
    )
    """Bash output kept in the result (``BASH_MAX_OUTPUT_LENGTH``); None: ``output_max_chars``.
    The whole output of a longer command is saved to a file the result names."""
    glob_max_results: int = 100
    """Glob returns at most this many paths, newest first."""


@dataclass(frozen=True)
class ResolvedPath:
    """A path as the tools and the permission layer see it.

    Attributes:
        path: the real path (symlinks and ``..`` resolved).
        inside: whether ``path`` lies inside the workspace (or an added directory).
    """

    path: Path
    inside: bool


@dataclass
class FileRecord:
    """What a file looked like when the model last read (or wrote) it."""

    mtime_ns: int
    size: int


@dataclass
class SessionFiles:
    """Per-session knowledge the file tools share: what was read, and when.

    Write/Edit refuse to change an existing file the model has not read, or that changed on
    disk since it was read: that protects the user's concurrent edits.
    """

    records: dict[Path, FileRecord] = field(default_factory=dict)

    def remember(self, path: Path) -> None:
        """Record the current on-disk state of ``path`` as seen by the model."""
        self.record(path, path.stat())

    def record(self, path: Path, st: os.stat_result) -> None:
        """Record ``st`` (taken by the writer, through its directory fd) for ``path``."""
        self.records[path] = FileRecord(st.st_mtime_ns, st.st_size)


@dataclass
class ShellState:
    """State the Bash tool keeps between calls: the working directory (``cd`` persists)."""

    cwd: Path | None = None
    command: str = ""
    """The command line of the latest foreground call (what Ctrl+B hands on is named by it)."""


Grant = Literal["read_only", "rule", "git_config", "user", "bypass"]
"""Why the gate let a call run: ``read_only`` (eddy judged it read-only and asked no one),
``rule`` (an allow rule or the mode allowed it), ``git_config`` (as ``rule``, for a command
whose only change is git's own harmless write of its configuration: ``git remote add``),
``user`` (the user said yes to it or typed it with ``!``), ``bypass`` (bypassPermissions: as
``user``, but no one saw this command, so the places that configure eddy it creates are not
kept). The Bash tool picks its sandbox profile and its watch from it."""


class ShellWatch(Protocol):
    """What the sandbox watches while one command runs (``agent.sandbox.watch``)."""

    def finish(self) -> str | None:
        """After the command: undo what it may not do; what to tell the model, or None."""
        ...


class ShellSandbox(Protocol):
    """Wraps a shell command line in the OS sandbox (the engine's ``agent.sandbox``)."""

    def watch(
        self, grant: Grant | None, command: str, roots: tuple[Path, ...]
    ) -> ShellWatch | None:
        """Before a command runs: a watch to finish when it ends, or None (nothing to watch)."""
        ...

    def wrap(
        self,
        argv: list[str],
        *,
        cwd: Path,
        grant: Grant | None,
        command: str,
        roots: tuple[Path, ...],
        writable_files: tuple[Path, ...] = (),
        own_session: bool = False,
    ) -> list[str]:
        """The argv to execute instead of ``argv`` (``argv`` itself when it runs outside).

        ``own_session``: the caller starts it as the leader of a new session with no
        terminal and stops it by killing that process group
        (:func:`tools.shellproc.spawn_in_group`), so the whole sandbox must stay in the group.

        Raises:
            ToolError: the command must run sandboxed and no sandbox is available.
        """
        ...


class BackgroundShells(Protocol):
    """The session's background shells (``agent.session.shells.ShellRegistry``), as the tools
    see it.

    Bash starts commands in it (``run_in_background``) or hands it a running one (Ctrl+B);
    BashOutput reads from it and KillShell stops one.
    """

    async def start(
        self,
        argv: list[str],
        cwd: Path,
        command: str,
        description: str,
        watch: ShellWatch | None = None,
    ) -> str:
        """Start ``argv`` in its own process group; its shell id (``watch`` is finished when
        it ends, what it says added to its output). Raises ToolError."""
        ...

    def read(self, shell_id: str, pattern: str | None) -> str:
        """The output since the last read (lines matching ``pattern``), status and exit code.
        Raises ToolError for an unknown id or a bad pattern."""
        ...

    async def kill(self, shell_id: str) -> str:
        """Stop shell ``shell_id`` (its whole group); what happened. Raises ToolError."""
        ...

    def foreground(self) -> asyncio.Event:
        """Register a running foreground command: the event is set on Ctrl+B."""
        ...

    def release_foreground(self, event: asyncio.Event) -> None:
        """The foreground command registered with ``event`` ended (or was handed on)."""
        ...

    def adopt(
        self,
        proc: asyncio.subprocess.Process,
        reader: Any,
        command: str,
        watch: ShellWatch | None = None,
        leftovers: tuple[Path, ...] = (),
    ) -> str:
        """Take over a running foreground command and its pipe reader (and its sandbox
        ``watch``, and the files its command may still write that are removed once it is
        over: ``leftovers``); its shell id."""
        ...


class UserDialogs(Protocol):
    """Questions only the user can answer, asked by tools (``agent.session.dialogs``).

    ``None`` in headless mode, where nobody can answer: the tools refuse then.
    """

    async def ask_questions(self, call_id: str, questions: list[dict[str, Any]]) -> dict[str, str]:
        """The user's answer to each question, by question text."""
        ...

    async def review_plan(self, call_id: str, plan: str) -> tuple[bool, str, str]:
        """(approved, the mode to continue in, the user's feedback) for ``plan``."""
        ...

    def permission_mode(self) -> str:
        """The session's permission mode now."""
        ...


class PathRules(Protocol):
    """What the permission layer tells the tools about paths (the session's gate:
    ``agent.session.gate.PathAccess``)."""

    def allow_outside(self, tool: str, path: Path) -> bool:
        """Whether ``tool`` may touch ``path`` (a real path outside the workspace)."""
        ...

    def read_filter(self) -> Callable[[str, Path], bool] | None:
        """``(tool, real path) -> bool``, whether a read deny rule forbids reading the path
        (Glob and Grep leave such files out); None while no rule forbids any read."""
        ...


class _NoPathRules:
    """Nothing outside the workspace, no read rule (tests of the tools alone)."""

    def allow_outside(self, tool: str, path: Path) -> bool:
        return False

    def read_filter(self) -> Callable[[str, Path], bool] | None:
        return None


class ChangeHooks(Protocol):
    """What records a change before it happens (the session's checkpoints:
    ``agent.session.checkpoint_hooks.CheckpointHooks``)."""

    async def before_change(self, paths: list[Path]) -> None:
        """Awaited with the paths a tool is about to change, before it changes them."""
        ...

    async def before_shell(self) -> None:
        """Awaited before a shell command runs (it may change anything in the workspace)."""
        ...

    async def after_shell(self) -> None:
        """Awaited after a shell command ends, however it ends."""
        ...


@dataclass(frozen=True)
class EditorTools:
    """An editor that holds the files and runs the commands for the tools (ACP's ``fs`` and
    ``terminal``): passed to the session through the front door's options.

    Attributes:
        files: Read sees its buffers, text changes are written through it; None: the disk.
        terminal: runs Bash's commands in its terminals; None: eddy runs them.
    """

    files: ClientFiles | None = None
    terminal: ClientTerminal | None = None


OutputSink = Callable[[str], None]
"""Receives streamed output (Bash) as it arrives; the UI shows it live."""

ChangeHook = Callable[[list[Path]], Awaitable[None]]
"""Called with the paths a tool is about to change, before it changes them (checkpoints)."""

AskModel = Callable[[str], Awaitable[str]]
"""Asks the small fast model one question (a prompt) and returns its text answer (WebFetch).

Raises ToolError when the call fails."""


def _noop_output(_text: str) -> None:
    return None


@dataclass
class ToolContext:
    """Everything a tool may use. One per session, built once with its collaborators (the
    session does, from what the front door gives it: docs/architecture.md); nothing writes it
    afterwards: ``for_call`` and ``for_child`` make the copies a call or a subagent uses.

    Attributes:
        workspace: the real path of the workspace root.
        extra_dirs: further directories treated as inside (``--add-dir``).
        limits: the caps above.
        files: read/write records shared by the file tools.
        shell: Bash's persistent state.
        output: streamed output sink for the current call.
        paths: the permission layer's answers about paths (``allow_outside``,
            ``read_denied``); by default nothing outside is allowed and no read is denied.
        checkpoints: what records changes before they happen (``before_change``,
            ``before_shell``, ``after_shell``), or None (nothing records them).
        sandbox: the OS sandbox Bash runs commands in, or None (no sandbox: tests of the
            tools alone).
        grant: why the gate let the current call run (set per call by ``for_call``).
        ask_model: a one-shot question to the small fast model (WebFetch answers its prompt
            over a page with it); None: no model (tests of the tools alone).
        client_files: an editor holding the files (ACP ``fs``): Read sees its buffers, text
            changes are written through it (tools/client_files.py). None: the disk only.
        client_texts: the editor's text of each file as Read last got it.
        client_terminal: an editor that runs Bash's commands in its terminals (ACP
            ``terminal``; tools/client_terminal.py). None: eddy runs them.
        output_dir: where Bash saves the whole output of a command whose result was cut;
            None: a temporary directory of this process.
        shells: the session's background shells, or None (Bash runs everything in front).
        dialogs: asks the user (AskUserQuestion, ExitPlanMode); None when nobody can answer.
        call_id: the tool_use id of the current call (set per call by ``for_call``).
    """

    workspace: Path
    extra_dirs: tuple[Path, ...] = ()
    limits: ToolLimits = field(default_factory=ToolLimits)
    files: SessionFiles = field(default_factory=SessionFiles)
    shell: ShellState = field(default_factory=ShellState)
    output: OutputSink = _noop_output
    paths: PathRules = field(default_factory=_NoPathRules)
    checkpoints: ChangeHooks | None = None
    sandbox: ShellSandbox | None = None
    grant: Grant | None = None
    ask_model: AskModel | None = None
    client_files: ClientFiles | None = None
    client_texts: dict[Path, str] = field(default_factory=dict)
    client_terminal: ClientTerminal | None = None
    output_dir: Path | None = None
    shells: BackgroundShells | None = None
    dialogs: UserDialogs | None = None
    call_id: str = ""
    """The tool_use id of the current call (set per call by ``for_call``)."""
    subagents: Any = None
    """The session's subagent launcher (``agent.subagents``) for the Agent tool, or None."""
    judged: dict[str, frozenset[Path]] = field(default_factory=dict)
    """The real paths the permission gate judged, per tool_use id: the call may touch only
    those (and what lies below them), never what a path resolves to after a change."""

    def allow_outside(self, tool: str, path: Path) -> bool:
        """The permission layer's answer to "may ``tool`` touch ``path``, outside the
        workspace?"."""
        return self.paths.allow_outside(tool, path)

    @property
    def read_denied(self) -> Callable[[str, Path], bool] | None:
        """``(tool, real path) -> bool``, whether a deny rule forbids reading the path: Glob
        and Grep leave such files out (names and contents). None: no rule."""
        return self.paths.read_filter()

    @property
    def before_change(self) -> ChangeHook | None:
        """Awaited before any file is changed (checkpoints), or None."""
        return None if self.checkpoints is None else self.checkpoints.before_change

    @property
    def before_shell(self) -> Callable[[], Awaitable[None]] | None:
        """Awaited before a shell command runs (checkpoints), or None."""
        return None if self.checkpoints is None else self.checkpoints.before_shell

    @property
    def after_shell(self) -> Callable[[], Awaitable[None]] | None:
        """Awaited after a shell command ends, however it ends (checkpoints), or None."""
        return None if self.checkpoints is None else self.checkpoints.after_shell

    def __post_init__(self) -> None:
        self.workspace = Path(os.path.realpath(self.workspace))

    def for_call(
        self, output: OutputSink, grant: Grant | None = None, call_id: str = ""
    ) -> ToolContext:
        """A shallow copy sharing all state, with ``output`` as the streaming sink,
        ``grant`` as the reason the gate gave for this call and ``call_id`` its tool_use id."""
        ctx = ToolContext.__new__(ToolContext)
        ctx.__dict__.update(self.__dict__)
        ctx.output = output
        ctx.grant = grant
        ctx.call_id = call_id
        return ctx

    def for_child(self) -> ToolContext:
        """A copy for a subagent: the session's collaborators, with its own read records and
        Bash state (starting in this context's working directory)."""
        ctx = self.for_call(self.output)
        ctx.files, ctx.shell = SessionFiles(), ShellState(cwd=self.shell.cwd)
        return ctx

    def roots(self) -> tuple[Path, ...]:
        return (self.workspace, *self.extra_dirs)

    def resolve(self, raw: str) -> ResolvedPath:
        """Turn a path from the model into a real path and say whether it lies inside.

        Relative paths are taken from the workspace root; ``~`` is expanded. Symlinks are
        resolved (also for a path that does not exist yet: its existing parent is resolved),
        so neither ``..`` nor a symlink can smuggle a path out of the workspace.
        """
        if not isinstance(raw, str) or not raw.strip():
            raise ToolError("file path must be a non-empty string")
        if "\x00" in raw:
            raise ToolError("file path contains a NUL byte")
        p = Path(os.path.expanduser(raw))
        if not p.is_absolute():
            p = self.workspace / p
        try:
            real = Path(os.path.realpath(p))
        except OSError as exc:  # a symlink on the way was replaced while it was being read
            raise ToolError(
                f"{raw} changed while eddy was resolving it (a symlink on its path was "
                f"replaced: {exc.strerror or exc}); nothing was done. Try again."
            ) from None
        inside = any(real == r or r in real.parents for r in self.roots())
        return ResolvedPath(real, inside)

    def resolve_for(self, tool: str, raw: str) -> Path:
        """Resolve ``raw`` and refuse it when it lies outside and was not explicitly allowed,
        or when it now resolves elsewhere than the path the permission gate judged for this
        call (a directory on its way was swapped for a symlink in between)."""
        rp = self.resolve(raw)
        judged = self.judged.get(self.call_id)
        if judged is not None and not any(rp.path == j or j in rp.path.parents for j in judged):
            shown = ", ".join(sorted(str(j) for j in judged)) or "no path"
            raise ToolError(
                f"{raw} now resolves to {rp.path}, not to what the permission check judged "
                f"({shown}): something on its way changed in between (a symlink swapped in). "
                "Nothing was done; check the path and try again."
            )
        if not rp.inside and not self.allow_outside(tool, rp.path):
            raise ToolError(
                f"{raw} resolves to {rp.path}, which is outside the workspace {self.workspace}; "
                "access outside the workspace needs the user's permission."
            )
        return rp.path


@dataclass
class ToolResult:
    """What a tool returns.

    Attributes:
        content: text for the model, or a list of API content blocks (text / image).
        is_error: whether the call failed.
        display: structured data for the UI, e.g. ``{"kind": "diff", "path": ..., "diff": ...,
            "added": n, "removed": n}`` or ``{"kind": "todos", "todos": [...]}``.
    """

    content: str | list[dict[str, Any]]
    is_error: bool = False
    display: dict[str, Any] | None = None

    def with_note(self, note: str) -> ToolResult:
        """This result with ``note`` after its content (text, or one more text block);
        itself for an empty note."""
        if not note:
            return self
        if isinstance(self.content, str):
            content: str | list[dict[str, Any]] = f"{self.content}\n\n{note}"
        else:
            content = [*self.content, {"type": "text", "text": note}]
        return ToolResult(content, self.is_error, self.display)


@runtime_checkable
class Tool(Protocol):
    """A tool the model can call."""

    name: str
    description: str
    input_schema: dict[str, Any]
    read_only: bool

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        """Run the call. Raises ToolError for failures the model should see."""
        ...

    def paths(self, args: dict[str, Any], ctx: ToolContext) -> list[ResolvedPath]:
        """The paths this call would touch, for the permission layer (may be empty)."""
        ...

    def summary(self, args: dict[str, Any]) -> str:
        """A one-line description of the call for the UI (path, command, pattern)."""
        ...


@runtime_checkable
class Prechecked(Protocol):
    """A tool that can tell, before the permission question, whether a call can succeed.

    Optional (tools without it are simply asked about): the gate calls ``precheck`` before it
    asks the user, so a call that cannot succeed (an Edit whose old_string matches twice, a
    stale read) is an error result at once instead of a question followed by a failure; and
    ``preview`` gives the diff the call would make, computed by the same code that will make it.
    """

    def precheck(self, args: dict[str, Any], ctx: ToolContext) -> str | None:
        """Why the call cannot succeed (the error ``run`` would raise), or None."""
        ...

    def preview(self, args: dict[str, Any], ctx: ToolContext) -> str | None:
        """The unified diff the call would make now, or None (it cannot succeed)."""
        ...
