"""The "Lessons by API" page: each torch and torchvision name, its lessons.

sphinx-gallery records the names each lesson's code resolves to
(``doc_module``, ``backreferences_dir``); this writes ``lessons_by_api.rst``
from them, one ``minigallery`` per public class or function. The page is
rewritten only when the recorded names change.
"""

from __future__ import annotations

import hashlib
import importlib
import json
from collections import defaultdict
from pathlib import Path

PAGE = "lessons_by_api"
INTRO = """\
.. _lessons-by-api:

Lessons by API
==============

Each ``torch`` and ``torchvision`` class or function that a lesson's code
uses, grouped by module, with the lessons that use it. Names that nearly
every lesson uses (such as ``torch.tensor`` or ``torch.manual_seed``) are
left out. Use your browser's find (Ctrl+F) or the search box to find a name.

"""


def public_api(names) -> dict[str, list[str]]:
    """Public classes and functions among ``names``, by module.

    sphinx-gallery records every name a lesson's code resolves to, including
    guesses (``torch.Linear``), private helpers and methods; keep the names
    that import as written (``torch.nn.Linear``) and are callable.
    """
    by_module = defaultdict(list)
    for name in sorted(names):
        module, _, attr = name.rpartition(".")
        if not module or any(p.startswith("_") for p in name.split(".")):
            continue
        try:
            obj = getattr(importlib.import_module(module), attr, None)
        except ImportError:  # a method: "torch.Tensor" is not a module
            continue
        if callable(obj):
            by_module[module].append(name)
    return dict(by_module)


def _write_page(app) -> None:
    gallery_conf = app.config.sphinx_gallery_conf
    backrefs = Path(app.srcdir, gallery_conf["backreferences_dir"])
    entries = backrefs / "backreferences_all.json"
    raw = entries.read_bytes() if entries.is_file() else b"{}"
    marker = f".. pbe-backreferences-md5: {hashlib.md5(raw).hexdigest()}\n"
    path = Path(app.srcdir, f"{PAGE}.rst")
    if path.is_file() and path.read_text().startswith(marker):
        return  # unchanged: do not import torch to resolve names again
    ignore = gallery_conf["exclude_implicit_doc_regex"]
    names = [
        name
        for name in json.loads(raw)
        if (backrefs / f"{name}.examples").is_file()
        and not (ignore and ignore.search(name))
    ]
    by_module = public_api(names)
    text = marker + "\n" + INTRO
    if not by_module:
        text += "No lesson was executed in this build.\n"
    for module in sorted(by_module):
        heading = f"``{module}``"
        text += f"{heading}\n{'-' * len(heading)}\n\n"
        for name in by_module[module]:
            sub = f"``{name}``"
            text += f"{sub}\n{'~' * len(sub)}\n\n.. minigallery:: {name}\n\n"
    path.write_text(text)


def setup(app):
    # After sphinx-gallery generated the lessons (builder-inited, 500).
    app.connect("builder-inited", _write_page, priority=600)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
