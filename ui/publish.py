"""The Train page's "Publish this model": name, description, and what its model card asks of
the publisher (the intended use, required; the out-of-scope use; the columns to give its
performance by), published as the next version of that name in the model library
(:meth:`forestviz.store.ModelLibrary.publish`, which builds the card, recorded in the audit
trail by the same transaction).

What the publisher types is plain text, capped by the store (the fields stop at the same caps).
A published model holds rows of its data set, which every viewer can read: the form says so
before anything is sent. A model loaded from a file whose origin cannot be verified is not
published (the library would vouch for a file nobody can vouch for: the one check of
:mod:`forestviz.store.publishing`, which the command line applies too); in memory-only mode the
form is replaced by the reason. The messages write the published reference through
:func:`ui.display.as_text`, so that it copies as typed, ``NAME@VERSION`` with no invisible
character, and a repeat of a version in use says which one it is instead of making another.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

import streamlit as st

from forestviz.card.subgroups import MAX_COLUMNS
from forestviz.io.csv_input import DataError
from forestviz.store import StoreError
from forestviz.store.publishing import AlreadyPublished, unverified
from forestviz.store.tables import NAME_CHARS, TEXT_CHARS
from ui import library
from ui.display import as_label, as_text, show_error

if TYPE_CHECKING:
    from forestviz.app.workbench import Workbench

ROWS_NOTE = ("The published model keeps this data set's rows (without the excluded columns): "
             "the held-out rows to pick from, and the training rows that every explanation "
             "shows as the most similar patients. Everyone who may open published models can "
             "read them.")


def publish_section(bench: Workbench) -> None:
    """The expander with the publish form for the current model of ``bench``."""
    with st.expander("Publish this model", icon=":material/publish:"):
        reason = _why_not(bench)
        if reason is not None:
            st.info(as_text(reason), icon=":material/block:")
            return
        st.warning(ROWS_NOTE, icon=":material/groups:")
        with st.form("publish_form", border=False):
            name = st.text_input("Name", max_chars=NAME_CHARS, key="publish_name",
                                 help="Publishing a name again makes its next version.")
            description = st.text_area("Description", max_chars=TEXT_CHARS,
                                       key="publish_description")
            use = st.text_area("Intended use", max_chars=TEXT_CHARS, key="publish_use",
                               help="Required: who uses the model, for which patients, to "
                                    "decide what. It heads the model card.")
            card = {"out_of_scope": st.text_area(
                        "Out-of-scope use", max_chars=TEXT_CHARS, key="publish_out_of_scope",
                        help="Uses and patients the model is not for."),
                    "subgroups": st.multiselect(
                        "Performance by subgroup", subgroup_columns(bench),
                        max_selections=MAX_COLUMNS, key="publish_subgroups",
                        help="The model card gives the held-out metrics of each group of "
                             "these columns (numbers with many values by quartile).")}
            sent = st.form_submit_button(as_label(f"Publish {bench.label}"), type="primary",
                                         icon=":material/publish:", key="publish_send")
        if sent:
            publish(bench, name, description, use, **card)


def _why_not(bench: Workbench) -> str | None:
    """Why the current model cannot be published here, or None."""
    if library.library() is None:
        return f"Publishing is off. {library.why_not_usable()}"
    if bench.model.origin_warning is not None:
        return unverified(bench.model.origin_warning)
    return None


def subgroup_columns(bench: Workbench) -> list[str]:
    """The columns a model card may give performance by: the table's, but the outcome."""
    dataset = bench.dataset
    return [str(c) for c in dataset.frame.columns if c not in (dataset.target,
                                                                dataset.id_column)]


def publish(bench: Workbench, name: str, description: str, use: str, *,
            out_of_scope: str = "", subgroups=()) -> None:
    """Publish the current model with its card (one line when the store refuses it)."""
    try:
        with st.spinner("Publishing…"):
            info = library.library().publish(bench, name=name, description=description,
                                             intended_use=use, out_of_scope=out_of_scope,
                                             subgroups=subgroups,
                                             actor=library.identity().actor)
    except AlreadyPublished as err:
        st.info(f"This model is published already, with this description and intended use, "
                f"as {as_text(err.info.ref)}. No new version was made.", icon=":material/info:")
        return
    except (StoreError, DataError) as err:
        show_error(err)
        return
    # its first opener then finds it loaded: a 500-tree model's load is 2.4 s of CPU
    threading.Thread(target=library.library().preload, args=(info,), daemon=True,
                     name="forestviz-preload").start()
    st.success(f"Published as {as_text(info.ref)}. It is on the Models page for everyone who may "
               "open published models.", icon=":material/check:")
