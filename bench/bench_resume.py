"""Resume a long session: in the TUI (issue 6) and headless, ``eddy -p --continue`` (issue 32).

``tui`` (issue 6: the prompt accepts input in < 0.5 s):

Writes a transcript of 200 turns for a scratch project (a prompt, four tool calls with 20 KB
outputs each, a markdown answer: 10 messages a turn), with ``EDDY_DATA_DIR`` and
``EDDY_CONFIG_DIR`` in a temporary directory. Then launches the real ``eddy`` in tmux, as
``bench_tui.py`` times start-up, and prints the median of 5 runs of: the first frame (the
banner) and the echo of keys typed as soon as it shows; for a resume also the resumed
conversation on screen (its newest answer) and the echo of keys typed after that -- for
``eddy --continue``, ``eddy --resume ID``, and a fresh start in the same project as the
baseline; then the ratios. Prints figures, asserts nothing.

``headless`` (issue 32: ``-p --continue`` of 400 messages adds <= 0.15 s over a fresh start;
2,000 messages reach the first request <= 1.5x a fresh start): the same transcripts (400 and
2,000 messages, put back before each run with the session listing's cache as a first,
unmeasured, run left it: see ``run_case``), and ``eddy -p`` against the fake Messages API;
the clock is launch -> the first request's arrival at the fake API. The fresh start, the 400
and the 2,000 runs alternate; medians, spread and load are printed, and the CPU time each
whole run used (user + system, from ``wait4``: a figure a busy machine disturbs less).

Run: .venv/bin/python bench/bench_resume.py [tui|headless]   (both by default; tui needs
tmux; ``BENCH_RUNS`` sets the runs)
"""

from __future__ import annotations

import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_store import MESSAGES, tool_output  # noqa: E402
from tmux_harness import EDDY, SIZE, scratch_env, time_startup  # noqa: E402

from agent.store.listing import INDEX_FILE  # noqa: E402

TOOLS_PER_TURN = 4
LAST_ANSWER = f"Turn {MESSAGES // (2 + 2 * TOOLS_PER_TURN) - 1} is done"
"""The newest answer starts so: on screen, the resumed conversation is shown."""


def answer(turn: int) -> str:
    """A markdown answer: a heading, prose, a list and a code block."""
    return (
        f"Turn {turn} is done\n\n## What changed\n\nThe parser now reads **section {turn}** "
        f"and checks its bounds.\n\n- `parse_{turn}` validates\n- `emit_{turn}` writes\n\n"
        f"```python\ndef parse_{turn}(x):\n    return x * {turn}\n```\n"
    )


def write_transcript(project: Path, messages: int = MESSAGES) -> Path:
    """A realistic transcript of ``messages`` messages for ``project``; returns its path."""
    from agent.messages import ToolResultBlock, ToolUseBlock, assistant, user
    from agent.store.transcript import Transcript

    rng = random.Random(6)
    outputs = [tool_output(rng) for _ in range(20)]
    per_turn = 2 + 2 * TOOLS_PER_TURN
    t = Transcript.create(project, model="claude-sonnet-5-5")
    history: list = []
    for turn in range(messages // per_turn):
        prompt = f"Refactor section {turn} of the parser and run the tests"
        history.append(user(prompt))
        t.record_history(history, prompt=prompt)
        for k in range(TOOLS_PER_TURN):
            call = f"t{turn}_{k}"
            name, args = (
                ("Read", {"path": f"src/parser_{turn}_{k}.py"})
                if k % 2 == 0
                else ("Bash", {"command": f"pytest tests/test_parser_{turn}.py"})
            )
            history.append(assistant(f"Step {k} of turn {turn}.", ToolUseBlock(call, name, args)))
            t.record_history(history)
            t.usage({"input_tokens": 1000 + turn, "output_tokens": 50}, 0.001)
            history.append(user(ToolResultBlock(call, outputs[(turn + k) % 20])))
            t.record_history(history)
        history.append(assistant(answer(turn)))
        t.record_history(history)
        t.sync()
    t.close()
    return t.path


def main() -> None:
    modes = sys.argv[1:] or ["tui", "headless"]
    if "headless" in modes:
        headless(int(os.environ.get("BENCH_RUNS", "7")))
    if "tui" in modes:
        tui()


Case = tuple[list[str], Path, dict[str, str], tuple[Path, bytes, int] | None]
"""A headless case: argv, project, environment, and its transcript with the bytes and the
modification time to put back before each run."""


def headless(runs: int) -> None:
    """``eddy -p --continue`` of 400 and 2,000 messages against a fresh ``eddy -p``."""
    from tests.fakes.fake_api import FakeAnthropic, Reply, text

    # compiled once, as pip install does (an editable checkout under PYTHONDONTWRITEBYTECODE
    # would compile every module on every run)
    packages = ("agent", "tools", "frontend", "cli", "headless", "acp_agent")
    subprocess.run([sys.executable, "-m", "compileall", "-q", *packages], cwd=ROOT, check=True)
    root = Path(tempfile.mkdtemp(prefix="eddy-bench-resume-"))
    try:
        cases = headless_cases(root)
        first: dict[str, list[float]] = {label: [] for label in cases}
        cpu: dict[str, list[float]] = {label: [] for label in cases}
        with FakeAnthropic(default=Reply([text("ok")])) as fake:
            for case in cases.values():  # a warm-up: the run before lists the session
                run_case("warm-up", case, fake.base_url)
            indexes = {label: saved_index(case) for label, case in cases.items()}
            for _ in range(runs):
                for label, case in cases.items():
                    fake.timeline.clear()
                    started = time.time()
                    cpu[label].append(run_case(label, case, fake.base_url, indexes[label]))
                    first[label].append(fake.timeline[0][1] - started)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    report_headless(runs, first, cpu)


def headless_cases(root: Path) -> dict[str, Case]:
    """A fresh start, and --continue of a transcript of 400 and of 2,000 messages."""
    exe = str(Path(sys.executable).with_name("eddy"))
    base = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "CLAUDE"))}
    base |= {"ANTHROPIC_API_KEY": "sk-ant-bench-not-a-key"}
    cases: dict[str, Case] = {}
    for label, messages in (
        ("fresh start", 0),
        ("--continue, 400", 400),
        ("--continue, 2,000", 2000),
    ):
        project = root / f"p{messages}"
        project.mkdir()
        env = base | {"EDDY_DATA_DIR": str(root / f"data{messages}")}
        os.environ["EDDY_DATA_DIR"] = env["EDDY_DATA_DIR"]
        saved = None
        argv = [exe, "-p", "one more thing"]
        if messages:
            path = write_transcript(project, messages)
            saved = (path, path.read_bytes(), path.stat().st_mtime_ns)
            argv.append("--continue")
        cases[label] = (argv, project, env, saved)
    return cases


def saved_index(case: Case) -> tuple[Path, bytes] | None:
    """The session listing's cache (``sessions/.index.json``) as the warm-up run left it."""
    saved = case[3]
    if saved is None:
        return None
    index = saved[0].parent / INDEX_FILE
    return (index, index.read_bytes()) if index.is_file() else None


def run_case(
    label: str, case: Case, base_url: str, index: tuple[Path, bytes] | None = None
) -> float:
    """Run one case against the fake API at ``base_url``; the CPU seconds it used.

    Each run appends to its transcript (and a second run would compact the session its
    first one made huge): the transcript is put back as it was, with its time, and the
    session listing's cache as the warm-up run left it. As someone's next ``--continue``
    finds them: the listing read the file up to where its last run appended, and reads only
    what that run added. (A file that is put back shrinks under the cache, which then reads
    all of it again: about 40 ms for the 2,000 messages' 17.8 MB, a cost only a file changed
    by something else pays.)"""
    argv, project, env, saved = case
    if saved is not None:
        path, data, mtime_ns = saved
        path.write_bytes(data)
        os.utime(path, ns=(mtime_ns, mtime_ns))
    if index is not None:
        index[0].write_bytes(index[1])
    with tempfile.TemporaryFile() as log:
        proc = subprocess.Popen(
            argv,
            cwd=project,
            env=env | {"ANTHROPIC_BASE_URL": base_url},
            stdout=log,
            stderr=log,
        )
        _, status, usage = os.wait4(proc.pid, 0)
        if os.waitstatus_to_exitcode(status) != 0:
            log.seek(0)
            raise SystemExit(f"{label} failed: {log.read()[-1500:]!r}")
    return usage.ru_utime + usage.ru_stime


def report_headless(runs: int, first: dict[str, list[float]], cpu: dict[str, list[float]]) -> None:
    """Each case's launch -> first request and CPU, against the fresh start's."""
    print(
        f"eddy -p, launch -> first request; medians of {runs} alternating runs (min-max); "
        f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores"
    )
    fresh = statistics.median(first["fresh start"])
    fresh_cpu = statistics.median(cpu["fresh start"])
    for label, times in first.items():
        median, used = statistics.median(times), statistics.median(cpu[label])
        line = f"  {label:18s} {median:.3f} s ({min(times):.3f}-{max(times):.3f})"
        if label != "fresh start":
            line += f"; +{median - fresh:.3f} s = {median / fresh:.2f}x fresh"
        line += f"; CPU of the whole run {used:.3f} s"
        if label != "fresh start":
            line += f" (+{used - fresh_cpu:.3f} s)"
        print(line)
    print("targets: 400 messages add <= 0.15 s; 2,000 messages <= 1.5x a fresh start")


def tui() -> None:
    if not shutil.which("tmux"):
        print("tmux not found: nothing measured")
        return
    env = scratch_env()
    env["ANTHROPIC_API_KEY"] = "sk-ant-bench-not-used"  # a real start-up: SDK warm-up too
    os.environ.update({k: v for k, v in env.items() if k.startswith("EDDY")})
    project = Path(tempfile.mkdtemp(prefix="eddy-bench-project-"))
    try:
        measure(project, env, int(os.environ.get("BENCH_RUNS", "5")))
    finally:
        shutil.rmtree(project, ignore_errors=True)
        shutil.rmtree(Path(env["EDDY_DATA_DIR"]).parent, ignore_errors=True)


def measure(project: Path, env: dict[str, str], runs: int) -> None:
    """Write the transcript for ``project``, time the three start-ups, print the figures."""
    started = time.perf_counter()
    path = write_transcript(project)
    from agent.store.load import load

    loaded = load(path)
    print(
        f"transcript: {len(loaded.history)} messages in {loaded.turns} turns, "
        f"{path.stat().st_size / 1e6:.1f} MB (written in {time.perf_counter() - started:.1f} s)"
    )
    base = [str(EDDY), "--cwd", str(project)]
    session_id = path.name.removesuffix(".jsonl")
    cases = [
        ("fresh start (baseline)", base, None),
        ("eddy --continue", [*base, "--continue"], LAST_ANSWER),
        (f"eddy --resume {session_id[:8]}…", [*base, "--resume", session_id], LAST_ANSWER),
    ]
    echo, shown_then_echo = {}, {}
    print(f"median of {runs} runs, seconds from launch (eddy in tmux, {SIZE[0]}x{SIZE[1]}):")
    for label, command, shown in cases:
        frame, echo[label] = time_startup(command, "eddy in", env, runs)
        print(f"  {label:26s} first frame {frame:.3f}, keys typed then echo at {echo[label]:.3f}")
        if shown is not None:
            ready, shown_then_echo[label] = time_startup(command, shown, env, runs)
            print(
                f"  {'':26s} newest answer on screen {ready:.3f}, "
                f"then typing echoes at {shown_then_echo[label]:.3f}"
            )
    baseline = echo[cases[0][0]]

    def verdict(seconds: float) -> str:
        mark = "PASS" if seconds < 0.5 else "SLOW"
        return f"{seconds:.3f} s = {seconds / baseline:.2f}x fresh, {mark}"

    print("target < 0.5 s:")
    for label, *_ in cases[1:]:
        print(
            f"  {label}: prompt accepts input {verdict(echo[label])}; "
            f"conversation shown and typing echoed {verdict(shown_then_echo[label])}"
        )


if __name__ == "__main__":
    main()
