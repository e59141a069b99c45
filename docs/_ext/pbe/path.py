"""The ``pbe-path`` directive: a route through the lessons, with times.

Each content line names a lesson as ``<section>/<file stem>``, optionally
followed by ``(optional)``. It renders a numbered list of links with each
lesson's computed core reading time, and the route's total::

    .. pbe-path::

       basics/01_tensors
       basics/05_custom_functions (optional)
"""

from __future__ import annotations

from pathlib import Path

from docutils import nodes
from sphinx.errors import ExtensionError
from sphinx.util.docutils import SphinxDirective

from .lesson_source import Lesson


class PathDirective(SphinxDirective):
    has_content = True

    def run(self) -> list[nodes.Node]:
        gallery_dir = Path(self.config.sphinx_gallery_conf["examples_dirs"])
        lines, core, extra = [], 0, 0
        for entry in filter(None, (c.strip() for c in self.content)):
            name, _, note = entry.partition(" ")
            optional = note == "(optional)"
            source = Path(self.env.srcdir, gallery_dir, f"{name}.py")
            if not source.is_file() or (note and not optional):
                raise ExtensionError(f"pbe-path: no lesson {entry!r}")
            self.env.note_dependency(str(source))
            minutes = Lesson.read(source).core_minutes()
            core, extra = (
                (core, extra + minutes)
                if optional
                else (
                    core + minutes,
                    extra,
                )
            )
            section, stem = name.split("/")
            label = f"sphx_glr_lessons_{section}_{stem}.py"
            lines.append(
                f"#. :ref:`{label}`, about {minutes} min"
                + (", *optional*" if optional else "")
            )
        lines += [
            "",
            f"About {core / 60:.1f} hours of reading for the core route"
            + (
                f", {extra / 60:.1f} more for the optional lessons."
                if extra
                else "."
            ),
        ]
        container = nodes.container(classes=["pbe-path"])
        container += self.parse_text_to_nodes("\n".join(lines))
        return [container]


def setup(app):
    app.add_directive("pbe-path", PathDirective)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
