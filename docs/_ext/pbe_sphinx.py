"""Small Sphinx extension for PyTorch by Example.

* Offline builds: when the intersphinx hosts cannot be reached, empty
  ``intersphinx_mapping`` before intersphinx reads it, and say so once.
* Lesson pages: ``pbe_build_device()`` and ``pbe_torch_version()`` for the
  ``lesson-actions`` sidebar template (where the page's output was computed).
* Tag pages: plain link lists instead of toctrees (see below).
* ``reset_torch``: named by string in ``sphinx_gallery_conf["reset_modules"]``;
  puts global torch state back between lessons (they share one process).
"""

from __future__ import annotations

import functools
import re
import socket
import sys
from pathlib import Path
from urllib.parse import urlsplit

from sphinx.util import logging

logger = logging.getLogger(__name__)


def _online(url: str, timeout: float = 3.0) -> bool:
    host = urlsplit(url).hostname
    try:
        socket.create_connection((host, 443), timeout=timeout).close()
    except OSError:
        return False
    return True


def _skip_intersphinx_offline(app, config) -> None:
    mapping = config.intersphinx_mapping
    if not mapping:
        return
    first_url = next(iter(mapping.values()))[0]
    if not _online(first_url):
        logger.info(
            "pbe: offline, API links (intersphinx) skipped for this build"
        )
        config.intersphinx_mapping = {}


_THREADS: list[
    int
] = []  # torch's thread count when a lesson first loaded torch


def reset_torch(gallery_conf, fname) -> None:
    """Undo process-wide torch settings a previous lesson may have changed.

    Runs before every lesson. Until some lesson has imported torch there is
    nothing to undo, so torch is not imported here: a rebuild that runs one
    NumPy-only lesson should not pay 2 s for it. The thread count is recorded
    at the first reset that finds torch loaded; a lesson that changes it and
    is not last in the build must restore it itself, as 05_rnn_from_scratch
    does. Each check reads a setting before writing it, because writing the
    deterministic-algorithms flag imports torch's compiler stack (1.7 s).
    """
    torch = sys.modules.get("torch")
    if torch is None:
        return
    if not _THREADS:
        _THREADS.append(torch.get_num_threads())
    if torch.get_default_dtype() != torch.float32:
        torch.set_default_dtype(torch.float32)
    if torch.are_deterministic_algorithms_enabled():
        torch.use_deterministic_algorithms(False)
    if torch.get_num_threads() != _THREADS[0]:
        torch.set_num_threads(_THREADS[0])


@functools.cache
def _torch_info() -> tuple[str, str]:
    import torch

    if torch.cuda.is_available():
        device = f"GPU ({torch.cuda.get_device_name(0)})"
    else:
        device = "CPU"
    return device, torch.__version__.split("+")[0]


def _add_page_context(app, pagename, templatename, context, doctree) -> None:
    # Callables, so torch is imported only when a lesson page is written.
    context["pbe_build_device"] = lambda: _torch_info()[0]
    context["pbe_torch_version"] = lambda: _torch_info()[1]


_TOCTREE = re.compile(
    r"^\.\. toctree::\n(?:[ ]+:.*\n)*\n((?:[ ]+\S.*(?:\n|$))+)", re.MULTILINE
)


def _tag_pages_as_link_lists(app) -> None:
    """sphinx-tags lists a tag's lessons in a toctree, which makes every lesson
    a child of each of its tag pages, so the theme's sidebar shows tags instead
    of the lesson's own section.  Turn those lists into plain links."""
    folder = Path(app.srcdir, app.config.tags_output_dir)
    for page in folder.glob("*.rst"):
        if page.name == "tagsindex.rst":
            continue
        text = page.read_text(encoding="utf-8")
        links = lambda m: (
            f"{app.config.tags_page_header}:\n\n"
            + "".join(  # noqa: E731
                f"* :doc:`{line.strip().removesuffix('.rst')}`\n"
                for line in m.group(1).splitlines()
            )
        )
        page.write_text(_TOCTREE.sub(links, text), encoding="utf-8")


def setup(app):
    app.connect("html-page-context", _add_page_context)
    # After sphinx-tags has written its pages (builder-inited, priority 500).
    app.connect("builder-inited", _tag_pages_as_link_lists, priority=600)
    # Before sphinx.ext.intersphinx normalises the mapping (priority 800).
    app.connect("config-inited", _skip_intersphinx_offline, priority=100)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
