"""Rendering a long answer with no network; prints figures, asserts nothing.

The 20,000-token answer of bench_tui.py handed to the UI in two bursts (four fifths, a few
frames later the rest and the end), as a stream faster than the screen arrives: the UI's CPU
time (its thread's) until the final frame is painted, against parsing the answer's markdown
once with markdown-it in the same run. Deterministic, unlike the streaming figure, whose
SDK parsing shares the CPU. Run: .venv/bin/python bench/bench_render.py
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_tui import MODEL, answer_text  # noqa: E402
from final_frame import FinalFrame  # noqa: E402
from tmux_harness import SIZE, scratch_env  # noqa: E402

BURST_GAP = 0.01
"""Between two bursts of the streamed shape: 14 bursts make the 0.14 s that the raw stream
of bench_tui.py takes on a quiet machine."""
STREAM_BURSTS = 14


async def render_cpu(text: str, split: int, bursts: int = 0) -> float:
    """The UI's CPU seconds to show ``text`` arriving in two bursts (``text[:split]``, a pause
    of a few frames, the rest and the end), until the final frame is painted (the first
    that shows the answer's end laid out at its full height: ``FinalFrame``). With
    ``bursts``: in that many equal bursts ``BURST_GAP`` apart instead, then the end (the
    shape of a full-speed stream on a quiet machine: the SDK hands over what each read of
    the socket held)."""
    from cli.main import parse_launch
    from tests.fakes.scripted import ScriptedModel
    from tui.app import EddyApp

    args = parse_launch(["--model", MODEL])
    args = args.replace(cwd=Path(tempfile.mkdtemp(prefix="eddy-bench-ws-")))
    app = EddyApp(args, model=ScriptedModel(["unused"]), tools=[])
    with FinalFrame(app, cpu=time.thread_time) as frame:
        async with app.run_test(size=SIZE) as pilot:
            while app.main.session is None:
                await pilot.pause()
            await pilot.pause()
            conversation = app.main.conversation
            start = time.thread_time()
            if bursts:
                size = -(-len(text) // bursts)
                conversation.add_text(text[:size])
                block = conversation.text_block
                for at in range(size, len(text), size):
                    await asyncio.sleep(BURST_GAP)
                    block.append(text[at : at + size])
            else:
                conversation.add_text(text[:split])
                block = conversation.text_block
                await asyncio.sleep(0.06)  # the first burst is sealed and painted meanwhile
                block.append(text[split:])
            block.finish()
            _, shown = await asyncio.wait_for(frame.shown(), 60)
            return shown - start


def bench_render() -> None:
    from markdown_it import MarkdownIt

    text = answer_text()
    runs = int(os.environ.get("BENCH_RUNS", "5"))
    os.environ.update({k: v for k, v in scratch_env().items() if k.startswith("EDDY")})
    asyncio.run(render_cpu(text, len(text) * 4 // 5))  # warm-up: imports, lexers
    ui, parse, streamed = [], [], []
    for _ in range(runs):
        ui.append(asyncio.run(render_cpu(text, len(text) * 4 // 5)))
        streamed.append(asyncio.run(render_cpu(text, 0, STREAM_BURSTS)))
        start = time.thread_time()
        MarkdownIt("gfm-like").parse(text)
        parse.append(time.thread_time() - start)
    med = statistics.median
    print(
        f"render 20k tokens in two bursts (no network, median of {runs}): UI CPU to the final "
        f"frame {med(ui) * 1000:.0f} ms = {med(ui) / med(parse):.1f}x parsing the answer's "
        f"markdown once ({med(parse) * 1000:.0f} ms); load {os.getloadavg()[0]:.1f}"
    )
    print(
        f"  in {STREAM_BURSTS} bursts {BURST_GAP * 1000:.0f} ms apart (a quiet full-speed "
        f"stream's shape): UI CPU to the final frame {med(streamed) * 1000:.0f} ms (run by run "
        f"{min(streamed) * 1000:.0f}-{max(streamed) * 1000:.0f} ms)"
    )


if __name__ == "__main__":
    bench_render()
