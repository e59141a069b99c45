"""Between lessons: put global state back, load torch's compiler before
TensorFlow; warnings are errors inside one.

Lessons share the build's process, so sphinx-gallery calls these
``reset_modules`` hooks before and after each lesson (conf.py).
"""

from __future__ import annotations

import sys
import warnings

from .gallery import find_lesson
from .lesson_source import Lesson

_THREADS: list[int] = []  # torch's thread count when first seen loaded
_CAUGHT: list = []  # the catch_warnings() around the running lesson


def reset_torch(gallery_conf, fname, when) -> None:
    """Undo process-wide torch settings a previous lesson may have changed.

    Until some lesson has imported torch there is nothing to undo, so torch
    is not imported here (a NumPy-only rebuild should not pay for it). Each
    setting is read before it is written, because writing the
    deterministic-algorithms flag imports torch's compiler stack.
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


def compiler_before_tensorflow(gallery_conf, fname, when) -> None:
    """Load torch's compiler before a lesson that may load TensorFlow.

    In one process, importing TensorFlow and then triton (which
    ``torch._dynamo`` imports: ``torch.compile``, creating an optimizer,
    torchvision) ends it with a segmentation fault; the other order works.
    Each lesson that uses both loads the compiler first, but lessons share
    the build's process (or a ``-j`` worker), where one that loads only
    TensorFlow can come before one that loads the compiler.
    """
    if when != "before" or fname is None or "tensorflow" in sys.modules:
        return
    # TensorFlow, Keras, or TensorBoard (which loads TensorFlow if installed)
    imports = Lesson.read(find_lesson(gallery_conf, fname)[0]).imports()
    if any(
        name.split(".")[0] in ("tensorflow", "keras")
        or name.startswith("torch.utils.tensorboard")
        for name in imports
    ):
        import torch._dynamo  # noqa: F401


def warnings_are_errors(gallery_conf, fname, when) -> None:
    """Turn every warning a reader would see into an error, as a lesson runs.

    A reader running the script sees what Python's filters show: warnings
    from the lesson's own code, and any warning that is not a
    ``DeprecationWarning`` from a library. Those fail the build, naming the
    lesson and line; a lesson that shows a warning catches it itself
    (``warnings.catch_warnings(record=True)``). Filters already in force,
    such as sphinx-gallery's for ``plt.show()`` under Agg, still apply.
    """
    if when == "before":
        caught = warnings.catch_warnings()
        caught.__enter__()
        _CAUGHT.append(caught)
        warnings.filterwarnings("error", append=True)
        warnings.filterwarnings(
            "error", category=DeprecationWarning, module="__main__"
        )
    elif _CAUGHT:
        _CAUGHT.pop().__exit__(None, None, None)
