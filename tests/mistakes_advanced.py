"""Plausible wrong answers and correct variants: the advanced lessons.

See tests/exercise_mistakes.py for the format.
"""

MISTAKES: dict[tuple[str, str], list[tuple[str, str | None]]] = {}

VARIANTS: dict[tuple[str, str], list[str]] = {}
