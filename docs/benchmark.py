"""Measure how long the site takes to build, and where the time goes.

    python docs/benchmark.py [--out build/benchmark.json] [--jobs 2]

Works on a temporary copy of the project (the working tree is never touched)
and times, each with ``sphinx-build -W --keep-going``:

1. a full clean build (every lesson executed, serially);
2. a rebuild with nothing changed;
3. a rebuild after editing one lesson's prose;
4. a rebuild after editing the same lesson's code;
5. a full clean build with sphinx-gallery's ``parallel`` execution.

Per-lesson seconds come from the build's own timing data (sphinx-gallery's
JUnit file).  Prints a table and writes it as JSON.  ``nox -s benchmark``
runs it.  Numbers are reported, never asserted.
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
EDITED = "gallery/basics/02_numpy_warmup.py"  # a quick lesson, edited in steps 3-4


def build(project: Path, out: Path, *extra: str) -> float:
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "sphinx", "-b", "html", "-W", "--keep-going", "-q",
         str(project / "docs"), str(out), *extra],
        check=True, cwd=project,
    )
    return time.perf_counter() - start


def lesson_times(out: Path) -> dict[str, float]:
    junit = out.parent / "lesson-times.xml"
    if not junit.is_file():
        return {}
    cases = ET.parse(junit).getroot().iter("testcase")
    # keyed "section/file.py", from the file attribute ("../gallery/nn/x.py")
    return {"/".join(Path(c.get("file")).parts[-2:]): float(c.get("time")) for c in cases}


def fresh_copy(tmp: Path, name: str) -> Path:
    project = tmp / name
    for part in ("docs", "gallery"):
        shutil.copytree(ROOT / part, project / part,
                        ignore=shutil.ignore_patterns("lessons", "sg_*", "__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", project)
    return project


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "benchmark.json")
    parser.add_argument("--jobs", type=int, default=2, help="workers for the parallel build")
    args = parser.parse_args()

    rows: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        project = fresh_copy(Path(tmp), "serial")
        html = project / "build" / "html"
        rows["full clean build (serial)"] = build(project, html)
        per_lesson = lesson_times(html)
        rows["no-change rebuild"] = build(project, html)
        lesson = project / EDITED
        lesson.write_text(lesson.read_text() + "\n# %%\n# One more sentence of prose.\n")
        rows[f"prose edit of {Path(EDITED).name}"] = build(project, html)
        lesson.write_text(lesson.read_text() + "print('one more line of code')\n")
        rows[f"code edit of {Path(EDITED).name}"] = build(project, html)

        project = fresh_copy(Path(tmp), "parallel")
        html = project / "build" / "html"
        rows[f"full clean build (parallel={args.jobs})"] = build(
            project, html, "-D", f"sphinx_gallery_conf.parallel={args.jobs}")
        per_lesson_parallel = lesson_times(html)

    edited_alone = per_lesson.get("/".join(Path(EDITED).parts[-2:]))
    report = {
        "machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0]},
        "builds_seconds": rows,
        "edited_lesson_own_seconds": edited_alone,
        "lesson_seconds_serial": per_lesson,
        "lesson_seconds_parallel": per_lesson_parallel,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")

    width = max(map(len, [*rows, *per_lesson])) + 2
    print(f"\n{'build':<{width}}{'seconds':>9}")
    for name, seconds in rows.items():
        print(f"{name:<{width}}{seconds:>9.1f}")
    print(f"\n{'lesson (serial build)':<{width}}{'seconds':>9}")
    for name, seconds in sorted(per_lesson.items(), key=lambda kv: -kv[1]):
        print(f"{name:<{width}}{seconds:>9.1f}")
    print(f"\nwritten to {args.out}")


if __name__ == "__main__":
    main()
