"""The site in a real browser: Debian's Chromium driven by Playwright.

The site is served over HTTP (the version switcher cannot load its JSON from
``file://``).  Screenshots land in ``build/screenshots/``.  Needs Chromium
(``apt-get install chromium``; or set ``PBE_CHROMIUM``) and axe-core (``nox -s
tests`` installs it and sets ``PBE_AXE_JS``).  Without them these tests are
skipped, unless ``PBE_REQUIRE_BROWSER=1`` (CI) makes that a failure.
"""

from __future__ import annotations

import functools
import http.server
import json
import os
import re
import shutil
import threading
from pathlib import Path

import nbformat
import pytest
from conftest import LESSONS, ROOT, VERSION, lesson_id

CHROMIUM = os.environ.get("PBE_CHROMIUM") or shutil.which("chromium")
AXE_JS = os.environ.get("PBE_AXE_JS", "")
SHOTS = ROOT / "build" / "screenshots"

if not (CHROMIUM and Path(AXE_JS).is_file()):
    reason = (
        f"browser tests need Chromium (found: {CHROMIUM}) "
        f"and axe-core (PBE_AXE_JS={AXE_JS!r})"
    )
    if os.environ.get("PBE_REQUIRE_BROWSER") == "1":
        raise RuntimeError(reason)
    pytest.skip(reason, allow_module_level=True)

from playwright.sync_api import expect, sync_playwright  # noqa: E402


@pytest.fixture(scope="module")
def base_url(site):
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    handler = functools.partial(Quiet, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox"]
        )
        yield browser
        browser.close()


def offline(context):
    """Answer requests for other hosts (MathJax's CDN) with an empty 200: CI is
    offline, and the site's own pages are what is under test."""
    context.route(
        re.compile(r"^https?://(?!127\.0\.0\.1[:/])"),
        lambda route: route.fulfill(status=200, body=""),
    )
    return context


@pytest.fixture
def page(browser):
    """A fresh page that records console errors; none may occur."""
    context = offline(
        browser.new_context(
            viewport={"width": 1280, "height": 900}, accept_downloads=True
        )
    )
    page = context.new_page()
    errors = []
    page.on(
        "console",
        lambda msg: errors.append(msg.text) if msg.type == "error" else None,
    )
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    yield page
    context.close()
    assert not errors, f"console errors: {errors}"


def shot(page, name):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=SHOTS / f"{name}.png", full_page=False)


def test_home_to_lesson_with_output_and_figure(page, base_url):
    page.goto(f"{base_url}/index.html")
    shot(page, "home")
    page.locator(".sd-card", has_text="1. Basics").click()
    expect(page).to_have_url(
        re.compile(re.escape(f"{base_url}/lessons/basics/index.html"))
    )
    page.locator(
        ".sphx-glr-thumbcontainer a[href='02_numpy_warmup.html']"
    ).click()
    expect(page.locator(".sphx-glr-script-out").first).to_be_visible()
    figure = page.locator(
        "img.sphx-glr-single-img, img.sphx-glr-multi-img"
    ).first
    expect(figure).to_be_visible()
    assert figure.evaluate("img => img.naturalWidth") > 0, (
        "figure did not load"
    )
    shot(page, "lesson")


def test_download_notebook(page, base_url, tmp_path):
    page.goto(f"{base_url}/lessons/basics/02_numpy_warmup.html")
    with page.expect_download() as info:
        page.locator(".sphx-glr-download-jupyter-sidebar a").click()
    path = tmp_path / info.value.suggested_filename
    info.value.save_as(path)
    assert path.suffix == ".ipynb"
    nbformat.validate(nbformat.read(path, as_version=4))


def test_search_finds_lesson_by_api_name(page, base_url):
    page.goto(f"{base_url}/search.html?q=index_add_")
    results = page.locator("ul.search li a")
    expect(results.first).to_be_visible(timeout=15_000)
    assert any(
        "for_lua_torch_users" in (a.get_attribute("href") or "")
        for a in results.all()
    )
    shot(page, "search")


def test_light_dark_switch(page, base_url):
    page.goto(f"{base_url}/index.html")
    html = page.locator("html")
    for mode in ("dark", "light", "dark"):
        page.locator(
            ".theme-switch-button:visible"
        ).click()  # opens the mode menu
        page.locator(
            f".theme-change-button[data-mode='{mode}']:visible"
        ).click()
        expect(html).to_have_attribute("data-theme", mode)
        shot(page, f"home-{mode}")
    page.reload()  # the choice is remembered
    expect(html).to_have_attribute("data-theme", "dark")


def test_version_switcher_lists_current_version(page, base_url):
    page.goto(f"{base_url}/index.html")
    button = page.locator(".version-switcher__button").first
    expect(button).to_contain_text(VERSION)
    button.click()
    items = page.locator(".version-switcher__menu a")
    expect(items.first).to_be_visible()
    assert any(VERSION in t for t in items.all_inner_texts())
    shot(page, "version-switcher")


@pytest.mark.parametrize(
    "path", ["index.html", "lessons/nn/01_nn_package.html"]
)
def test_phone_width_has_no_horizontal_scroll(browser, base_url, path):
    context = offline(
        browser.new_context(
            viewport={"width": 375, "height": 812}, is_mobile=True
        )
    )
    page = context.new_page()
    page.goto(f"{base_url}/{path}")
    overflow = page.evaluate(
        "document.documentElement.scrollWidth - window.innerWidth"
    )
    shot(page, "phone-" + path.replace("/", "-").removesuffix(".html"))
    context.close()
    assert overflow <= 0, (
        f"{path} scrolls sideways by {overflow}px at 375px wide"
    )


@pytest.mark.parametrize(
    "path",
    ["index.html", "lessons/index.html", "lessons/basics/01_tensors.html"],
)
def test_accessibility_no_serious_violations(page, base_url, path):
    page.goto(f"{base_url}/{path}")
    page.add_script_tag(path=AXE_JS)
    results = page.evaluate(
        "async () => await axe.run(document, {resultTypes: ['violations']})"
    )
    bad = [
        f"{v['id']} ({v['impact']}): {v['help']} -> "
        f"{[n['target'] for n in v['nodes']][:3]}"
        for v in results["violations"]
        if v["impact"] in ("serious", "critical")
    ]
    assert not bad, "\n".join(bad)


def _tags(lesson):
    match = re.search(
        r"^# sphinx_gallery_tags = (\[.*\])$", lesson.read_text(), re.M
    )
    return json.loads(match.group(1)) if match else []


def test_tag_button_filters_cards_and_keeps_filter_in_url(page, base_url):
    """Clicking a tag on the lesson index shows only that tag's lessons; the
    URL keeps the filter, and a lesson's tag link opens the same view."""
    tagged = {lesson_id(lesson): _tags(lesson) for lesson in LESSONS}
    tag = "intermediate"
    expected = sorted(f"{k}.html" for k, tags in tagged.items() if tag in tags)
    assert expected and len(expected) < len(LESSONS)

    def visible_cards():
        return sorted(
            page.locator(
                ".sphx-glr-thumbcontainer:visible a[href]"
            ).evaluate_all("links => links.map(a => a.getAttribute('href'))")
        )

    page.goto(f"{base_url}/lessons/index.html")
    page.locator("#sg-tag-list .sphx-glr-tag", has_text=tag).first.click()
    expect(page).to_have_url(re.compile(rf"\?sg-tags={tag}$"))
    assert visible_cards() == expected
    shot(page, "tag-filter")

    # a lesson's tag links to the index filtered by that tag
    lesson = next(k for k, tags in tagged.items() if tag in tags)
    page.goto(f"{base_url}/lessons/{lesson}.html")
    page.locator(".sphx-glr-example-tags a", has_text=tag).click()
    expect(page).to_have_url(
        re.compile(rf"lessons/index\.html\?sg-tags={tag}$")
    )
    expect(page.locator(".sphx-glr-thumbcontainer:visible")).to_have_count(
        len(expected)
    )
    assert visible_cards() == expected


def test_search_finds_lessons_by_api_page(page, base_url):
    page.goto(f"{base_url}/search.html?q=DataLoader")
    # Sphinx's search adds its results one at a time: wait for this one,
    # not for the first, or the list may be read before it arrives.
    hit = page.locator("ul.search li a[href*='lessons_by_api']")
    expect(hit.first).to_be_visible(timeout=15_000)


def test_header_names_the_torch_release(page, base_url):
    from importlib.metadata import version

    page.goto(f"{base_url}/lessons/basics/01_tensors.html")
    torch = version("torch").split("+")[0]
    expect(page.locator("#pst-header .pbe-torch-version")).to_contain_text(
        f"PyTorch {torch}"
    )
    expect(page.locator(".version-switcher__button").first).to_contain_text(
        "Site"
    )


@pytest.mark.parametrize("lesson", LESSONS, ids=lesson_id)
def test_code_fits_its_box_at_1280_px(browser, base_url, lesson):
    """A 79-character code line never scrolls sideways at 1280x800."""
    context = offline(
        browser.new_context(viewport={"width": 1280, "height": 800})
    )
    page = context.new_page()
    page.goto(f"{base_url}/lessons/{lesson_id(lesson)}.html")
    wide = page.evaluate(
        """() => [...document.querySelectorAll('div.highlight pre')]
        .filter(pre => pre.scrollWidth > pre.clientWidth + 1)
        .map(pre => pre.textContent.split('\\n')[0].slice(0, 60))"""
    )
    context.close()
    assert not wide, f"code blocks that scroll sideways: {wide}"


def test_maths_renders_with_the_network_blocked(browser, base_url):
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    context.route(
        re.compile(r"^https?://(?!127\.0\.0\.1[:/])"),
        lambda route: route.abort(),
    )
    page = context.new_page()
    page.goto(f"{base_url}/lessons/basics/02_numpy_warmup.html")
    expect(page.locator("mjx-container").first).to_be_visible(timeout=15_000)
    shot(page, "maths-offline")
    context.close()


def test_a_solution_opens_on_click(page, base_url):
    with_solutions = [
        lesson
        for lesson in LESSONS
        if re.search(r"^# Solution 1:", lesson.read_text(), re.M)
    ]
    if not with_solutions:
        pytest.skip("no lesson has exercises yet")
    page.goto(f"{base_url}/lessons/{lesson_id(with_solutions[0])}.html")
    solution = page.locator("details.pbe-solution").first
    code = solution.locator("div.highlight").first
    expect(code).to_be_hidden()
    solution.locator("summary").click()
    expect(code).to_be_visible()
    shot(page, "solution-open")
