"""Home's lesson, "See attention at work": five steps a student follows alone on the demo's
attention forest (:data:`forestviz.app.families.ATTENTION_DEMO`), each a sentence of what to
look at, the view it points to and the held-out row it opens.

1. the weights differ across rows: the rows with the most, the middle and the fewest
   effective trees (1 / Σ α², :data:`forestviz.glossary.TERMS`), the first one's weights;
2. a row where few trees decide: the row with the fewest effective trees, its weights;
3. the contamination ε: α = (1 − ε)·D + ε·w (ABRF eq 13), moved on three trees (ABRF Fig. 1);
4. a tree drawn with the row's path: that row's heaviest tree;
5. the same row under the plain forest: every tree weighing 1/T, against attention, on the row
   and on every held-out row (R²).

The numbers come from the trained model (:class:`Lesson`); the page lays out each
:class:`Stop` and draws its view (:data:`VIEWS`). Home imports this module: what needs a
model (scikit-learn, the ensemble protocol) is imported once there is one."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from forestviz.app.families import ATTENTION_DEMO
from forestviz.numbers import outcome_text, plain_number

# a step's view: what the page draws for it
WEIGHTS, SIMPLEX, TREE, PLAIN = "weights", "simplex", "tree", "plain"
VIEWS = {WEIGHTS: "the weight of each tree for this row",
         SIMPLEX: "the triangle of weights of three trees (ABRF Fig. 1), ε on a slider",
         TREE: "the heaviest tree, drawn with this row's path",
         PLAIN: "this row and every held-out row under attention and under the plain forest"}
TITLES = ("The weights differ across rows", "A row where few trees decide",
          "The contamination ε", "A tree drawn with the row's path",
          "The same row under the plain forest")
SIMPLEX_DATASET = "friedman1"  # the Paper lab's Fig. 1 table: one fit serves every row
SIMPLEX_EPS = 0.3  # the step's slider starts there (the Paper lab's default)


@dataclass(frozen=True)
class Stop:
    """One step of the lesson on a model: its ``number`` (from 1), ``title``, the ``look``
    sentence, its ``view`` (a key of :data:`VIEWS`), the held-out row it opens (``position``
    in the data set, ``row_id``) and that row's tree ``weights`` α, the ``tree`` drawn (TREE:
    from 0) and the ``table`` shown beside the view (None: none)."""

    number: int
    title: str
    look: str
    view: str
    position: int
    row_id: str
    weights: np.ndarray
    tree: int | None = None
    table: pd.DataFrame | None = None


def demo_lesson(bundle) -> Lesson | None:
    """The lesson on ``bundle`` when it is the demo's model (its table and settings), else
    None."""
    if bundle is None or (bundle.dataset_name, bundle.settings) != (ATTENTION_DEMO.dataset,
                                                                    ATTENTION_DEMO.settings):
        return None
    return Lesson(bundle)


class Lesson:
    """The lesson's numbers on ``bundle`` (a :class:`~forestviz.app.workflow.Bundle` of an
    attention model): every held-out row's tree weights, read once."""

    def __init__(self, bundle):
        from forestviz.trees.ensemble import as_ensemble  # a model is trained: it is loaded

        self.bundle = bundle
        ensemble = as_ensemble(bundle.estimator)
        self.outputs = ensemble.ensemble_outputs(bundle.X_test)
        self.eps = float(ensemble.contamination()[0])
        weights = self.outputs.weights
        self.effective = 1.0 / np.sum(weights**2, axis=1)
        order = np.argsort(-self.effective, kind="stable")
        self.most, self.middle, self.fewest = (int(order[0]), int(order[len(order) // 2]),
                                               int(order[-1]))

    def __len__(self) -> int:
        return len(TITLES)

    def plain_predictions(self) -> np.ndarray:
        """The held-out rows' predictions with every tree weighing 1/T (the plain forest)."""
        weights = np.full_like(self.outputs.weights, 1.0 / self.outputs.weights.shape[1])
        return replace(self.outputs, weights=weights).predictions()

    def _row(self, i: int) -> tuple[int, str]:
        return int(self.bundle.test_rows[i]), str(self.bundle.ids_test[i])

    def _trees(self, i: int) -> str:
        return plain_number(self.effective[i], 3)

    def stop(self, number: int) -> Stop:
        """Step ``number`` (1 to ``len(self)``) on this model."""
        b, few = self.bundle, self.fewest
        n = b.n_trees
        if number == 1:
            rows = (self.most, self.middle, self.fewest)
            table = pd.DataFrame({
                "row": [self._row(i)[1] for i in rows],
                "effective number of trees": [self._trees(i) for i in rows],
                "weight of the heaviest tree": [f"{self.outputs.weights[i].max():.0%}"
                                                for i in rows]})
            return self._stop(number, WEIGHTS, self.most, table=table, look=(
                f"Attention gives every row its own tree weights. Of the {n} trees, held-out "
                f"row {self._row(self.most)[1]} spreads its weight over "
                f"{self._trees(self.most)} effective trees, row {self._row(self.middle)[1]} over "
                f"{self._trees(self.middle)} and row {self._row(few)[1]} over only "
                f"{self._trees(few)}. Look at the bars of row {self._row(self.most)[1]}: "
                "nearly level, as in a plain forest."))
        if number == 2:
            top5 = np.sort(self.outputs.weights[few])[::-1][:5].sum()
            return self._stop(number, WEIGHTS, few, look=(
                f"Row {self._row(few)[1]} is decided by few trees: {self._trees(few)} effective "
                f"trees, and its 5 heaviest trees carry {top5:.0%} of the weight. Look at the "
                "few tall bars: these are the trees whose leaf holds training rows most like "
                "this one."))
        if number == 3:
            return self._stop(number, SIMPLEX, few, look=(
                "The weights mix two parts: α = (1 − ε)·D + ε·w. D depends on the row (how close "
                "it is to each tree's leaf); w is the same for every row; ε, the contamination, "
                f"sets the mix. This model has ε = {plain_number(self.eps, 2)}: "
                + ("all of its weight depends on the row. " if self.eps == 0 else "")
                + "Move ε on the three-tree forest below: α can only lie in the small triangle "
                  "around D, which grows with ε."))
        if number == 4:
            tree = int(np.argmax(self.outputs.weights[few]))
            share = self.outputs.weights[few, tree]
            return self._stop(number, TREE, few, tree=tree, look=(
                f"Tree {tree + 1} carries {share:.0%} of row {self._row(few)[1]}'s weight. "
                "Follow the row's path from the top: each test sends it left or right, and the "
                "leaf it ends in holds the training rows this tree averages for it."))
        return self._plain(number)

    def _plain(self, number: int) -> Stop:
        from sklearn.metrics import r2_score

        b, few = self.bundle, self.fewest
        attention, plain = b.estimator.predict(b.X_test), self.plain_predictions()
        scores = r2_score(b.y_test, attention), r2_score(b.y_test, plain)
        table = pd.DataFrame({
            "weights": ["attention (this model)", f"plain forest (1/{b.n_trees} each)"],
            f"row {self._row(few)[1]}": [plain_number(attention[few], 4),
                                        plain_number(plain[few], 4)],
            "effective number of trees": [self._trees(few), str(b.n_trees)],
            "R² on the held-out rows": [plain_number(score, 3) for score in scores]})
        return self._stop(number, PLAIN, few, table=table, look=(
            f"The same trees with equal weights: the plain forest predicts "
            f"{plain_number(plain[few], 4)} for row {self._row(few)[1]}, attention "
            f"{plain_number(attention[few], 4)}; the row's recorded outcome is "
            f"{outcome_text(b.y_test[few])}. Over all held-out rows (R²), "
            + ("attention scores higher: it finds the few trees that know each row best."
               if scores[0] > scores[1] else
               "the plain forest scores as well: here attention finds no better trees.")))

    def _stop(self, number: int, view: str, i: int, *, look: str, tree: int | None = None,
              table: pd.DataFrame | None = None) -> Stop:
        position, row_id = self._row(i)
        return Stop(number, TITLES[number - 1], look, view, position, row_id,
                    self.outputs.weights[i], tree, table)
