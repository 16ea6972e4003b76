"""The Explain view: everything below a row's summary, written once (issue 40). The Explain
page lays it out with widgets (:mod:`ui.explain_view`) and the report's technical appendix
prints it (:mod:`forestviz.explain.report.view`); both iterate the same :class:`ExplainView`, an
ordered tuple of frozen :class:`Section` objects whose parts say which charts, notes, tables and
trees to show, in which order and with which words. A renderer decides only how a part looks: the
page folds the long tables and draws the charts interactive, the report prints everything.

The sections, in order:

1. **How the forest reached it**: how concentrated the row's tree weights α are (the effective
   number of trees 1/Σα², Kish's effective sample size, and the top five trees' share), how the
   trees disagree and where the interval comes from (the
   :class:`~.glance.Glance`'s sentences), the model and its rule, the class
   probabilities, and the row's charts (:mod:`.figures`). The weights' own three charts are
   left out when the weights are equal (:func:`~.tree_choice.equal_weights`):
   a hundred equal bars say nothing.
2. **The trees shown** (:class:`~.tree_choice.TreeChoice`'s heading and note):
   a boosting model's corrections, what a tree's number is, and each tree's section
   (:mod:`.tree_section`).
3. **This row beside the training rows**: its values, percentiles and shares, marked when
   missing or edited (what-if), the percentile chart, and the row as entered.
4. **Most similar training rows**: this row first, then its nearest training rows.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass

import pandas as pd
import plotly.graph_objects as go

from forestviz.explain.plots.conventions import WIDTH
from forestviz.explain.row.columns import text_table_note
from forestviz.explain.row.figures import FIGURES, WEIGHT_FIGURES, figures
from forestviz.explain.row.narrative import rule_words, target_column, tree_value_note
from forestviz.explain.row.tree_choice import equal_weights
from forestviz.explain.row.tree_section import TreeSection, tree_sections
from forestviz.explain.row.values import marks, plain
from forestviz.names import elide
from forestviz.numbers import outcome_text, plain_number

HALF = ("weights", "scores", "kde", "contributions", "contributions_by_tree")
"""The charts laid out for half the page's width, two side by side, in this order."""
WHOLE = ("simplex",)
"""The forest section's charts laid out across the page, after the halves."""
DRAWN_PATH_ONLY = "Each drawing shows only this row's path."


@dataclass(frozen=True)
class Tile:
    """A number in a tile: ``label``, ``value`` as printed, ``term`` the glossary term that
    explains it (:func:`forestviz.glossary.help_text`)."""

    label: str
    value: str
    term: str


@dataclass(frozen=True)
class Tiles:
    """Numbers shown side by side."""

    tiles: tuple[Tile, ...]


@dataclass(frozen=True)
class Note:
    """A sentence."""

    text: str


@dataclass(frozen=True, eq=False)
class Chart:
    """One of the row's figures: ``name`` its key in
    :data:`~.figures.FIGURES`; ``half`` laid out for half the page."""

    name: str
    figure: go.Figure
    half: bool


@dataclass(frozen=True, eq=False)
class Table:
    """A table: ``name`` names it (the page's widget key); ``title`` its own heading (None: the
    section's); ``marked`` the rows to highlight (edited values); ``folded``: long, the page
    folds it (the report prints it); ``heads``, when given, name the rows, and the report
    lays the table out one line per column and one column per row (rows of many columns)."""

    name: str
    title: str | None
    frame: pd.DataFrame
    marked: tuple[bool, ...] = ()
    folded: bool = False
    heads: tuple[str, ...] = ()


@dataclass(frozen=True, eq=False)
class Tree:
    """One tree shown: its :class:`~.tree_section.TreeSection` and the
    sentence that heads it ("Tree 12: weight 0.010; this tree says …")."""

    section: TreeSection
    sentence: str


Part = Tiles | Note | Chart | Table | Tree


@dataclass(frozen=True, eq=False)
class Section:
    """A titled section: ``key`` names it for a renderer's additions (the page's interactive
    extras), ``parts`` in order."""

    key: str
    title: str
    parts: tuple[Part, ...]


@dataclass(frozen=True, eq=False)
class ExplainView:
    """The sections below a row's summary, in order."""

    sections: tuple[Section, ...]

    def __iter__(self) -> Iterator[Section]:
        return iter(self.sections)

    @property
    def titles(self) -> tuple[str, ...]:
        """The sections' titles, in order."""
        return tuple(s.title for s in self.sections)

    @property
    def trees(self) -> tuple[int, ...]:
        """The trees shown, in order (indices from 0)."""
        return tuple(p.section.tree for s in self.sections for p in s.parts
                     if isinstance(p, Tree))

    def charts(self) -> dict[str, go.Figure]:
        """The figures shown, by name, in order."""
        return {p.name: p.figure for s in self.sections for p in s.parts if isinstance(p, Chart)}


def figure_names(equal: bool) -> frozenset[str]:
    """The figures the view shows: without the weights' own when the weights are equal."""
    return FIGURES - WEIGHT_FIGURES if equal else FIGURES


def explain_view(e, glance, *, choice=None, actual=None, edited: Mapping | None = None,
                 charts: Mapping[str, go.Figure] | None = None, width: int = WIDTH,
                 name: Callable[[object], str] = elide) -> ExplainView:
    """The view of explanation ``e`` below its summary ``glance``: ``choice`` the trees shown
    (a :class:`~.tree_choice.TreeChoice`; by default the top trees);
    ``actual`` the recorded outcome, if known; ``edited`` the columns a what-if changed, each
    with its value before the edit; ``charts`` the row's figures when already built (by
    default built here for ``width`` pixels: :func:`~.figures.figures`
    of :func:`figure_names`); ``name`` shows user-given names (cut for the page, or a
    :class:`~forestviz.names.DisplayNames` that remembers what it cut)."""
    equal = equal_weights(e.tree_weights) if choice is None else choice.equal_weights
    if charts is None:
        charts = figures(e, width=width, trees=None if choice is None else choice.trees,
                         names=figure_names(equal))
    edited = dict(edited or {})
    return ExplainView((_forest(e, glance, actual, charts, name), _trees(e, choice, name),
                        _row(e, edited, charts), _similar(e)))


def _forest(e, glance, actual, charts, name) -> Section:
    parts: list[Part] = [Tiles((
        Tile("Effective number of trees", f"{e.effective_trees:.1f}",
             "effective number of trees"),
        Tile("Weight of the top 5 trees", f"{e.top5_share:.0%}", "top 5 share")))]
    parts += [Note(s) for s in (glance.spread, glance.interval) if s is not None]
    said = [f"Model: {e.model_name}", f"{e.n_trees} trees"]
    if e.decision_rule:
        said.append(f"Rule: {rule_words(e, name)}")
    if actual is not None:
        said.append(f"Recorded outcome: {outcome_text(actual)}")
    parts.append(Note(" · ".join(said)))
    if e.task == "classification":
        parts.append(Table("probabilities", "Class probabilities", pd.DataFrame(
            {"class": [str(c) for c in e.classes],
             "probability": e.prediction}), folded=True))
    if e.contributions is not None:
        parts.append(Note(contributions_sentence(e, name)))
    parts += [Chart(n, charts[n], True) for n in HALF if n in charts]
    parts += [Chart(n, charts[n], False) for n in WHOLE if n in charts]
    return Section("forest", "How the forest reached it", tuple(parts))


def contributions_sentence(e, name) -> str:
    """What the contribution charts show: from the weighted base value to the prediction."""
    c = e.contributions
    column = target_column(e)
    pick = (lambda a: a) if column is None else (lambda a: a[..., column])
    target = "the predicted value" if column is None else f"P({name(e.classes[column])})"
    base = float(pick(c.base_value))
    end = base + float(pick(c.total).sum())
    ends = ([plain_number(v, 4) for v in (base, end)] if column is not None
            else e.value_texts(base, end))  # as the predicted value prints
    return (f"Contributions: what each column adds to {target} through the trees that carry "
            "this row, from the base value (the trees' expected output weighted by this row's "
            f"tree weights), {ends[0]}, to {ends[1]} (method: {c.method}).")


def _trees(e, choice, name) -> Section:
    parts: list[Part] = []
    if choice is not None and choice.note:
        parts.append(Note(choice.note))
    if choice is not None and choice.corrections is not None:
        parts.append(Table("corrections", None, choice.corrections))
    parts.append(Note(DRAWN_PATH_ONLY))
    note = tree_value_note(e)
    if note is not None:
        parts.append(Note(note))
    lead = "its term V is" if e.boosting else "this tree says"  # tree_value_note: what V is
    parts += [Tree(s, f"{s.title}; {lead} {s.says}") for s in tree_sections(e, choice, name)]
    title = "The trees that carry this prediction" if choice is None else choice.heading
    return Section("trees", title, tuple(parts))


def _row(e, edited, charts) -> Section:
    table = e.feature_texts()
    said = marks(e.features["feature"], e.missing, edited)
    notes = [text_table_note(table)]
    if any(said):
        table.insert(2, "marks", said)
        notes.append("Marks: a missing value (the model used what “used as” says), or a value "
                     "edited for a what-if, with its value before the edit.")
    parts: list[Part] = [Note(" ".join(notes)), Table(
        "features", None, table, marked=tuple("edited" in m for m in said))]
    if "features" in charts:
        parts.append(Chart("features", charts["features"], False))
    if e.original_row is not None:
        columns = [str(c) for c in e.original_row.index]
        said = marks(columns, e.missing, edited)
        values = [v if isinstance(v, str) else plain(v) for v in e.original_row]  # all text
        parts.append(Table("entered", "The row as entered", pd.DataFrame(
            {"column": columns, "value": values, "marks": said}),
            marked=tuple("edited" in m for m in said), folded=True))
    return Section("row", "This row beside the training rows", tuple(parts))


def _similar(e) -> Section:
    frame = e.neighbors
    ids = (frame["id"] if "id" in frame else frame["row"].map("row {}".format)).astype(str)
    frame = frame.drop(columns="row").astype(object)
    mine = {"id": "this row" if e.row_id is None else e.row_id, "distance": 0.0}
    values = e.features.set_index("feature")["value"]
    mine |= {c: values[c] for c in frame.columns if c in values.index}
    if e.original_row is not None:
        mine |= {c: v for c, v in e.original_row.items() if c in frame.columns}
    rows = pd.concat([pd.DataFrame([mine], columns=frame.columns, dtype=object), frame],
                     ignore_index=True).infer_objects()  # numbers stay numbers
    return Section("similar", "Most similar training rows", (
        Note("Distance in standard deviations of each feature (Euclidean); this row first."),
        Table("neighbours", None, rows, heads=("this row", *ids))))
