"""The app's default settings and demos, importing no model: the first page reads these (the
Home button's default model), and the model packages, scikit-learn and the solvers are
imported only once something is trained (``docs/performance.md``, "Cold start and page
speed"). The settings themselves are :class:`forestviz.settings.Settings`."""

from __future__ import annotations

from dataclasses import dataclass

from forestviz.settings import Settings


def default_settings(task: str) -> Settings:
    """Quick defaults: ERF for classification (Youden threshold), ABRF-1 for regression."""
    return Settings(family="erf" if task == "classification" else "abrf1_qp")


# Home's "Train the default model and explain a row" on the bundled table: seconds from the
# click to the explanation's first screen (its summary) in Chromium, on a quiet server (load
# ≤ 2) and on a busy one (load 5–8), as measured (bench/home_first_screen.py,
# docs/performance.md, "Home's promise"); Home's caption says them
DEFAULT_FIRST_SCREEN_SECONDS = (7, 15)


@dataclass(frozen=True)
class Demo:
    """A bundled table and the settings Home trains on it with one click, and why."""

    dataset: str
    settings: Settings
    why: str


# Friedman 2 at the ABRF paper's size (100 rows): y = (x1² + (x2·x3 − 1/(x2·x4))²)^½ ranges
# over two orders of magnitude across the input box; with 75 training rows and leaves of at
# least 10 rows each tree's leaf is wide, and the trees whose leaf is centred near the row
# predict it far better than the rest. docs/reproduction.md: attention chosen on 20 of 20
# splits, +0.13 R² over its own forest (ABRF-2).
ATTENTION_DEMO = Demo(
    dataset="friedman2",
    settings=Settings(family="abrf2", n_estimators=100, min_samples_leaf=10, random_state=0),
    why="Friedman 2 at the ABRF paper's size (100 rows): the target spans two orders of "
        "magnitude and each tree's leaves are wide, so the trees whose leaf is centred near a "
        "row predict it much better than the others. Attention finds them: on held-out rows "
        "it beats the same trees averaged equally, which a plain average cannot do.")
