"""``python -m agent.mcp``: the MCP host (agent/mcp/host.py), as eddy starts it.

The MCP SDK's import is most of the host's start: it begins here, in a thread, before the
host's own modules load, while eddy sends the servers and their processes start; without the
SDK's server side (:mod:`agent.mcp.client_only`: the shells are in place before any import of
the SDK in this process).
"""

import threading

from agent.mcp.client_only import ServerShells, load_client
from agent.mcp.transport import load_sdk


def _import_sdk(shells: ServerShells) -> None:
    try:
        load_client(lambda: load_sdk("stdio"), shells)
    except ImportError:
        pass  # a server's start says so, as in eddy's process


if __name__ == "__main__":  # (imported, as by a test that imports every module: nothing)
    shells = ServerShells().install()
    threading.Thread(target=_import_sdk, args=(shells,), name="mcp-import", daemon=True).start()

    from agent.mcp.host import main

    main()
