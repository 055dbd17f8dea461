"""Resume a 2,000-message session with large tool outputs (issue 6, target < 0.5 s).

Writes a transcript of 1,000 tool turns (an assistant message with a tool call, then a user
message with a 20 KB result), then times: loading it (replay + repair), opening it to append
(what ``--continue`` does before the prompt accepts input), listing the project's sessions
(cold and cached), and forking it. Prints the figures and the file size.
Run: .venv/bin/python bench/bench_store.py
"""

from __future__ import annotations

import os
import random
import string
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

MESSAGES = 2000
OUTPUT_BYTES = 20_000


def tool_output(rng: random.Random) -> str:
    """Source-like text: lines of words, quotes and backslashes (JSON has to escape them)."""
    words = ["def", "return", "self", "x", '"str"', "\\n", "if", "else:", "#", "value", "{}"]
    lines, size = [], 0
    while size < OUTPUT_BYTES:
        line = "    " * rng.randint(0, 3) + " ".join(rng.choices(words, k=rng.randint(3, 12)))
        lines.append(line)
        size += len(line) + 1
    return "\n".join(lines)[:OUTPUT_BYTES]


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["EDDY_DATA_DIR"] = str(Path(tmp) / "data")  # before eddy's imports
        from agent.store.transcript import fork

        cwd = Path(tmp) / "project"
        cwd.mkdir()
        started = time.perf_counter()
        path, history = write_session(cwd)
        write_s = time.perf_counter() - started
        size = path.stat().st_size
        lines = path.read_bytes().count(b"\n")
        load_s, resume_s = time_load_and_resume(path, history)
        cold_s, cached_s = time_listing(cwd, len(history))
        fresh = fresh_process_resume(path)
        t0 = time.perf_counter()
        forked = fork(path)
        fork_s = time.perf_counter() - t0

        print(f"transcript: {len(history)} messages, {lines} lines, {size / 1e6:.1f} MB")
        print(f"write (record every message, no fsync): {write_s:.3f} s")
        print(f"load (replay + repair):                 {load_s:.3f} s")
        print(f"resume (lock + load + open to append):  {resume_s:.3f} s   target < 0.5 s")
        print(f"same in a fresh process (with imports): {fresh:.3f} s")
        print(f"list sessions, cold / cached:           {cold_s:.4f} s / {cached_s:.4f} s")
        print(
            f"fork:                                   {fork_s:.3f} s "
            f"({forked.stat().st_size / 1e6:.1f} MB)"
        )
        print("PASS" if max(resume_s, fresh) < 0.5 else "SLOW")


def write_session(cwd: Path) -> tuple[Path, list[Any]]:
    """A transcript of ``MESSAGES`` messages in ``cwd``: tool calls with large outputs,
    recorded one message at a time; its path and its history."""
    from agent.messages import ToolResultBlock, ToolUseBlock, assistant, user
    from agent.store.transcript import Transcript

    rng = random.Random(6)
    outputs = [tool_output(rng) for _ in range(20)]
    t = Transcript.create(cwd, model="claude-sonnet-5-5")
    history = [user("refactor the parser")]
    t.record_history(history, prompt="refactor the parser")
    for i in range(MESSAGES // 2 - 1):
        path = "".join(rng.choices(string.ascii_lowercase, k=8)) + ".py"
        history.append(assistant(f"Step {i}.", ToolUseBlock(f"t{i}", "Read", {"path": path})))
        t.record_history(history)
        t.usage({"input_tokens": 1000 + i, "output_tokens": 50}, 0.001)
        history.append(user(ToolResultBlock(f"t{i}", outputs[i % 20])))
        t.record_history(history)
    history.append(assistant("Done."))
    t.record_history(history)
    t.close()
    return t.path, history


def best(fn: Callable[[], Any], n: int = 5) -> tuple[float, Any]:
    """The fastest of ``n`` calls of ``fn``, in seconds, and what the last returned."""
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times), out


def time_load_and_resume(path: Path, history: list[Any]) -> tuple[float, float]:
    """Seconds to load the transcript, and to open it to append (what --continue does)."""
    from agent.store.load import load
    from agent.store.transcript import Transcript

    load_s, loaded = best(lambda: load(path))
    assert loaded.history == history and not loaded.problems

    def resume() -> Any:
        with Transcript.open(path) as opened:
            assert opened.loaded is not None
            return opened.loaded

    resume_s, _ = best(resume)
    return load_s, resume_s


def time_listing(cwd: Path, messages: int) -> tuple[float, float]:
    """Seconds to list the project's sessions without the listing's cache, and with it."""
    from agent.store.listing import list_sessions, sessions_dir

    index = sessions_dir(cwd) / ".index.json"
    cold = []
    for _ in range(5):
        index.unlink(missing_ok=True)
        t0 = time.perf_counter()
        list_sessions(cwd)
        cold.append(time.perf_counter() - t0)
    cached_s, infos = best(lambda: list_sessions(cwd))
    assert infos[0].messages == messages and infos[0].turns == 1
    return min(cold), cached_s


def fresh_process_resume(path: Path) -> float:
    """Seconds to open the transcript to append in a new process, imports included."""
    code = (
        "import sys, time; t0 = time.perf_counter()\n"
        "from agent.store.transcript import Transcript\n"
        "with Transcript.open(__import__('pathlib').Path(sys.argv[1])) as t: pass\n"
        "print(time.perf_counter() - t0)"
    )
    root = str(Path(__file__).resolve().parents[1])
    runs = (
        subprocess.run(
            [sys.executable, "-c", code, str(path)],
            capture_output=True,
            text=True,
            check=True,
            cwd=root,
        ).stdout
        for _ in range(3)
    )
    return min(float(out) for out in runs)


if __name__ == "__main__":
    main()
