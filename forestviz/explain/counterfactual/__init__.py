"""What would change the answer: the nearest change to the columns a user may change that
makes the model itself answer otherwise (issue 37, item 2).

:mod:`.space` (the values allowed, the distance), :mod:`.plain` (the plain forest in every
model), :mod:`.sweep` (a quick confirmed answer, and a bound for the program), :mod:`.cells` and
:mod:`.milp` (the exact program of Parmentier & Vidal, "Optimal
counterfactual explanations in tree ensembles", ICML 2021), :mod:`.goal` (the model's other
answer, in its own rule), :mod:`.search` (candidates confirmed on the model) and
:mod:`.wording` (the sentence and the before/after table).
"""

from forestviz.explain.counterfactual.search import (
    TIME_LIMIT,
    Change,
    WhatWouldChange,
    what_would_change,
)
from forestviz.explain.counterfactual.space import Space

__all__ = ["TIME_LIMIT", "Change", "Space", "WhatWouldChange", "what_would_change"]
