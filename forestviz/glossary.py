"""The glossary: every term the app shows, in one table (:func:`entries`), with the plain phrase
the first screen uses in its place, what it means and where it comes from (the paper and its
equation, or the code that defines it).

The Explain page's tiles take their help from it (:func:`help_text`), the Glossary page lists
it and the record's appendix carries it (:mod:`forestviz.explain.report.document`). The papers'
terms and the explanation's are written here (:data:`TERMS`); the model families, what each role may
do and the audit trail's events are read off their own tables (:data:`forestviz.registry. FAMILIES`,
each family with its words; :data:`forestviz.store.roles.MAY` and
:data:`forestviz.store.audit.ACTIONS` with theirs in :mod:`forestviz.store.glossary`, which sits
with the tables it reads and gives the whole glossary), so that a new family or action without words
is an error, not a gap.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from forestviz.registry import ABRF, AGB, ERF

EXPLANATION = "The explanation"
PAPERS = "The papers' symbols"
FAMILY = "Model families"
RIGHT = "What a role may do"
EVENT = "Audit trail events"
SECTIONS = (EXPLANATION, PAPERS, FAMILY, RIGHT, EVENT)
RECORD_SECTIONS = (EXPLANATION, PAPERS, FAMILY)  # what the record's appendix carries
LIBRARY_FREE = RECORD_SECTIONS  # the sections with no term of the model library

DM = "Zhang, \"Decision Machines\" (both papers; docs/algorithms.md §4)"


@dataclass(frozen=True)
class Term:
    """One glossary entry: ``term`` as the papers and the code name it, ``plain`` the phrase a
    reader without them understands, ``definition`` one or two sentences, ``source`` where it
    comes from, ``section`` one of :data:`SECTIONS`."""

    term: str
    plain: str
    definition: str
    source: str
    section: str = EXPLANATION

    @property
    def help(self) -> str:
        """"calibrated range (Venn-ABERS): …" — the plain phrase, the term, the meaning."""
        named = self.plain if self.plain == self.term else f"{self.plain} ({self.term})"
        return f"{named[:1].upper()}{named[1:]}: {self.definition}"


def _t(term, plain, definition, source, section=EXPLANATION) -> tuple[str, Term]:
    return term, Term(term, plain, definition, source, section)


TERMS: dict[str, Term] = dict((
    _t("P(class)", "risk", "the model's probability that the row belongs to the class; "
       "the reasons both ways add up to it.", "the model's predict_proba"),
    _t("Venn-ABERS", "calibrated range",
       "the range the calibrated risk lies in whichever outcome the row turns out to have, "
       "fitted on rows held out from training; a narrow range means the calibration is sure.",
       "Vovk, Petej & Fedorova, \"Large-scale probabilistic predictors with and without "
       "guarantees of validity\" (NeurIPS 2015), via MAPIE"),
    _t("calibrated risk", "calibrated",
       "how often held-out rows given this risk turned out positive: the model's probability "
       "corrected by the Venn-ABERS calibration.", "forestviz/explain/row/uncertainty.py"),
    _t("split-conformal interval", "90% interval",
       "the range that holds the true value for 90% of new rows, its width measured on rows "
       "held out from training.",
       "Lei, G'Sell, Rinaldo, Tibshirani & Wasserman, \"Distribution-free predictive "
       "inference for regression\" (JASA 2018)"),
    _t("Youden's J", "decision threshold",
       "the risk at or above which the model says the positive class: the threshold where "
       "sensitivity + specificity − 1 is highest on rows held out while training.",
       "Youden, \"Index for rating diagnostic tests\" (Cancer 1950); ERF Eq. 1"),
    _t("effective number of trees", "effective number of trees",
       "1 / Σ α²: how many equally weighted trees would be as concentrated as this row's "
       "weights; the number of trees when every tree counts the same, 1 when one tree "
       "decides.", "Kish's effective sample size, applied to the tree weights α"),
    _t("top 5 share", "weight of the top 5 trees",
       "the share of the row's tree weights that its 5 heaviest trees carry.",
       "forestviz/explain/row/explanation.py"),
    _t("reasons", "reasons both ways",
       "how much each column moves the prediction up or down from the trees' weighted base "
       "value; with the base they add up to the prediction (the waterfall).",
       "Saabas, \"Interpreting random forests\" (2014), weighted by α (contributions.py)"),
    _t("base value", "the trees' weighted base",
       "what the trees predict before looking at the row's values: each tree's mean over "
       "its training rows, weighted by the row's tree weights.",
       "forestviz/explain/row/contributions.py"),
    _t("top 3 reasons", "reasons shared with similar rows",
       "of the 5 most similar training rows, how many have the same 3 largest reasons as this "
       "row: 5 of 5 says the reasons are typical of such rows, 0 of 5 that they are "
       "particular to it.", "forestviz/explain/whole/trust.py"),
    _t("most similar training rows", "similar rows",
       "the training rows nearest to this row, by Euclidean distance on standardised columns, "
       "and what they turned out to have.", "forestviz/explain/row/summary.py"),
    _t("guessed value", "guess for a missing value",
       "the value the model used where the row has none: the training median (numbers) or no "
       "level (categories); the page says when another plausible guess changes the answer.",
       "forestviz/explain/row/imputed.py"),
    _t("unfamiliar row", "unlike the training rows",
       "a row that few training rows resemble, by forest proximity and by the columns' joint "
       "spread, calibrated on held-out rows: its prediction rests on little data.",
       "Breiman, \"Random Forests\" (2001), proximities; forestviz/explain/row/familiar.py"),
    _t("held-out rows", "rows held out",
       "rows kept out of training and used only to measure the model: its scores, calibration "
       "and interval.", "forestviz/app/workflow.py"),
    _t("CSV", "table file", "a table saved as text: one row a line, the values separated by "
       "commas; the Data page reads one, and the several-patients form too.", "RFC 4180"),
    _t("ID column", "row identifier", "the column that names each row (a patient's number): "
       "shown beside the row, never used to predict.", "forestviz/io/dataset.py"),
    _t("HTML, PDF report", "the record", "the explanation as a document: HTML opens in any "
       "browser, PDF prints on A4; with the appendix it also carries the model, the trees and "
       "this glossary.", "forestviz/explain/report/document.py"),
    _t("tree score S", "tree score",
       "for the Enhanced RF, how often a tree ranks among the best trees of the row's nearest "
       "training rows, from 0 to 1 (S = (S̄1 + S̄2) / 2).", f"{ERF}, eqs 4–8", PAPERS),
    _t("margin", "margin",
       "a test's value − threshold on the row's path; the smallest margin relative to the "
       "column's spread is the most fragile test.", DM),
    _t("nearest other leaf", "nearest other leaf",
       "the leaf the row would reach if one test on its path went the other way, and what the "
       "tree would say there.", DM),
    _t("α", "tree weight", "the weight α_k(x) each tree gets for row x; the weights sum to 1 "
       "and the prediction is Σ α_k·(tree k's leaf value).", f"{ABRF}, eq 13", PAPERS),
    _t("D", "Softmax weights", "D_k(x) = softmax(−d_k(x) / (2τ)): a tree weighs more when "
       "the row is close to the mean of its leaf's training rows (distance d_k).",
       f"{ABRF}, eq 14 (sign resolved in docs/algorithms.md)", PAPERS),
    _t("ε", "contamination", "the share of the weight that is the same for every row: "
       "α = (1 − ε)·D + ε·w. ε = 0 is pure Softmax attention, ε = 1 a fixed weighted forest.",
       f"{ABRF}, eq 13 (Huber's ε-contamination model)", PAPERS),
    _t("w", "trained tree weights", "the weights ε·w adds to every row, trained on the "
       "training rows by a quadratic (L2) or linear (L1) program; w ≥ 0, Σ w = 1.",
       f"{ABRF}, eqs 18–22", PAPERS),
    _t("τ", "temperature", "how sharply D picks the closest trees: small τ, a few trees; "
       "large τ, all trees nearly equal.", f"{ABRF}, eq 14", PAPERS),
    _t("v, z", "tree temperatures and feature weights", "ABRF-2's trained parameters: one "
       "temperature per tree and one weight per column inside the distance.",
       f"{ABRF}, eq 23", PAPERS),
    _t("γ", "discount", "AGBoost's factor γ^k on tree k's attention score: later boosting "
       "trees, which correct smaller errors, count less.", AGB, PAPERS),
    _t("λ", "reweighting rate", "how much the Enhanced RF moves a training row's weight after "
       "each round when the forest misjudges it.", f"{ERF}, Algorithm 1", PAPERS),
    _t("M, L", "neighbours and top trees", "the Enhanced RF's M nearest training rows and the "
       "L best trees of each, from which the tree scores come.", f"{ERF}, eq 3", PAPERS),
    _t("S, t, h, B", "the tree as matrices", "a Decision Machine: S picks each test's column, "
       "t holds its threshold, h = sgn(S·x − t) answers every test at once, and the row's leaf "
       "is the row of B where B·h equals the leaf's depth.", DM, PAPERS),
    _t("simplex", "triangle of weights", "every weighting of three trees (or three groups of "
       "trees) is a point of a triangle; ε limits α to a small triangle around D.",
       f"{ABRF}, Fig. 1", PAPERS),
    _t("KDE", "smoothed weights", "the weights smoothed along the tree number "
       "(a kernel density estimate): peaks show the trees attention favours.",
       f"{ABRF}, Fig. 3", PAPERS),
    _t("R²", "share of variance explained", "1 − (squared error / variance of the target) on "
       "held-out rows: 1 is perfect, 0 no better than the mean.", "scikit-learn r2_score",
       PAPERS),
    _t("AUC", "ranking quality", "the chance that a random positive row gets a higher risk "
       "than a random negative one: 0.5 is chance, 1 perfect.",
       "scikit-learn roc_auc_score", PAPERS),
    _t("plain forest", "plain forest", "the same trees averaged with equal weights (1/T each); "
       "an attention model keeps it when attention does not beat it on held-out rows.",
       "forestviz/selection", PAPERS),
))
"""The papers' and the explanation's terms, by term."""


def families() -> list[Term]:
    """One entry per model family, in the registry's order."""
    from forestviz.registry import FAMILIES

    return [Term(family.label, family.plain, family.means, family.source, FAMILY)
            for family in FAMILIES.values()]


def help_text(term: str) -> str:
    """The help a widget shows for ``term`` (a key of :data:`TERMS`)."""
    return TERMS[term].help


def entries(sections: tuple[str, ...] = LIBRARY_FREE) -> list[Term]:
    """The terms of ``sections`` that sit below the model library, in :data:`SECTIONS` order:
    :data:`TERMS`, then one entry per model family (its words on the registry's
    :class:`~forestviz.registry.Family`). The roles' rights and the audit trail's events are the
    library's own (:func:`forestviz.store.glossary.entries` gives the whole glossary)."""
    found = [*TERMS.values(), *(families() if FAMILY in sections else ())]
    return [t for section in SECTIONS if section in sections for t in found
            if t.section == section]


def used_in(text: str) -> list[Term]:
    """The :data:`TERMS` that ``text`` names (each term as a whole word), in table order."""
    return [t for t in TERMS.values()
            if re.search(rf"(?<!\w){re.escape(t.term)}(?!\w)", text)]


def find(terms: list[Term], words: str) -> list[Term]:
    """The ``terms`` whose term, plain phrase or definition holds ``words`` (any case; all
    of them when ``words`` is blank)."""
    words = words.strip().casefold()
    return [t for t in terms
            if words in f"{t.term} {t.plain} {t.definition}".casefold()]


def table(terms: list[Term]):
    """``terms`` as a table (term, plain words, meaning, source), as the Glossary page and the
    record list them."""
    import pandas as pd

    return pd.DataFrame({"term": [t.term for t in terms],
                         "in plain words": [t.plain for t in terms],
                         "meaning": [t.definition for t in terms],
                         "where it comes from": [t.source for t in terms]})
