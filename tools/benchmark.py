"""Measure how long the site takes to build, and where the time goes.

    python tools/benchmark.py [--out build/benchmark.json] [--edits]

Works on a temporary copy of the project (the working tree is never touched)
and times, each with ``sphinx-build -W --keep-going``:

1. one full clean build (every lesson executed, serially): minutes;
2. a rebuild with nothing changed (no lesson runs);
3. with ``--edits``: a rebuild after editing one quick lesson's prose, then
   its code (only that lesson runs).

Per-lesson seconds come from the clean build's own timing data
(sphinx-gallery's JUnit file); their sum is the lesson execution, the rest
of the clean build is Sphinx.  Prints a table and writes it as JSON.
``nox -s benchmark`` runs it.  Numbers are reported, never asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EDITED = (
    "gallery/basics/02_numpy_warmup.py"  # a quick lesson, edited in steps 3-4
)


def build(project: Path, out: Path, *extra: str) -> float | None:
    """Seconds one sphinx-build took, or None if it failed (see its log)."""
    start = time.perf_counter()
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "sphinx",
            "-b",
            "html",
            "-W",
            "--keep-going",
            "-q",
            str(project / "docs"),
            str(out),
            *extra,
        ],
        cwd=project,
    )
    return time.perf_counter() - start if result.returncode == 0 else None


def lesson_times(out: Path) -> dict[str, float]:
    junit = out.parent / "lesson-times.xml"
    if not junit.is_file():
        return {}
    cases = ET.parse(junit).getroot().iter("testcase")
    # keyed "section/file.py", from the file attribute ("../gallery/nn/x.py")
    return {
        "/".join(Path(c.get("file")).parts[-2:]): float(c.get("time"))
        for c in cases
    }


def fresh_copy(tmp: Path, name: str) -> Path:
    project = tmp / name
    for part in ("docs", "gallery"):
        shutil.copytree(
            ROOT / part,
            project / part,
            ignore=shutil.ignore_patterns("lessons", "sg_*", "__pycache__"),
        )
    shutil.copy(ROOT / "pyproject.toml", project)
    shutil.copy(ROOT / "uv.lock", project)  # the lessons' environment key
    return project


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--out", type=Path, default=ROOT / "build" / "benchmark.json"
    )
    parser.add_argument(
        "--edits",
        action="store_true",
        help="also time a one-lesson prose edit and code edit",
    )
    args = parser.parse_args()

    rows: dict[str, float | None] = {}
    with tempfile.TemporaryDirectory() as tmp:
        project = fresh_copy(Path(tmp), "serial")
        html = project / "build" / "html"
        rows["full clean build (serial)"] = build(project, html)
        per_lesson = lesson_times(html)
        rows["  of which lesson execution"] = sum(per_lesson.values())
        rows["no-change rebuild"] = build(project, html)
        if args.edits:
            lesson = project / EDITED
            lesson.write_text(
                lesson.read_text() + "\n# %%\n# One more sentence of prose.\n"
            )
            rows[f"prose edit of {Path(EDITED).name}"] = build(project, html)
            lesson.write_text(
                lesson.read_text() + "print('one more line of code')\n"
            )
            rows[f"code edit of {Path(EDITED).name}"] = build(project, html)

    report = {
        "machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0]},
        "builds_seconds": rows,  # null: that build failed
        "edited_lesson": EDITED,
        "edited_lesson_own_seconds": per_lesson.get(
            "/".join(Path(EDITED).parts[-2:])
        ),
        "lesson_seconds_serial": per_lesson,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")

    def cell(seconds: float | None) -> str:
        return "failed" if seconds is None else f"{seconds:.1f}"

    width = max(map(len, [*rows, *per_lesson])) + 2
    print(f"\n{'build':<{width}}{'seconds':>9}")
    for name, seconds in rows.items():
        print(f"{name:<{width}}{cell(seconds):>9}")
    print(f"\n{'lesson':<{width}}{'serial':>9}")
    for name in sorted(per_lesson, key=per_lesson.get, reverse=True):
        print(f"{name:<{width}}{cell(per_lesson.get(name)):>9}")
    print(f"\nwritten to {args.out}")
    if None in rows.values():
        sys.exit("a build failed: see its log above")


if __name__ == "__main__":
    main()
