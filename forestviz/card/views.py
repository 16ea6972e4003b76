"""A model card laid out once: its facts as (label, text) lines and its tables (metrics,
calibration, one per subgroup column), which the Models page shows as text and tables, and
:func:`card_html` writes as one self-contained HTML document (printed to PDF by
:func:`forestviz.app.printing.print_pdf`) for ``forestviz models card``. Every text of the
card (the publisher's words, column names, group values) is escaped: shown, never rendered.
"""

from __future__ import annotations

import html

import pandas as pd

from forestviz.numbers import (
    NOTHING,
    aligned_texts,
    decimal_text,
    percent_shares,
    percent_text,
    plain_number,
)

NOTE = ("Intervals: {confidence:.0%} percentile bootstrap over {resamples:,} resamples of the "
        "{rows:,} held-out rows (random_state {random_state}).")
CALIBRATION = {
    "logistic": "Logistic recalibration of the outcome on the logit of the risk: slope 1 and "
                "intercept 0 for risks that mean what they say; a slope below 1 for risks too "
                "extreme, above 1 for risks too timid; a negative intercept for risks too high.",
    "linear": "Linear recalibration of the outcome on the prediction (least squares): slope 1 "
              "and intercept 0 for predictions that mean what they say; a slope below 1 for "
              "predictions too spread out, above 1 for predictions too timid.",
}
NO_CALIBRATION = "No calibration: the held-out rows hold one outcome only."


def number(value) -> str:
    """A score to three decimals with a true minus ("−0.102"), "—" for none."""
    return decimal_text(value, 3)


IN_OUTCOME_UNITS = frozenset({"MAE"})
"""Metrics measured in the outcome's units, printed to three significant digits ("47.1", not
"47.111"); the others are scores printed to three decimals."""


def _texts(found: dict, metric: str | None) -> list[str]:
    """``found``'s value, low and high end as a table prints them."""
    ends = (found["value"], found["low"], found["high"])
    if metric in IN_OUTCOME_UNITS:
        return aligned_texts(*ends, digits=3)
    return [number(v) for v in ends]


def interval(found: dict, metric: str | None = None) -> str | None:
    """"0.718 to 0.857", or None when it has none."""
    if found["low"] is None:
        return None
    _, low, high = _texts(found, metric)
    return f"{low} to {high}"


def estimate(found: dict, metric: str | None = None) -> str:
    """"0.788 (0.718 to 0.857)", or the value alone when it has no interval; an MAE "47.1
    (44.6 to 49.8)"."""
    span = interval(found, metric)
    return _texts(found, metric)[0] + ("" if span is None else f" ({span})")


def title(card: dict) -> str:
    model = card["model"]
    return f"Model card: {model['name']}@{model['version']}"


def facts(card: dict, digest: str) -> list[tuple[str, str]]:
    """The card's lines above its tables: model, use, data."""
    model, use, data = card["model"], card["use"], card["data"]
    lines = [("Model", f"{model['name']}@{model['version']}: {model['family']} with "
                       f"{model['n_trees']} trees ({model['task']} of '{model['target']}')"),
             ("Intended use", use["intended"]),
             ("Out of scope", use["out_of_scope"] or "not said"),
             ("Data", f"'{data['name']}': {data['rows']:,} rows ({data['training_rows']:,} "
                      f"training, {data['held_out_rows']:,} held out), {data['columns']} "
                      "columns used"),
             ("Outcome", outcome_text(data["outcome"]))]
    lines += [(f"Dates ({span['column']})", f"{span['first']} to {span['last']}")
              for span in data["dates"]]
    lines += [("Model blob SHA-256", model["blob_sha256"]), ("Card SHA-256", digest)]
    return lines


def outcome_text(outcome: dict) -> str:
    if "mean" in outcome:
        spread = ("" if outcome["sd"] is None
                  else f", standard deviation {plain_number(outcome['sd'], 4)}")
        return f"mean {plain_number(outcome['mean'], 4)}{spread}"
    shares = outcome["shares"]
    return ", ".join(f"{name} {share}" for name, share
                     in zip(shares, percent_shares(list(shares.values()), 1), strict=True))


def interval_note(card: dict) -> str:
    return NOTE.format(**{k: card["metrics"][k]
                          for k in ("confidence", "resamples", "rows", "random_state")})


def metrics_table(card: dict) -> pd.DataFrame:
    """One line per held-out metric: its value and interval."""
    values = card["metrics"]["values"]
    return pd.DataFrame({"metric": list(values),
                         "held-out value": [_texts(v, m)[0] for m, v in values.items()],
                         "95% interval": [interval(v, m) or NOTHING for m, v in values.items()]})


def calibration_of(card: dict) -> dict | None:
    """The card's calibration (:func:`forestviz.card.calibration.card_calibration`); a card of
    format 1 held one logistic row (two classes) as a plain dict."""
    found = card["calibration"]
    if found is not None and "rows" not in found:
        return {"kind": "logistic", "rows": [{"of": None, **found}]}
    return found


def calibration_note(card: dict) -> str:
    """What the calibration table's numbers mean, or why there is none."""
    found = calibration_of(card)
    return NO_CALIBRATION if found is None else CALIBRATION[found["kind"]]


def calibration_table(card: dict) -> pd.DataFrame | None:
    """A line per calibrated risk (its class, for more than two classes) or value."""
    found = calibration_of(card)
    if found is None:
        return None
    rows = found["rows"]
    table = pd.DataFrame({"calibration slope": [number(r["slope"]) for r in rows],
                          "calibration intercept": [number(r["intercept"]) for r in rows]})
    if found["kind"] == "logistic":
        table["Brier score"] = [number(r["brier"]) for r in rows]
    if found["kind"] == "logistic" and rows[0]["of"] is not None:  # format 1 did not say
        table.insert(0, "risk of", [r["of"] for r in rows])
    return table


def subgroup_tables(card: dict) -> list[tuple[str, pd.DataFrame]]:
    """For each subgroup column, one line per group: n, outcome, each metric with its interval
    ("—" for a small group, whose note ends the line)."""
    regression = card["model"]["task"] == "regression"
    names = list(card["metrics"]["values"])
    found = []
    for part in card["subgroups"]:
        lines = []
        for group in part["groups"]:
            line = {"group": group["group"], "n": group["n"],
                    "outcome mean" if regression else "outcome rate":
                    plain_number(group["outcome"], 4) if regression
                    else percent_text(group["outcome"], 1)}
            for name in names:
                line[name] = (NOTHING if group["metrics"] is None
                              else estimate(group["metrics"][name], name))
            lines.append({**line, "note": group["note"] or ""})
        found.append((part["column"], pd.DataFrame(lines)))
    return found


# ------------------------------------------------------------------------ the HTML document
STYLE = """body{font-family:sans-serif;max-width:190mm;margin:1em auto;color:#222;
font-size:10pt;overflow-wrap:anywhere}table{border-collapse:collapse;margin:.4em 0 1em}
td,th{border:1px solid #ccc;padding:.2em .5em;text-align:left}th{background:#f2f4f7}
p.note{color:#555;font-size:.9em}@page{size:A4;margin:12mm}"""


def _table(frame: pd.DataFrame) -> str:
    return frame.to_html(index=False, escape=True, border=0)


def card_html(card: dict, digest: str) -> str:
    """The card as one self-contained HTML document (no script, no link, no image)."""
    e = html.escape
    rows = "".join(f"<tr><th>{e(label)}</th><td>{e(text)}</td></tr>"
                   for label, text in facts(card, digest))
    parts = [f"<h1>{e(title(card))}</h1>", f"<table>{rows}</table>",
             "<h2>Held-out performance</h2>", _table(metrics_table(card)),
             f'<p class="note">{e(interval_note(card))}</p>', "<h2>Calibration</h2>"]
    calibration = calibration_table(card)
    parts += ([_table(calibration), f'<p class="note">{e(calibration_note(card))}</p>']
              if calibration is not None else [f"<p>{e(NO_CALIBRATION)}</p>"])
    for column, table in subgroup_tables(card):
        parts += [f"<h2>By {e(column)}</h2>", _table(table)]
    return ('<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
            f"<title>{e(title(card))}</title><style>{STYLE}</style></head><body>"
            + "".join(parts) + "</body></html>")
