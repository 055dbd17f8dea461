"""MCP start-up benchmark; prints figures, asserts nothing. Run: .venv/bin/python bench/bench_mcp.py

Launch ``.venv/bin/eddy`` in tmux (as bench_tui.py does) with no MCP server and with 5 stdio
servers configured (our fake server, tests/fakes/mcp_stdio_server.py, through --mcp-config):
the median time to the first frame and until typed text shows in the prompt. The servers start
in the background, so the target is: accepts typing within 1.1x of the run without servers.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
PYTHON = ROOT / ".venv" / "bin" / "python"
SERVER = ROOT / "tests" / "fakes" / "mcp_stdio_server.py"
SERVERS = 5
RUNS = 7

from tmux_harness import EDDY, scratch_env, time_startup  # noqa: E402


def servers_file(n: int) -> Path:
    entries = {
        f"s{i}": {"command": str(PYTHON), "args": [str(SERVER), "--name", f"s{i}"]}
        for i in range(n)
    }
    path = Path(tempfile.mkdtemp(prefix="eddy-bench-mcp-")) / "servers.json"
    path.write_text(json.dumps({"mcpServers": entries}), encoding="utf-8")
    return path


def main() -> None:
    if not shutil.which("tmux"):
        print("mcp startup: tmux not found, skipped")
        return
    # a tmux server of our own: other benchmarks running at the same time use the same names
    os.environ["TMUX_TMPDIR"] = tempfile.mkdtemp(prefix="eddy-bench-tmux-")
    env = scratch_env()
    env["ANTHROPIC_API_KEY"] = "sk-ant-bench-not-used"
    env["CLAUDE_CONFIG_DIR"] = tempfile.mkdtemp(prefix="eddy-bench-claude-")  # no ~/.claude.json
    none_frame, none_typing = time_startup([str(EDDY)], "eddy in", env, runs=RUNS)
    cfg = servers_file(SERVERS)
    with_cmd = [str(EDDY), "--mcp-config", str(cfg)]
    mcp_frame, mcp_typing = time_startup(with_cmd, "eddy in", env, runs=RUNS)
    print(f"no MCP server:     first frame {none_frame:.3f}s, accepts typing {none_typing:.3f}s")
    print(
        f"{SERVERS} stdio servers:   first frame {mcp_frame:.3f}s, accepts typing {mcp_typing:.3f}s"
    )
    ratio = mcp_typing / none_typing
    verdict = "within" if ratio <= 1.1 else "NOT within"
    print(f"accepts typing: {ratio:.2f}x of none ({verdict} the 1.1x target; median of {RUNS})")


if __name__ == "__main__":
    main()
