"""``eddy mcp serve``: eddy's tools offered to another MCP client over stdio, as
``claude mcp serve`` offers Claude Code's.

The tools are the ones a session has (Read, Write, Edit, MultiEdit, Bash, Glob, Grep,
NotebookEdit, WebFetch, BashOutput, KillShell), with their own descriptions and input
schemas, and every call goes through the session a prompt's calls go through: the
extensions (PreToolUse hooks), the deny, ask and allow rules of every settings file and of
``--allowed-tools`` / ``--disallowed-tools``, the permission mode, the sandbox under Bash,
the paths outside the workspace. Tools that need a model or a person at eddy's own screen
(Agent, AskUserQuestion, ExitPlanMode, TodoWrite, Skill) are not offered.

Where the rules would ask, the MCP client is asked through elicitation (a yes/no form: on the
2026-07-28 protocol as an ``InputRequiredResult`` the client answers by calling again, before
it as an ``elicitation/create`` request during the call), when it declared the capability;
otherwise, or when it declines, the call is refused with an is_error result that names the
allow rule that would let it run. Calls run one at a time (one session, one workspace).
"""

from __future__ import annotations

import asyncio
import json
import secrets
import sys
from typing import Any

from agent.extension import Extension, PermissionAnswer, PermissionQuestion
from agent.messages import ToolUseBlock
from agent.model.protocol import ModelRequest, ModelResponse, StreamSink
from agent.open import OpenedSession, SessionOptions, open_session
from frontend.launch import LaunchOptions

OFFERED = (
    "Read",
    "Write",
    "Edit",
    "MultiEdit",
    "Bash",
    "Glob",
    "Grep",
    "NotebookEdit",
    "WebFetch",
    "BashOutput",
    "KillShell",
)
"""The tools offered, in this order (those the session has)."""
ANSWER = "permission"
"""The key of the permission question among a call's input requests."""
FORM = {
    "type": "object",
    "properties": {"allow": {"type": "boolean", "title": "Allow", "description": "run it"}},
    "required": ["allow"],
}


class _NoModel:
    """The session of ``mcp serve`` never calls a model: the client is the agent."""

    name = "none"

    async def respond(self, request: ModelRequest, sink: StreamSink) -> ModelResponse:
        raise RuntimeError("eddy mcp serve runs tools only; it calls no model")


def refusal(question: PermissionQuestion, why: str) -> str:
    """The is_error text of a call nobody could approve: why, and the rule that allows it."""
    use = question.use
    text = f"{use.name} was not run: {why}"
    if question.warning:
        return f"{text} {question.warning}"
    if question.suggestion:
        return (
            f"{text} To allow it, add the allow rule {question.suggestion!r} to eddy's "
            f"settings or start eddy mcp serve with --allowed-tools {question.suggestion!r}."
        )
    return f"{text} No allow rule settles this call."


def ask_text(question: PermissionQuestion) -> str:
    """What the client shows: the call and the rule a yes stands for."""
    what = question.summary or json.dumps(question.use.input)[:200]
    return f"eddy: allow {question.use.name}: {what}?"


class ClientAsker(Extension):
    """Answers the gate's questions by asking the MCP client (see the module docstring)."""

    name = "mcp-serve"

    def __init__(self) -> None:
        self.request: Any = None
        """The MCP request context of the call running now."""
        self.answer: bool | None = None
        """The client's answer to this call's question, given by calling again."""
        self.needed: str | None = None
        """The question the client must answer by calling again (the 2026-07-28 protocol:
        no request can reach the client during a call); the call is refused meanwhile."""

    async def ask(self, question: PermissionQuestion) -> PermissionAnswer | None:
        """Ask the client, or refuse naming the rule (never None: nobody else can answer)."""
        if self.answer is not None:
            if self.answer:
                return PermissionAnswer(True)
            return PermissionAnswer(False, refusal(question, "the MCP client said no."))
        ctx = self.request
        caps = getattr(getattr(ctx, "session", None), "client_capabilities", None)
        if ctx is None or getattr(caps, "elicitation", None) is None:
            why = "the rules ask, and the MCP client cannot be asked (it has no elicitation)."
            return PermissionAnswer(False, refusal(question, why))
        if str(ctx.protocol_version) >= "2026-07-28":
            self.needed = ask_text(question)  # the call stops here; the client is asked
            return PermissionAnswer(False, "waiting for the MCP client's answer")
        result = await ctx.session.elicit_form(
            ask_text(question), FORM, related_request_id=ctx.request_id
        )
        allowed = result.action == "accept" and bool((result.content or {}).get("allow"))
        if allowed:
            return PermissionAnswer(True)
        said = (
            "the MCP client said no." if result.action == "accept" else "the MCP client declined."
        )
        return PermissionAnswer(False, refusal(question, said))


class ToolServer:
    """eddy's session's tools behind an MCP server (see the module docstring)."""

    def __init__(self, opened: OpenedSession, asker: ClientAsker) -> None:
        self.session = opened.session
        self.asker = asker
        self.lock = asyncio.Lock()
        self.tools = [t for name in OFFERED if (t := self.session.tools.get(name)) is not None]
        self.pending: dict[str, tuple[str, dict[str, Any]]] = {}
        """Calls waiting for the client's answer, by their request state."""

    def list_tools(self) -> Any:
        """The offered tools as MCP tools."""
        from mcp import types

        return types.ListToolsResult(
            tools=[
                types.Tool(name=t.name, description=t.description, input_schema=t.input_schema)
                for t in self.tools
            ]
        )

    async def call_tool(self, ctx: Any, params: Any) -> Any:
        """Run one call through the session's gate and tool (one at a time)."""
        from mcp import types

        name, args = params.name, dict(params.arguments or {})
        answer: bool | None = None
        state = getattr(params, "request_state", None)
        responses = getattr(params, "input_responses", None) or {}
        if state and state in self.pending and ANSWER in responses:
            name, args = self.pending.pop(state)
            response = responses[ANSWER]
            content = getattr(response, "content", None) or {}
            answer = getattr(response, "action", "") == "accept" and bool(content.get("allow"))
        if name not in {t.name for t in self.tools}:
            return _result(f"eddy mcp serve offers no tool {name!r}.", True)
        async with self.lock:
            self.asker.request, self.asker.answer, self.asker.needed = ctx, answer, None
            use = ToolUseBlock(f"toolu_{secrets.token_hex(8)}", name, args)
            try:
                (block,) = await self.session.runner.run_all([use], _plain_race)
                needed = self.asker.needed
            finally:
                self.asker.request = self.asker.answer = self.asker.needed = None
        if needed is not None:  # ask the client; it answers by calling again
            token = secrets.token_urlsafe(16)
            self.pending[token] = (name, args)
            return types.InputRequiredResult(
                input_requests={
                    ANSWER: types.ElicitRequest(
                        params=types.ElicitRequestFormParams(message=needed, requested_schema=FORM)
                    )
                },
                request_state=token,
            )
        return _result(block.content, block.is_error)


async def _plain_race(work: Any) -> Any:
    return await work


def _result(content: Any, is_error: bool) -> Any:
    """A tool result block's content as an MCP ``CallToolResult``."""
    from mcp import types

    parts: list[Any] = []
    for block in [content] if isinstance(content, str) else list(content):
        if isinstance(block, str):
            parts.append(types.TextContent(type="text", text=block))
        elif block.get("type") == "image":
            source = block.get("source", {})
            data = source.get("data", "")
            parts.append(
                types.ImageContent(
                    type="image", data=data, mime_type=source.get("media_type", "image/png")
                )
            )
        else:
            parts.append(types.TextContent(type="text", text=str(block.get("text", ""))))
    return types.CallToolResult(content=parts, is_error=is_error)


def malformed_reply(problem: Exception) -> Any:
    """The JSON-RPC error that answers a request the MCP SDK could not read (``params`` that
    is not an object, an unknown method with odd params), or None when what was sent is not
    a request with an id it can be answered with. The SDK reports such a line as a
    validation error and drops it, so the client would wait for ever; the request it failed
    on is the input of the error's ``missing`` entries (the union's response branches)."""
    from mcp_types import INVALID_REQUEST, ErrorData, JSONRPCError
    from pydantic import ValidationError

    if not isinstance(problem, ValidationError):
        return None
    for error in problem.errors():
        sent = error.get("input")
        if not (isinstance(sent, dict) and isinstance(sent.get("method"), str)):
            continue
        request_id = sent.get("id")
        if isinstance(request_id, bool) or not isinstance(request_id, int | str):
            return None  # a notification, or an id no answer can carry
        why = "params must be an object" if "params" in sent else "not a valid request"
        error_data = ErrorData(code=INVALID_REQUEST, message=f"Invalid request: {why}.")
        return JSONRPCError(jsonrpc="2.0", id=request_id, error=error_data)
    return None


class MalformedAnswered:
    """The server's read stream, answering the requests the SDK could not read with an error
    (``malformed_reply``) instead of leaving them unanswered; everything else goes on as
    read."""

    def __init__(self, inner: Any, write: Any) -> None:
        self._inner = inner
        self._write = write

    @property
    def last_context(self) -> Any:
        """The sender's context of the last item (the SDK's context streams carry one)."""
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> Any:
        item = await self._inner.receive()
        reply = malformed_reply(item) if isinstance(item, Exception) else None
        if reply is not None:
            from mcp.shared.message import SessionMessage

            await self._write.send(SessionMessage(reply))
        return item

    def __aiter__(self) -> MalformedAnswered:
        return self

    async def __anext__(self) -> Any:
        import anyio

        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> MalformedAnswered:
        await self._inner.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> Any:
        return await self._inner.__aexit__(*exc)


def serve_options(args: LaunchOptions) -> SessionOptions:
    """The session behind the server: the workspace, the rules and mode, not saved."""
    return SessionOptions(
        workspace=args.workspace,
        headless=False,  # the rules' asks reach ClientAsker (it always answers)
        persist=False,
        permission_mode=args.permission_mode,
        allowed_tools=args.allowed_tools,
        disallowed_tools=args.disallowed_tools,
        add_dirs=args.add_dirs,
        mcp_config=args.mcp_config,
        strict_mcp_config=True,  # eddy's own tools only: no servers of its own
        plugin_dirs=args.plugin_dirs,
    )


async def serve(args: LaunchOptions) -> int:
    """Serve eddy's tools on stdin/stdout until the client closes them."""
    from mcp.server.lowlevel import Server
    from mcp.server.stdio import stdio_server

    asker = ClientAsker()
    opened = open_session(
        serve_options(args), lambda _event: None, model=_NoModel(), extensions=[asker]
    )
    for problem in opened.problems:
        print(f"eddy: {problem}", file=sys.stderr)
    tools = ToolServer(opened, asker)

    async def list_tools(ctx: Any, params: Any) -> Any:
        return tools.list_tools()

    async def call_tool(ctx: Any, params: Any) -> Any:
        return await tools.call_tool(ctx, params)

    server: Any = Server("eddy", on_list_tools=list_tools, on_call_tool=call_tool)
    try:
        async with stdio_server() as (read, write):
            answering = MalformedAnswered(read, write)
            await server.run(answering, write, server.create_initialization_options())
    finally:
        await opened.session.close()
    return 0


def run_mcp_serve(args: LaunchOptions) -> int:
    """``eddy mcp serve [--cwd DIR] [--allowed-tools ...] [--permission-mode ...] ...``."""
    return asyncio.run(serve(args))
