"""PyTorch by Example's Sphinx extension: one small module per feature.

conf.py lists each feature module in ``extensions``; each has its own
``setup()`` (``lesson_source``, ``gallery``, ``torch_state`` and ``notebook``
are helpers and hooks that conf.py and the features call). Everything
here uses Sphinx events, sphinx-gallery's documented hooks and
configuration, and templates; nothing is patched.

* ``lesson_source``: what a reader sees of a lesson, the house rules and the
  computed reading time (no Sphinx: the tests and a command line use it).
* ``gallery``: where the lessons and their generated pages live.
* ``torch_state``: ``reset_modules`` hooks: global torch state put back and
  warnings turned into errors while a lesson runs.
* ``stamp``: each executed lesson's verified stamp (date, torch, device,
  checks), written as it runs.
* ``frame``: under each lesson's title, its core reading time and stamp.
* ``rerun``: a lesson runs again when its key (uv.lock's hash, the
  lesson's hash) changes.
* ``api_index``: the "Lessons by API" page.
* ``lesson_links``: Colab and "Report a problem" links, tag links.
* ``notebook``: every lesson's notebook, written again after
  sphinx-gallery: Markdown by pandoc (``notebook.lua`` for what Sphinx
  adds to rST), checks and solutions collapsed, the first cell.
* ``download``: the ``.py`` download is the learner's script (no hidden
  blocks, solutions behind ``RUN_SOLUTIONS``), and the zips with it.
* ``text_check``: every word of a lesson reaches its page (build warnings).
* ``quiet_data``: pooch's log quiet for the whole build.
* ``offline``: intersphinx skipped, and said so, when offline.
* ``path``: the ``pbe-path`` directive, the home page's route with times.
* ``exercises``: exercise checks and solutions collapsed on the page.
"""
