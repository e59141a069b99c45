"""The custom-Function and graph lessons: split, linked, and showing their
results.

basics/05 and basics/06 keep the first steps; advanced/05 and advanced/06
carry what moved out of them. The page checks read the built site.
"""

from __future__ import annotations

import pytest
from conftest import ROOT, captured_output, page

BASICS = {
    "05_custom_functions": "05_custom_functions_compose",
    "06_static_vs_dynamic_graphs": "06_graphs_today",
}


@pytest.mark.parametrize("basic", sorted(BASICS))
def test_basics_lesson_is_short_and_links_its_advanced_sequel(basic):
    source = (ROOT / "gallery" / "basics" / f"{basic}.py").read_text()
    sequel = BASICS[basic]
    assert len(source.splitlines()) <= 350, f"basics/{basic} is too long"
    assert (ROOT / "gallery" / "advanced" / f"{sequel}.py").is_file()
    label = f":ref:`sphx_glr_lessons_advanced_{sequel}.py`"
    assert label in " ".join(source.split()), f"basics/{basic} lacks {label}"


# Lines each page must show: the results its prose talks about.
SHOWN = {
    ("basics", "05_custom_functions"): [
        "MyReLU passes gradcheck",
        "MyReLU fails gradcheck in float32",
        "BrokenReLU fails gradcheck, as it should",
    ],
    ("basics", "06_static_vs_dynamic_graphs"): [
        "TF1 depths: [0, 1, 2, 3]",
    ],
    ("advanced", "05_custom_functions_compose"): [
        "Function: 1 hook calls, 1 distinct storages, 0 bytes",
        "slope at 0: composition 1.0, Function 0.5",
    ],
    ("advanced", "06_graphs_today"): [
        "raised Unsupported: Data-dependent branching",
        "graphs for both signs: 1",
        "traces: 3 for Python ints, 1 for tensors",
    ],
}


@pytest.mark.parametrize("section,stem", sorted(SHOWN))
def test_page_shows_the_results_its_prose_describes(site, section, stem):
    lesson = ROOT / "gallery" / section / f"{stem}.py"
    output = captured_output(page(site, lesson))
    for line in SHOWN[section, stem]:
        assert line in output, f"{section}/{stem} does not show {line!r}"
    # a caught warning is shown on a line of its own, as "warned ..."
    shown = "\n".join(
        line for line in output.splitlines() if not line.startswith("warned ")
    )
    for noise in ("Traceback", "Warning", "WARNING", "absl"):
        assert noise not in shown, f"{section}/{stem} shows {noise!r}"
