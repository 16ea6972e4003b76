"""`forestviz models publish` takes only what the app would publish: a model file this library
signed (as `forestviz train` and the app's "Save the model" write them); an unsigned file, one
signed by another key and one changed after signing are refused in one line before any
scoring, with exit code 2. An identical re-publication says which version it is, in one line."""

import pytest

from forestviz import persistence
from forestviz.store import StoreConfig, open_library
from forestviz.store.signing import WARNING, sign
from tests.cli_tables import ID, TARGET
from tests.test_store_cli import here


@pytest.fixture(scope="module")
def trained_file(table, tmp_path_factory):
    """A model file `forestviz train` wrote for the library in the returned folder."""
    folder = tmp_path_factory.mktemp("origin")
    model = folder / "model.skops"
    assert here(folder / "var", "train", table, "--target", TARGET, "--id", ID, "--drop",
                "note", "--model", "rf", "--trees", "5", "--seed", "3",
                "--out", model) == 0
    return folder / "var", model


def publish(folder, model, table, *extra) -> int:
    return here(folder, "models", "publish", model, "--name", "Pima risk", "--training",
                table, "--intended-use", "Screening", *extra)


def test_forestviz_train_writes_files_this_library_signed(trained_file):
    folder, model = trained_file
    library = open_library(StoreConfig(folder))
    assert library.verify_file(model.read_bytes()).status == "signed"


def test_unsigned_and_foreign_files_are_refused_in_one_line(trained_file, table, tmp_path,
                                                            capsys):
    folder, model = trained_file
    data = model.read_bytes()
    payload_only = persistence.dumps(persistence.loads(data))  # the same model, no signature
    foreign = sign(payload_only, b"another server's signing key, 32+ chars")
    changed = bytearray(data)
    changed[len(changed) // 3] ^= 0x01  # a bit flipped after signing
    for label, content, says in (("unsigned", payload_only, WARNING),
                                 ("foreign", foreign, "its signature does not match"),
                                 ("changed", bytes(changed), "its signature does not match")):
        path = tmp_path / f"{label}.skops"
        path.write_bytes(content)
        assert publish(folder, path, table) == 2, label
        err = capsys.readouterr().err
        assert err.count("\n") == 1, err
        assert "origin cannot be verified" in err and says in err, err
        assert "so it is not published" in err
    assert open_library(StoreConfig(folder)).versions(include_retired=True) == []


def test_a_signed_file_publishes_once_and_again_says_where_it_is(trained_file, table, capsys):
    folder, model = trained_file
    assert publish(folder, model, table, "--description", "Diabetes risk") == 0
    assert "Published Pima risk@1" in capsys.readouterr().out
    assert publish(folder, model, table, "--description", "Diabetes risk") == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "published already" in err and "'Pima risk@1'" in err
    assert [v.version for v in open_library(StoreConfig(folder)).versions()] == [1]
