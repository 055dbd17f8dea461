"""The ``eddy`` command: argument parsing (cli/arguments.py), then the headless runner or the TUI.

Kept light: it imports neither the SDK nor Textual before it knows which front end runs.
"""

from __future__ import annotations

import gc
import os
import select
import signal
import stat
import sys
from collections.abc import Callable, Sequence
from typing import Any

from cli.arguments import UsageError, parse_launch
from frontend.launch import NO_KEY_MESSAGE, LaunchOptions, has_api_key

START_UP_SIGNALS = ("SIGINT", "SIGTERM", "SIGHUP")
"""The signals that end a start-up quietly, with status 128 + the signal's number (130, 143,
129: what a shell reports for their default action)."""


def _exit_at_start_up(signum: int, frame: object) -> None:
    # Nothing is running or unsaved yet: end now, without the KeyboardInterrupt traceback a
    # Ctrl+C in the middle of an import would print.
    os._exit(128 + signum)


def quiet_start_up(install: bool = True) -> None:
    """While eddy starts (heavy imports, reading the prompt): a Ctrl+C, SIGTERM or SIGHUP ends
    the process quietly with 130 / 143 / 129. ``install=False`` puts the default actions back,
    for a front end that handles the signals its own way from the start (the TUI, line mode).
    The headless runner replaces these handlers with its own once its event loop runs."""
    for name in START_UP_SIGNALS:
        signum = getattr(signal, name, None)
        if signum is None:
            continue  # no SIGHUP on Windows
        action: Any = _exit_at_start_up
        if not install:
            action = signal.default_int_handler if name == "SIGINT" else signal.SIG_DFL
        try:
            signal.signal(signum, action)
        except ValueError:
            return  # not the main thread (main() called from a test's thread)


def with_piped_prompt(prompt: str | None, piped: str) -> str | None:
    """The first prompt when text was piped in: the piped text after the prompt argument
    (``cat log | eddy "explain this"``), as Claude Code joins them."""
    if not piped.strip():
        return prompt
    if prompt and prompt.strip() and prompt != "-":
        return f"{prompt}\n\n{piped}"
    return piped


def stdin_is_piped() -> bool:
    """Whether stdin is a pipe or a regular file (``cat log | eddy -p``, ``eddy -p < f``):
    only those are read for a prompt. A terminal is the user's, and an inherited socket or
    character device (a test harness, cron with stdin left open) may never reach its end."""
    try:
        mode = os.fstat(sys.stdin.fileno()).st_mode
    except (AttributeError, OSError, ValueError):  # closed, or replaced by a non-file
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISREG(mode)


STDIN_FIRST_DATA_WAIT = 3.0
"""Seconds a pipe may stay silent before eddy goes on without it (Claude Code's 3 s): a pipe
left open by a parent that never writes must not hang ``eddy -p``."""


def read_piped_stdin(wait: float = STDIN_FIRST_DATA_WAIT) -> str:
    """The text piped into stdin ("" unless ``stdin_is_piped``). A pipe that brings neither
    data nor its end within ``wait`` seconds is left alone, with a warning; once data comes,
    it is read to its end. Bytes that are not UTF-8 (a binary log) become U+FFFD."""
    if not stdin_is_piped():
        return ""
    fd = sys.stdin.fileno()
    if stat.S_ISFIFO(os.fstat(fd).st_mode):
        ready, _, _ = select.select([fd], [], [], wait)
        if not ready:
            print(
                f"Warning: no stdin data received in {wait:g}s, proceeding without it "
                "(redirect stdin from /dev/null to skip the wait).",
                file=sys.stderr,
            )
            return ""
    chunks = []
    while chunk := os.read(fd, 1 << 16):
        chunks.append(chunk)
    return b"".join(chunks).decode("utf-8", errors="replace")


def reattach_keyboard() -> bool:
    """Make the terminal stdin again after a pipe was read (``echo x | eddy``), so the app
    reads keys; False when there is no controlling terminal to open."""
    try:
        fd = os.open("/dev/tty", os.O_RDONLY)
    except OSError:
        return False
    try:
        os.dup2(fd, 0)  # Textual reads keys from fd 0 (sys.__stdin__)
    except OSError:
        return False
    finally:
        os.close(fd)
    return True


def _interactive_from_pipe(options: LaunchOptions) -> LaunchOptions:
    """``echo "explain this" | eddy``: the piped text is the first prompt. With the screen a
    terminal the app starts with it (keys read from the terminal); otherwise there is no one
    to type, so it runs as ``eddy -p``."""
    piped = read_piped_stdin()
    prompt = with_piped_prompt(options.prompt, piped)
    if sys.stdout.isatty() and reattach_keyboard():
        return options.replace(prompt=prompt)
    return options.replace(prompt=prompt, print_mode=True)


def main(argv: Sequence[str] | None = None, *, exit_process: bool | None = None) -> int:
    """Entry point of the ``eddy`` command. ``exit_process`` (default: when ``argv`` is None,
    i.e. run as the command) ends the process as soon as an interactive app has returned."""
    if exit_process is None:
        exit_process = argv is None
    quiet_start_up()  # first: everything after this may take a second (imports)
    words = list(sys.argv[1:] if argv is None else argv)
    for prefix, run in _SUBCOMMANDS.items():
        if tuple(words[: len(prefix)]) == prefix:
            return run(words[len(prefix) :])
    try:
        options = parse_launch(argv)
    except UsageError as exc:
        print(exc, file=sys.stderr)
        return 2
    return _launch(options, exit_process)


def _hooks_command(words: list[str]) -> int:
    from cli.hooks_cmd import run_hooks_command

    return run_hooks_command(words)


def _mcp_serve(words: list[str]) -> int:
    try:
        served = parse_launch(words)
    except UsageError as exc:
        print(exc, file=sys.stderr)
        return 2
    from headless.mcp_serve import run_mcp_serve

    return run_mcp_serve(served)


def _plugin_command(words: list[str]) -> int:
    from cli.plugin_cmd import run_plugin_command

    return run_plugin_command(words)


def _permissions_command(words: list[str]) -> int:
    from frontend.permissions_cli import permissions_command

    return permissions_command(words)


_SUBCOMMANDS: dict[tuple[str, ...], Callable[[list[str]], int]] = {
    ("hooks",): _hooks_command,  # eddy hooks [list | test EVENT --input FILE.json]
    ("mcp", "serve"): _mcp_serve,  # eddy's tools for another MCP client
    ("plugin",): _plugin_command,  # eddy plugin install NAME@MARKETPLACE, list, ...
    ("permissions",): _permissions_command,  # eddy permissions why "Bash(git push)"
}
"""The subcommands, by the words that name them, and what runs the words after."""


def _launch(options: LaunchOptions, exit_process: bool) -> int:
    """Run the front end ``options`` ask for: a rewind, ACP, the Agent SDK's protocol, one
    prompt (``-p``), line mode or the app."""
    if options.rewind is not None or options.checkpoints:
        from headless.run import run_checkpoints

        quiet_start_up(install=False)  # a rewind is not cut short by os._exit
        return run_checkpoints(options)
    if options.acp:
        from acp_agent.main import run_acp

        return run_acp(options)
    if options.input_format == "stream-json":  # an Agent SDK drives eddy (headless/sdk.py)
        if not has_api_key():
            print(NO_KEY_MESSAGE, file=sys.stderr)
            return 2
        from headless.sdk import run_sdk

        quiet_start_up(install=False)  # its own handlers: a signal stops the turn, then exit
        return run_sdk(options, exit_process=exit_process)
    # Line mode reads a pipe line by line itself (scripted sessions); the app cannot.
    if not (options.print_mode or options.plain) and not sys.stdin.isatty():
        options = _interactive_from_pipe(options)
    if options.print_mode:
        return _print_mode(options)
    return _interactive(options, exit_process)


def _print_mode(options: LaunchOptions) -> int:
    """``eddy -p``: one prompt (with what is piped in), answered on stdout."""
    prompt = options.prompt
    if prompt == "-" and not sys.stdin.isatty():
        prompt = sys.stdin.read()  # asked for by name: read whatever stdin is
    else:  # cat log | eddy -p "explain": the pipe follows the prompt, as Claude Code does
        prompt = with_piped_prompt(prompt, read_piped_stdin())
    if not prompt or not prompt.strip():
        print('eddy -p needs a prompt: eddy -p "fix the failing test"', file=sys.stderr)
        return 2
    if not has_api_key():
        print(NO_KEY_MESSAGE, file=sys.stderr)
        return 2
    if options.resume == "":
        print("eddy -p --resume needs a session id (or use --continue)", file=sys.stderr)
        return 2
    from agent.mcp.early import start_early

    start_early(options.workspace, options.mcp_config)  # before the imports that follow
    from headless.run import run_headless

    return run_headless(options, prompt, exit_process=True)


def _interactive(options: LaunchOptions, exit_process: bool) -> int:
    """Line mode (``--plain``) or the app."""
    if options.plain:
        from plain.run import run_plain

        quiet_start_up(install=False)
        return _ended(run_plain(options), exit_process)
    if exit_process:
        # no collection while the app starts: importing Textual and eddy's widgets and
        # building the first screen allocate ~200,000 objects that all stay alive, and the
        # collector walked them again and again (20-25 ms of a 0.3 s start); the app turns
        # it back on once its first frame is drawn (tui/session_host.py ``start``)
        gc.disable()
    from tui.app import run_app

    quiet_start_up(install=False)
    return _ended(int(run_app(options) or 0), exit_process)


def _ended(code: int, exit_process: bool) -> int:
    """The interactive app returned (its session closed and saved): end the process now
    (``frontend.termination.end_process``) when run as the ``eddy`` command."""
    if exit_process:
        from frontend.termination import end_process

        end_process(code)
    return code


if __name__ == "__main__":
    sys.exit(main())
