"""Sphinx configuration for PyTorch by Example."""

import os
import sys
import tomllib
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(DOCS / "_ext"))  # our extension, one module a feature

from importlib.metadata import version as _installed  # noqa: E402

from pbe.notebook import first_cell  # noqa: E402

# The one place the version lives is pyproject.toml.  tools/publish.py sets
# PBE_DOCS_VERSION to build the same sources as "dev".
with open(ROOT / "pyproject.toml", "rb") as f:
    PROJECT = tomllib.load(f)["project"]
version = release = os.environ.get("PBE_DOCS_VERSION", PROJECT["version"])

# The one place the repository and the site's address live is pyproject's
# [project.urls]: the GitHub icon, the Colab links, the "Report a problem"
# links and tools/publish.py (the URL path the site is served under) read it.
pbe_repository = PROJECT["urls"]["Repository"].rstrip("/")
pbe_documentation = PROJECT["urls"]["Documentation"].rstrip("/") + "/"

project = "PyTorch by Example"
author = "The PyTorch by Example authors"
copyright = f"2026, {author}"

extensions = [
    "sphinx.ext.intersphinx",
    "sphinx_gallery.gen_gallery",
    "sphinx_design",
    "sphinx_copybutton",
    "sphinx-mathjax-offline",  # MathJax served by the site: maths offline
    # docs/_ext/pbe: one small module per feature (see its __init__).
    "pbe.offline",
    "pbe.rerun",
    "pbe.stamp",
    "pbe.frame",
    "pbe.api_index",
    "pbe.lesson_links",
    "pbe.path",
    "pbe.exercises",
    "pbe.text_check",  # every word of a lesson reaches its page
    "pbe.notebook",  # the notebooks: Markdown, practice collapsed
    "pbe.download",  # the .py download: the learner's script
    "pbe.quiet_data",  # pooch's log quiet: no machine path on a page
]

exclude_patterns = [
    "_build",
    "**/*.ipynb",
    "**/*.py.md5",
    "**/*.codeobj.json",
    "**/*.zip",
    "gen_modules/backreferences/*",
]
templates_path = ["_templates"]
html_static_path = ["_static"]
html_css_files = ["pbe.css"]
html_js_files = ["pbe.js"]

# Links from lesson code to API docs.  pbe.offline empties this mapping (and
# says so once) when the machine is offline, so offline builds neither hang
# nor fail -W.
intersphinx_mapping = {
    "python": ("https://docs.python.org/3", None),
    "torch": ("https://docs.pytorch.org/docs/stable", None),
    "torchvision": ("https://docs.pytorch.org/vision/stable", None),
    "numpy": ("https://numpy.org/doc/stable", None),
    "matplotlib": ("https://matplotlib.org/stable", None),
    "pandas": ("https://pandas.pydata.org/docs", None),
}
intersphinx_timeout = 5  # seconds per inventory; never a multi-minute stall

sphinx_gallery_conf = {
    # One gallery, four sections, in the learning-path order.
    "examples_dirs": str(ROOT / "gallery"),
    "gallery_dirs": "lessons",
    "subsection_order": [
        "../gallery/basics",
        "../gallery/nn",
        "../gallery/data",
        "../gallery/advanced",
    ],
    # Every .py is a lesson (no plot_ prefix); its two-digit prefix orders it.
    "filename_pattern": r"\.py$",
    "within_subsection_order": "FileNameSortKey",
    # Notebooks: plots inline, like the page; the versions the site was
    # run with (every lesson re-runs when uv.lock changes: pbe.rerun) and a
    # link to the set-up page. pbe.notebook writes every lesson's notebook
    # again after sphinx-gallery, with Markdown by pandoc (pypandoc-binary,
    # one call per lesson) rather than sphinx-gallery's per-block
    # "pypandoc".
    "first_notebook_cell": first_cell(
        f"{pbe_documentation}{version}/setup.html"
    ),
    # Lessons share one process: put global torch state back between them,
    # load torch's compiler before TensorFlow (the other order crashes),
    # turn warnings into errors while one runs, stamp each as it runs.
    # Called before and after each lesson.
    "reset_modules": (
        "matplotlib",
        "pbe.torch_state.reset_torch",
        "pbe.torch_state.compiler_before_tensorflow",
        "pbe.torch_state.warnings_are_errors",
        "pbe.stamp.stamp_lesson",
        "pbe.quiet_data.quiet_pooch",  # worker processes too (-j)
    ),
    "reset_modules_order": "both",
    # Lessons whose source did not change are not run again; pbe.rerun
    # still re-runs one whose key (uv.lock's hash and its own) changed, and
    # `nox -s publish` runs every lesson (PBE_RUN_ALL_LESSONS=1).
    "run_stale_examples": False,
    # A lesson that raises fails the build (name and traceback in the log).
    "abort_on_example_error": False,  # run them all, then fail listing each
    "only_warn_on_example_error": False,
    # Downloads: each lesson as .py and .ipynb, plus a zip of all of them.
    "download_all_examples": True,
    # Execution-times page (linked from "About this site"), plus a JUnit
    # file with per-lesson seconds.
    "write_computation_times": True,
    "junit": "../lesson-times.xml",
    "remove_config_comments": True,
    # `sphinx-build -j N` would run lessons in N worker processes (joblib).
    # We build serially: under -W a parallel build fails, since
    # sphinx-mathjax-offline does not declare itself parallel-safe, and on
    # 2 cores the lessons ran slower in workers of one thread each. Lessons
    # that start processes of their own carry
    # `# sphinx_gallery_parallel = False` (in a parallel build: run first,
    # alone); the tests read that line too.
    "parallel": True,
    # No "Related examples" box: text similarity ignores level (it offered a
    # beginner the Lua Torch lesson); each lesson links what to read first
    # and next itself.
    "recommender": {"enable": False},
    "show_signature": False,
    # A cell's last bare expression is not echoed: lessons print what they
    # mean to show.
    "capture_repr": (),
    # Lessons by API: which lessons use each torch/torchvision name
    # (pbe.api_index writes lessons_by_api.rst from these).
    "doc_module": ("torch", "torchvision"),
    "backreferences_dir": "gen_modules/backreferences",
    "inspect_global_variables": True,
    # Names nearly every lesson uses would list every lesson: left out.
    "exclude_implicit_doc": {
        r"^torch(\.[\w.]+)?\.(tensor|manual_seed|no_grad|device|dtype|"
        r"float32|randn|rand|zeros|ones|arange|Tensor|Size|Generator)$",
        r"\.Tensor(Base)?\.\w+$",  # methods on tensors: nearly every line
        # device choice, in every lesson
        r"^torch\.(accelerator\.(is_available|current_accelerator)"
        r"|cuda\.is_available)$",
    },
    # Thumbnails: a lesson's first figure unless it names another
    # (`# sphinx_gallery_thumbnail_number = N`); a lesson without figures
    # names its section's picture in docs/_static/thumbs/
    # (`# sphinx_gallery_thumbnail_path = "_static/thumbs/<section>.png"`).
    "default_thumb_file": str(DOCS / "_static" / "thumbs" / "lesson.png"),
}

html_theme = "pydata_sphinx_theme"
html_title = project
html_theme_options = {
    "github_url": pbe_repository,
    # The PyTorch release the pages ran with, then the site's own version.
    "navbar_end": [
        "torch-version",
        "version-switcher",
        "theme-switcher",
        "navbar-icon-links",
    ],
    # An icon search button: the wide search field's visible text ("Search
    # Ctrl+K") differs from its accessible name
    # (axe: label-content-name-mismatch).
    "navbar_persistent": ["search-button"],
    "switcher": {
        # Resolved from the site root at view time; the publish session keeps
        # it listing every published version.
        "json_url": "_static/switcher.json",
        "version_match": version,
    },
    "show_version_warning_banner": False,
    # Right-hand sidebar of a lesson: contents, downloads, Colab, device.
    "secondary_sidebar_items": [
        "page-toc",
        "sg_download_links",
        "lesson-actions",
    ],
}
html_context = {
    "default_mode": "auto",
    "pbe_torch_version": _installed("torch").split("+")[0],
}
