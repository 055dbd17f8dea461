"""A server's configuration crosses to the MCP host as JSON and comes back the same
(agent/mcp/host.py ``config_json`` / ``config_of``)."""

from __future__ import annotations

import json
from types import MappingProxyType

from agent.mcp.config import ServerConfig
from agent.mcp.host import config_json, config_of


def test_every_field_survives_the_trip() -> None:
    config = ServerConfig(
        name="s",
        scope="project",
        source=".mcp.json",
        kind="stdio",
        command="node",
        args=("server.js", "--port", "0"),
        env=MappingProxyType({"TOKEN": "x", "EMPTY": ""}),
        url="http://127.0.0.1:1/mcp",
        headers={"Authorization": "Bearer y"},
    )
    back = config_of(json.loads(json.dumps(config_json(config))))
    assert back == config
    assert back.args == ("server.js", "--port", "0") and dict(back.env) == dict(config.env)
