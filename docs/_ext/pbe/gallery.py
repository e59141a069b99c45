"""Where the lessons live: sources in ``gallery/``, pages in ``lessons/``."""

from __future__ import annotations

from pathlib import Path

from sphinx.errors import ExtensionError


def dirs(gallery_conf) -> list[tuple[Path, Path]]:
    """(examples dir, gallery dir) pairs, both absolute."""
    examples, galleries = (
        [d] if isinstance(d, str) else list(d)
        for d in (gallery_conf["examples_dirs"], gallery_conf["gallery_dirs"])
    )
    src = gallery_conf["src_dir"]
    return [(Path(src, e), Path(src, g)) for e, g in zip(examples, galleries)]


def find_lesson(gallery_conf, fname) -> tuple[Path, Path]:
    """(source file, generated folder) of the lesson named ``fname``."""
    found = [
        (src, target_root / src.parent.name)
        for src_root, target_root in dirs(gallery_conf)
        for src in src_root.glob(f"*/{Path(fname).name}")
    ]
    if len(found) != 1:
        raise ExtensionError(
            f"pbe: lesson file names must be unique; {fname} is {found}"
        )
    return found[0]


def lesson_docnames(app) -> list[str]:
    """Docnames of the generated lesson pages, in file order."""
    root, gallery = dirs(app.config.sphinx_gallery_conf)[0]
    return [
        f"{gallery.name}/{p.parent.name}/{p.stem}"
        for p in sorted(root.glob("*/*.py"))
    ]


def is_lesson(app, docname: str) -> bool:
    """Whether ``docname`` is a lesson page (not an index)."""
    parts = docname.split("/")
    return (
        len(parts) == 3
        and parts[0] == "lessons"
        and Path(app.srcdir, docname + ".py").is_file()
    )
