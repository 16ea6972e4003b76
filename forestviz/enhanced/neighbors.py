"""The Enhanced Random Forest's neighbour index (Bertsimas & Stoumpou, Eqs. 4-5; algorithms.md
§3.3): the exact M nearest standardised training rows of :class:`~forestviz.trees.neighbors.
NearestRows`, the search the explainer's nearest training rows share.

It is a class of its own because ERF's model files record it under this name
(``TRUSTED_NODES`` in :mod:`forestviz.persistence.files`): the search moved to
:mod:`forestviz.trees` so that explanations import no model package, and the saved files of
``FILE_FORMAT`` 7 keep loading.
"""

from typing import NamedTuple

import numpy as np

from forestviz.trees.neighbors import NearestRows


class Neighbors(NamedTuple):
    """The M nearest training rows of each query row (indices into the rows given to ``fit``)
    and their Euclidean distances in the standardised feature space."""

    indices: np.ndarray
    distances: np.ndarray


class TrainingNeighbors(NearestRows):
    """ERF's index of its standardised training rows (:class:`NearestRows`), saved with the
    model and rebuilt when read (its ``__setstate__`` checks the rows)."""
