"""Plausible wrong answers and correct variants for the exercise checks.

One file per section (``mistakes_<section>.py``), merged here for
``tests/test_exercises.py``. In each:

- ``MISTAKES[(lesson, check)]`` lists ``(expression, words)`` pairs: a wrong
  answer a learner could plausibly write, and words its check's message
  must contain (case-insensitive) so the message names the mistake
  (``None`` only while a message is still to be written).
- ``VARIANTS[(lesson, check)]`` lists correct answers written another way:
  each must pass.

Each answer is Python source run where the lesson's imports are
(``torch``, and ``np`` or ``nn`` where the lesson imports them): an
expression (a callable for an ``fn`` check, a value for an ``answer``
check), or statements that define the name ``answer`` (for a class or a
function with a body).
"""

from mistakes_advanced import MISTAKES as _ADVANCED
from mistakes_advanced import VARIANTS as _ADVANCED_VARIANTS
from mistakes_basics import MISTAKES as _BASICS
from mistakes_basics import VARIANTS as _BASICS_VARIANTS
from mistakes_data import MISTAKES as _DATA
from mistakes_data import VARIANTS as _DATA_VARIANTS
from mistakes_nn import MISTAKES as _NN
from mistakes_nn import VARIANTS as _NN_VARIANTS

MISTAKES = _BASICS | _NN | _DATA | _ADVANCED
VARIANTS = (
    _BASICS_VARIANTS | _NN_VARIANTS | _DATA_VARIANTS | _ADVANCED_VARIANTS
)
