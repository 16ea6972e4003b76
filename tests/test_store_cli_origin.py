"""`forestviz models publish` takes only what the app would publish: a model file this library
signed (as `forestviz train` and the app's "Save the model" write them); an unsigned file, one
signed by another key and one changed after signing are refused in one line before any
scoring, with exit code 2. An identical re-publication says which version it is, in one line.
On SQLite and PostgreSQL alike."""

import pytest

from forestviz import persistence
from forestviz.store.signing import WARNING, sign
from tests.cli_tables import ID, TARGET
from tests.store_databases import DATABASES, database_url
from tests.test_store_cli import Library, here


@pytest.fixture(scope="module", params=DATABASES)
def trained_file(request, table, tmp_path_factory) -> Library:
    """A model file `forestviz train` wrote for the library in the returned folder, on each
    database."""
    folder = tmp_path_factory.mktemp("origin")
    model = folder / "model.skops"
    assert here(folder / "var", "train", table, "--target", TARGET, "--id", ID, "--drop",
                "note", "--model", "rf", "--trees", "5", "--seed", "3",
                "--out", model) == 0
    return Library(folder / "var", model, database_url(request))


def publish(library: Library, model, table, *extra) -> int:
    return here(library.folder, "models", "publish", model, "--name", "Pima risk",
                "--training", table, "--intended-use", "Screening", *extra, url=library.url)


def test_forestviz_train_writes_files_this_library_signed(trained_file):
    assert trained_file.open().verify_file(trained_file.model.read_bytes()).status == "signed"


def test_unsigned_and_foreign_files_are_refused_in_one_line(trained_file, table, tmp_path,
                                                            capsys):
    data = trained_file.model.read_bytes()
    payload_only = persistence.dumps(persistence.loads(data))  # the same model, no signature
    foreign = sign(payload_only, b"another server's signing key, 32+ chars")
    changed = bytearray(data)
    changed[len(changed) // 3] ^= 0x01  # a bit flipped after signing
    for label, content, says in (("unsigned", payload_only, WARNING),
                                 ("foreign", foreign, "its signature does not match"),
                                 ("changed", bytes(changed), "its signature does not match")):
        path = tmp_path / f"{label}.skops"
        path.write_bytes(content)
        assert publish(trained_file, path, table) == 2, label
        err = capsys.readouterr().err
        assert err.count("\n") == 1, err
        assert "origin cannot be verified" in err and says in err, err
        assert "so it is not published" in err
    assert trained_file.open().versions(include_retired=True) == []


@pytest.mark.slow
def test_a_signed_file_publishes_once_and_again_says_where_it_is(trained_file, table, capsys):
    model = trained_file.model
    assert publish(trained_file, model, table, "--description", "Diabetes risk") == 0
    assert "Published Pima risk@1" in capsys.readouterr().out
    assert publish(trained_file, model, table, "--description", "Diabetes risk") == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "published already" in err and "'Pima risk@1'" in err
    assert [v.version for v in trained_file.open().versions()] == [1]
