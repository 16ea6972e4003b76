"""The uploaded Pima table and a model the command line trained on it, shared by the command
line's tests (a plugin of ``tests/conftest.py``): the table has an ID column and a text column
the model must not use."""

import hashlib

import numpy as np
import pytest

from forestviz.cli.main import main
from forestviz.io.bundled import load_dataset
from forestviz.io.csv_input import load_csv
from forestviz.io.dataset import DataChoice, Dataset

TARGET, ID = "Diabetes", "Patient ID"


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    """The Pima table as an uploaded CSV, with a column the model must not use."""
    frame = load_dataset("pima_diabetes").frame.copy()
    frame["note"] = np.where(np.arange(len(frame)) % 2, "a", "b")
    path = tmp_path_factory.mktemp("data") / "pima upload.csv"
    frame.to_csv(path, index=False)
    return path


def app_choice(path, exclude=("note",)) -> tuple[Dataset, DataChoice]:
    """The data set and choice the Data page makes of the uploaded ``path``."""
    data = path.read_bytes()
    dataset = Dataset.from_frame(load_csv(data), TARGET, id_column=ID, exclude=exclude,
                                 name=path.name)
    return dataset, DataChoice(f"upload:{hashlib.sha256(data).hexdigest()}", TARGET, ID,
                               tuple(exclude), "auto")


@pytest.fixture(scope="module")
def cli_model(table, tmp_path_factory):
    out = tmp_path_factory.mktemp("model") / "model.skops"
    assert main(["--quiet", "train", str(table), "--target", TARGET, "--id", ID, "--drop",
                 "note", "--model", "abrf1", "--trees", "10", "--seed", "3",
                 "--out", str(out)]) == 0
    return out
