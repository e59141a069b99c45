"""The two CIFAR-10 lessons: honest test accuracy, choices on validation.

The page tests read the built site; the source tests read the lessons.
"""

from __future__ import annotations

import ast
import re

import pytest
from conftest import ROOT, captured_output, page

LESSONS = {
    # lesson: the name that holds the test images
    ROOT / "gallery" / "nn" / "07_cifar10_classifier.py": "test_loader",
    ROOT / "gallery" / "advanced" / "09_cifar10_fast_cpu.py": "x_test",
}
ACCURACY = re.compile(r"Test accuracy: (\d+) of (\d+) images = ([\d.]+)%")


def loaded_lines(source: str, name: str) -> list[int]:
    """Lines where `name` is read (not assigned)."""
    return sorted(
        node.lineno
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Name)
        and node.id == name
        and isinstance(node.ctx, ast.Load)
    )


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.stem)
def test_test_images_are_used_once_after_training(lesson):
    source = lesson.read_text()
    uses = loaded_lines(source, LESSONS[lesson])
    assert len(uses) == 1, f"test images read on lines {uses}"
    lines = source.splitlines()
    trained = max(i for i, s in enumerate(lines, 1) if "Training took" in s)
    assert uses[0] > trained, "the test images are used before training ends"


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.stem)
def test_printed_accuracy_is_computed_not_written(lesson):
    source = lesson.read_text()
    assert 'print(f"Test accuracy: {correct} of {len(y_test)} images = ' in (
        source
    )
    assert "correct = (predictions == y_test).sum().item()" in source


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.stem)
def test_page_reports_validation_then_one_test(site, lesson):
    text = captured_output(page(site, lesson))
    epochs = re.findall(r"epoch \d+: .*validation[^\n]*?([\d.]+)%", text)
    assert len(epochs) >= 2, "validation accuracy is printed every epoch"
    found = ACCURACY.findall(text)
    assert len(found) == 1, "exactly one test accuracy on the page"
    correct, total, percent = found[0]
    assert int(total) == 10_000
    assert abs(100 * int(correct) / int(total) - float(percent)) < 0.01
    assert re.search(r"Training took [\d.]+ s", text)
    assert text.index("Training took") < text.index("Test accuracy")


def test_fast_lesson_chooses_on_validation(site):
    lesson = ROOT / "gallery" / "advanced" / "09_cifar10_fast_cpu.py"
    text = captured_output(page(site, lesson))
    assert text.index("validation") < text.index("chosen:")
    assert text.index("chosen:") < text.index("Test accuracy")
    assert re.search(r"path taken: (bf16 autocast|float32)", text)


def test_classifier_table_adds_up_to_the_test_accuracy(site):
    lesson = ROOT / "gallery" / "nn" / "07_cifar10_classifier.py"
    text = captured_output(page(site, lesson))
    correct = int(ACCURACY.search(text).group(1))
    rows = re.findall(r"^\s*[a-z]+\s+(\d+)\s+1000\s+[\d.]+$", text, re.M)
    assert len(rows) == 10
    assert sum(map(int, rows)) == correct
