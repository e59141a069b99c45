"""No machine path on any page: pooch's log quiet for the whole build.

pooch logs each unzip and download at INFO level, naming folders of the
machine that runs it, through a handler bound to ``sys.stderr`` when pooch
is first imported. Imported first inside a lesson, that is the lesson's
captured output, and the line shows on a page whenever the data cache is
cold. This imports pooch when the build starts (so its handler writes to
the build's own stderr) and keeps its logger at WARNING; as a
``reset_modules`` hook (conf.py) it does the same in the worker processes
of a parallel build, before each lesson runs. A reader running a lesson
still sees pooch's messages.
"""

from __future__ import annotations


def quiet_pooch(gallery_conf=None, fname=None, when=None) -> None:
    """pooch's logger at WARNING (a ``reset_modules`` hook too)."""
    import pooch

    pooch.get_logger().setLevel("WARNING")


def setup(app):
    quiet_pooch()
    return {"parallel_read_safe": True, "parallel_write_safe": True}
