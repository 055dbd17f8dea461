"""``python -m agent.mcp``: the MCP host (agent/mcp/host.py), as eddy starts it.

The MCP SDK's import is most of the host's start: it begins here, in a thread, before the
host's own modules load, while eddy sends the servers and their processes start; without the
SDK's server side (:mod:`agent.mcp.client_only`: the shells are in place before any import of
the SDK in this process).
"""

import threading

from agent.mcp.client_only import ServerShells
from agent.mcp.transport import load_sdk


def _import_sdk() -> None:
    try:
        load_sdk("stdio")
    except ImportError:
        pass  # a server's start says so, as in eddy's process


if __name__ == "__main__":  # (imported, as by a test that imports every module: nothing)
    ServerShells().install()
    threading.Thread(target=_import_sdk, name="mcp-import", daemon=True).start()

    from agent.mcp.host import main

    main()
