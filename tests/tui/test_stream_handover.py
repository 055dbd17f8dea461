"""What a streaming answer shows: every token, in order, at every write and at the end.

Issue 25: a long answer streamed at a reading pace ended on screen a few list items short
(the transcript had it all): text handed to Textual's MarkdownStream but not applied yet was
left out when the answer's end was sealed. Answers are now one widget whose finished blocks
are sealed into pieces and whose block being written is its tail; the invariant stays: what
the widget shows is the text received so far, in order, for any chunking and any
interleaving of the stream with the app's own work, and at the end it is the whole answer.
"""

from __future__ import annotations

import asyncio
import re

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll

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


async def stream(text: str, cuts: list[int], yields: list[int], final_yields: int) -> str:
    app = AnswerApp()
    async with app.run_test(size=(100, 30)) as pilot:
        answer = AssistantText()
        await app.query_one(VerticalScroll).mount(answer)
        start = 0
        for cut, pause in zip(cuts, yields, strict=False):
            answer.append(text[start : start + cut])
            start += cut
            for _ in range(pause):  # the app's loop runs the pump and paints
                await asyncio.sleep(0)
            if pause > 4:
                await pilot.pause()
            shown = TOKEN.findall(answer.render().plain)  # a prefix, in order (the last one
            every = TOKEN.findall(text)  # may be cut short: "t1" of "t12")
            if shown:
                assert shown[:-1] == every[: len(shown) - 1]
                assert every[len(shown) - 1].startswith(shown[-1])
        answer.append(text[start:])
        for _ in range(final_yields):
            await asyncio.sleep(0)
        answer.finish()
        while not answer.finished:  # the pump's worker ends once everything is written
            await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert not answer.children  # one widget: nothing was mounted for the blocks
        return answer.render().plain


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
)
def test_a_finished_answer_shows_every_token_in_order(shapes, cuts, yields, final_yields):
    text = make_answer(shapes)
    shown = asyncio.run(stream(text, cuts, yields, final_yields))
    assert TOKEN.findall(shown) == TOKEN.findall(text)


def test_a_reading_pace_answer_ends_with_its_last_list_items(monkeypatch):
    """The case of the issue: paragraphs and numbered lists at a reading pace, the answer
    ending right after its last items."""
    from tui.widgets.conversation import assistant_text

    monkeypatch.setattr(assistant_text, "WRITE_INTERVAL", 0)  # the pump writes at once
    text = make_answer([("paragraph", 20), ("numbered", 40)] * 4)
    cuts = [40] * (len(text) // 40)
    shown = asyncio.run(stream(text, cuts, [6] * len(cuts), 20))
    assert TOKEN.findall(shown) == TOKEN.findall(text)
