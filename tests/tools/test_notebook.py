"""Notebooks: Read renders cells with outputs (capped), NotebookEdit replaces, inserts and
deletes cells with nbformat, and a rewind puts the notebook back byte for byte (issue 22)."""

from __future__ import annotations

import base64
import io
from pathlib import Path
from typing import Any

import nbformat
import pytest

from agent import events as ev
from agent import ops
from agent.checkpoints.engine import CheckpointStore
from agent.messages import assistant
from agent.session.config import SessionConfig
from agent.session.core import Session
from tests.fakes.scripted import ScriptedModel, tool_call
from tests.helpers.events import Events
from tools.base import ToolContext, ToolError
from tools.notebook import OUTPUT_MAX_CHARS
from tools.notebook_edit import TOOL as EDIT
from tools.read import TOOL as READ


def png_b64() -> str:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (20, 10), (1, 2, 3)).save(out, "PNG")
    return base64.b64encode(out.getvalue()).decode()


def notebook(path: Path, *, minor: int = 5) -> Path:
    nb = nbformat.v4.new_notebook()
    nb.nbformat_minor = minor
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    title = nbformat.v4.new_markdown_cell("# Analysis")
    code = nbformat.v4.new_code_cell("print('hi')\n1 + 1", execution_count=3)
    code.outputs = [
        nbformat.v4.new_output("stream", name="stdout", text="hi\n"),
        nbformat.v4.new_output("execute_result", data={"text/plain": "2"}, execution_count=3),
    ]
    plot = nbformat.v4.new_code_cell("plot()", execution_count=4)
    plot.outputs = [
        nbformat.v4.new_output("display_data", data={"image/png": png_b64(), "text/plain": "F"}),
        nbformat.v4.new_output("stream", name="stdout", text="x" * (OUTPUT_MAX_CHARS + 500)),
    ]
    boom = nbformat.v4.new_code_cell("1/0")
    boom.outputs = [
        nbformat.v4.new_output(
            "error", ename="ZeroDivisionError", evalue="division by zero", traceback=["\x1b[31mtb"]
        )
    ]
    nb.cells = [title, code, plot, boom]
    if minor < 5:
        for c in nb.cells:
            c.pop("id", None)
    else:
        for i, c in enumerate(nb.cells):
            c["id"] = f"c{i}"
    path.write_text(nbformat.writes(nb) + "\n")
    return path


async def read(ctx: ToolContext, name: str) -> Any:
    return await READ.run({"file_path": name}, ctx)


async def test_read_renders_cells_outputs_and_output_images(tmp_path: Path) -> None:
    notebook(tmp_path / "nb.ipynb")
    result = await read(ToolContext(tmp_path), "nb.ipynb")
    text_block, image = result.content
    body = text_block["text"]
    assert "nb.ipynb: Jupyter notebook, 4 cells, python" in body
    assert '<cell id="c0" cell_type="markdown">\n# Analysis\n</cell>' in body
    assert '<cell id="c1" cell_type="code" execution_count="3">' in body
    assert '<outputs id="c1">\nhi\n2\n</outputs>' in body
    assert "[image 1: image/png, shown below]" in body
    assert "[... 500 more characters of output]" in body  # capped
    assert "ZeroDivisionError: division by zero\ntb" in body  # ANSI colours removed
    assert image["type"] == "image" and image["source"]["media_type"] == "image/png"


async def test_replace_insert_delete_keep_the_notebook_valid(tmp_path: Path) -> None:
    path = notebook(tmp_path / "nb.ipynb")
    ctx = ToolContext(tmp_path)
    await read(ctx, "nb.ipynb")
    done = await EDIT.run(
        {"notebook_path": "nb.ipynb", "cell_id": "c1", "new_source": "2 + 2"}, ctx
    )
    assert done.display["kind"] == "diff" and "+" in done.display["diff"]
    await EDIT.run(
        {
            "notebook_path": "nb.ipynb",
            "cell_id": "c0",
            "new_source": "## Setup",
            "cell_type": "markdown",
            "edit_mode": "insert",
        },
        ctx,
    )
    await EDIT.run(
        {"notebook_path": "nb.ipynb", "cell_id": "c3", "new_source": "", "edit_mode": "delete"},
        ctx,
    )
    await EDIT.run(
        {
            "notebook_path": "nb.ipynb",
            "cell_id": "c2",
            "new_source": "Plot",
            "cell_type": "markdown",
        },
        ctx,
    )
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    assert [c.cell_type for c in nb.cells] == ["markdown", "markdown", "code", "markdown"]
    assert nb.cells[1].source == "## Setup" and nb.cells[1].get("id")
    changed = nb.cells[2]
    assert changed.source == "2 + 2" and changed.outputs == [] and changed.execution_count is None
    assert "outputs" not in nb.cells[3]
    assert path.read_text().endswith("}\n")


async def test_cells_without_ids_are_named_by_index(tmp_path: Path) -> None:
    path = notebook(tmp_path / "old.ipynb", minor=4)
    ctx = ToolContext(tmp_path)
    result = await read(ctx, "old.ipynb")
    assert '<cell id="cell-1" cell_type="code"' in result.content[0]["text"]
    args = {"notebook_path": "old.ipynb", "cell_id": "cell-1", "new_source": "x = 1"}
    await EDIT.run(args, ctx)
    await EDIT.run({**args, "cell_id": "cell-0", "cell_type": "code", "edit_mode": "insert"}, ctx)
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    assert [c.source for c in nb.cells[:3]] == ["# Analysis", "x = 1", "x = 1"]
    assert all("id" not in c for c in nb.cells)


@pytest.mark.parametrize(
    ("args", "error"),
    [
        ({"cell_id": "nope", "new_source": "x"}, "No cell with id 'nope'.*c0, c1, c2, c3"),
        ({"new_source": "x"}, "cell_id is required"),
        ({"new_source": "x", "edit_mode": "insert"}, "cell_type .* is required"),
    ],
)
async def test_bad_edits_are_errors_and_change_nothing(
    tmp_path: Path, args: dict[str, Any], error: str
) -> None:
    path = notebook(tmp_path / "nb.ipynb")
    before = path.read_bytes()
    ctx = ToolContext(tmp_path)
    await read(ctx, "nb.ipynb")
    assert EDIT.precheck({"notebook_path": "nb.ipynb", **args}, ctx) is not None
    with pytest.raises(ToolError, match=error):
        await EDIT.run({"notebook_path": "nb.ipynb", **args}, ctx)
    assert path.read_bytes() == before


async def test_an_unread_or_broken_notebook_is_refused(tmp_path: Path) -> None:
    notebook(tmp_path / "nb.ipynb")
    (tmp_path / "bad.ipynb").write_text("{not json")
    (tmp_path / "a.py").write_text("x = 1\n")
    ctx = ToolContext(tmp_path)
    with pytest.raises(ToolError, match="Read"):
        await EDIT.run({"notebook_path": "nb.ipynb", "cell_id": "c0", "new_source": "x"}, ctx)
    with pytest.raises(ToolError, match="not a valid Jupyter notebook"):
        await read(ctx, "bad.ipynb")
    await READ.run({"file_path": "bad.ipynb", "offset": 1, "limit": 5}, ctx)  # raw text
    await read(ctx, "a.py")
    with pytest.raises(ToolError, match="not a Jupyter notebook"):
        await EDIT.run({"notebook_path": "a.py", "cell_id": "c0", "new_source": "x"}, ctx)


async def test_a_rewind_restores_the_notebook_byte_for_byte(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    path = notebook(ws / "nb.ipynb")
    before = path.read_bytes()
    edit = tool_call("e1", "NotebookEdit", notebook_path="nb.ipynb", cell_id="c1", new_source="0")
    model = ScriptedModel(
        [assistant(tool_call("r1", "Read", file_path="nb.ipynb")), assistant(edit), "edited"]
    )
    events = Events()
    config = SessionConfig(workspace=ws, model="claude-sonnet-5-5")
    config.policy.mode = "acceptEdits"
    session = Session(config, model, [READ, EDIT], events)
    session.attach_checkpoints(CheckpointStore(ws, tmp_path / "store"))
    session.submit(ops.SubmitPrompt("change the notebook"))
    await session.wait_idle()
    assert events.of(ev.TurnFinished)[-1].result == "edited"
    assert path.read_bytes() != before
    assert [e.prompt for e in session.checkpoints()] == ["change the notebook"]
    session.submit(ops.Rewind(1, "code"))
    assert path.read_bytes() == before
    await session.close()
