"""Sphinx configuration for PyTorch by Example."""

import os
import sys
import tomllib
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(DOCS / "_ext"))  # our small extension, pbe_sphinx

# The one place the version lives is pyproject.toml.  docs/publish.py sets
# PBE_DOCS_VERSION to build the same sources as "dev".
with open(ROOT / "pyproject.toml", "rb") as f:
    release = tomllib.load(f)["project"]["version"]
version = release = os.environ.get("PBE_DOCS_VERSION", release)

project = "PyTorch by Example"
author = "The PyTorch by Example authors"
copyright = f"2026, {author}"
REPO_URL = "https://github.com/pytorch-by-example/pytorch-by-example"

extensions = [
    "sphinx.ext.intersphinx",
    "sphinx_gallery.gen_gallery",
    "sphinx_tags",  # after sphinx-gallery: it reads the lesson pages it generates
    "sphinx_design",
    "sphinx_copybutton",
    "pbe_sphinx",
]

exclude_patterns = [
    "_build",
    "**/*.ipynb",
    "**/*.py.md5",
    "**/*.codeobj.json",
    "**/*.zip",
]
templates_path = ["_templates"]
html_static_path = ["_static"]
html_css_files = ["pbe.css"]
html_js_files = ["pbe.js"]

# Links from lesson code to API docs.  pbe_sphinx empties this mapping (and
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
    # Notebooks: plots inline, like the page.
    "first_notebook_cell": "%matplotlib inline",
    # Lessons share one process: put global torch state back between them.
    "reset_modules": ("matplotlib", "pbe_sphinx.reset_torch"),
    # A lesson that raises fails the build (name and traceback in the log).
    "abort_on_example_error": False,  # run them all, then fail listing each
    "only_warn_on_example_error": False,
    # Downloads: each lesson as .py and .ipynb, plus a zip of all of them.
    "download_all_examples": True,
    # Execution-times page, plus a JUnit file with per-lesson seconds.
    "write_computation_times": True,
    "junit": "../lesson-times.xml",
    "remove_config_comments": True,
    # `sphinx-build -j N` runs lessons in N worker processes (joblib); without
    # -j they run one after another in the build process. Lessons that start
    # processes of their own opt out with `# sphinx_gallery_parallel = False`
    # and then run first, alone.
    "parallel": True,
    # "Related lessons" at the bottom of each page, from their text.
    "recommender": {"enable": True, "n_examples": 3, "min_df": 2},
    "show_signature": False,
}

# Tags: each lesson's docstring has a `.. tags::` line (topic and level);
# sphinx-tags makes a page per tag and an overview of them all.
tags_create_tags = True
tags_output_dir = "tags"
tags_extension = ["rst"]
tags_create_badges = True
tags_overview_title = "Lessons by tag"
tags_intro_text = "Tags:"
tags_page_title = "Tag"
tags_page_header = "Lessons with this tag"
tags_badge_colors = {
    "beginner": "success",
    "intermediate": "info",
    "advanced": "warning",
    "*": "secondary",
}

html_theme = "pydata_sphinx_theme"
html_title = project
html_theme_options = {
    "github_url": REPO_URL,
    "navbar_end": ["version-switcher", "theme-switcher", "navbar-icon-links"],
    # An icon search button: the wide search field's visible text ("Search
    # Ctrl+K") differs from its accessible name (axe: label-content-name-mismatch).
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
    # Colab opens the notebooks of the published site (gh-pages branch).
    "colab_base": f"https://colab.research.google.com/github/{REPO_URL.removeprefix('https://github.com/')}/blob/gh-pages/{version}/",
}
