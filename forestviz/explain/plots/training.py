"""Training diagnostics: the (ε, τ) search of the attention models (ABRF Fig. 2) and the
Enhanced Random Forest's training rounds."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from forestviz.explain.plots.conventions import WIDTH, finish, plain
from forestviz.explain.plots.inputs import records
from forestviz.names import elide
from forestviz.numbers import plain_number

EPS_MARKERS = ("circle", "triangle-up", "square", "diamond", "x", "star", "cross", "pentagon")
METRICS = {  # known score columns: axis title, word in hover texts, higher is better
    "validation_loss": ("Validation error (lower is better)", "validation error", False),
    "r2": ("R² on held-out rows (1 = perfect, 0 = no better than the mean)", "R²", True),
}


def tau_curves(search_results, *, value="validation_loss", target_variance=None, baseline=None,
               baseline_name="plain model (equal tree weights)", width=WIDTH) -> go.Figure:
    """ABRF Fig. 2: a score against τ (log axis), one line per ε, the best pair marked.

    ``search_results``: ``AttentionForest*.search_results_`` or any DataFrame / list of dicts
    with columns ``eps``, ``tau`` and ``value`` (``validation_loss``, lower is better, as the
    estimator stores it; ``r2``, higher is better; another column is taken as lower-is-better
    with its own name as axis title). ``target_variance``: draw R² = 1 − loss / variance
    instead of the loss, as the paper does; valid when the loss is a mean squared error
    (regression, ``loss="l2"``; the estimators pool every held-out row, with or without K-fold
    ``cv``). ``baseline``: a horizontal line in the plotted unit, e.g. the plain forest's R²;
    with a ``candidate`` column (the estimators' tables) the row ``"base"`` gives it, and the
    ``selected`` row is starred ("chosen pair"), or the caption says the plain model was chosen.
    """
    frame = records(search_results, ["eps", "tau", value], "search_results")
    if target_variance is not None:
        frame = frame.assign(r2=1.0 - frame[value].to_numpy(float) / float(target_variance))
        value = "r2"
    base_chosen = False
    if "candidate" in frame:  # the estimators' tables: the plain model is a row of its own
        base = frame[frame["candidate"] == "base"]
        if baseline is None and len(base) and np.isfinite(base[value]).all():
            baseline = float(base[value].iloc[0])
        bases = frame[frame["candidate"] != "attention"]
        base_chosen = bool("selected" in bases and bases["selected"].any())
        frame = frame[frame["candidate"] == "attention"]
    frame = frame.sort_values(["eps", "tau"], kind="stable")
    y_title, word, higher = METRICS.get(value, (plain(elide(value)), plain(elide(value)), False))
    fig = go.Figure()
    for i, (eps, curve) in enumerate(frame.groupby("eps", sort=True)):
        fig.add_trace(go.Scatter(
            x=curve["tau"].to_numpy(float), y=curve[value].to_numpy(float), name=f"ε = {eps:.2f}",
            mode="lines+markers", marker={"symbol": EPS_MARKERS[i % len(EPS_MARKERS)], "size": 8},
            hovertemplate=f"ε = {eps:.2f}, τ = %{{x:,.3~r}}: {word} %{{y:,.4~r}}"
                          "<extra></extra>"))
    scores = frame[value].to_numpy(float)
    caption = ("τ sets how sharply the weights favour trees whose leaf is close to the row "
               "(small τ: a few trees; large τ: all trees alike); ε is the share of learned "
               "tree weights.")
    chosen = frame[frame["selected"].astype(bool)] if "selected" in frame else frame.iloc[:0]
    if base_chosen and "confirmed_se" in frame:  # the rule preferred a pair; it did not hold
        caption += (" The plain model (the horizontal line) was kept: the best pair's lead on "
                    "these rows did not hold on held-out rows it was not chosen on, by two "
                    "standard errors.")
    elif base_chosen:
        caption += (" The plain model (the horizontal line) was chosen: no pair beat it by more "
                    "than the standard error of the difference.")
    elif np.isfinite(scores).any():
        best = (chosen.iloc[0] if len(chosen) else
                frame.iloc[int(np.nanargmax(scores) if higher else np.nanargmin(scores))])
        label = "chosen pair" if len(chosen) else "best pair"
        fig.add_trace(go.Scatter(
            x=[best["tau"]], y=[best[value]], mode="markers", name=label,
            marker={"symbol": "star", "size": 16, "color": "gold", "line": {"width": 1}},
            hovertext=[f"{label}: ε = {best['eps']:.2f}, τ = {plain_number(best['tau'], 3)}"],
            hoverinfo="text"))
    else:
        caption += " No held-out scores were recorded, so no pair is marked."
    if baseline is not None:
        fig.add_hline(y=float(baseline), line_color="#d9650b",
                      annotation_text=plain(elide(baseline_name)))
    return finish(fig, "How the two tuning knobs ε and τ change the score (ABRF Fig. 2)", caption,
                  width=width,
                  xaxis={"title": {"text": "τ (temperature of the softmax, log scale)"},
                         "type": "log"},
                  yaxis={"title": {"text": y_title}})


def erf_history(history, best_iteration=None, *, width=WIDTH) -> go.Figure:
    """Enhanced Random Forest training rounds (``EnhancedForestClassifier.history_``).

    ``history``: list of dicts or DataFrame with ``iteration`` and ``validation_auc``;
    optional ``train_auc``, ``threshold`` (t*, shown in the hover text) and the sample-weight
    quantiles ``weight_min``, ``weight_q25``, ``weight_median``, ``weight_q75``, ``weight_max``
    (drawn as bands in a second panel). ``best_iteration``: index of the kept round.
    """
    frame = records(history, ["iteration", "validation_auc"], "history")
    it = frame["iteration"].to_numpy(float)
    bands = {"weight_min", "weight_q25", "weight_median", "weight_q75", "weight_max"}
    has_weights = bands <= set(frame.columns)
    titles = ["AUC by round (1 = perfect, 0.5 = a coin flip)"]
    if has_weights:
        titles.append("Sample weights by round (how much each training row counts)")
    fig = make_subplots(rows=1 + has_weights, cols=1, shared_xaxes=True, vertical_spacing=0.14,
                        subplot_titles=[plain(t) for t in titles])
    threshold = frame["threshold"].tolist() if "threshold" in frame else [None] * len(frame)
    hover = [f"Round {int(i)}: validation AUC {auc:.3f}"
             + ("" if t is None else f", decision threshold {np.round(t, 3).tolist()}")
             for i, auc, t in zip(it, frame["validation_auc"], threshold, strict=True)]
    fig.add_trace(go.Scatter(x=it, y=frame["validation_auc"], name="validation AUC",
                             mode="lines+markers", hovertext=hover, hoverinfo="text"), 1, 1)
    if "train_auc" in frame:
        fig.add_trace(go.Scatter(
            x=it, y=frame["train_auc"], name="training AUC", mode="lines+markers",
            line={"dash": "dash"},
            hovertemplate="Round %{x}: training AUC %{y:.3f}<extra></extra>"), 1, 1)
    if best_iteration is not None:
        row = frame.iloc[int(best_iteration)]
        fig.add_trace(go.Scatter(
            x=[row["iteration"]], y=[row["validation_auc"]], name="kept round", mode="markers",
            marker={"symbol": "star", "size": 16, "color": "gold", "line": {"width": 1}},
            hovertext=[f"The model of round {int(row['iteration'])} is kept"], hoverinfo="text"),
            1, 1)
    if has_weights:
        for low, high, name, colour in (("weight_min", "weight_max", "smallest to largest",
                                         "rgba(31,95,168,0.15)"),
                                        ("weight_q25", "weight_q75", "middle half of the rows",
                                         "rgba(31,95,168,0.35)")):
            fig.add_trace(go.Scatter(x=it, y=frame[high], mode="lines", line={"width": 0},
                                     showlegend=False, hoverinfo="skip"), 2, 1)
            fig.add_trace(go.Scatter(
                x=it, y=frame[low], mode="lines", line={"width": 0}, fill="tonexty",
                fillcolor=colour, name=f"sample weights: {name}",
                hovertemplate=f"Round %{{x}}: {name} of the sample weights<extra></extra>"), 2, 1)
        fig.add_trace(go.Scatter(
            x=it, y=frame["weight_median"], mode="lines+markers", name="median sample weight",
            line={"color": "#1f5fa8"},
            hovertemplate="Round %{x}: median sample weight %{y:.3f}<extra></extra>"), 2, 1)
        fig.update_yaxes(title_text="Sample weight", row=2, col=1)
    fig.update_xaxes(title_text="Training round", row=1 + has_weights, col=1)
    # whole rounds, not 1.2, 1.4, …
    fig.update_xaxes(dtick=1 if len(frame) <= 20 else None, tickformat="d")
    fig.update_yaxes(title_text="AUC", row=1, col=1)
    return finish(
        fig, "How the Enhanced Random Forest changed over its training rounds",
        "Each round re-weights the training rows: rows the forest gets wrong weigh more in the "
        "next round. " + _kept_sentence(frame, best_iteration),
        width=width, panel_titles=True, height=380 + 220 * has_weights)


def _kept_sentence(frame, best_iteration) -> str:
    """Which round is kept and why, from the history itself: the estimator keeps the earliest
    round (the simplest model) whose validation AUC is within one standard error of the best
    (the one-standard-error rule, :mod:`forestviz.enhanced.choice`), so the star need not be
    on the highest point."""
    if best_iteration is None:
        return "No kept round is marked."
    auc = frame["validation_auc"].to_numpy(float)
    kept = int(frame["iteration"].iloc[int(best_iteration)])
    if not np.isfinite(auc).any():
        return f"The star marks the kept round, round {kept} (no validation AUC was recorded)."
    top = int(np.nanargmax(auc))
    score = auc[int(best_iteration)]
    said = f"The star marks the kept round, round {kept} (validation AUC {score:.3f})"
    if score >= auc[top]:
        return said + ": the best validation AUC."
    return (f"{said}, not round {int(frame['iteration'].iloc[top])} with the best, "
            f"{auc[top]:.3f}: the one-standard-error rule keeps the earliest round whose AUC is "
            "within one standard error of the best, as a lead that small is within the noise "
            "of the validation rows.")
