"""The model card in the library (on SQLite and PostgreSQL: ``tests/store_databases.py``), on
the command line and in the record: it round-trips through the store with its digest, a blank
intended use is refused by the library and the command line in one line, other card choices
make a new version, ``forestviz models card`` writes the JSON whose SHA-256 is the card's, the
HTML with the publisher's words as text, and the PDF, and a record made with a published
model names its card's SHA-256."""

import hashlib
import io
import json

import pytest
from pypdf import PdfReader

from forestviz.card.card import build_card, canonical, digest, finished
from forestviz.cli.main import main
from forestviz.store import AlreadyPublished, StoreError
from forestviz.store.publishing import NO_USE
from tests.store_helpers import library_at

AGE = "Age (years)"


@pytest.mark.slow
def test_the_card_round_trips_through_the_store(bench, library, tmp_path, database):
    info = library.publish(bench, name="Pima risk", intended_use="Screening <b>clinic</b>",
                           out_of_scope="Children", subgroups=[AGE, "Pregnancies"])
    expected = finished(build_card(bench, intended_use="Screening <b>clinic</b>",
                                   out_of_scope="Children", subgroups=[AGE, "Pregnancies"]),
                        name="Pima risk", version=1, blob_sha256=info.blob_sha256)
    reread = library_at(tmp_path / "var", database).show("Pima risk", 1)  # a fresh engine
    assert reread.card == expected == info.card
    assert canonical(reread.card) == canonical(expected)  # numbers bit for bit
    assert reread.card_sha256 == info.card_sha256 == hashlib.sha256(
        canonical(expected)).hexdigest()
    assert [part["column"] for part in reread.card["subgroups"]] == [AGE, "Pregnancies"]
    assert reread.as_json()["card_sha256"] == digest(reread.card)


@pytest.mark.slow
@pytest.mark.parametrize("use", ["", "   ", "\n \t\n"])
def test_a_blank_intended_use_is_refused(bench, library, use):
    with pytest.raises(StoreError) as refused:
        library.publish(bench, name="Pima risk", intended_use=use)
    assert str(refused.value) == NO_USE and "\n" not in NO_USE
    assert library.versions() == []


def test_other_card_choices_make_a_new_version(bench, library):
    first = library.publish(bench, name="Pima risk", intended_use="Screening",
                            out_of_scope="Children")
    with pytest.raises(AlreadyPublished):
        library.publish(bench, name="Pima risk", intended_use="Screening",
                        out_of_scope="Children")
    second = library.publish(bench, name="Pima risk", intended_use="Screening",
                             out_of_scope="Children and pregnant women")
    third = library.publish(bench, name="Pima risk", intended_use="Screening",
                            out_of_scope="Children and pregnant women", subgroups=[AGE])
    assert (first.version, second.version, third.version) == (1, 2, 3)
    assert len({first.card_sha256, second.card_sha256, third.card_sha256}) == 3


def test_the_command_line_refuses_a_blank_intended_use_before_reading_anything(
        tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("FORESTVIZ_DATA_DIR", str(tmp_path / "var"))
    assert main(["--quiet", "models", "publish", str(tmp_path / "absent.skops"),
                 "--name", "Pima risk", "--intended-use", "  "]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and NO_USE in error


@pytest.mark.slow
def test_the_command_line_writes_the_card_and_the_record_names_it(bench, tmp_path,
                                                                   monkeypatch, capsys):
    folder = tmp_path / "var"
    monkeypatch.setenv("FORESTVIZ_DATA_DIR", str(folder))
    monkeypatch.delenv("FORESTVIZ_DATABASE_URL", raising=False)
    info = library_at(folder).publish(bench, name="Pima risk", intended_use="<i>Screening</i>",
                                      subgroups=[AGE])
    out = tmp_path / "out"
    out.mkdir()
    for kind in ("json", "html", "pdf"):
        assert main(["--quiet", "models", "card", "Pima risk@1",
                     "--out", str(out / f"card.{kind}")]) == 0
    data = (out / "card.json").read_bytes()
    assert hashlib.sha256(data).hexdigest() == info.card_sha256
    assert json.loads(data) == info.card
    page = (out / "card.html").read_text()
    assert "&lt;i&gt;Screening&lt;/i&gt;" in page and "<i>" not in page
    assert info.card_sha256 in page and "By Age (years)" in page and "<script" not in page
    pdf = PdfReader(io.BytesIO((out / "card.pdf").read_bytes()))
    assert "Model card: Pima risk@1" in pdf.pages[0].extract_text()
    assert main(["--quiet", "models", "card", "Pima risk@1", "--out", str(out / "c.txt")]) == 2
    assert "ending in .json, .html or .pdf" in capsys.readouterr().err
    row = str(bench.dataset.ids.iloc[int(bench.model.test_rows[0])])
    assert main(["--quiet", "report", "--model", "Pima risk@1", "--rows", row,
                 "--out", str(out / "reports")]) == 0
    (record,) = (out / "reports").glob("*.html")
    said = record.read_text()
    assert f"Pima risk@1, SHA-256 {info.card_sha256}" in said


def test_a_record_names_the_card_it_was_made_with(bench):
    e = bench.explain(int(bench.model.test_rows[0]))
    sha = "ab" * 32
    document = bench.report(e, published="Pima risk@2", card=sha)
    assert f"<th>Model card</th><td>Pima risk@2, SHA-256 {sha}</td>" in document
    assert "Model card" not in bench.report(e)  # a model not from the library: no card
