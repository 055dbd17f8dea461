"""TUI benchmarks; prints figures, asserts nothing. Run: .venv/bin/python bench/bench_tui.py

1. start-up: launch ``.venv/bin/eddy`` in tmux; time until the first frame, and until typed
   text shows in the prompt (the prompt accepts typing); the same for ``claude`` if installed.
2. streaming: a 20,000-token answer from the fake Messages API (its own process) at full speed
   through the real SDK: the UI's time to its final frame vs the raw stream time (the same
   session with no UI: the one the TUI builds, through the same front door; both with the SDK
   client made beforehand, as eddy's start-up does; a bare ``Session`` printed beside), and
   the keystroke echo delay while it streams (real terminal: eddy in tmux, keys sent with
   send-keys, echo seen in capture-pane). The fake API runs on a CPU of its own and eddy on
   the others, as a remote API would (``pinned_apart``; ``BENCH_PIN=0``: not pinned).
   (bench_render.py: the same answer handed to the UI in two bursts, with no network.)
3. a 500-turn session (text, tool calls, 1,000-line outputs): RSS and DOM size as it grows, and
   the time to scroll the whole conversation.

4. paced: an answer streamed at ~100 words/s by the fake Messages API to eddy and to Claude
   Code (``CLAUDE_BIN``), alternating, each in tmux: keystroke echo (send-keys until the mark
   shows in capture-pane) and the app's CPU (its processes' user + system time from /proc)
   while the keys are typed; medians, spread, the load, and the ratios.
5. deep: an answer streamed at 300 tokens/s (the engine's own stream, no network) into a
   conversation of 150 blocks (prompts, notices, finished answers; the conversation keeps at
   most 160) and into an empty one, alternating: the app's CPU over the stream, and the
   screen's layout passes (count, time). The baseline is the empty conversation: what a long
   session adds to the cost of showing an answer.
6. flood: the 20,000-token answer of part 2 at full speed, by the fake Messages API, to eddy
   and to Claude Code (``CLAUDE_BIN``), alternating, each in tmux: the seconds from Enter, and
   from the answer's request reaching the fake API, until the answer's last line shows
   (capture-pane every 3 ms); medians, spread, the load, and the ratio.

Parts: ``bench_tui.py [startup|stream|paced|long|deep|flood]`` (default: all).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
PYTHON = ROOT / ".venv" / "bin" / "python"
MODEL = "claude-sonnet-4-5"
ECHO_TOKENS = 150_000
"""The echo test streams this much, at full speed, to have time for several keystrokes."""

from final_frame import FinalFrame  # noqa: E402
from tmux_harness import (  # noqa: E402
    EDDY,
    SIZE,
    Tmux,
    claude_env,
    claude_version,
    compile_eddy,
    scratch_env,
    time_startup,
)

PACED_WORDS_PER_S = 100
"""The pace of the side-by-side run (``paced``): about as fast as a model writes prose."""
PACED_WORDS = 5000
"""The answer's length there: 30 s at that pace, longer than the keys take."""
PACED_KEYS = 20
PACED_KEY_GAP = 0.3
"""Seconds between one key's echo and the next key, as a person types in bursts."""


def answer_text(tokens: int = 20_000) -> str:
    """About ``tokens`` tokens (4 chars each) of mixed markdown: prose, lists, code."""
    parts, size, i = [], 0, 0
    while size < tokens * 4:
        i += 1
        block = (
            f"## Section {i}\n\nThe function `step_{i}` reads the input, checks the **bounds** "
            "and returns the result; it never raises for valid data.\n\n"
            f"- item {i}.1: parse\n- item {i}.2: validate\n- item {i}.3: emit\n\n"
            f"```python\ndef step_{i}(x):\n    if x < 0:\n        return None\n"
            f"    return x * {i}\n```\n\n"
        )
        parts.append(block)
        size += len(block)
    return "".join(parts)


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def bench_startup() -> None:
    if not shutil.which("tmux"):
        print("startup: tmux not found, skipped")
        return
    env = scratch_env()
    env.pop("ANTHROPIC_API_KEY", None)
    frame, typing = time_startup([str(EDDY)], "eddy in", env)
    print(f"startup (no key):          first frame {frame:.3f}s, accepts typing {typing:.3f}s")
    env_key = {**env, "ANTHROPIC_API_KEY": "sk-ant-bench-not-used"}
    frame_k, typing_k = time_startup([str(EDDY)], "eddy in", env_key)
    print(f"startup (key, SDK warm-up): first frame {frame_k:.3f}s, accepts typing {typing_k:.3f}s")
    claude = os.environ.get("CLAUDE_BIN") or shutil.which("claude")
    if claude:
        c_frame, c_typing = time_startup([claude], "Claude Code", {}, prepare=claude_env)
        print(
            f"claude ({claude_version(claude)}): first frame {c_frame:.3f}s, accepts typing "
            f"{c_typing:.3f}s; eddy/claude = {typing_k / c_typing:.2f} (accepts typing, both "
            "with a key)"
        )
    else:
        print("claude: not found (install @anthropic-ai/claude-code, set CLAUDE_BIN), no ratio")


# -- streaming ------------------------------------------------------------------------------
class FakeServer:
    """The fake Messages API in its own process (so it does not share our GIL), answering
    every request with ``text`` as fast as it can (real HTTP, real SSE, 3 words per delta);
    on the CPUs ``cpus`` only, when given (see ``pinned_apart``)."""

    def __init__(self, text: str, cpus: set[int] | None = None) -> None:
        script = Path(tempfile.mkdtemp(prefix="eddy-bench-")) / "script.json"
        script.write_text(json.dumps({"default": {"content": [{"type": "text", "text": text}]}}))
        self.proc = subprocess.Popen(
            [str(PYTHON), "-m", "tests.fakes.fake_api", "--script", str(script)],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            text=True,
            preexec_fn=(lambda: os.sched_setaffinity(0, cpus)) if cpus else None,
        )
        assert self.proc.stdout is not None
        self.base_url = self.proc.stdout.readline().strip()

    def model(self) -> Any:
        from agent.model.anthropic import AnthropicModel

        return AnthropicModel(MODEL, api_key="sk-ant-bench", base_url=self.base_url)

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait()


@contextlib.contextmanager
def pinned_apart() -> Iterator[set[int] | None]:
    """The CPUs the fake API is to run on, with this process kept off them meanwhile; None
    (nothing pinned) on one CPU or with ``BENCH_PIN=0``.

    The fake API stands for a remote server, which never runs on eddy's core. On a small
    machine the kernel runs a thread woken by a loopback write on the writer's core (it
    expects the writer to sleep next, as a pipe's does): the fake API then took eddy's core
    right after the request, and eddy, which has work left after sending when a UI runs (the
    prompt's frame), waited for it. Measured on 2 cores, same process, alternating: the UI
    run's socket writes took 0.28 ms median and 2.2 ms p90 against the raw run's 0.05 ms,
    its stream 5 ms longer; apart, both write in 0.05-0.08 ms."""
    cores = sorted(os.sched_getaffinity(0))
    if os.environ.get("BENCH_PIN") == "0" or len(cores) < 2:
        yield None
        return
    os.sched_setaffinity(0, set(cores[:-1]))  # threads made from now on inherit it
    try:
        yield {cores[-1]}
    finally:
        os.sched_setaffinity(0, set(cores))


async def raw_stream_seconds(
    model: Any, workspace: Path, *, bare: bool = False
) -> tuple[float, float]:
    """The turn with a no-op emit: the stream without a UI (wall seconds, and this process's
    CPU seconds over them). The session is the one the TUI builds (the same front door, the
    same arguments: its transcript, checkpoints and extensions), so that what the UI run adds
    is the UI's; ``bare``: a bare ``Session`` with none of them (the earlier baseline)."""
    from agent import events as ev
    from agent import ops
    from agent.session.config import SessionConfig
    from agent.session.core import Session
    from cli.main import parse_launch
    from tui.session_host import build_session

    done = asyncio.Event()

    def emit(event: Any) -> None:
        if isinstance(event, ev.TurnFinished):
            done.set()

    model.client()  # made before the prompt, as eddy's start-up does (not part of a stream)
    await model.preconnect()  # ... and the connection the TUI opens once the client exists
    if bare:
        session = Session(SessionConfig(workspace, MODEL), model, [], emit)
    else:
        args = parse_launch(["--model", MODEL]).replace(cwd=workspace)
        session = build_session(args, emit, model, []).session  # as the UI run's app does
    start, cpu = time.perf_counter(), time.process_time()
    session.submit(ops.SubmitPrompt("write"))
    await done.wait()
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    await session.close()
    await model.aclose()
    return elapsed, cpu


async def ui_stream_seconds(model: Any, workspace: Path) -> tuple[float, float, float, float]:
    """Seconds from sending the prompt until the engine finished, until the answer's final
    frame is painted (every delta rendered, the end on screen), and until every piece of it
    is rendered (pieces that scrolled past unseen are rendered after the final frame); and
    this process's CPU seconds until that final frame."""
    from agent import events as ev
    from cli.main import parse_launch
    from tui.app import EddyApp
    from tui.widgets.conversation.assistant_text import AssistantText

    finished: list[float] = []
    turn_over = asyncio.Event()

    def hook(event: Any) -> None:
        if isinstance(event, ev.TurnFinished):
            finished.append(time.perf_counter())
            turn_over.set()

    args = parse_launch(["--model", MODEL])
    args = args.replace(cwd=workspace)
    model.client()  # as the app's warm-up does for the model it builds itself
    app = EddyApp(args, model=model, tools=[], event_hook=hook)
    with FinalFrame(app) as frame:  # before the screen's update timer takes its method
        async with app.run_test(size=SIZE) as pilot:
            # the session and the SDK client ready, as the raw stream has them (a prompt sent
            # sooner waits in the conversation for the app's warm-up to make its client)
            while app.main.session is None or not app.main.connected:
                await pilot.pause()
            # ... and the connection it opens once the client exists (the raw run's too)
            while any(w.group == "preconnect" and not w.is_finished for w in app.workers):
                await pilot.pause()
            start, cpu = time.perf_counter(), time.process_time()
            # as Enter does; pilot.press() would wait until the CPU is idle, i.e. for the end
            app.main.prompt._submit("write")
            # the frame that shows the answer's end (pilot.pause() would wait for idle and
            # slow the run it measures)
            shown, shown_cpu = await asyncio.wait_for(frame.shown(), 60)
            final, cpu = shown - start, shown_cpu - cpu
            await turn_over.wait()  # the engine's end (its last steps may follow the frame)
            while not all(b.settled for b in app.query(AssistantText)):
                await asyncio.sleep(0.002)
            settled = time.perf_counter() - start
            await model.aclose()
            return finished[0] - start, final, settled, cpu


class PacedModel:
    """Streams ``text`` in 16-character deltas at ``tokens_per_s`` (0: as fast as it can)."""

    name = "paced"

    def __init__(self, text: str, tokens_per_s: float) -> None:
        self.text = text
        self.delay = 16 / (tokens_per_s * 4) if tokens_per_s else 0.0

    async def respond(self, request: Any, sink: Any) -> Any:
        from agent.messages import TextBlock
        from agent.model.protocol import as_response

        for i in range(0, len(self.text), 16):
            sink.text(self.text[i : i + 16])
            await asyncio.sleep(self.delay)
        sink.block_done(TextBlock(self.text))
        return as_response(self.text, cost=0.0)


def stream_app_main(tokens_per_s: float) -> None:
    """``bench_tui.py _stream-app RATE``: eddy over a model streaming ECHO_TOKENS, for tmux."""
    from cli.main import parse_launch
    from tui.app import EddyApp

    args = parse_launch([])
    args = args.replace(cwd=Path.cwd())
    model = PacedModel(answer_text(ECHO_TOKENS), tokens_per_s)
    EddyApp(args, model=model, tools=[]).run()


def echo_delays(tokens_per_s: float, samples: int = 30) -> list[float]:
    """Keystroke echo delays (s) in a real terminal while a long answer streams."""
    env = scratch_env()
    tmux = Tmux(
        "eddy-bench-echo",
        [str(PYTHON), __file__, "_stream-app", str(tokens_per_s)],
        env,
        tempfile.mkdtemp(prefix="eddy-bench-cwd-"),
    )
    delays = []
    try:
        tmux.wait_for("eddy in")
        tmux.wait_for("turns")
        idle = []
        for i in range(5):
            mark = f"i{i:02d}x"
            start = time.perf_counter()
            tmux.keys(mark, literal=True)
            tmux.wait_for(mark, timeout=10)
            idle.append(time.perf_counter() - start)
        tmux.keys("C-a", "C-k")
        if tokens_per_s == 0:
            print(
                f"keystroke echo when idle (tmux): median {statistics.median(idle) * 1000:.0f} ms"
            )
        tmux.keys("write", "Enter")
        tmux.wait_for("esc to stop")
        for i in range(samples):
            mark = f"k{i:02d}x"
            if i and i % 10 == 0:  # an empty prompt again before the marks would wrap
                tmux.keys("C-a", "C-k")
                time.sleep(0.2)
            start = time.perf_counter()
            tmux.keys(mark, literal=True)
            tmux.wait_for(mark, timeout=10)
            delays.append(time.perf_counter() - start)
            if "esc to stop" not in tmux.screen():
                break  # the answer finished: later samples would not be "while streaming"
    finally:
        tmux.kill()
    return delays


StreamRuns = tuple[list[float], ...]


def stream_runs(text: str, workspace: Path, server_cpus: set[int] | None) -> StreamRuns:
    """``BENCH_RUNS`` rounds of the raw stream, a bare Session's and the UI's, interleaved so
    noise hits all alike: their wall and CPU seconds (see ``bench_stream``)."""
    server = FakeServer(text, server_cpus)
    runs = int(os.environ.get("BENCH_RUNS", "7"))
    got: StreamRuns = tuple([] for _ in range(7))
    raw, raw_cpu, bare, engine, final, settled, final_cpu = got
    try:
        asyncio.run(raw_stream_seconds(server.model(), workspace))  # warm-up: SDK import
        asyncio.run(ui_stream_seconds(server.model(), workspace))  # ... and the UI's
        for _ in range(runs):
            r, r_cpu = asyncio.run(raw_stream_seconds(server.model(), workspace))
            raw.append(r)
            raw_cpu.append(r_cpu)
            bare.append(asyncio.run(raw_stream_seconds(server.model(), workspace, bare=True))[0])
            e, f, done, f_cpu = asyncio.run(ui_stream_seconds(server.model(), workspace))
            engine.append(e)
            final.append(f)
            settled.append(done)
            final_cpu.append(f_cpu)
    finally:
        server.stop()
    return got


def bench_stream() -> None:
    text = answer_text()
    workspace = Path(tempfile.mkdtemp(prefix="eddy-bench-ws-"))
    os.environ.update({k: v for k, v in scratch_env().items() if k.startswith("EDDY")})
    with pinned_apart() as server_cpus:
        got = stream_runs(text, workspace, server_cpus)
    raw, raw_cpu, bare, engine, final, settled, final_cpu = got
    runs = len(raw)
    where = (
        f"fake server on CPU {min(server_cpus)}, eddy on the others"
        if server_cpus
        else "nothing pinned"
    )
    med = statistics.median
    pairs = sorted(f / r for f, r in zip(final, raw, strict=True))
    print(
        f"stream 20k tokens ({len(text)} chars, real SDK, fake server at full speed, median of "
        f"{runs}; {where}): raw stream (the TUI's session, no UI) {med(raw):.3f}s; under the "
        f"UI: engine done {med(engine):.3f}s, final frame {med(final):.3f}s = "
        f"{med(final) / med(raw):.2f}x raw (target 1.2x), every piece rendered "
        f"{med(settled):.2f}s; run by run {pairs[0]:.2f}x to {pairs[-1]:.2f}x, "
        f"{sum(p <= 1.2 for p in pairs)} of {runs} within 1.2x; load {os.getloadavg()[0]:.1f}"
    )
    print(
        f"  a bare Session (no transcript, checkpoints or extensions) streams it in "
        f"{med(bare):.3f}s: final frame = {med(final) / med(bare):.2f}x that"
    )
    # CPU seconds (this process's; the server has its own) are less at the mercy of the
    # load than wall-clock ones: what the UI adds to the stream's own work
    cpu_pairs = sorted(f / r for f, r in zip(final_cpu, raw_cpu, strict=True))
    print(
        f"  CPU to the final frame {med(final_cpu):.3f}s vs the raw stream's "
        f"{med(raw_cpu):.3f}s = {med(final_cpu) / med(raw_cpu):.2f}x (run by run "
        f"{cpu_pairs[0]:.2f}x to {cpu_pairs[-1]:.2f}x)"
    )
    if not shutil.which("tmux"):
        print("echo: tmux not found, skipped")
        return
    rates = [float(r) for r in os.environ.get("BENCH_RATES", "0 2000 500").split()]
    for rate in rates:
        delays = echo_delays(rate)
        if delays:
            ms = sorted(d * 1000 for d in delays)
            pace = f"{rate} tokens/s" if rate else "full speed"
            print(
                f"keystroke echo while streaming at {pace} (tmux, {len(ms)} keys): median "
                f"{statistics.median(ms):.0f} ms, max {ms[-1]:.0f} ms (includes ~5 ms of polling)"
            )


# -- paced, side by side with Claude Code --------------------------------------------------------
def paced_answer(words: int = PACED_WORDS) -> str:
    """``answer_text`` cut to about ``words`` words."""
    text = answer_text(words * 2)  # 8 characters a word: more than needed
    parts = text.split(" ")
    return " ".join(parts[:words])


def paced_fake(text: str, words_per_s: float) -> Any:
    """The fake Messages API (in this process: a thread) streaming ``text`` at
    ``words_per_s`` (3 words an SSE event) to every request that offers tools (the prompt);
    a side request (a title, a quota check) gets a short answer at once."""
    from tests.fakes.fake_api import FakeAnthropic, Reply
    from tests.fakes.fake_api import text as text_block

    delay = 3 / words_per_s
    fake = FakeAnthropic()
    fake.validate = False  # Claude Code sends shapes the fake does not model
    fake.prompts_at = []  # when each prompt's answer began (time.perf_counter())
    fake.answer_seconds = len(text.split()) / words_per_s

    def reply(body: dict[str, Any]) -> Reply:
        if not body.get("tools"):
            return Reply([text_block("ok")])
        fake.prompts_at.append(time.perf_counter())
        return Reply([text_block(text)], delay=delay)

    fake.responder = reply
    return fake


@dataclass
class PacedRun:
    idle: list[float]
    """Echo delays at the empty prompt before the prompt is sent (the floor)."""
    echo: list[float]
    """Seconds from each key sent (tmux send-keys) to its echo on screen (capture-pane)."""
    cpu: float
    """The app's CPU seconds per second of wall time while the keys were typed."""
    streaming: bool
    """Whether the answer was still streaming when the last key was typed."""


def type_marks(tmux: Tmux, prefix: str, count: int) -> list[float]:
    """Type ``count`` marks into the prompt, one at a time, each erased again after its echo
    and followed by a pause; the seconds from each send-keys to its echo on screen."""
    delays = []
    for i in range(count):
        mark = f"{prefix}{i:02d}x"
        start = time.perf_counter()
        tmux.keys(mark, literal=True)
        tmux.wait_for(mark, timeout=10)
        delays.append(time.perf_counter() - start)
        tmux.keys(*["BSpace"] * len(mark))
        tmux.wait_gone(mark, timeout=10)
        time.sleep(PACED_KEY_GAP)
    return delays


def paced_run(command: list[str], env: dict[str, str], cwd: str, ready: str, fake: Any) -> PacedRun:
    """One app in tmux: start, send a prompt, and while its answer streams type
    ``PACED_KEYS`` marks (each erased again), timing each echo and the app's CPU."""
    tmux = Tmux(f"eddy-bench-paced-{os.getpid()}", command, env, cwd)
    try:
        tmux.wait_for(ready, timeout=60)
        tmux.until_typing()
        idle = type_marks(tmux, "i", 5)
        tmux.keys("write", literal=True)
        tmux.wait_for("write")
        tmux.keys("Enter")
        tmux.wait_for("Section 2", timeout=60)  # streaming, past the first section
        cpu0, t0 = tmux.cpu_seconds(), time.perf_counter()
        echo = type_marks(tmux, "k", PACED_KEYS)
        cpu = (tmux.cpu_seconds() - cpu0) / (time.perf_counter() - t0)
        streaming = time.perf_counter() - fake.prompts_at[-1] < fake.answer_seconds
        return PacedRun(idle, echo, cpu, streaming)
    finally:
        tmux.kill()


Run = TypeVar("Run")


def side_by_side(
    runs: int,
    claude: str | None,
    fake: Any,
    one: Callable[[list[str], dict[str, str], str, str, Any], Run],
) -> tuple[list[Run], list[Run], list[float]]:
    """``runs`` rounds of ``one`` (command, environment, working directory, the text that
    shows the app is up, ``fake``) for eddy, then for Claude Code (``claude``, if found),
    each in a new directory, against the fake Messages API ``fake``: alternating, so load
    hits both alike. Returns eddy's runs, Claude Code's, and the load before and after each
    round."""
    eddy_runs: list[Run] = []
    claude_runs: list[Run] = []
    loads = [os.getloadavg()[0]]
    for _ in range(runs):
        env = scratch_env() | {
            "ANTHROPIC_API_KEY": "sk-ant-bench",
            "ANTHROPIC_BASE_URL": fake.base_url,
        }
        cwd = tempfile.mkdtemp(prefix="eddy-bench-cwd-")
        eddy_runs.append(one([str(EDDY)], env, cwd, "eddy in", fake))
        if claude:
            cwd = tempfile.mkdtemp(prefix="eddy-bench-cwd-")
            claude_runs.append(
                one([claude], claude_env(cwd, fake.base_url), cwd, "Claude Code", fake)
            )
        loads.append(os.getloadavg()[0])
    return eddy_runs, claude_runs, loads


def bench_paced() -> None:
    """Keystroke echo and CPU while an answer streams at ~100 words/s: eddy (the installed
    command, real SDK) and Claude Code (``CLAUDE_BIN``) alternating against the same fake
    Messages API, each run in its own tmux session."""
    if not shutil.which("tmux"):
        print("paced: tmux not found, skipped")
        return
    claude = os.environ.get("CLAUDE_BIN") or shutil.which("claude")
    runs = int(os.environ.get("BENCH_RUNS", "5"))
    words_per_s = float(os.environ.get("BENCH_WORDS_PER_S", PACED_WORDS_PER_S))
    text = paced_answer()
    with paced_fake(text, words_per_s) as fake:
        eddy_runs, claude_runs, loads = side_by_side(runs, claude, fake, paced_run)
    med = statistics.median

    def summary(name: str, got: list[PacedRun]) -> tuple[float, float]:
        per_run = [med(r.echo) * 1000 for r in got]
        every = sorted(d * 1000 for r in got for d in r.echo)
        cpu = [r.cpu * 100 for r in got]
        cut = sum(not r.streaming for r in got)
        idle = med(d * 1000 for r in got for d in r.idle)
        print(
            f"  {name:12} echo median {med(every):.0f} ms (runs' medians {min(per_run):.0f}-"
            f"{max(per_run):.0f}, max {every[-1]:.0f}; idle {idle:.0f}); CPU {med(cpu):.0f}% of "
            f"a core ({min(cpu):.0f}-{max(cpu):.0f})" + (f"; {cut} runs ended early" if cut else "")
        )
        return med(every), med(cpu)

    print(
        f"paced stream, {words_per_s:.0f} words/s ({len(text.split())} words), {PACED_KEYS} keys "
        f"a run while it streams, {runs} alternating runs (tmux, real SDK, fake API; load "
        f"{min(loads):.2f}-{max(loads):.2f} on {os.cpu_count()} cores):"
    )
    e_echo, e_cpu = summary("eddy", eddy_runs)
    if claude_runs:
        c_echo, c_cpu = summary(f"Claude Code {claude_version(claude or '')}", claude_runs)
        print(
            f"  eddy / Claude Code: echo {e_echo / c_echo:.2f}x (target <= 1.5x), CPU "
            f"{e_cpu / c_cpu:.2f}x (target <= 2.5x)"
        )
    else:
        print("  Claude Code: not found (set CLAUDE_BIN), no ratio")


# -- a flood, side by side with Claude Code ------------------------------------------------------
FLOOD_END = "zq-the-answer-ends-here"
"""The answer's last line in the flood part: on screen once all of it is shown."""
FLOOD_SETTLE = float(os.environ.get("BENCH_FLOOD_SETTLE", "3"))
"""Seconds between the prompt taking keys and the prompt typed (a person is slower; 0: a
prompt typed at once, which waits for eddy's SDK client, made after start-up)."""


@dataclass
class FloodRun:
    from_enter: float
    """Seconds from Enter (send-keys) until the answer's last line is on screen."""
    from_request: float
    """... from the answer's request reaching the fake API."""


def flood_run(command: list[str], env: dict[str, str], cwd: str, ready: str, fake: Any) -> FloodRun:
    """One app in tmux: start, send a prompt, time its answer's end on screen."""
    tmux = Tmux(f"eddy-bench-flood-{os.getpid()}", command, env, cwd)
    try:
        tmux.wait_for(ready, timeout=60)
        tmux.until_typing()
        time.sleep(FLOOD_SETTLE)  # start-up's background work done, as when a person types
        tmux.keys("write", literal=True)
        tmux.wait_for("write")
        asked = len(fake.prompts_at)
        start = time.perf_counter()
        tmux.keys("Enter")
        tmux.wait_for(FLOOD_END, timeout=60, pause=0.003)
        shown = time.perf_counter()
        return FloodRun(shown - start, shown - fake.prompts_at[asked])
    finally:
        tmux.kill()


def bench_flood() -> None:
    """The 20,000-token answer at full speed to eddy and to Claude Code, alternating in tmux:
    how long until its end is on screen."""
    if not shutil.which("tmux"):
        print("flood: tmux not found, skipped")
        return
    claude = os.environ.get("CLAUDE_BIN") or shutil.which("claude")
    runs = int(os.environ.get("BENCH_RUNS", "5"))
    text = answer_text() + f"\n\n{FLOOD_END}\n"
    with paced_fake(text, float("inf")) as fake:
        eddy_runs, claude_runs, loads = side_by_side(runs, claude, fake, flood_run)
    med = statistics.median

    def summary(name: str, got: list[FloodRun]) -> float:
        enter = [r.from_enter for r in got]
        request = [r.from_request for r in got]
        print(
            f"  {name:12} from Enter {med(enter):.3f} s ({min(enter):.3f}-{max(enter):.3f}); "
            f"from the request {med(request):.3f} s ({min(request):.3f}-{max(request):.3f})"
        )
        return med(enter)

    print(
        f"a {len(text):,}-character answer at full speed (the fake API streams it as fast as it "
        f"can), until its last line shows, the prompt typed {FLOOD_SETTLE:g} s after the prompt "
        f"takes keys; {runs} alternating runs (tmux, real SDK; load "
        f"{min(loads):.2f}-{max(loads):.2f} on {os.cpu_count()} cores):"
    )
    eddy = summary("eddy", eddy_runs)
    if claude_runs:
        other = summary(f"Claude Code {claude_version(claude or '')}", claude_runs)
        print(f"  eddy / Claude Code, from Enter: {eddy / other:.2f}x")
    else:
        print("  Claude Code: not found (set CLAUDE_BIN), no ratio")


# -- a long session ---------------------------------------------------------------------------
async def long_session(turns: int = 500) -> None:
    from agent import events as ev
    from agent.messages import assistant
    from cli.main import parse_launch
    from tests.fakes.scripted import ScriptedModel, tool_call
    from tests.fakes.tools import FnTool
    from tui.app import EddyApp

    output = "\n".join(f"{i:04d} some build output line with text" for i in range(1000))
    tool = FnTool("Bash", lambda a, c: output, read_only=True)

    def script(history: list[Any]) -> Any:
        n = len(history)
        if history[-1].content and getattr(history[-1].content[0], "tool_use_id", None):
            return f"Turn done. The build printed **1,000 lines**; all fine.\n\n- n = {n}\n"
        return assistant(f"Running the build ({n}).", tool_call(f"t{n}", "Bash", command="make"))

    done = asyncio.Event()
    count = 0

    def hook(event: Any) -> None:
        nonlocal count
        if isinstance(event, ev.TurnFinished):
            count += 1
            done.set()

    args = parse_launch(["--permission-mode", "bypassPermissions"])
    args = args.replace(cwd=Path(tempfile.mkdtemp(prefix="eddy-bench-ws-")))
    app = EddyApp(args, model=ScriptedModel(script), tools=[tool], event_hook=hook)
    print(f"long session: RSS at start {rss_mb():.0f} MB")
    async with app.run_test(size=SIZE) as pilot:
        while app.main.session is None:
            await pilot.pause()
        start = time.perf_counter()
        for turn in range(1, turns + 1):
            done.clear()
            app.main.prompt.insert(f"build {turn}")
            await pilot.press("enter")
            await done.wait()
            await pilot.pause()
            if turn in (1, 100, 250, turns):
                nodes = len(list(app.query("*")))
                print(
                    f"  after {turn:3d} turns: RSS {rss_mb():.0f} MB, {nodes} widgets, "
                    f"{(time.perf_counter() - start) / turn * 1000:.0f} ms/turn"
                )
        conversation = app.main.conversation
        t0 = time.perf_counter()
        conversation.scroll_home(animate=False)
        await pilot.pause()
        conversation.scroll_end(animate=False)
        await pilot.pause()
        print(
            f"  scroll top and back to the bottom: {(time.perf_counter() - t0) * 1000:.0f} ms "
            f"(session history: {len(app.session.history)} messages)"
        )


# -- an answer streamed into a deep conversation -----------------------------------------------
DEEP_BLOCKS = 150
DEEP_TOKENS_PER_S = 300
DEEP_TOKENS = 1500


async def deep_stream(blocks: int) -> tuple[float, int, float]:
    """One answer streamed into a conversation of ``blocks`` blocks: the app's CPU seconds
    over the stream, the screen's layout passes and their seconds."""
    from agent import events as ev
    from cli.main import parse_launch
    from tui.app import EddyApp
    from tui.widgets.conversation.frozen_markdown import FrozenMarkdown

    done = asyncio.Event()

    def hook(event: Any) -> None:
        if isinstance(event, ev.TurnFinished):
            done.set()

    args = parse_launch(["--model", MODEL]).replace(cwd=Path(tempfile.mkdtemp()))
    model = PacedModel(answer_text(DEEP_TOKENS), DEEP_TOKENS_PER_S)
    app = EddyApp(args, model=model, tools=[], event_hook=hook)
    async with app.run_test(size=SIZE) as pilot:
        while app.main.session is None:
            await pilot.pause()
        conversation = app.main.conversation
        for i in range(blocks // 3):
            conversation.add_user(f"question {i}: what does step_{i} do with negative input?")
            conversation.add_line(f"Read src/step_{i}.py (42 lines)", "notice")
            conversation.add_block(FrozenMarkdown(answer_text(60)))
        for _ in range(3):
            await pilot.pause()
        screen, passes, spent = app.screen, [0], [0.0]
        layout = screen._refresh_layout

        def timed(*args: Any, **kwargs: Any) -> None:
            start = time.perf_counter()
            layout(*args, **kwargs)
            passes[0] += 1
            spent[0] += time.perf_counter() - start

        screen._refresh_layout = timed  # type: ignore[method-assign]
        cpu = time.process_time()
        app.main.prompt._submit("write")
        await done.wait()
        await pilot.pause()
        return time.process_time() - cpu, passes[0], spent[0]


def bench_deep() -> None:
    os.environ.update({k: v for k, v in scratch_env().items() if k.startswith("EDDY")})
    runs = int(os.environ.get("BENCH_RUNS", "3"))
    got: dict[int, list[tuple[float, int, float]]] = {0: [], DEEP_BLOCKS: []}
    for _ in range(runs):  # alternating
        for blocks in got:
            got[blocks].append(asyncio.run(deep_stream(blocks)))
    med = statistics.median
    figures = {
        blocks: (med(r[0] for r in rows), med(r[1] for r in rows), med(r[2] for r in rows))
        for blocks, rows in got.items()
    }
    print(
        f"an answer of {DEEP_TOKENS} tokens at {DEEP_TOKENS_PER_S} tokens/s, medians of {runs} "
        f"alternating runs (load {os.getloadavg()[0]:.1f}):"
    )
    for blocks, (cpu, passes, spent) in figures.items():
        print(
            f"  into {blocks:3d} blocks: CPU {cpu:.2f} s; {passes:.0f} layout passes, "
            f"{spent:.2f} s ({spent / max(passes, 1) * 1000:.1f} ms each)"
        )
    deep, empty = figures[DEEP_BLOCKS], figures[0]
    print(f"  {DEEP_BLOCKS} blocks / empty: CPU {deep[0] / empty[0]:.2f}x")


def main() -> None:
    part = sys.argv[1] if len(sys.argv) > 1 else "all"
    if part == "_stream-app":
        stream_app_main(float(sys.argv[2]))
        return
    compile_eddy()
    if part in ("all", "startup"):
        bench_startup()
    if part in ("all", "stream"):
        bench_stream()
    if part in ("all", "paced"):
        bench_paced()
    if part in ("all", "long"):
        os.environ.update({k: v for k, v in scratch_env().items() if k.startswith("EDDY")})
        asyncio.run(long_session(int(os.environ.get("BENCH_TURNS", "500"))))
    if part in ("all", "deep"):
        bench_deep()
    if part in ("all", "flood"):
        bench_flood()


if __name__ == "__main__":
    main()
