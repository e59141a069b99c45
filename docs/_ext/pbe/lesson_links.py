"""Links on a lesson page: Colab, "Report a problem", and tag links.

Lesson pages get ``pbe_lesson`` in their template context, which
``_templates/lesson-actions.html`` shows in the right-hand sidebar; index
pages do not. The tags sphinx-gallery prints at the bottom of a lesson
become links to the lesson index filtered by that tag (its ``sg-tags``).
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import quote, urlencode, urlsplit

from . import gallery
from .stamp import read_stamp, stamp_text

_TAGS = re.compile(r"^(?P<indent>[ ]+)🏷 Tags: (?P<tags>.+)$", re.MULTILINE)


def _tag_links(match: re.Match) -> str:
    links = ", ".join(
        f"`{tag} <../index.html?sg-tags={quote(tag)}>`__"
        for tag in match["tags"].split(", ")
    )
    return f"{match['indent']}🏷 Tags: {links}"


def _source_read(app, docname: str, source: list[str]) -> None:
    if gallery.is_lesson(app, docname):
        source[0] = _TAGS.sub(_tag_links, source[0])


def _page_context(app, pagename, templatename, context, doctree) -> None:
    if not gallery.is_lesson(app, pagename):
        return
    _, section, stem = pagename.split("/")
    config = app.config
    owner_repo = urlsplit(config.pbe_repository).path.strip("/")
    colab = (
        f"https://colab.research.google.com/github/{owner_repo}/blob/"
        f"gh-pages/{config.version}/notebooks/{section}/{stem}.ipynb"
    )
    page_url = (
        f"{config.pbe_documentation.rstrip('/')}/{config.version}/"
        f"{pagename}.html"
    )
    stamp = read_stamp(Path(app.srcdir), pagename)
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
    context["pbe_lesson"] = {"colab": colab, "issue": issue}


def setup(app):
    app.add_config_value("pbe_repository", "", "html")
    app.add_config_value("pbe_documentation", "", "html")
    app.connect("source-read", _source_read)
    app.connect("html-page-context", _page_context)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
