"""Several models trained on one data set, side by side: one table of all of them and the
baselines on the same held-out rows, what each chose in words, the confusion matrix at a
model's own threshold, and one row as each model explains it.

Models are compared only on identical held-out rows (the same split); a model trained with
another test size or seed is listed apart, since its figures come from other rows.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
from sklearn.metrics import confusion_matrix

from forestviz.app.workflow import Bundle
from forestviz.numbers import plain_number
from forestviz.trees.ensemble import as_ensemble

SPLIT = "held-out rows"


def same_split(a: Bundle, b: Bundle) -> bool:
    return np.array_equal(a.test_rows, b.test_rows)


def chosen_in_words(bundle: Bundle) -> str:
    """What the fit chose, in words: the plain base model kept, or the attention setting
    (ε, τ, γ) or the Enhanced RF round, read from the model's own search table."""
    ensemble = as_ensemble(bundle.estimator)
    found, model = ensemble.diagnostics(), ensemble.describe()
    said = [f"{bundle.n_trees} trees"]
    search = found.search
    if found.selected_base:
        said.append(f"the search kept {model.plain} (equal tree weights)")
    elif search is not None and search.by_settings:
        chosen = search.chosen()
        setting = f"ε = {chosen.eps:.2f}, τ = {plain_number(chosen.tau, 3)}"
        if search.discount is not None:
            setting += f", γ = {search.discount:.2f}"
        said.append(setting + (" (chosen on rows held out in training)" if search.scored
                               else " (set by hand)"))
    if found.rounds is not None:
        rounds = found.rounds.history
        kept = rounds[found.rounds.best]["iteration"]  # rounds count from 1
        said.append(f"reweighting round {kept} of {len(rounds)}")
        if search is not None:
            said.append("model weighting " + ("on" if search.chosen().model_weighting
                                              else "off"))
    if model.threshold is not None:
        said.append(f"threshold {model.threshold:.3f} (Youden's J)")
    return "; ".join(said)


def models_table(models: Mapping[str, Bundle], current: str) -> pd.DataFrame:
    """Every trained model (by its label) and the baselines of ``current``, on ``current``'s
    held-out rows: the metrics of the Train page, fit seconds and the chosen parameters in
    words. Models trained on another split follow, marked in the column ``held-out rows``."""
    base = models[current]
    rows = []
    for label, bundle in models.items():
        mine = bundle.results.iloc[0].to_dict()  # the trained model comes first
        mine.update(model=label, parameters=chosen_in_words(bundle),
                    **{SPLIT: "same" if same_split(bundle, base) else "another split"})
        rows.append(mine)
    for _, baseline in base.results.iloc[1:].iterrows():
        boosting = baseline["model"].startswith("Gradient boosting")
        rows.append({**baseline.to_dict(), SPLIT: "same",
                     "parameters": "scikit-learn's defaults" if boosting
                     else f"{base.settings.n_estimators} trees, scikit-learn's defaults"})
    table = pd.DataFrame(rows).set_index("model")
    order = np.argsort((table[SPLIT] != "same").to_numpy(), kind="stable")
    return table.iloc[order]


def confusion(bundle: Bundle) -> pd.DataFrame:
    """The held-out confusion matrix of a classifier at its own decision rule (ERF: Youden's
    threshold; otherwise the most probable class): rows the recorded classes, columns the
    predicted ones."""
    if bundle.task != "classification":
        raise ValueError("a confusion matrix needs a classifier")
    classes = list(bundle.estimator.classes_)
    counts = confusion_matrix(bundle.y_test, bundle.estimator.predict(bundle.X_test),
                              labels=classes)
    names = [str(c) for c in classes]
    return pd.DataFrame(counts, index=pd.Index(names, name="recorded"),
                        columns=pd.Index(names, name="predicted"))


def row_across_models(explanations: Mapping[str, object]) -> pd.DataFrame:
    """One row as each model explains it (``explanations``: label → Explanation): the
    prediction and its interval, the effective number of trees and the top-5 share, the first
    top tree's path in words, and the sentence of why. (Tree numbers of different models name
    different trees, so the top trees are compared by what they test, not by number.)"""
    rows = []
    for label, e in explanations.items():
        if e.task == "classification":
            shown = 1 if e.classes.size == 2 else int(np.flatnonzero(
                e.classes == e.predicted_class)[0])
            prediction = f"{e.predicted_class} (P = {e.prediction[shown]:.2f})"
        else:
            prediction = plain_number(e.prediction, 4)
        interval = ("—" if e.interval is None
                    else "–".join(plain_number(end, 3) for end in e.interval))
        first = int(e.top_trees[0])
        path = " and ".join(e.step_sentence(step) for step in e.paths[0]) or "a single leaf"
        rows.append({"model": label, "prediction": prediction, "interval": interval,
                     "effective trees": round(e.effective_trees, 1),
                     "top-5 weight": f"{e.top5_share:.0%}",
                     "first top tree": f"tree {first + 1} (weight {e.tree_weights[first]:.3f}): "
                                       f"{path}",
                     "why": e.why})
    return pd.DataFrame(rows).set_index("model")
