"""The Claude Agent SDKs drive eddy (issue 35): the Python SDK ``claude-agent-sdk`` (a test
dependency, pinned) starts the installed ``eddy`` as its CLI (``ClaudeAgentOptions(cli_path=
...)``) against the fake Messages API; every request the fake receives must be valid."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.fake_api import FakeAnthropic

sdk = pytest.importorskip(
    "claude_agent_sdk",
    reason="claude-agent-sdk is not installed (pip install -e '.[test]' installs it)",
)

EDDY = Path(sys.executable).with_name("eddy")
"""The installed eddy command (the SDK's ``cli_path``)."""


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """The project the SDK's session works in."""
    ws = tmp_path / "project"
    ws.mkdir()
    return ws


class Driver:
    """Options for the SDK pointed at eddy and the fake API; eddy's stderr collected."""

    def __init__(self, fake: FakeAnthropic, workspace: Path) -> None:
        self.fake = fake
        self.workspace = workspace
        self.stderr: list[str] = []

    def options(self, **fields: Any) -> Any:
        """``ClaudeAgentOptions`` for eddy (``fields`` added)."""
        env = {"ANTHROPIC_BASE_URL": self.fake.base_url, "ANTHROPIC_API_KEY": "test-key"}
        env.update(fields.pop("env", {}))
        return sdk.ClaudeAgentOptions(
            cli_path=str(EDDY),
            cwd=str(self.workspace),
            env=env,
            stderr=self.stderr.append,
            **fields,
        )

    async def messages(self, prompt: Any, **fields: Any) -> list[Any]:
        """Every message ``query(prompt)`` yields."""
        return [m async for m in sdk.query(prompt=prompt, options=self.options(**fields))]


@pytest.fixture
def driver(fake_api: FakeAnthropic, workspace: Path) -> Iterator[Driver]:
    """The SDK's options for eddy; at the end, every request the fake saw was valid."""
    d = Driver(fake_api, workspace)
    yield d
    assert fake_api.violations == [], d.stderr


def of(messages: list[Any], kind: type) -> list[Any]:
    """The messages of one type."""
    return [m for m in messages if isinstance(m, kind)]
