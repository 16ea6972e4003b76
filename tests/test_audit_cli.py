"""The command line's uses of a published model's patients in the audit trail (issue 36, item
4): `explain --model` records the rows it explained (their count and keyed digest) and the file
it wrote (its name and keyed digest), `report --model` each report file, and `audit export`
itself; every digest recomputed here with :mod:`hmac` under the key in the library's folder.
`audit export --out` writes like every other command (item 6): never through a planted link,
never blocked on a FIFO, replacing the link itself with --force."""

import hashlib
import hmac
import json
import os

import pandas as pd
import pytest

from forestviz.batch.model import read_model
from forestviz.store.digests import PREFIX, canonical
from tests import test_store_cli
from tests.cli_tables import ID
from tests.test_store_cli import forestviz, here

trained, published = test_store_cli.trained, test_store_cli.published  # the fixtures

pytestmark = pytest.mark.slow  # a model trained and published by the command line


def key_of(folder) -> bytes:
    return (folder / "audit.key").read_text().strip().encode("ascii")


def keyed(folder, data: bytes) -> str:
    return PREFIX + hmac.new(key_of(folder), data, hashlib.sha256).hexdigest()


def last_event(published, action: str) -> tuple[str, int, dict]:
    frame = published.open().audit.query(action=action)
    model, version, detail = frame[["model", "version", "detail"]].iloc[-1]
    return model, int(version), json.loads(detail)


def rows_digest(folder, frame: pd.DataFrame) -> str:
    lines = b"".join(canonical({k: None if pd.isna(v) else v for k, v in row.items()}) + b"\n"
                     for row in frame.to_dict("records"))
    return keyed(folder, lines)


def test_explain_with_a_published_model_records_its_rows_and_its_file(published, table,
                                                                       tmp_path):
    folder, model, url = published
    out = tmp_path / "explained.csv"
    assert here(folder, "explain", "--model", "Pima risk@2", table, "--out", out,
                "--chunk-rows", "100", url=url) == 0  # the digest is fed chunk by chunk
    name, version, facts = last_event(published, "rows_explained")
    read = pd.read_csv(table, dtype=str)  # CSV rows as the command reads them: text
    columns = [*read_model(model).used, ID]
    assert (name, version) == ("Pima risk", 2)
    flagged = int(pd.read_csv(out)["unfamiliar"].sum())  # rows unlike the training rows
    blob = published.open().show("Pima risk", 2).blob_sha256
    assert facts == {"blob_sha256": blob,
                     "rows": len(read), "rows_digest": rows_digest(folder, read[columns]),
                     "file": "explained.csv", "file_digest": keyed(folder, out.read_bytes()),
                     "unfamiliar": flagged}
    # one value changed: another digest of the rows; the bare SHA-256 is nowhere
    changed = tmp_path / "changed.csv"
    read.loc[3, columns[0]] = "77"
    read.to_csv(changed, index=False)
    assert here(folder, "explain", "--model", "Pima risk@2", changed, "--out", out,
                url=url) == 0
    other = last_event(published, "rows_explained")[2]
    assert other["rows_digest"] == rows_digest(folder, read[columns]) != facts["rows_digest"]
    trail = published.open().audit.export_csv().decode()
    assert hashlib.sha256(out.read_bytes()).hexdigest() not in trail


def test_report_with_a_published_model_records_each_file(published, table, tmp_path):
    folder, _, url = published
    frame = pd.read_csv(table)
    rows = [str(frame[ID].iloc[-1]), str(frame[ID].iloc[0])]
    assert here(folder, "report", "--model", "Pima risk@1", "--rows", *rows,
                "--out", tmp_path / "reports", url=url) == 0
    events = published.open().audit.query(action="report_written")
    written = [json.loads(detail) for detail in events["detail"].iloc[-2:]]
    assert [w["row"] for w in written] == rows
    for facts in written:
        path = tmp_path / "reports" / facts["file"]
        assert facts["file_digest"] == keyed(folder, path.read_bytes())
        assert facts["input"].startswith(PREFIX) and "risk" in facts
    assert set(events["model"].iloc[-2:]) == {"Pima risk"}


def test_audit_export_writes_like_every_other_command_and_is_recorded(published, tmp_path,
                                                                       capsys):
    folder, _, url = published
    kept = tmp_path / "kept.txt"
    kept.write_text("not the trail")
    link = tmp_path / "link.csv"
    link.symlink_to(kept)
    assert here(folder, "audit", "export", "--out", link, url=url) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "symbolic link" in error
    assert kept.read_text() == "not the trail" and link.is_symlink()

    fifo = tmp_path / "fifo.csv"
    os.mkfifo(fifo)
    done = forestviz(folder, "audit", "export", "--out", fifo, code=2, url=url)  # not opened
    assert "not a regular file" in done.stderr

    assert here(folder, "audit", "export", "--out", link, "--force", url=url) == 0
    assert not link.is_symlink() and kept.read_text() == "not the trail"
    written = link.read_bytes()
    stored = published.open().audit
    before = stored.query()
    assert before["action"].iloc[-1] == "audit_exported"
    assert len(pd.read_csv(link)) == len(before) - 1  # all but its own record
    facts = json.loads(before["detail"].iloc[-1])
    assert facts["file"] == "link.csv" and facts["file_digest"] == keyed(folder, written)
