"""The MCP host imports the SDK's client without its server side (agent/mcp/client_only.py).

Each case runs in a fresh interpreter: this process has the whole SDK imported already.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def run(code: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_client_imports_without_the_server_side_and_stand_ins_match_nothing() -> None:
    out = run(
        """
        import sys
        from agent.mcp.client_only import ServerShells
        from agent.mcp.transport import load_sdk

        ServerShells().install()
        load_sdk("stdio")
        import mcp.client.client as client
        from mcp import Client, MCPError, StdioServerParameters
        from mcp.client.stdio import stdio_client

        loaded = [m for m in ("mcp.server.lowlevel.server", "mcp.server.mcpserver.server")
                  if m in sys.modules]
        print("server side:", loaded)
        print("instance:", isinstance(object(), client.Server),
              isinstance(Client, client.MCPServer))
        try:
            client.Server("x")
        except RuntimeError as exc:
            print("call:", exc)
        """
    )
    assert "server side: []" in out
    assert "instance: False False" in out
    assert "call: mcp.server.Server is not loaded" in out


def test_a_failing_shell_falls_back_to_the_whole_sdk() -> None:
    out = run(
        """
        import sys
        from agent.mcp.client_only import ServerShells
        from agent.mcp.transport import load_sdk

        def broken(module, name):
            raise AttributeError(name)  # as a later SDK might need more than a stand-in

        shells = ServerShells(make=broken).install()
        load_sdk("stdio")
        import mcp.client.client as client
        from mcp.server.lowlevel.server import Server

        print("real:", client.Server is Server, shells in sys.meta_path)
        load_sdk("sse")  # a later import (a connection's) finds the whole SDK
        import mcp.client.sse
        print("sse:", callable(mcp.client.sse.sse_client))
        """
    )
    assert "real: True False" in out
    assert "sse: True" in out


def test_the_host_process_imports_the_client_only() -> None:
    """``python -m agent.mcp`` puts the shells in place before its first import of the SDK."""
    out = run(
        """
        import runpy, sys, threading
        import agent.mcp.host as host

        host.main = lambda: None  # the host's loop is not what is tested here
        runpy.run_module("agent.mcp", run_name="__main__")
        for thread in threading.enumerate():
            if thread.name == "mcp-import":
                thread.join(120)
        print("mcp:", "mcp.client.client" in sys.modules)
        print("server side:", "mcp.server.lowlevel.server" in sys.modules)
        """
    )
    assert "mcp: True" in out
    assert "server side: False" in out
