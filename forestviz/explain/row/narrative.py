"""One sentence of why, in the user's words, from an explanation's own numbers.

"Predicted malignant (risk 0.80, calibrated 0.82, calibrated range 0.81–0.86) mainly because
worst concave points = 0.26 (tested in 4 of the 5 top trees, above 0.14–0.17)." The reasons
are the columns
whose contributions (:mod:`.contributions`, through the row's own tree
weights) move the prediction most from the weighted base value in the direction it went; the
evidence in brackets is read off the top trees' decision paths. Nothing is said that the
explanation does not hold: a column is named only when its contribution has the sign of the
move, and the trees are counted, not guessed.
"""

from __future__ import annotations

import numpy as np

from forestviz.numbers import percent_shares, plain_number, range_text

SECOND_REASON = 0.5  # a second column is named when it moves the prediction at least half as much


def target_column(e) -> int | None:
    """The class column the sentence speaks of: the risk P(last class) of a binary model, the
    predicted class's probability otherwise; None for a value."""
    if e.task != "classification":
        return None
    if e.classes.size == 2:
        return 1
    return int(np.flatnonzero(e.classes == e.predicted_class)[0])


def headline(e, name=str) -> str:
    """"Predicted malignant (risk 0.80, calibrated 0.82, calibrated range 0.81–0.86)" or
    "Predicted 151 (90% interval 98.2–204)"."""
    shown = target_column(e)
    if shown is None:
        head = f"Predicted {e.value_texts(e.prediction)[0]}"
        inner = []
    else:
        what = "risk" if e.classes.size == 2 else f"P({name(e.predicted_class)})"
        head = f"Predicted {name(e.predicted_class)}"
        inner = [f"{what} {e.prediction[shown]:.2f}"]
    if e.interval is not None:
        inner.append(interval_text(e))
    return head + (f" ({', '.join(inner)})" if inner else "")


def interval_text(e) -> str:
    """"90% interval 98.2–204.5" for a value (to the decimals of
    :meth:`~.explanation.Explanation.value_texts`); "calibrated 0.82,
    calibrated range 0.81–0.86" (Venn-ABERS) for a binary risk (a range with no confidence
    level: see :mod:`.uncertainty`)."""
    low, high = e.interval
    if e.calibrated_risk is None:
        return f"{e.interval_name} {'–'.join(e.value_texts(low, high))}"
    return f"calibrated {e.calibrated_risk:.2f}, {e.interval_name} {low:.2f}–{high:.2f}"


def spread_text(e, name=str) -> str | None:
    """How the weighted trees disagree: their weighted 5–95 % range of values, or how the row's
    tree weight splits over the classes the trees favour. None for boosting (its trees fit
    successive residuals: their spread is no spread of outcomes).

    A tree's side is the class of its largest leaf probability, so the split (94 % of the
    weight on trees favouring Yes) is a head count, not a second probability beside the model's
    (the weighted mean of the leaves' probabilities, 0.89): the sentence names both so that the
    two numbers do not read as two answers."""
    s = e.spread
    if s is None or e.boosting:
        return None
    if s.vote_shares is None:
        low, high = s.quantiles[s.levels.index(0.05)], s.quantiles[s.levels.index(0.95)]
        low, high = e.value_texts(low, high)
        return (f"the trees, weighted for this row, range from {low} to {high} "
                "(5–95%): how much they disagree, not where the outcome will fall")
    shares = percent_shares(s.vote_shares)  # adding up to 100 %
    sides = ", ".join(f"{p} on trees favouring {name(c)}" for c, v, p in
                      zip(e.classes, s.vote_shares, shares, strict=True) if v > 0)
    shown = target_column(e)
    what = "risk" if e.classes.size == 2 else f"P({name(e.classes[shown])})"
    return (f"the trees take sides: of this row's tree weight, {sides} (a count of the trees' "
            f"sides, not a probability: the model's {what}, {e.prediction[shown]:.2f}, is the "
            "weighted mean of their leaves' probabilities)")


def rule_words(e, name=str) -> str:
    """The model's decision rule in words, its class names shown through ``name`` (longest
    first, so that a name inside another is not cut twice)."""
    rule = e.decision_rule
    for c in sorted(map(str, e.classes), key=len, reverse=True):
        rule = rule.replace(c, name(c))
    return rule


def tree_value_note(e) -> str | None:
    """What a boosting tree's number is (AGBoost, algorithms.md §2): no prediction of the
    outcome but its term V_k = T·ν·h_k(x), the tree's fit to the residuals times the learning
    rate ν and the number of trees T, so that the prediction is the starting value F_0 plus the
    trees' weighted mean term, F_0 + Σ α_k·V_k. None for a forest, whose trees each say an
    outcome."""
    if not e.boosting:
        return None
    start, mean, prediction = e.value_texts(e.offset, e.prediction - e.offset, e.prediction)
    return (f"A boosting tree's number is not a prediction: it is its term V = T·ν·h, its "
            "correction of the residuals left by the trees before it, times the learning rate ν "
            f"and the number of trees T = {e.n_trees}. The prediction is the starting value "
            f"(the training mean) plus the weighted mean of the terms: {start} + {mean} = "
            f"{prediction}.")


def beyond_outcomes(low: float, high: float, y_train) -> str:
    """"; it reaches above the largest outcome of the training rows, 346 (…)" when a value's
    interval goes past the outcomes the model learnt from, else "". The interval is not cut
    there (its coverage holds as it is); a split-conformal interval is equally wide for every
    row, so near the edge of the data it covers values no training row had."""
    y = np.asarray(y_train, dtype=float)
    said = []
    if high > y.max():
        said.append(f"above the largest outcome of the training rows, {plain_number(y.max(), 4)}")
    if low < y.min():
        said.append(f"below the smallest, {plain_number(y.min(), 4)}" if said else
                    f"below the smallest outcome of the training rows, {plain_number(y.min(), 4)}")
    if not said:
        return ""
    return (f"; it reaches {' and '.join(said)} (the interval is equally wide for every row, so "
            "near the edge of the data it takes in values no training row had)")


def interval_note(e) -> str:
    """Where the interval comes from and, for a risk, whether the model's own risk lies in the
    calibrated range."""
    note = e.interval_note
    if e.calibrated_risk is not None:
        risk = float(e.prediction[1])
        low, high = e.interval
        if not low <= risk <= high:
            note += (f"; the model's own risk {risk:.2f} lies outside it: on the held-out rows, "
                     f"risks like this one came true {e.calibrated_risk:.0%} of the time")
    return note


def value_text(e, column: str, name=str) -> str:
    """"mean radius = 13.3", or "mean radius is missing (imputed as 13.3)": a column's value
    in the row as the sentences name it."""
    i, table = e.columns.names.index(column), e.features  # one table row per column, in order
    row = {key: table.iat[i, table.columns.get_loc(key)]
           for key in ("missing", "kind", "used as", "value")}
    if row["missing"]:
        return (f"{name(column)} is missing (imputed as {row['used as'].split(' ')[0]})"
                if row["kind"] == "numeric" else f"{name(column)} is missing")
    return f"{name(column)} = {name(row['value'])}"


def _evidence(e, column: str) -> str:
    """"tested in 4 of the 5 top trees, above 0.14–0.17": the top trees whose path tests the
    column, and, for a number, the direction and thresholds of their last test on it."""
    owner = e.columns.owner
    index = e.columns.names.index(column)
    last = []
    for steps in e.paths:
        tests = [s for s in steps if owner[s.feature] == index]
        if tests:
            last.append(tests[-1])
    if not last:
        return ""
    said = f"tested in {len(last)} of the {len(e.paths)} top trees"
    if e.columns.columns[index].kind != "numeric":
        return said
    directions = {s.direction for s in last}
    if len(directions) != 1:
        return said
    low, high = min(s.threshold for s in last), max(s.threshold for s in last)
    where = "at most" if directions == {"<="} else "above"
    return f"{said}, {where} {range_text(low, high, spread=last[0].spread)}"


def why(e, name=str) -> str:
    """The sentence for an explanation ``e`` with contributions folded to the user's columns
    (``e.contributions``); the headline alone when it has none. ``name`` shows a user-given
    name or value (e.g. :func:`forestviz.names.elide`)."""
    head = headline(e, name)
    c = e.contributions
    if c is None or e.columns is None:
        return head + "."
    shown = target_column(e)
    total = c.total if shown is None else c.total[:, shown]
    base = c.base_value if shown is None else c.base_value[shown]
    move = float(total.sum())
    if move == 0 or not np.isfinite(move):
        return f"{head}: the same as the trees' expected output for the training rows."
    toward = np.flatnonzero(np.sign(total) == np.sign(move))
    order = toward[np.argsort(-np.abs(total[toward]), kind="stable")]
    reasons = [order[0]] + [j for j in order[1:2]
                            if abs(total[j]) >= SECOND_REASON * abs(total[order[0]])]
    parts = []
    for j in reasons:
        column = c.feature_names[j]
        evidence = _evidence(e, column)
        parts.append(value_text(e, column, name) + (f" ({evidence})" if evidence else ""))
    direction = "up" if move > 0 else "down"
    return (f"{head} mainly because {' and '.join(parts)}: these move it {direction} from "
            f"{e.outcome_texts(base)[0]}, the trees' weighted expected output.")
