"""Model files written before the estimators gave their helper modules a public surface (issue
40) still load, and predict what they predicted when they were written: the same classes,
and the same values, probabilities and tree weights but for the last digits a processor's
order of summation may change.

``tests/model_files/*.skops`` hold :data:`MODELS` fitted and saved with ``dumps`` at commit
dda9126 (before the surface), and ``predictions.npz`` what the loaded models gave then for every
fifth training row: ``python tests/test_old_model_files.py`` rewrites them with the code checked
out, which is right only when the file format changes on purpose (``FILE_FORMAT``). A model file
holds an estimator's attributes by name, so the names a model stores are listed here too
(:data:`STORED`): renaming one is a new file format, not a refactoring.
"""

import sys
from pathlib import Path

import numpy as np
import pytest
from sklearn.datasets import make_classification, make_friedman1

from forestviz.attention import AttentionForestClassifier, AttentionForestRegressor
from forestviz.boosting import AttentionBoostingRegressor
from forestviz.enhanced import EnhancedForestClassifier
from forestviz.persistence import dumps, loads
from forestviz.trees.ensemble import as_ensemble

FOLDER = Path(__file__).resolve().parent / "model_files"
# relative: the files' numbers were computed on another processor, whose BLAS sums in another
# order (an ABRF-3 tree weight of 2.4e-4 differed by 2.7e-20, 1.1e-16 of it, on this one)
ROUNDING = 1e-12
X_CLF, Y_CLF = make_classification(150, n_features=5, n_informative=3, random_state=0)
X_3, Y_3 = make_classification(150, n_features=5, n_informative=3, n_classes=3, random_state=0)
X_REG, Y_REG = make_friedman1(150, n_features=5, random_state=0)
MODELS = {  # small; together they store every attribute a family may save
    "abrf3": (lambda: AttentionForestClassifier(3, mode="abrf3", eps=0.5, min_samples_leaf=5,
                                                random_state=0), X_CLF, Y_CLF),
    "abrf_own_leaves": (lambda: AttentionForestRegressor(4, min_samples_leaf=5, random_state=0),
                        X_REG, Y_REG),  # the search kept the trees' own leaf values
    "erf": (lambda: EnhancedForestClassifier(3, n_iterations=2, model_weighting=True,
                                             features_per_tree=True, max_features=3,
                                             random_state=0), X_CLF, Y_CLF),
    "erf_multiclass": (lambda: EnhancedForestClassifier(4, n_iterations=2,
                                                        validation_fraction=0, random_state=0),
                       X_3, Y_3),
    "agboost": (lambda: AttentionBoostingRegressor(3, max_depth=3, random_state=0),
                X_REG, Y_REG),
}
ATTENTION = ("_own_leaf_values", "base", "cv", "distance", "eps", "eps_",
             "estimators_", "forest_", "leaf_stats_", "loss", "max_depth", "max_features",
             "min_samples_leaf", "mode", "n_estimators", "n_features_in_", "n_jobs",
             "random_state", "search_results_", "selected_base_", "tau", "tau_", "v_",
             "validation_fraction", "w_", "z_")
ENHANCED = ("_leaf_table", "_mean", "_neighbors", "_scale",
            "best_iteration_", "classes_", "early_stopping", "estimators_", "feature_subsets_",
            "features_per_tree", "history_", "learning_rate", "max_depth", "max_features",
            "model_weighting", "model_weighting_", "n_estimators", "n_features_in_",
            "n_iterations", "n_jobs", "n_neighbors", "n_neighbors_", "oob_ranking",
            "random_state", "sample_importance_", "sample_probabilities", "sample_weighting",
            "search_results_", "selected_base_", "threshold_", "top_trees", "top_trees_",
            "train_indices_", "tree_rankings_", "validation_fraction", "validation_indices_",
            "validation_proba_")
STORED = {  # the attribute names each model file holds, written out
    "abrf3": {*ATTENTION, "classes_", "n_iter_", "threshold_"},
    "abrf_own_leaves": set(ATTENTION),
    "erf": set(ENHANCED),
    "erf_multiclass": set(ENHANCED),
    "agboost": {"base", "cv", "discount", "discount_", "discount_on",
                "distance", "eps", "eps_", "estimators_", "gbm_", "init_", "leaf_stats_",
                "learning_rate", "max_depth", "min_samples_leaf", "n_estimators",
                "n_features_in_", "n_jobs", "random_state", "search_results_", "selected_base_",
                "tau", "tau_", "validation_fraction", "w_", "weights"},
}


def outputs(model, X) -> dict[str, np.ndarray]:
    """What a model gives for the rows ``X``: its predictions, probabilities (classifiers), and
    the tree weights and tree predictions explaining reads."""
    found = {"predict": model.predict(X)}
    if hasattr(model, "predict_proba"):
        found["predict_proba"] = model.predict_proba(X)
    ensemble = as_ensemble(model).ensemble_outputs(X)
    return {**found, "weights": ensemble.weights, "tree_predictions": ensemble.tree_predictions}


def write(folder: Path) -> None:
    """The model files and ``predictions.npz`` of :data:`MODELS`, with the code checked out."""
    folder.mkdir(exist_ok=True)
    expected = {}
    for name, (make, X, y) in MODELS.items():
        (folder / f"{name}.skops").write_bytes(dumps(make().fit(X, y)))
        model = loads((folder / f"{name}.skops").read_bytes())
        expected.update({f"{name}.{key}": value for key, value in outputs(model, X[::5]).items()})
    np.savez_compressed(folder / "predictions.npz", **expected)


@pytest.mark.parametrize("name", MODELS)
def test_a_model_file_written_before_loads_and_predicts_exactly_as_then(name):
    model = loads((FOLDER / f"{name}.skops").read_bytes())
    X = MODELS[name][1][::5]
    with np.load(FOLDER / "predictions.npz", allow_pickle=False) as saved:
        expected = {key.partition(".")[2]: saved[key] for key in saved.files
                    if key.partition(".")[0] == name}
    found = outputs(model, X)
    assert found.keys() == expected.keys()
    for key, value in found.items():
        if np.issubdtype(value.dtype, np.floating):  # the same, to the BLAS's order of summation
            np.testing.assert_allclose(value, expected[key], rtol=ROUNDING, atol=0, err_msg=key)
        else:  # a classifier's classes
            np.testing.assert_array_equal(value, expected[key], err_msg=key)
    assert set(model.__getstate__()) == STORED[name]


@pytest.mark.slow
@pytest.mark.parametrize("name", MODELS)
def test_a_model_fitted_now_stores_the_same_attribute_names(name):
    make, X, y = MODELS[name]
    model = loads(dumps(make().fit(X, y)))
    assert set(model.__getstate__()) == STORED[name]


if __name__ == "__main__":
    write(Path(sys.argv[1]) if len(sys.argv) > 1 else FOLDER)
