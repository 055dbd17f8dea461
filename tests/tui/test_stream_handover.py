"""The hand-over from the live markdown stream to the sealed text loses nothing.

Issue 25: a long answer streamed at a reading pace ended on screen a few list items short
(the transcript had it all). Text written to the MarkdownStream but not applied yet was left
out when the answer's end was sealed. The invariant: once the answer is finished, what the
widget shows (sealed pieces, rendered, then the live tail if shown) is the whole answer, in
order, for any chunking and any interleaving of the stream with the app's own work.
"""

from __future__ import annotations

import asyncio
import re

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from textual.app import App, ComposeResult
from textual.await_complete import AwaitComplete
from textual.containers import VerticalScroll
from textual.widgets import Markdown
from textual.widgets.markdown import MarkdownBlock

from tui.widgets.conversation.assistant_text import AssistantText

TOKEN = re.compile(r"t\d+")


class AnswerApp(App[None]):
    CSS = "AssistantText { height: auto; }"

    def compose(self) -> ComposeResult:
        yield VerticalScroll()


def make_answer(shapes: list[tuple[str, int]]) -> str:
    """Markdown of numbered tokens: paragraphs, bullet lists and numbered lists."""
    out, n = [], 0
    for kind, size in shapes:
        words = []
        for _ in range(size):
            words.append(f"t{n}")
            n += 1
        if kind == "paragraph":
            out.append(" ".join(words) + "\n\n")
        elif kind == "bullets":
            out.append("".join(f"- {w} filler words here\n" for w in words) + "\n")
        else:
            out.append("".join(f"{i}. {w} more filler\n" for i, w in enumerate(words, 1)) + "\n")
    return "".join(out)


def shown_text(answer: AssistantText) -> str:
    """The answer as the widget renders it: the sealed pieces, then the live blocks."""
    parts = [answer.sealed.render().plain] if answer.sealed is not None else []
    if answer.live.display:
        parts.extend(str(block._content) for block in answer.live.query(MarkdownBlock))
    return "\n".join(parts)


def slow_to_render(live: Markdown, gate: asyncio.Event) -> None:
    """``live`` applies its appends only while ``gate`` is set: a busy, loaded machine, where
    rendering a long list takes longer than the stream's next write (the source is taken at
    once, as Textual's Markdown does; only the widgets wait)."""
    append = live.append

    def held(fragment: str) -> AwaitComplete:
        applied = append(fragment)

        async def later() -> None:
            await gate.wait()
            await applied

        return AwaitComplete(later())

    live.append = held  # type: ignore[method-assign]


async def stream(
    text: str, cuts: list[int], yields: list[int], final_yields: int, held: list[bool]
) -> str:
    app = AnswerApp()
    async with app.run_test(size=(100, 30)) as pilot:
        answer = AssistantText()
        gate = asyncio.Event()
        slow_to_render(answer.live, gate)
        await app.query_one(VerticalScroll).mount(answer)
        start = 0
        for i, (cut, pause) in enumerate(zip(cuts, yields, strict=False)):
            if held[i % len(held)]:
                gate.clear()
            else:
                gate.set()
            answer.add(text[start : start + cut])
            start += cut
            for _ in range(pause):  # the app's loop runs the pump, the stream, the mounts
                await asyncio.sleep(0)
            if pause > 4:
                await pilot.pause()
        answer.add(text[start:])
        for _ in range(final_yields):
            await asyncio.sleep(0)
        answer.finish()
        gate.set()  # rendering catches up at last
        while not answer.finished:  # the pump's worker ends once everything is handed over
            await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        return shown_text(answer)


shapes = st.lists(
    st.tuples(st.sampled_from(["paragraph", "bullets", "numbered"]), st.integers(1, 60)),
    min_size=1,
    max_size=12,
)


# no shrinking: each example runs an app, and shrinking a failure took over five minutes
@settings(
    deadline=None,
    max_examples=30,
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    shapes=shapes,
    cuts=st.lists(st.integers(1, 700), min_size=1, max_size=60),
    yields=st.lists(st.integers(0, 8), min_size=60, max_size=60),
    final_yields=st.integers(0, 8),
    held=st.lists(st.booleans(), min_size=1, max_size=60),
)
def test_a_finished_answer_shows_every_token_in_order(shapes, cuts, yields, final_yields, held):
    text = make_answer(shapes)
    shown = asyncio.run(stream(text, cuts, yields, final_yields, held))
    assert TOKEN.findall(shown) == TOKEN.findall(text)


def test_text_written_to_the_stream_but_not_applied_is_in_the_sealed_end(monkeypatch):
    """The case of the issue: the last list items reach the stream, the stream has not
    applied them when the answer ends, and the end is sealed."""
    from tui.widgets.conversation import assistant_text

    monkeypatch.setattr(assistant_text, "WRITE_INTERVAL", 0)  # the pump writes at once
    text = make_answer([("paragraph", 20), ("numbered", 40)] * 4)
    cuts = [40] * (len(text) // 40)
    held = [False] * (len(cuts) - 3) + [True] * 3  # the end is slow to render
    shown = asyncio.run(stream(text, cuts, [6] * len(cuts), 20, held))
    assert TOKEN.findall(shown) == TOKEN.findall(text)
