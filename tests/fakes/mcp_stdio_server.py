"""A tiny MCP server for the tests, over stdio: it can echo, hang, crash, fail, return big
output, images and structured content, and add a tool (announcing ``tools/list_changed``).

Run as ``python -m tests.fakes.mcp_stdio_server [--name NAME]``. ``FAKE_MCP_LOG`` names a file
where it appends one line per event ("start", "call <tool>", "cancelled <tool>") so a test can
wait for what the server saw.
"""

from __future__ import annotations

import base64
import os
import sys
from typing import Annotated, Any, Literal

import anyio
from mcp.server import MCPServer
from mcp.server.mcpserver import (
    AcceptedElicitation,
    Context,
    Elicit,
    ElicitationResult,
    ListRoots,
    Resolve,
)
from mcp.types import ImageContent, ListRootsResult, TextContent, ToolAnnotations
from pydantic import BaseModel, Field

PNG_1PX = base64.b64encode(
    bytes.fromhex(
        "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
        "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"
    )
).decode()


class DeployForm(BaseModel):
    """What the ``ask`` tool asks the user (an elicitation form)."""

    target: Literal["staging", "production"] = Field(description="where to")
    replicas: int = Field(description="how many")
    force: bool = Field(default=False, description="skip the checks")


def _ask_roots() -> ListRoots:
    return ListRoots()


def _ask_deploy() -> Elicit[DeployForm]:
    return Elicit("Where to deploy?", DeployForm)


def log(line: str) -> None:
    path = os.environ.get("FAKE_MCP_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as f:
            f.write(line + "\n")


def build(name: str = "fake", **options: Any) -> MCPServer:
    """The server (also used in-process by unit tests); ``options`` go to MCPServer."""
    server = MCPServer(name, **options)

    @server.tool(
        description="Echo the text back.", annotations=ToolAnnotations(read_only_hint=True)
    )
    def echo(text: str) -> str:
        log("call echo")
        return f"echo: {text}"

    @server.tool(description="Wait until cancelled (or for seconds); report: say so first.")
    async def hang(ctx: Context, seconds: float = 3600, report: bool = False) -> str:
        log("call hang")
        if report:  # (as progress: a caller can wait for the call to be under way)
            await ctx.report_progress(0, None, "hanging")
        try:
            await anyio.sleep(seconds)
        except BaseException:
            log("cancelled hang")
            raise
        return "woke up"

    @server.tool(description="Exit the server process at once.")
    def crash() -> str:
        log("call crash")
        os._exit(3)

    @server.tool(description="Fail with an error.")
    def fail(message: str = "it broke") -> str:
        log("call fail")
        raise ValueError(message)

    @server.tool(
        description="Return n characters.", annotations=ToolAnnotations(read_only_hint=True)
    )
    def big(n: int) -> str:
        return "x" * n

    arrived: list[anyio.Event] = []

    @server.tool(
        description="Wait until n calls of it are running at once (read-only).",
        annotations=ToolAnnotations(read_only_hint=True),
    )
    async def barrier(n: int = 2) -> str:
        mine = anyio.Event()
        arrived.append(mine)
        if len(arrived) >= n:
            for e in arrived:
                e.set()
            arrived.clear()
        await mine.wait()
        return f"met {n}"

    @server.tool(description="Return a picture and a caption.")
    def picture() -> list[TextContent | ImageContent]:
        return [
            TextContent(type="text", text="a red dot"),
            ImageContent(type="image", data=PNG_1PX, mime_type="image/png"),
        ]

    @server.tool(description="Add a tool named 'added' and announce the change.")
    async def add_tool(ctx: Context) -> str:
        log("call add_tool")

        def added() -> str:
            return "I was added"

        server.add_tool(added, description="A tool added at run time.")
        await ctx.notify_tools_changed()
        try:  # a handshake-era client hears of it through a notification instead
            await ctx.request_context.session.send_tool_list_changed()
        except Exception:
            pass
        return "added"

    @server.tool(description="List the client's roots.")
    async def roots(listed: Annotated[ListRootsResult, Resolve(_ask_roots)]) -> str:
        log("call roots")
        return "roots: " + " ".join(str(r.uri) for r in listed.roots)

    @server.tool(description="Ask the user for a deploy target, then say what was answered.")
    async def ask(answer: Annotated[ElicitationResult[DeployForm], Resolve(_ask_deploy)]) -> str:
        log("call ask")
        if not isinstance(answer, AcceptedElicitation):
            return f"the user answered: {answer.action}"
        data = answer.data
        return f"deploy to {data.target} (replicas {data.replicas}, force {data.force})"

    @server.tool(description="Report progress three times, then finish.")
    async def slow(ctx: Context, steps: int = 3) -> str:
        log("call slow")
        for i in range(1, steps + 1):
            await ctx.report_progress(i, steps, f"step {i}")
        return "slow done"

    @server.prompt(description="Ask for a review of a file.")
    def review(path: str) -> str:
        return f"Please review {path}."

    @server.resource("memo://notes", description="The notes.")
    def notes() -> str:
        return "the notes' text"

    return server


def main() -> None:
    name = sys.argv[sys.argv.index("--name") + 1] if "--name" in sys.argv else "fake"
    log("start")
    build(name).run("stdio")


if __name__ == "__main__":
    main()
