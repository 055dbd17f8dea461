"""``eddy --acp``: the overhead per streamed chunk over stdio.

A real client (the ``acp`` package's, as in tests/acp_agent) sends prompts whose scripted
answers stream SMALL and LARGE text chunks from the fake Messages API. The prompt's wall time
grows with the chunk count; the slope, (t_large - t_small) / (LARGE - SMALL), is what one chunk
costs end to end: SSE parse, engine event, ACP update, JSON on the pipe, the client's parse.
Each chunk arrives as one ``agent_message_chunk`` (checked). (A comparison with ``eddy -p``
was dropped: its process start-up, about 2 s and noisy here, swamps the slope.)
Run: .venv/bin/python bench/bench_acp.py
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

from acp import text_block  # noqa: E402

from tests.acp_agent.client import eddy_acp  # noqa: E402
from tests.fakes.fake_api import FakeAnthropic, Reply, text  # noqa: E402

SMALL, LARGE = 200, 4000
"""Chunks per answer (the fake streams three words per text delta)."""
ROUNDS = 3


def answer(chunks: int) -> Reply:
    return Reply([text(" ".join(f"w{i}" for i in range(chunks * 3)))])


async def acp_times(fake: FakeAnthropic, ws: Path) -> dict[int, list[float]]:
    times: dict[int, list[float]] = {SMALL: [], LARGE: []}
    async with eddy_acp(fake, cwd=ws) as (conn, client, _):
        sid = (await conn.new_session(cwd=str(ws), mcp_servers=[])).session_id
        for _ in range(ROUNDS):
            for chunks in (SMALL, LARGE):
                fake.push(answer(chunks))
                before = len(client.of("agent_message_chunk"))
                start = time.perf_counter()
                await conn.prompt(session_id=sid, prompt=[text_block("talk")])
                times[chunks].append(time.perf_counter() - start)
                assert len(client.of("agent_message_chunk")) - before == chunks
    return times


def slope_us(times: dict[int, list[float]]) -> float:
    small, large = statistics.median(times[SMALL]), statistics.median(times[LARGE])
    return (large - small) / (LARGE - SMALL) * 1e6


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp, FakeAnthropic() as fake:
        base = Path(tmp)
        ws = base / "ws"
        ws.mkdir()
        os.environ["EDDY_DATA_DIR"] = str(base / "data")
        os.environ["EDDY_CONFIG_DIR"] = str(base / "config")
        os.environ["EDDY_TRUSTED_FOLDERS"] = str(base)
        times = asyncio.run(acp_times(fake, ws))
        assert fake.violations == []
    for chunks in (SMALL, LARGE):
        runs = ", ".join(f"{t * 1000:.1f}" for t in times[chunks])
        print(f"prompt streaming {chunks:>5} chunks: {runs} ms")
    print(f"per streamed chunk, end to end over ACP stdio: {slope_us(times):.1f} us (median slope)")


if __name__ == "__main__":
    main()
