"""Enhanced Random Forest (Bertsimas & Stoumpou, "Binary Classification: Is Boosting stronger
than Bagging?"; algorithms.md §3).

Adaptive sample weights and sampling probabilities (Algorithm 1, §3.1,
:mod:`forestviz.enhanced.rounds`), per-tree feature subsets, the choice of the rounds kept
(:mod:`forestviz.enhanced.choice`), per-sample model weighting through the top trees of the
nearest training rows (eqs 4-5, §3.3, :mod:`forestviz.enhanced.ranking`) and tree scores
(eqs 6-8). A model read from a file is checked by :mod:`forestviz.enhanced.saved`. Sample and
feature cleaning (Algorithm 2) lives in :mod:`forestviz.enhanced.cleaning`.
"""

from collections.abc import Callable

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from forestviz.enhanced.choice import choose_rounds
from forestviz.enhanced.model_weighting import (
    mean_proba,
    ranking_scores,
    tree_scores,
    tree_weights,
    weighted_proba,
)
from forestviz.enhanced.neighbors import Neighbors
from forestviz.enhanced.ranking import fit_model_weighting
from forestviz.enhanced.reweighting import youden_thresholds
from forestviz.enhanced.rounds import Round, run_rounds
from forestviz.enhanced.saved import check_state
from forestviz.parameters import NEIGHBOURS, RATE, ROUNDS, TOP_TREES
from forestviz.trees.checks import (
    SHARED_CHECKS,
    check_rows,
    check_sample_weight,
    ignore_progress,
    in_domain,
    is_real,
    parameter_check,
)
from forestviz.trees.decision import decide
from forestviz.trees.description import Description, binary_threshold
from forestviz.trees.diagnostics import Diagnostics, Rounds, Scores, Search
from forestviz.trees.ensemble import EnsembleOutputs, WeightedEnsemble, uniform_parts
from forestviz.trees.fitted import impurity_importance
from forestviz.trees.leaf_values import tree_covers
from forestviz.trees.rows import split_rows


def _half(report, start):
    """Progress of one of the two runs (choosing, refitting) as half of the rounds' share."""
    return lambda stage, fraction: report(stage, start + 0.5 * fraction)


class EnhancedForestClassifier(WeightedEnsemble, ClassifierMixin, BaseEstimator):
    """Enhanced Random Forest classifier (Bertsimas & Stoumpou; algorithms.md §3).

    Parameters follow the paper's defaults (200 trees, depth 6, SW + SP on, features per split,
    λ = 0.2). ``sample_weighting`` (SW) passes w_i to every tree, ``sample_probabilities`` (SP)
    draws every bootstrap with probabilities s_i = w_i / Σw, ``features_per_tree`` (FT) gives
    every tree one random subset of ``max_features`` features used at all its splits.
    ``n_iterations`` rounds of Algorithm 1 run with ``learning_rate`` λ on a stratified
    ``validation_fraction`` split, each scored on its validation rows (with ``early_stopping``
    the loop stops at the first round whose validation AUC drops below the best).
    Model weighting predicts with p(x) = Σ_k u_k(x) p_k(x) from the top ``top_trees`` (L) trees
    of the ``n_neighbors`` (M) nearest training rows (eqs 4-5). How many rounds are kept, and
    with ``model_weighting="auto"`` whether model weighting is used, is chosen on the
    validation rows by the one-standard-error rule among candidates ordered simplest first
    (round 1 with plain averaging, which is the plain forest; round 2, …; then model weighting
    at the round of best validation AUC), see :mod:`forestviz.enhanced.choice`;
    ``model_weighting=True`` / ``False`` always / never uses it (the rounds are still chosen).
    The kept configuration is then refitted on all rows.
    ``oob_ranking`` computes the training-row quantities out of bag: p_i of the weight update
    (algorithms.md §3.1 option) and the per-row tree ranking (out-of-bag trees first).
    With ``validation_fraction=0`` every round runs on all rows and the last one is kept.

    Fitted attributes: ``estimators_`` (``DecisionTreeClassifier``s trained on the encoded labels
    0..C−1), ``feature_subsets_`` ((T, k) column indices under FT, else ``None``),
    ``train_indices_`` (rows of the fit data that trained the forest: all of them),
    ``sample_importance_`` (final s_i of those rows), ``history_`` (one dict per round of the
    choosing run), ``best_iteration_`` (index into ``history_`` of the kept round count),
    ``search_results_`` (every candidate with 1 − AUC on the validation rows, its standard error
    and the paired difference to the best; None without validation rows), ``selected_base_``
    (the plain forest won), ``model_weighting_`` (whether the model uses it),
    ``validation_indices_`` and ``validation_proba_`` (the validation rows and the chosen
    candidate's probabilities for them, from the forest that did not see them), ``threshold_``
    (Youden's J of the chosen candidate on the validation rows, or of the final model on the
    training rows without them: a float for binary problems, used by ``predict``; one
    one-vs-rest threshold per class otherwise), ``tree_rankings_`` (top-L trees of every
    training row, best first), ``classes_``, ``leaf_table_``, ``neighbor_index_`` and
    ``scaling_`` (read-only: the leaf table of the forest, the index and standardisation of the
    neighbour search; saved under their private names, which model files keep).

    For its helper modules (rounds, choice, ranking, saved): the parameters and the fitted
    attributes above, nothing else; ranking returns what it learns, and choice is handed the
    fit of model weighting on a kept round as a function.

    *A training row is never its own neighbour*: any training row whose standardised features
    are identical to the query row is skipped (so a training row passed to ``tree_weights`` gets
    leave-one-out weights; exact duplicates of it are skipped too).
    """

    _check_params = parameter_check({
        **SHARED_CHECKS, "n_iterations": in_domain(ROUNDS), "n_neighbors": in_domain(NEIGHBOURS),
        "top_trees": in_domain(TOP_TREES),
        "model_weighting": ((lambda v: v is True or v is False or v == "auto"),
                            "'auto', True or False"),
        "validation_fraction": ((lambda v: is_real(v) and 0.0 <= v < 1.0), "a float in [0, 1)"),
        "learning_rate": in_domain(RATE),
    })

    def __init__(
        self,
        n_estimators=200,
        max_depth=6,
        sample_weighting=True,
        sample_probabilities=True,
        features_per_tree=False,
        max_features="sqrt",
        learning_rate=0.2,
        n_iterations=10,
        early_stopping=True,
        validation_fraction=0.2,
        oob_ranking=False,
        model_weighting="auto",
        n_neighbors=10,
        top_trees=10,
        random_state=None,
        n_jobs=None,
    ):
        self.n_estimators = n_estimators
        self.max_depth = max_depth
        self.sample_weighting = sample_weighting
        self.sample_probabilities = sample_probabilities
        self.features_per_tree = features_per_tree
        self.max_features = max_features
        self.learning_rate = learning_rate
        self.n_iterations = n_iterations
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.oob_ranking = oob_ranking
        self.model_weighting = model_weighting
        self.n_neighbors = n_neighbors
        self.top_trees = top_trees
        self.random_state = random_state
        self.n_jobs = n_jobs

    # ------------------------------------------------------------------ fitting (Algorithm 1)
    def _split(self, y_enc, rng):
        """Stratified validation split (:func:`~forestviz.trees.rows.split_rows`), or none when
        it would leave fewer than two training rows."""
        n_val = int(np.ceil(self.validation_fraction * len(y_enc)))
        if n_val == 0 or len(y_enc) - n_val < 2:
            rows = np.arange(len(y_enc))
            return rows, rows[:0]
        return split_rows(y_enc, self.validation_fraction, rng.randint(2**31 - 1))

    def fit(self, X, y, sample_weight=None, progress: Callable[[str, float], None] | None = None):
        """Algorithm 1 on a stratified split, the choice of rounds and model weighting on its
        validation rows (:mod:`forestviz.enhanced.choice`), then the kept configuration
        refitted on all rows.

        ``progress(stage, fraction)`` is called with stages ``"iteration k/K"`` and
        ``"ranking trees"``, fraction in [0, 1].
        """
        self._check_params()
        X, y = validate_data(self, X, y, dtype=np.float64)
        check_classification_targets(y)
        self.classes_, y_enc = np.unique(y, return_inverse=True)
        if len(self.classes_) < 2:
            raise ValueError("EnhancedForestClassifier needs at least two classes; got one class.")
        sample_weight = check_sample_weight(sample_weight, X)
        if len(np.unique(y_enc[sample_weight > 0])) < 2:
            raise ValueError("sample_weight leaves only one class with positive weight.")
        report = progress or ignore_progress
        rng = check_random_state(self.random_state)
        X32 = np.ascontiguousarray(X, dtype=np.float32)
        everything = np.arange(len(y_enc))

        train, val = self._split(y_enc, rng)
        threshold_rows = None
        if val.size:  # choose rounds and model weighting on the validation rows
            choice = choose_rounds(
                self, X32, y_enc, sample_weight, train, val, rng, _half(report, 0.0),
                lambda kept: self._weighted_proba(kept, X, X32, y_enc, train, val, rng))
            n_rounds = choice.n_rounds
            self.model_weighting_ = choice.model_weighting
            self.search_results_ = choice.table
            self.validation_indices_ = val
            self.validation_proba_ = choice.proba
            threshold_rows = (y_enc[val], self.validation_proba_, sample_weight[val])
            self.history_ = choice.history
            final = run_rounds(self, X32, y_enc, sample_weight, X32[:0], y_enc[:0],
                               sample_weight[:0], n_rounds, rng, _half(report, 0.5),
                               False)[-1]
        else:  # no validation rows: every round on all rows, the last one kept
            rounds = run_rounds(self, X32, y_enc, sample_weight, X32[:0], y_enc[:0],
                                sample_weight[:0], self.n_iterations, rng, report, False)
            n_rounds, final = len(rounds), rounds[-1]
            self.model_weighting_ = self.model_weighting is not False
            self.history_ = [r.record for r in rounds]
            self.search_results_ = self.validation_indices_ = self.validation_proba_ = None
        self.best_iteration_ = n_rounds - 1
        self.selected_base_ = n_rounds == 1 and not self.model_weighting_
        self._keep(final, everything)
        report("ranking trees", self.n_iterations / (self.n_iterations + 1))
        leaves = self._fit_model_weighting(X, X32, y_enc, final.inbag, rng)
        if threshold_rows is None:  # Youden's J of the final model on its training rows
            threshold_rows = (y_enc, self._predict_proba(X, leaves), sample_weight)
        thresholds = youden_thresholds(threshold_rows[0], threshold_rows[1],
                                       len(self.classes_), threshold_rows[2])
        self.threshold_ = float(thresholds[1]) if len(self.classes_) == 2 else thresholds
        report("done", 1.0)
        return self

    def _weighted_proba(self, kept: Round, X, X32, y_enc, train, val, rng):
        """The validation rows' probabilities under model weighting on ``kept`` (trained on
        ``train``)."""
        self._keep(kept, train)
        self._fit_model_weighting(X, X32[train], y_enc[train], kept.inbag, rng)
        self.model_weighting_ = True
        return self._predict_proba(X[val], self._leaf_table.apply(X32[val], self.n_jobs))

    def _fit_model_weighting(self, X, X_tr, y_tr, inbag, rng) -> np.ndarray:
        """Model weighting learnt on the training rows ``X_tr`` of the kept forest
        (:func:`~forestviz.enhanced.ranking.fit_model_weighting`); their leaf ids."""
        found = fit_model_weighting(self, X, X_tr, y_tr, inbag, rng)
        (self._mean, self._scale), self._neighbors = found.scaling, found.neighbors
        self.n_neighbors_, self.top_trees_ = found.n_neighbors, found.top_trees
        self.tree_rankings_ = found.tree_rankings
        return found.leaves

    @property
    def leaf_table_(self):
        """The kept forest's :class:`~forestviz.trees.leaf_values.LeafTable`: its trees' class
        frequencies per node and the compiled leaf look-up."""
        return self._leaf_table

    @property
    def neighbor_index_(self):
        """The :class:`~forestviz.enhanced.neighbors.TrainingNeighbors` index of the
        standardised training rows, searched for the M nearest of a query row."""
        return self._neighbors

    @property
    def scaling_(self) -> tuple[np.ndarray, np.ndarray]:
        """The training rows' feature means and scales that standardise a row before the
        neighbour search."""
        return self._mean, self._scale

    def _keep(self, kept: Round, rows) -> None:
        """Make ``kept`` (trained on ``rows`` of the fit data) the model's forest."""
        self.estimators_ = kept.table.trees
        self._leaf_table = kept.table
        self.feature_subsets_ = kept.subsets
        self.train_indices_ = rows
        self.sample_importance_ = kept.weights / kept.weights.sum()

    def __setstate__(self, state):
        """A fitted state is checked against its T trees, C classes, m features and n training
        rows (:func:`~forestviz.enhanced.saved.check_state`); DamagedState when something does
        not fit. The leaf table and the neighbour index check and rebuild themselves."""
        super().__setstate__(state)
        if "tree_rankings_" in state:
            check_state(self)

    # ------------------------------------------------------- model weighting (§3.3, eqs 4-8)
    def _nearest(self, X):
        """Positions (in the training part) and distances of the M nearest training rows."""
        return self._neighbors.query((X - self._mean) / self._scale, self.n_jobs)

    def _predict_proba(self, X, leaves):
        """p(x) = Σ_k u_k(x) p_k(x) (eq 4) or the plain mean over trees, from the rows' leaf
        ids."""
        if self.model_weighting_:
            return weighted_proba(self._nearest(X)[0], self.tree_rankings_, leaves,
                                  self._leaf_table.values, self.n_jobs)
        return mean_proba(leaves, self._leaf_table.values, self.n_jobs)

    # ------------------------------------------------------------------------- public API
    def _validate(self, X):
        X = check_rows(self, X, "estimators_")
        return X, np.ascontiguousarray(X, dtype=np.float32)

    def predict_proba(self, X):
        """Class probabilities: model-weighted (eq 4) when ``model_weighting``, else the mean."""
        X, X32 = self._validate(X)
        return self._predict_proba(X, self._leaf_table.apply(X32, self.n_jobs))

    def predict(self, X):
        """Binary: class 1 when P(class 1) ≥ ``threshold_`` (Youden's J); multiclass: argmax
        (:func:`forestviz.trees.decision.decide`)."""
        return decide(self.predict_proba(X), self.classes_, self.threshold_)

    def tree_predictions(self, X):
        """p_k(x): every tree's class probabilities, n × T × C."""
        _, X32 = self._validate(X)
        return self._leaf_table.values[self._leaf_table.apply(X32, self.n_jobs)]

    def tree_weights(self, X):
        """The weights ``predict_proba`` uses: u_k(x) = (#appearances of tree k in the
        neighbours' top-L lists) / (M·L), Eq. 5, with ``model_weighting``, else 1/T; n × T,
        rows sum to 1 (Eq. 3's extra 1/N_t is a typo, algorithms.md §3.3)."""
        X, _ = self._validate(X)
        if not self.model_weighting_:
            return np.full((X.shape[0], self.n_estimators), 1.0 / self.n_estimators)
        return tree_weights(self._nearest(X)[0], self.tree_rankings_, self.n_estimators,
                            self.n_jobs)

    def ensemble_outputs(self, X) -> EnsembleOutputs:
        """The weights of :meth:`tree_weights` (no contamination part), p_k(x), the tree
        scores S, S1, S2 (Eqs. 6–8) and the M nearest training rows, from one leaf look-up and
        one neighbour search (:class:`~forestviz.trees.ensemble.WeightedEnsemble`)."""
        return self._outputs(X, details=True)

    def lean_outputs(self, X) -> EnsembleOutputs:
        """:meth:`ensemble_outputs` with only the score S that orders the trees, no parts and
        no neighbours (S1, S2 and the raw scores are kept one row at a time)."""
        return self._outputs(X, details=False)

    def _outputs(self, X, details: bool) -> EnsembleOutputs:
        X, X32 = self._validate(X)
        table = self._leaf_table
        values = np.take(table.values, table.apply(X32, self.n_jobs), axis=0)
        near, distance = self._nearest(X)
        if details:
            scores = tree_scores(near, self.tree_rankings_, self.n_estimators, self.n_jobs)
            S, counts = scores.S, scores.S1_raw
        else:
            S, counts = ranking_scores(near, self.tree_rankings_, self.n_estimators,
                                       self.n_jobs)
        if self.model_weighting_:
            weights = counts / (self.n_neighbors_ * self.top_trees_)
        else:
            weights = np.full(values.shape[:2], 1.0 / self.n_estimators)
        if not details:
            return EnsembleOutputs(weights, None, values, scores=Scores(S))
        return EnsembleOutputs(weights, uniform_parts(weights), values,
                               scores=Scores(S, scores.S1, scores.S2),
                               neighbors=(self.train_indices_[near], distance.copy()))

    def leaf_outputs(self) -> tuple[np.ndarray, np.ndarray]:
        """The trees' own class frequencies (what ``predict_proba`` averages) and their own
        (weighted) sample counts."""
        check_is_fitted(self)
        return self._leaf_table.values, tree_covers(self._leaf_table.trees)

    def diagnostics(self) -> Diagnostics:
        """Algorithm 1's rounds (history, kept round, the final s_i of the training rows) and,
        with validation rows, the search (``search_results_``, scored by 1 − AUC for two
        classes, else by the Brier score)."""
        check_is_fitted(self)
        rounds = Rounds(self.history_, self.best_iteration_, self.sample_importance_,
                        self.train_indices_)
        search = None
        if self.search_results_ is not None:
            search = Search(self.search_results_, bool(self.selected_base_),
                            score="AUC" if len(self.classes_) == 2 else "Brier score")
        return Diagnostics(search=search, rounds=rounds)

    def describe(self) -> Description:
        """An Enhanced Random Forest: binary, Youden's threshold on its validation rows (on
        its training rows without them); one threshold per class otherwise (argmax)."""
        check_is_fitted(self)
        return Description("Enhanced random forest", threshold=binary_threshold(self.threshold_),
                           held_out=self.validation_indices_ is not None)

    def tree_scores(self, X):
        """Tree scores S, S1, S2 of eqs (6)-(8) (see
        :class:`~forestviz.enhanced.model_weighting.TreeScores`)."""
        X, _ = self._validate(X)
        return tree_scores(self._nearest(X)[0], self.tree_rankings_, self.n_estimators,
                           self.n_jobs)

    def neighbors(self, X):
        """The M nearest training rows of each row of X (see :class:`Neighbors`)."""
        X, _ = self._validate(X)
        idx, dist = self._nearest(X)
        return Neighbors(indices=self.train_indices_[idx], distances=dist.copy())

    @property
    def feature_importances_(self):
        """Mean decrease in impurity, averaged over the trees (Algorithm 2's f_j)."""
        check_is_fitted(self)
        return impurity_importance(self.estimators_, self.n_features_in_)

