"""Small Sphinx extension for PyTorch by Example.

Everything here uses Sphinx events, sphinx-gallery's documented hooks and
configuration, and templates; nothing of Sphinx, sphinx-gallery or the theme
is patched.

* Offline builds: when the intersphinx hosts cannot be reached, empty
  ``intersphinx_mapping`` before intersphinx reads it, and say so once.
* ``reset_torch`` (a ``reset_modules`` hook): puts global torch state back
  between lessons (they share one process).
* ``stamp_lesson`` (a ``reset_modules`` hook, called just before and just
  after each lesson runs): writes the lesson's *verified stamp*,
  ``<lesson>.verified.json`` beside the generated lesson (date, torch
  version, device, number of checks), and gives that lesson's notebook a
  first cell saying the same (sphinx-gallery writes the notebook between the
  two calls, from ``first_notebook_cell``).
* ``source-read``: shows the stamp under each lesson's title, lists all
  stamps on the execution-times page, and turns a lesson's tags into links
  to the lesson index filtered by that tag (sphinx-gallery's ``sg-tags``).
* Versions stamp: ``lessons/pbe-versions.json`` records the installed
  versions of the docs dependency group that produced every lesson's output.
  When the installed versions differ from it, or ``PBE_RUN_ALL_LESSONS=1``
  (``docs/publish.py``), every lesson runs again (``run_stale_examples``).
* ``lessons_by_api.rst``: one page listing, module by module, each torch and
  torchvision API the lessons use, with those lessons (``minigallery``).
* Lesson pages get ``pbe_lesson`` in their template context: the Colab link,
  the "Report a problem" link and the stamp, for ``lesson-actions.html``.
"""

from __future__ import annotations

import ast
import datetime
import hashlib
import json
import os
import re
import socket
import sys
import tomllib
from collections import defaultdict
from importlib import metadata
from pathlib import Path
from urllib.parse import quote, urlencode, urlsplit

from sphinx.errors import ExtensionError
from sphinx.util import logging

logger = logging.getLogger(__name__)

STAMP_SUFFIX = ".verified.json"
VERSIONS_STAMP = "pbe-versions.json"
API_PAGE = "lessons_by_api"
# Calls that count as a check, besides ``assert`` statements.
CHECK_CALLS = {"assert_close", "gradcheck", "gradgradcheck"}
# Where a data lesson's data comes from: a pattern in its source -> the
# dataset and its public home.
DATA_SOURCES = {
    r"CIFAR-?10": (
        "CIFAR-10 (Krizhevsky, 2009)",
        "https://www.cs.toronto.edu/~kriz/cifar.html",
    ),
    r"dlib": (
        "dlib's example face photos and landmarks",
        "https://github.com/davisking/dlib/tree/master/examples/faces",
    ),
}


# --------------------------------------------------------------------------
# Offline builds


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


# --------------------------------------------------------------------------
# Between lessons: torch state


_THREADS: list[int] = []  # torch's thread count when a lesson first loaded it


def reset_torch(gallery_conf, fname, when) -> None:
    """Undo process-wide torch settings a previous lesson may have changed.

    Runs before every lesson. Until some lesson has imported torch there is
    nothing to undo, so torch is not imported here: a rebuild that runs one
    NumPy-only lesson should not pay 2 s for it. The thread count is recorded
    at the first reset that finds torch loaded; a lesson that changes it and
    is not last in the build must restore it itself. Each check reads a
    setting before writing it, because writing the deterministic-algorithms
    flag imports torch's compiler stack (1.7 s).
    """
    torch = sys.modules.get("torch")
    if torch is None or when != "before":
        return
    if not _THREADS:
        _THREADS.append(torch.get_num_threads())
    if torch.get_default_dtype() != torch.float32:
        torch.set_default_dtype(torch.float32)
    if torch.are_deterministic_algorithms_enabled():
        torch.use_deterministic_algorithms(False)
    if torch.get_num_threads() != _THREADS[0]:
        torch.set_num_threads(_THREADS[0])


# --------------------------------------------------------------------------
# The verified stamp


def count_checks(source: str) -> int:
    """``assert`` statements plus ``assert_close``/``gradcheck`` calls.

    A call inside an ``assert`` (``assert gradcheck(...)``) counts once.
    """
    tree = ast.parse(source)
    inside_assert = set()
    n = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.Assert):
            n += 1
            inside_assert.update(id(sub) for sub in ast.walk(node))
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and id(node) not in inside_assert:
            func = node.func
            name = getattr(func, "attr", None) or getattr(func, "id", None)
            if name in CHECK_CALLS:
                n += 1
    return n


def _imports(source: str) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module.split(".")[0])
    return names


def data_sources(source: str) -> list[list[str]]:
    """[name, URL] of each dataset the lesson's source names."""
    return [
        list(found)
        for pattern, found in DATA_SOURCES.items()
        if re.search(pattern, source, re.IGNORECASE)
    ]


def _version(package: str) -> str | None:
    try:
        return metadata.version(package).split("+")[0]
    except metadata.PackageNotFoundError:
        return None


def _device(uses_torch: bool) -> str:
    """Where the lesson's tensors run: what it would pick itself."""
    if not uses_torch:
        return "CPU"
    import torch

    if not torch.accelerator.is_available():
        return "CPU"
    device = torch.accelerator.current_accelerator()
    if device.type == "cuda":
        return f"GPU ({torch.cuda.get_device_name(0)})"
    return device.type.upper()


def source_md5(path: Path) -> str:
    return hashlib.md5(path.read_bytes()).hexdigest()


def stamp_text(stamp: dict) -> str:
    """'Verified on <date> with torch X.Y.Z on <device>: <N> checks passed'."""
    checks = stamp["checks"]
    return (
        f"Verified on {stamp['date']} with torch {stamp['torch']} on "
        f"{stamp['device']}: {checks} check{'s' * (checks != 1)} passed"
    )


def notebook_cell(stamp: dict | None = None) -> str:
    """The first cell of a lesson's notebook.

    It names the versions the lesson was verified with and prints a note
    when the running ones differ in major or minor version. It installs
    nothing. Without a stamp (a lesson not executed in this build) it names
    the versions the site is built with.
    """
    verified = {"torch": _version("torch")}
    if stamp is None or stamp.get("torchvision"):
        verified["torchvision"] = (stamp or {}).get("torchvision") or (
            _version("torchvision")
        )
    if stamp:
        verified["torch"] = stamp["torch"]
    lines = ["%matplotlib inline"]
    if stamp:
        lines.append(f"# {stamp_text(stamp)}.")
        if "torchvision" in verified:
            lines.append(
                f"# Also verified with torchvision {verified['torchvision']}."
            )
        for name, url in stamp.get("data", []):
            lines += [f"# Data: {name},", f"#   {url}"]
    else:
        names = " and ".join(f"{k} {v}" for k, v in verified.items())
        lines.append(f"# Written for {names}.")
    lines += [
        "# This cell compares versions only; it installs nothing.",
        "from importlib.metadata import PackageNotFoundError, version",
        "",
        f"VERIFIED = {verified!r}".replace("'", '"'),
        "for package, verified in VERIFIED.items():",
        "    try:",
        "        running = version(package)",
        "    except PackageNotFoundError:",
        '        running = "not installed"',
        '    if running.split(".")[:2] != verified.split(".")[:2]:',
        "        print(",
        '            f"Note: this lesson was verified with {package} "',
        '            f"{verified}; you are running {running}, so output "',
        '            "and APIs may differ."',
        "        )",
    ]
    return "\n".join(lines)


def _dirs(gallery_conf) -> list[tuple[Path, Path]]:
    """(examples dir, gallery dir) pairs, both absolute."""
    examples, galleries = (
        [d] if isinstance(d, str) else list(d)
        for d in (gallery_conf["examples_dirs"], gallery_conf["gallery_dirs"])
    )
    src = gallery_conf["src_dir"]
    return [(Path(src, e), Path(src, g)) for e, g in zip(examples, galleries)]


def _find_lesson(gallery_conf, fname) -> tuple[Path, Path]:
    """(source file, generated folder) of the lesson named ``fname``."""
    found = []
    for src_root, target_root in _dirs(gallery_conf):
        for src in src_root.glob(f"*/{Path(fname).name}"):
            found.append((src, target_root / src.parent.name))
    if len(found) != 1:
        raise ExtensionError(
            f"pbe: lesson file names must be unique; {fname} is {found}"
        )
    return found[0]


def stamp_lesson(gallery_conf, fname, when) -> None:
    """Called by sphinx-gallery just before and just after a lesson runs.

    Before: write the verified stamp and set the notebook's first cell for
    this lesson (sphinx-gallery writes the notebook after running it).
    After: put the generic first cell back. A lesson that fails loses its
    stamp in ``_drop_failed_stamps``.
    """
    if when == "after":
        gallery_conf["first_notebook_cell"] = notebook_cell()
        return
    src, target_dir = _find_lesson(gallery_conf, fname)
    source = src.read_text(encoding="utf-8")
    imports = _imports(source)
    stamp = {
        "lesson": f"{src.parent.name}/{src.stem}",
        "date": datetime.datetime.now(datetime.UTC).date().isoformat(),
        "torch": _version("torch"),
        "torchvision": (
            _version("torchvision") if "torchvision" in imports else None
        ),
        "device": _device("torch" in imports or "torchvision" in imports),
        "checks": count_checks(source),
        "data": data_sources(source),
        "md5": source_md5(src),  # the page shows it while this matches
        "versions": installed_versions(gallery_conf["src_dir"]),
    }
    target_dir.mkdir(parents=True, exist_ok=True)
    path = target_dir / f"{src.stem}{STAMP_SUFFIX}"
    path.write_text(json.dumps(stamp, indent=1) + "\n", encoding="utf-8")
    gallery_conf["first_notebook_cell"] = notebook_cell(stamp)


def read_stamp(srcdir: Path, docname: str) -> dict | None:
    """The stamp of lesson page ``docname``, if it matches the source."""
    generated = Path(srcdir, docname)
    path = generated.with_name(generated.name + STAMP_SUFFIX)
    source = generated.with_suffix(".py")
    if not (path.is_file() and source.is_file()):
        return None
    stamp = json.loads(path.read_text(encoding="utf-8"))
    if stamp.get("md5") != source_md5(source):
        return None  # the source changed and was not run since
    return stamp


def _lesson_docnames(app) -> list[str]:
    """Docnames of the generated lesson pages, in gallery order."""
    root, gallery = _dirs(app.config.sphinx_gallery_conf)[0]
    return [
        f"{gallery.name}/{p.parent.name}/{p.stem}"
        for p in sorted(root.glob("*/*.py"))
    ]


def _is_lesson(app, docname: str) -> bool:
    parts = docname.split("/")
    return (
        len(parts) == 3
        and parts[0] == "lessons"
        and Path(app.srcdir, docname + ".py").is_file()
    )


def _drop_failed_stamps(app) -> None:
    """A lesson that raised has not verified anything: remove its stamp."""
    gallery_conf = app.config.sphinx_gallery_conf
    for src in gallery_conf.get("failing_examples", {}):
        src = Path(src)
        for _, gallery in _dirs(gallery_conf):
            stamp = gallery / src.parent.name / (src.stem + STAMP_SUFFIX)
            stamp.unlink(missing_ok=True)


# --------------------------------------------------------------------------
# The stamp and tags on pages (source-read: rST in, rST out)


_TITLE = re.compile(r"^(?P<title>\S.*)\n(?P<rule>=+)\n", re.MULTILINE)
_TAGS = re.compile(r"^(?P<indent>[ ]+)🏷 Tags: (?P<tags>.+)$", re.MULTILINE)


def _tag_links(match: re.Match) -> str:
    links = ", ".join(
        f"`{tag} <../index.html?sg-tags={quote(tag)}>`__"
        for tag in match["tags"].split(", ")
    )
    return f"{match['indent']}🏷 Tags: {links}"


def _source_read(app, docname: str, source: list[str]) -> None:
    if _is_lesson(app, docname):
        stamp = read_stamp(Path(app.srcdir), docname)
        generated = Path(app.srcdir, docname)
        app.env.note_dependency(
            str(generated.with_name(generated.name + STAMP_SUFFIX))
        )
        line = (
            stamp_text(stamp)
            if stamp
            else "Not executed in this build: no output to verify"
        )
        block = f".. rst-class:: pbe-verified\n\n{line}\n\n"
        text = source[0]
        title = _TITLE.search(text)
        if title and len(title["rule"]) >= len(title["title"]):
            source[0] = (
                text[: title.end()] + "\n" + block + text[title.end() :]
            )
        source[0] = _TAGS.sub(_tag_links, source[0])
    elif docname == "sg_execution_times":
        rows = []
        for lesson in _lesson_docnames(app):
            generated = Path(app.srcdir, lesson)
            app.env.note_dependency(
                str(generated.with_name(generated.name + STAMP_SUFFIX))
            )
            stamp = read_stamp(Path(app.srcdir), lesson)
            text = stamp_text(stamp) if stamp else "not executed"
            rows.append(f"   * - :doc:`/{lesson}`\n     - {text}\n")
        if rows:
            source[0] += (
                "\n\nVerified stamps\n---------------\n\n"
                "What each lesson's page shows under its title: when it last "
                "ran, on which torch and device, and how many checks "
                "(``assert``, ``assert_close``, ``gradcheck``) it passed.\n\n"
                ".. list-table::\n   :header-rows: 1\n\n"
                "   * - Lesson\n     - Stamp\n" + "".join(rows)
            )


# --------------------------------------------------------------------------
# Versions stamp: every lesson re-runs when the docs dependencies change


def docs_group(pyproject: Path) -> list[str]:
    """Distribution names in pyproject's ``docs`` dependency group."""
    groups = tomllib.loads(pyproject.read_text())["dependency-groups"]
    return [re.split(r"[\s=<>!~;\[]", req, 1)[0] for req in groups["docs"]]


def installed_versions(srcdir) -> dict[str, str]:
    """Installed versions of the docs group (pyproject.toml beside docs/)."""
    pyproject = Path(srcdir).parent / "pyproject.toml"
    if not pyproject.is_file():
        return {}
    versions = {
        name: _version(name) or "not installed"
        for name in docs_group(pyproject)
    }
    # A new wording of the notebooks' first cell re-runs every lesson too,
    # since sphinx-gallery writes a lesson's notebook only when it runs it.
    sample = {"date": "", "torch": "", "device": "", "checks": 0}
    cell = notebook_cell(sample | {"torchvision": "x", "data": [["", ""]]})
    versions["pbe first notebook cell"] = hashlib.md5(
        cell.encode()
    ).hexdigest()[:12]
    return versions


def _check_versions_stamp(app) -> None:
    gallery_conf = app.config.sphinx_gallery_conf
    path = _dirs(gallery_conf)[0][1] / VERSIONS_STAMP
    current = installed_versions(app.srcdir)
    recorded = json.loads(path.read_text()) if path.is_file() else None
    if os.environ.get("PBE_RUN_ALL_LESSONS") == "1":
        reason = "PBE_RUN_ALL_LESSONS=1"
    elif recorded is None:
        reason = f"no {VERSIONS_STAMP} yet"
    elif recorded != current:
        changed = sorted(
            set(recorded.items()).symmetric_difference(current.items())
        )
        names = sorted({name for name, _ in changed})
        reason = "installed versions changed: " + ", ".join(
            f"{n} {recorded.get(n)} -> {current.get(n)}" for n in names
        )
    else:
        return
    logger.info(f"pbe: every lesson runs again ({reason})")
    gallery_conf["run_stale_examples"] = True


def _write_versions_stamp(app, exception) -> None:
    """Record the versions once every lesson's output comes from them."""
    gallery_conf = app.config.sphinx_gallery_conf
    if exception is not None or gallery_conf.get("failing_examples"):
        return
    current = installed_versions(app.srcdir)
    srcdir = Path(app.srcdir)
    for lesson in _lesson_docnames(app):
        stamp = read_stamp(srcdir, lesson)
        if stamp is None or stamp.get("versions") != current:
            return  # some page still shows output from other versions
    path = _dirs(gallery_conf)[0][1] / VERSIONS_STAMP
    text = json.dumps(current, indent=1, sort_keys=True) + "\n"
    if not path.is_file() or path.read_text() != text:
        path.write_text(text)


# --------------------------------------------------------------------------
# Lessons by API


API_INTRO = """\
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
    import importlib

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


def _write_api_page(app) -> None:
    gallery_conf = app.config.sphinx_gallery_conf
    backrefs_dir = Path(app.srcdir, gallery_conf["backreferences_dir"])
    entries = backrefs_dir / "backreferences_all.json"
    raw = entries.read_bytes() if entries.is_file() else b"{}"
    marker = f".. pbe-backreferences-md5: {hashlib.md5(raw).hexdigest()}\n"
    path = Path(app.srcdir, f"{API_PAGE}.rst")
    if path.is_file() and path.read_text().startswith(marker):
        return  # unchanged: do not import torch to resolve names again
    ignore = gallery_conf["exclude_implicit_doc_regex"]
    names = [
        name
        for name in json.loads(raw)
        if (backrefs_dir / f"{name}.examples").is_file()
        and not (ignore and ignore.search(name))
    ]
    by_module = public_api(names)
    text = marker + "\n" + API_INTRO
    if not by_module:
        text += "No lesson was executed in this build.\n"
    for module in sorted(by_module):
        heading = f"``{module}``"
        text += f"{heading}\n{'-' * len(heading)}\n\n"
        for name in by_module[module]:
            sub = f"``{name}``"
            text += f"{sub}\n{'~' * len(sub)}\n\n.. minigallery:: {name}\n\n"
    path.write_text(text)


def _after_gallery(app) -> None:
    _drop_failed_stamps(app)
    _write_api_page(app)


# --------------------------------------------------------------------------
# Lesson pages: Colab, "Report a problem", stamp (template context)


def _owner_repo(repository: str) -> str:
    return urlsplit(repository).path.strip("/")


def _add_page_context(app, pagename, templatename, context, doctree) -> None:
    if not _is_lesson(app, pagename):
        return
    _, section, stem = pagename.split("/")
    config = app.config
    stamp = read_stamp(Path(app.srcdir), pagename)
    colab = (
        "https://colab.research.google.com/github/"
        f"{_owner_repo(config.pbe_repository)}/blob/gh-pages/"
        f"{config.version}/notebooks/{section}/{stem}.ipynb"
    )
    page_url = (
        f"{config.pbe_documentation.rstrip('/')}/{config.version}/"
        f"{pagename}.html"
    )
    verified = stamp_text(stamp) if stamp else "not executed in this build"
    body = (
        f"Lesson: {section}/{stem}\n"
        f"Page: {page_url}\n"
        f"Site version: {config.version}\n"
        f"Verified: {verified}\n"
        "Your torch version and device: \n\n"
        "What went wrong (paste the cell and its output):\n"
    )
    issue = f"{config.pbe_repository}/issues/new?" + urlencode(
        {"title": f"[{section}/{stem}] ", "body": body}
    )
    context["pbe_lesson"] = {
        "colab": colab,
        "issue": issue,
        "stamp": verified,
    }


def setup(app):
    app.add_config_value("pbe_repository", "", "html")
    app.add_config_value("pbe_documentation", "", "html")
    # Before sphinx.ext.intersphinx normalises the mapping (priority 800).
    app.connect("config-inited", _skip_intersphinx_offline, priority=100)
    # After sphinx-gallery has filled in its configuration (priority 10),
    # before it generates the lessons (priority 500).
    app.connect("builder-inited", _check_versions_stamp, priority=400)
    app.connect("builder-inited", _after_gallery, priority=600)
    app.connect("source-read", _source_read)
    app.connect("html-page-context", _add_page_context)
    app.connect("build-finished", _write_versions_stamp)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
