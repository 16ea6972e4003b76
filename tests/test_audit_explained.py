"""What an explanation event holds (issue 38, item 3): the blob that answered (its SHA-256
recomputed here from the file on disk) or a session model's content digest, the keyed digest of
the row's values (HMAC recomputed here under the key in the library's folder), the answer (the
model's own ``predict_proba`` on the encoded row), the interval and the warnings shown; and the
facts stay parseable JSON within the trail's limit whatever a file's IDs hold."""

import hashlib
import hmac
import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from forestviz.store import StoreConfig, blobs
from forestviz.store.audit import DETAIL_CHARS, facts
from forestviz.store.digests import PREFIX, Digests, canonical
from forestviz.store.explained import TEXT_CHARS, explanation_facts, unpublished_digest
from tests.store_helpers import library_at

pytestmark = pytest.mark.slow  # a model trained, published and opened


def keyed(folder, values: dict) -> str:
    key = (folder / "audit.key").read_text().strip().encode("ascii")
    return PREFIX + hmac.new(key, canonical(values), hashlib.sha256).hexdigest()


def test_a_published_rows_facts_are_the_blob_the_values_and_the_models_answer(bench,
                                                                               tmp_path):
    library = library_at(tmp_path)
    info = library.publish(bench, name="Pima risk", intended_use="Screening")
    opened = library.open_model("Pima risk").workbench
    model = opened.model
    position = int(model.test_rows[3])
    e = opened.explain(position)
    g = opened.glance(e)
    found = explanation_facts(opened, e, g, digests=library.audit.digests,
                              blob_sha256=info.blob_sha256, row=e.row_id)
    row = opened.dataset.X.iloc[[position]]
    risk = model.estimator.predict_proba(model.preprocessor.transform(row))[0, 1]
    on_disk = (tmp_path / "blobs" / info.blob_sha256).read_bytes()
    assert found["blob_sha256"] == hashlib.sha256(on_disk).hexdigest()
    assert found["input"] == keyed(tmp_path, row.iloc[0].to_dict())
    assert found["input"] == Digests(library.config).values(row.iloc[0].to_dict())
    assert found["risk"] == risk and found["risk_of"] == str(model.class_names[-1])
    assert found["class"] == str(model.class_names[int(risk >= e.threshold)])
    assert found["interval"] == list(e.interval) and found["row"] == e.row_id
    encoded = model.preprocessor.transform(row)[0]
    assert (found["unfamiliar"] or False) is model.familiar.assess(encoded).flagged
    assert found["imputed"] is None is found["guessed"]  # no value was missing
    detail = facts(**found)
    assert json.loads(detail) == {k: v for k, v in found.items() if v is not None}


def test_missing_values_are_counted_and_a_guess_that_changes_the_answer_named(bench,
                                                                              tmp_path):
    library = library_at(tmp_path)
    values = bench.dataset.X.iloc[int(bench.model.test_rows[0])].copy()
    values[["Glucose (mg/dL)", "BMI (kg/m2)"]] = np.nan
    e = bench.explain(values=values)
    g = bench.glance(e)
    found = explanation_facts(bench, e, g, digests=library.audit.digests)
    assert found["imputed"] == 2 == len(e.missing)
    assert found["guessed"] == (len(g.alarms) or None)
    if g.alarms:
        assert found["guessed_range"] == [min(c.low for c in g.alarms),
                                          max(c.high for c in g.alarms)]
    assert found["input"] == keyed(tmp_path, values.to_dict())  # NaN as null
    assert found["row"] is None and found["counterfactual"] is None


def test_a_session_model_is_named_by_its_content_digest_made_once(bench, tmp_path):
    library = library_at(tmp_path)
    e = bench.explain(int(bench.model.test_rows[0]))
    found = explanation_facts(bench, e, bench.glance(e), digests=library.audit.digests,
                              counterfactual=True)
    assert "blob_sha256" not in found and found["counterfactual"] is True
    assert found["unpublished_sha256"] == blobs.content_digest(bench.save())
    assert unpublished_digest(bench) is found["unpublished_sha256"]  # kept, not made anew


@settings(max_examples=25, deadline=None)
@given(row=st.text(max_size=300), patient=st.text(max_size=300))
@example(row='"' * 300, patient="\\" * 300)
@example(row="\u202e" * 300, patient="<b>x</b>" * 30)
def test_the_facts_stay_json_within_the_trails_limit(bench, row, patient):
    digests = Digests(StoreConfig(Path("unused"), audit_key="k" * 32))
    e = bench.explain(int(bench.model.test_rows[0]))
    found = explanation_facts(bench, e, bench.glance(e), digests=digests,
                              blob_sha256="0" * 64, row=row, patient=patient)
    detail = facts(**found)
    assert len(detail) <= DETAIL_CHARS
    said = json.loads(detail)
    for key in ("row", "patient"):
        assert key not in said or len(said[key]) <= TEXT_CHARS
