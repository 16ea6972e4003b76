"""What one user may ask of a shared server: the caps on training and on uploads.

Every cap has a default here and can be changed for a deployment with an environment variable
``FORESTVIZ_<NAME>`` (``FORESTVIZ_MAX_TREES=300``), read once when the app starts. The pages
state the caps next to the controls they bound; ``docs/security.md`` explains each one.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, fields


@dataclass(frozen=True)
class Limits:
    """The server's caps (see the module docstring for how to change them)."""

    max_trees: int = 500  # trees of one model
    max_depth: int = 30  # maximum tree depth a user may ask for
    max_row_trees: int = 20_000_000  # training rows × trees of one model (about 2 min of fit)
    training_jobs: int = 1  # jobs (training, cleaning) running at once on the whole server
    queued_jobs: int = 4  # jobs waiting for a worker on the whole server
    job_lease_seconds: float = 30.0  # a job nobody asks about for this long is cancelled
    upload_budget_mb: int = 512  # parsed uploads kept in memory, all sessions together

    @classmethod
    def from_env(cls, environ=None) -> Limits:
        """Defaults overridden by ``FORESTVIZ_<NAME>`` variables; a malformed or non-positive
        value raises ValueError naming the variable."""
        environ = os.environ if environ is None else environ
        values = {}
        for spec in fields(cls):
            raw = environ.get(f"FORESTVIZ_{spec.name.upper()}")
            if raw is None:
                continue
            kind = int if spec.type == "int" else float
            try:
                value = kind(raw)
            except ValueError:
                value = 0
            if not value > 0:
                raise ValueError(f"FORESTVIZ_{spec.name.upper()} must be a positive "
                                 f"{kind.__name__}, got {raw!r}")
            values[spec.name] = value
        return cls(**values)

    def check_training(self, *, n_rows: int, n_trees: int, max_depth: int | None) -> None:
        """Raise ValueError with a plain message when a training request is over a cap."""
        if n_trees > self.max_trees:
            raise ValueError(f"{n_trees} trees is more than this server allows "
                             f"({self.max_trees}). Choose fewer trees.")
        if max_depth is not None and max_depth > self.max_depth:
            raise ValueError(f"A maximum depth of {max_depth} is more than this server allows "
                             f"({self.max_depth}).")
        if n_rows * n_trees > self.max_row_trees:
            most = max(self.max_row_trees // max(n_rows, 1), 0)
            raise ValueError(
                f"{n_rows:,} training rows × {n_trees} trees is more than this server allows "
                f"({self.max_row_trees:,} row-trees): choose at most {most} trees, or fewer rows.")
