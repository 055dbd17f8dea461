"""One-shot questions to the small fast model, through the session's own model client.

WebFetch uses it to answer its prompt over a page, so that the page never enters the main
conversation. The call goes through the same ``Model`` (the same SDK client, base URL and
key), with another model id; the fake API in the tests sees it like any other request.

Its cost is the turn's as it happens (:func:`charge_turn`): the session's total and the budget
B count it like a response of the main model, so a budget that side calls use up stops the
turn at its next model response (docs/loop.md: "after each response, add its cost").
"""

from __future__ import annotations

import os

from agent.messages import user
from agent.model.pricing import cost_usd
from agent.model.protocol import Model, ModelError, ModelRequest, ModelResponse, StreamSink
from agent.turn.loop import CURRENT_TURN
from tools.base import AskModel, ToolError

DEFAULT_SMALL_FAST_MODEL = "claude-haiku-4-5"
SIDE_MAX_TOKENS = 4096


def small_fast_model() -> str:
    """The small fast model's id: ``ANTHROPIC_SMALL_FAST_MODEL``, else a Haiku-class default.

    One function so that the provider settings (issue 18) can take it over.
    """
    return os.environ.get("ANTHROPIC_SMALL_FAST_MODEL", "").strip() or DEFAULT_SMALL_FAST_MODEL


class _Quiet:
    """A sink that shows nothing: the side answer reaches the user as the tool's result."""

    def text(self, delta: str) -> None:
        return None

    def thinking(self, delta: str) -> None:
        return None

    def block_done(self, block: object) -> None:
        return None

    def retrying(self, notice: str) -> None:
        return None


def charge_turn(model_id: str, response: ModelResponse) -> float:
    """Add a side response's cost to the running turn and to every turn above it (a subagent's
    parents), as the loop adds a response's; its tokens to the running turn's usage.

    Returns:
        The cost (USD, the price table's for ``model_id`` unless the response names it).
    """
    cost = (
        response.cost_usd if response.cost_usd is not None else cost_usd(model_id, response.usage)
    )
    turn = CURRENT_TURN.get()
    if turn is not None:
        turn.usage = turn.usage + response.usage
    while turn is not None:  # the tree's spend counts as it happens
        turn.cost += cost
        turn = turn.parent
    return cost


def side_query(model: Model, model_id: str | None = None) -> AskModel:
    """An ``ask_model`` for the tools: ``prompt`` -> the small model's text answer.

    Raises (from the returned function):
        ToolError: the call failed or stopped before the answer was complete.
    """

    async def ask(prompt: str) -> str:
        request = ModelRequest(
            model_id or small_fast_model(), [user(prompt)], max_tokens=SIDE_MAX_TOKENS
        )
        sink: StreamSink = _Quiet()  # type: ignore[assignment]
        try:
            response = await model.respond(request, sink)
        except ModelError as exc:
            raise ToolError(
                f"the small model ({request.model}) failed: {exc.user_message}"
            ) from exc
        charge_turn(request.model, response)  # paid for, even if its answer broke off
        if response.stop_reason is None:
            raise ToolError(f"the small model's ({request.model}) answer broke off")
        return response.message.text

    return ask
