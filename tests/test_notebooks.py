"""Every generated notebook runs top to bottom in a fresh Jupyter kernel."""

from __future__ import annotations

import shutil

import nbformat
import pytest
from conftest import LESSONS, downloads, lesson_id
from nbclient import NotebookClient


@pytest.mark.parametrize("lesson", LESSONS, ids=lesson_id)
def test_notebook_executes(site, lesson, tmp_path, monkeypatch):
    notebook = shutil.copy(downloads(site, lesson)[".ipynb"], tmp_path)
    nb = nbformat.read(notebook, as_version=4)
    monkeypatch.delenv(
        "PYTHONPATH", raising=False
    )  # nothing of ours importable
    monkeypatch.setenv(
        "MPLBACKEND", "module://matplotlib_inline.backend_inline"
    )
    client = NotebookClient(
        nb,
        timeout=600,
        kernel_name="python3",
        resources={"metadata": {"path": str(tmp_path)}},
    )
    # raises CellExecutionError, with the traceback, on any error
    client.execute()
    errors = [
        o
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.outputs
        if o.output_type == "error"
    ]
    assert not errors
    streams = "".join(
        o.get("text", "")
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.outputs
        if o.output_type == "stream" and o.name == "stderr"
    )
    assert "Warning" not in streams and "Traceback" not in streams, streams[
        -2000:
    ]
