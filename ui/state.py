"""Per-session state (``st.session_state`` only) and content-keyed caches for the pages."""

import hashlib
from dataclasses import dataclass

import pandas as pd
import streamlit as st

from forestviz.app.limits import Limits
from forestviz.app.uploads import TableBudget
from forestviz.io.bundled import DEFAULT_DATASET, bundled_choice, load_dataset
from forestviz.io.csv_input import load_csv
from forestviz.io.dataset import (
    DataChoice,
    Dataset,
    schema,
    suggest_id_columns,
    suggest_target,
)

DATASET = "dataset"  # the Dataset every page works on
CHOICE = "dataset_choice"  # the DataChoice that built it
UPLOAD = "upload"  # the last uploaded CSV that parsed, as a Source
MODEL = "model"  # the session's current Bundle
MODELS = "models"  # every model trained on the data set in use: label → Bundle
TASKS = ("auto", "classification", "regression")


@dataclass(frozen=True, eq=False)
class Source:
    """A table a Dataset can be built from, with the columns suggested for it (``named``:
    whether the default target was chosen by its name, else it is a guess to check)."""

    key: str
    name: str
    description: str
    frame: pd.DataFrame
    defaults: DataChoice
    named: bool = True


@st.cache_resource(show_spinner=False)
def limits() -> Limits:
    """The server's caps (``forestviz.app.limits``; environment variables override them)."""
    return Limits.from_env()


@st.cache_resource(show_spinner=False)
def upload_budget() -> TableBudget:
    """Bytes of parsed uploads held by all sessions of this server (``forestviz.app.uploads``)."""
    return TableBudget(limits().upload_budget_mb * 2**20)


def upload_limit_mb() -> int:
    """The upload size limit from ``.streamlit/config.toml`` (``server.maxUploadSize``)."""
    return int(st.get_option("server.maxUploadSize"))


@st.cache_data(show_spinner=False, max_entries=16)
def bundled_dataset(name: str) -> Dataset:
    """A bundled data set; each caller gets its own copy."""
    return load_dataset(name)


@st.cache_data(show_spinner=False, max_entries=16)
def column_schema(source_key: str, _frame: pd.DataFrame) -> pd.DataFrame:
    """``forestviz.io.dataset.schema`` of a source's table, cached by the source's content key."""
    return schema(_frame)


def bundled_source(name: str) -> Source:
    dataset = bundled_dataset(name)
    defaults = bundled_choice(name, dataset)
    return Source(defaults.source, name, dataset.description, dataset.frame, defaults)


def read_upload(name: str, data: bytes) -> Source:
    """Parse an uploaded CSV and keep it as the session's upload, within the server's upload
    budget; raises DataError (then the previous upload and data set stay as they were)."""
    digest = hashlib.sha256(data).hexdigest()
    key = f"upload:{digest}"
    previous = st.session_state.get(UPLOAD)
    if previous is not None and previous.key == key:
        return previous
    budget = upload_budget()
    frame = budget.get(key)
    if frame is None:
        budget.admit(len(data), "This file")  # a parsed table is at least about this big
        with st.spinner("Reading the CSV…"):
            frame = load_csv(data, max_bytes=upload_limit_mb() * 1024 * 1024)
        budget.keep(key, frame)
    ids = suggest_id_columns(frame)
    target, named = suggest_target(frame)
    defaults = DataChoice(key, target, next((c for c in ids if c != target), None), (), "auto")
    source = Source(key, name, "", frame, defaults, named)
    replace(UPLOAD, source)
    return source


def replace(key: str, value: object) -> None:
    """Set ``st.session_state[key]`` and let go of its previous value now: an assignment
    alone leaves the previous value in Streamlit's copy of the state as the run began until
    the session's next run (a replaced upload's tables stayed counted); a deletion removes
    both."""
    st.session_state.pop(key, None)
    st.session_state[key] = value


def choose(choice) -> None:
    """Make ``choice`` the session's data choice; the models trained on another one are let go
    at once (the current model, and every page that names it, never outlives its data)."""
    if st.session_state.get(CHOICE) != choice:
        st.session_state.pop(MODEL, None)
        st.session_state.pop(MODELS, None)
    st.session_state[CHOICE] = choice


def ensure_dataset() -> Dataset:
    """The session's data set; the bundled default on a session's first run."""
    if DATASET not in st.session_state:
        dataset = bundled_dataset(DEFAULT_DATASET)
        st.session_state[DATASET] = dataset
        st.session_state[CHOICE] = bundled_choice(DEFAULT_DATASET, dataset)
    return st.session_state[DATASET]


def use_bundled(name: str) -> Dataset:
    """Make the bundled data set ``name`` the session's, with its default columns (closing the
    session's upload, as :func:`use_choice` does)."""
    dataset = bundled_dataset(name)
    choice = bundled_choice(name, dataset)
    if st.session_state.get(CHOICE) != choice:
        st.session_state.pop(UPLOAD, None)
        replace(DATASET, dataset)
        choose(choice)
    return st.session_state[DATASET]


def initial_choice(source: Source) -> DataChoice:
    """The session's current choice if it concerns ``source``, else the source's defaults."""
    current = st.session_state.get(CHOICE)
    return current if current is not None and current.source == source.key else source.defaults


def use_choice(source: Source, choice: DataChoice) -> Dataset:
    """Make the Dataset for ``choice`` the session's data set (rebuilt only when the choice
    changed); raises DataError, and then the previous data set stays in use. A data set that
    is not the session's upload closes the upload: its tables are given back to the budget."""
    if st.session_state.get(CHOICE) != choice:
        dataset = Dataset.from_frame(
            source.frame,
            choice.target,
            task=None if choice.task == "auto" else choice.task,
            id_column=choice.id_column,
            exclude=choice.exclude,
            name=source.name,
            description=source.description,
        )
        if choice.source.startswith("upload:"):
            upload_budget().keep(None, dataset.frame)
        else:
            st.session_state.pop(UPLOAD, None)
        replace(DATASET, dataset)
        choose(choice)
    return st.session_state[DATASET]
