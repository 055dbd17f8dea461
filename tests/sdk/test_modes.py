"""The SDK's ``permission_mode`` is eddy's mode from the first call: what runs, what asks the
SDK's ``can_use_tool``, what is refused."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.fakes.fake_api import FakeAnthropic, Reply, text, tool_use
from tests.sdk.conftest import Driver, of, sdk

MAKE_B = "python3 -c \"open('b.txt', 'w').write('b')\""
"""A command no mode takes for a file edit (acceptEdits still asks for it)."""


@pytest.mark.filterwarnings("ignore:can_use_tool will not be invoked")  # the SDK knows it
@pytest.mark.parametrize(
    ("mode", "asked", "made", "refusal"),
    [
        ("default", ["Write", "Bash"], True, None),
        ("acceptEdits", ["Bash"], True, None),
        ("bypassPermissions", [], True, None),
        ("plan", [], False, "plan mode"),
        ("dontAsk", [], False, "dontAsk mode"),
    ],
)
async def test_each_permission_mode_runs_asks_or_refuses_as_claude_codes_does(
    driver: Driver,
    fake_api: FakeAnthropic,
    workspace: Path,
    mode: str,
    asked: list[str],
    made: bool,
    refusal: str | None,
) -> None:
    fake_api.push(
        Reply(
            [
                tool_use("toolu_1", "Write", {"file_path": "new.txt", "content": "w\n"}),
                tool_use("toolu_2", "Bash", {"command": MAKE_B}),
            ],
            "tool_use",
        ),
        Reply([text("Done.")]),
    )
    seen: list[str] = []

    async def can_use_tool(name: str, args: dict[str, Any], context: Any) -> Any:
        seen.append(name)
        return sdk.PermissionResultAllow()

    messages = await driver.messages("make files", can_use_tool=can_use_tool, permission_mode=mode)
    assert of(messages, sdk.SystemMessage)[0].data["permissionMode"] == mode
    assert seen == asked
    assert (workspace / "new.txt").exists() is made and (workspace / "b.txt").exists() is made
    results = [b for b in fake_api.requests[1]["messages"][-1]["content"]]
    if refusal is None:
        assert not any(r.get("is_error") for r in results)
    else:
        assert all(r["is_error"] and refusal in str(r["content"]) for r in results)
        denied = {d["tool_use_id"] for d in of(messages, sdk.ResultMessage)[0].permission_denials}
        assert denied == {"toolu_1", "toolu_2"}
