"""The published models as the Models and Home pages show them: a table of versions, a choice
that opens one straight into the Explain page (no upload, no training) and, for an admin, a
retirement behind a confirmation.

A page that lists the versions follows the library (:func:`visible_versions`): every
:data:`FOLLOW_SECONDS` a fragment asks the library's stamp (one query:
:meth:`forestviz.store.ModelLibrary.stamp`) and runs the whole page again only when it changed
(a version published or retired since, on any replica), so an open page shows a publish made
elsewhere without a reload (issue 38: within 2 s). An idle page draws nothing more: the focus
and whatever the user is choosing or typing stay as they are, and a run that does come keeps
the widgets' values (they have keys).

While this session trains, the page does not follow. A finished training may change the page
(Home's button opens Explain), and a second timer's tick sent as the page changes reaches the
server carrying the old page: Streamlit runs it after the new page's run and the browser,
told the old page is back, clears the new page and draws nothing (a blank Explain page, seen
in two browser tests under load). So during a training the page keeps no timer of its own:
Home waits in its run (:func:`ui.models.wait_for_training`), another page has only the
training's poll, whose own tick is the one that changes the page.

An opened version becomes the session's data set and current model exactly as a trained one
(:mod:`ui.models`' ``MODEL`` and ``MODELS`` beside the data set's ``DATASET`` and ``CHOICE``),
so every page reads it through :func:`ui.models.workbench`. Names, descriptions and intended
uses are the publisher's text: shown as text (``st.text``, table cells), never as markup.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd
import streamlit as st

from forestviz.numbers import decimal_text
from forestviz.store import StoreError
from forestviz.store.roles import may
from ui import library, models, state, timers
from ui.display import as_label, as_text, show_error

if TYPE_CHECKING:
    from forestviz.store import ModelVersion, OpenedModel

FOLLOW_SECONDS = 1.0  # how often an open page asks whether the list of versions changed
RETIRED = "catalog_retired"  # the version this session retired, said once in the next run
ASKED = "catalog_open_asked"  # the version whose Open button was clicked (:func:`open_asked`)
METRICS = ("AUC", "accuracy", "F1", "R²", "MAE", "RMSE")  # shown in the table, when present


def visible_versions() -> list[ModelVersion] | None:
    """The versions this user may see (retired ones for an admin only), newest first by
    name, and the page followed from here on (:func:`_follow`); None after saying why when
    the library cannot be read."""
    found = library.library()
    if found is None:
        return None
    try:
        user = library.identity()
        stamp = found.stamp()  # before the list: a change after it is the next poll's
        versions = found.versions(include_retired=may(user.role, "open_retired"),
                                  actor=user.actor)
    except StoreError as err:
        show_error(err)
        return None
    if not models.training_in_progress():
        _follow(stamp)
    return versions


@st.fragment(run_every=FOLLOW_SECONDS)
def _follow(shown: int | None) -> None:
    """Run the whole page again when the library's stamp is no longer ``shown``, the one
    its list was read with; draw nothing otherwise. A database that stopped answering is
    left to the page's next run to say."""
    try:
        changed = library.library().stamp() != shown
    except StoreError:
        return
    if changed:
        timers.rerun_page()


def metrics_text(info: ModelVersion) -> str:
    """The published model's own held-out metrics, the usual ones, in a few characters."""
    own = info.metrics.get(info.family, {})
    return " · ".join(f"{name} {decimal_text(own[name], 3)}" for name in METRICS
                      if isinstance(own.get(name), float))


def versions_table(versions: list[ModelVersion]) -> pd.DataFrame:
    """One line per version: name, version, data set, metrics, publisher, date, status."""
    return pd.DataFrame({
        "name": [v.name for v in versions],
        "version": [v.version for v in versions],
        "data set": [v.dataset_name for v in versions],
        "model": [f"{v.family}, {v.n_trees} trees" for v in versions],
        "held-out metrics": [metrics_text(v) for v in versions],
        "published by": [v.published_email or v.published_by for v in versions],
        "published": [f"{v.published_at:%Y-%m-%d %H:%M} UTC" for v in versions],
        "status": [f"retired {v.retired_at:%Y-%m-%d}" if v.retired else "in use"
                   for v in versions],
    })


def choose_version(versions: list[ModelVersion], key: str) -> ModelVersion:
    """A choice of ``versions`` by NAME@VERSION (the newest first, as listed)."""
    refs = {v.ref: v for v in versions}
    chosen = st.selectbox("Published model", list(refs), key=key,
                          format_func=lambda ref: ref + (" (retired)" if refs[ref].retired
                                                         else ""))
    return refs[chosen]


def describe(info: ModelVersion) -> None:
    """The publisher's words and the model's facts, as plain text."""
    st.caption(as_text(f"{info.ref}: {info.family} with {info.n_trees} trees on "
                       f"{info.dataset_name} (target {info.target}, {info.task}); "
                       f"{info.n_train:,} training rows, {info.n_test:,} held-out rows; "
                       f"forestviz {info.forestviz_version}."))
    for label, said in (("Description", info.description), ("Intended use", info.intended_use)):
        if said:
            st.markdown(f"**{label}**")
            st.text(said)


def open_button(info: ModelVersion, key: str) -> None:
    """A button that opens ``info`` into the session and goes to the Explain page, in the
    next run (:func:`open_asked`)."""
    st.button(as_label(f"Open {info.ref}"), key=key, type="primary",
              icon=":material/open_in_new:", on_click=_ask_open, args=(info,))


def _ask_open(info: ModelVersion) -> None:
    st.session_state[ASKED] = info


def open_asked() -> None:
    """Open the version whose Open button was clicked, if one was: the version the button was
    drawn for, not the list's. The list is read anew in the click's run, so a version retired
    meanwhile on another replica had left it: the click was lost (the page said that nothing
    was published) or, under the same key, opened the newer version listed in its place. Now
    it is refused in one line, naming the version."""
    info = st.session_state.pop(ASKED, None)
    if info is not None:
        open_version(info)


def open_version(info: ModelVersion) -> None:
    """Open ``info`` (recorded as opened by this user) as the session's model and show the
    explanation of its riskiest held-out row; one line when it is refused."""
    found = library.library()
    if found is None:
        st.error(as_text(library.why_not_usable()), icon=":material/cloud_off:")
        return
    user = library.identity()
    try:
        with st.spinner(f"Opening {info.ref}…"):
            opened = found.open_model(info.name, info.version, actor=user.actor,
                                      allow_retired=may(user.role, "open_retired"))
    except StoreError as err:
        show_error(err)
        return
    use_opened(opened)
    st.switch_page("pages/explain.py")


def use_opened(opened: OpenedModel) -> None:
    """Make an opened model the session's data set and current model (the session's other
    models belong to another data set and are let go, as when the data set changes)."""
    bench = opened.workbench
    st.session_state.pop(state.UPLOAD, None)
    state.replace(state.DATASET, bench.dataset)
    st.session_state[state.CHOICE] = bench.choice
    st.session_state[models.MODELS] = dict(bench.trained)
    st.session_state[models.MODEL] = bench.model
    st.session_state[models.ROW] = bench.highest_risk_row()
    st.session_state[library.OPENED] = (bench.model, opened.info)


def retire_control(info: ModelVersion, key: str) -> None:
    """The retirement of ``info`` by a role that may retire, behind a confirmation; once
    done, the page runs again with the list as it now is and says so."""
    retired = st.session_state.pop(RETIRED, None)
    if retired is not None:
        st.success(as_text(f"{retired} is retired."), icon=":material/check:")
    if info.retired or not may(library.identity().role, "retire"):
        return
    sure = st.checkbox(as_label(f"Yes, retire {info.ref}: viewers no longer see it; its record "
                                "and audit trail stay"), key=f"{key}_sure")
    if not st.button(as_label(f"Retire {info.ref}"), key=key, disabled=not sure,
                     icon=":material/archive:"):
        return
    try:
        library.library().retire(info.name, info.version, actor=library.identity().actor)
    except StoreError as err:
        show_error(err)
        return
    st.session_state[RETIRED] = info.ref
    st.rerun(scope="app")
