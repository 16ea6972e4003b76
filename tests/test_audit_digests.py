"""Keyed digests of patients' values (issue 36, item 4): a typed or uploaded patient is named
in the audit trail by HMAC-SHA256 under the server's audit key, computed here independently
with :mod:`hmac`; another key gives another digest and the bare SHA-256 of the same values
(what the trail recorded before) matches nothing. The key is created owner-only on first use,
beside the signing key, and never shown."""

import hashlib
import hmac
import json
import os
import stat

import numpy as np
import pandas as pd
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from forestviz.store import StoreConfig, StoreError
from forestviz.store.digests import PREFIX, Digests, audit_key, canonical

VALUES = {"Age (years)": 37, "Glucose (mg/dL)": 120.0, "Pregnancies": 8, "Clinic": "east",
          "BMI": None}
# the canonical bytes, written out by hand: keys sorted, numbers as floats, missing as null
CANONICAL = (b'{"Age (years)": 37.0, "BMI": null, "Clinic": "east", "Glucose (mg/dL)": 120.0, '
             b'"Pregnancies": 8.0}')


def keyed(key: bytes, data: bytes) -> str:
    return PREFIX + hmac.new(key, data, hashlib.sha256).hexdigest()


def test_a_typed_patient_is_named_by_hmac_under_the_servers_key(tmp_path):
    config = StoreConfig(tmp_path / "var")
    digest = Digests(config).values(VALUES)
    key_path = tmp_path / "var" / "audit.key"
    assert stat.S_IMODE(key_path.stat().st_mode) == 0o600  # created owner-only on first use
    key = key_path.read_text().strip().encode("ascii")
    assert canonical(VALUES) == CANONICAL
    assert digest == keyed(key, CANONICAL)
    # the bare SHA-256 of the same values (the old record) is not what the trail holds
    assert digest.removeprefix(PREFIX) != hashlib.sha256(CANONICAL).hexdigest()
    other = Digests(StoreConfig(tmp_path / "other")).values(VALUES)  # another server's key
    assert other != digest and other == keyed(
        (tmp_path / "other" / "audit.key").read_text().strip().encode(), CANONICAL)
    assert Digests(config).values(VALUES) == digest  # the same key again: the same digest
    assert audit_key(config) == key and len(key) == 64


def test_the_key_may_be_a_secret_of_every_replica_and_is_never_shown(tmp_path):
    secret = "s" * 40
    config = StoreConfig(tmp_path / "var", audit_key=secret)
    assert Digests(config).values(VALUES) == keyed(secret.encode(), CANONICAL)
    assert not (tmp_path / "var" / "audit.key").exists()
    assert secret not in repr(config) and secret not in str(config)
    assert StoreConfig.from_env({"FORESTVIZ_AUDIT_KEY": secret}).audit_key == secret
    with pytest.raises(StoreError, match="FORESTVIZ_AUDIT_KEY must have at least 32"):
        Digests(StoreConfig(tmp_path / "var", audit_key="short")).values(VALUES)


def test_a_key_file_planted_empty_is_refused(tmp_path):
    folder = tmp_path / "var"
    folder.mkdir(mode=0o700)
    (folder / "audit.key").write_text("")
    with pytest.raises(StoreError, match="empty or too short"):
        Digests(StoreConfig(folder)).values(VALUES)


cells = st.one_of(st.none(), st.integers(-10**6, 10**6),
                  st.floats(allow_nan=True, allow_infinity=False), st.text(max_size=8))


@given(st.dictionaries(st.text(min_size=1, max_size=6), cells, min_size=1, max_size=6),
       st.randoms(use_true_random=False))
@example({"x": 1, "y": float("nan"), "z": "a"}, None)
@settings(max_examples=60, deadline=None)
def test_the_same_values_give_the_same_digest_in_any_order(values, random):
    digests = Digests(StoreConfig("unused", audit_key="k" * 32))
    items = list(values.items())
    if random is not None:
        random.shuffle(items)
    assert digests.values(dict(items)) == digests.values(values)
    plain = {k: None if v is None or (isinstance(v, float) and np.isnan(v))
             else float(v) if isinstance(v, int | float) else v for k, v in values.items()}
    assert digests.values(values) == keyed(b"k" * 32, json.dumps(
        plain, sort_keys=True, ensure_ascii=False).encode())


@given(st.lists(st.tuples(st.integers(0, 200), st.one_of(st.none(), st.floats(0, 60)),
                          st.sampled_from(["a", "b", "=x"])), min_size=0, max_size=30),
       st.integers(1, 7))
@example([(37, 120.0, "a"), (8, None, "b")], 1)
@settings(max_examples=40, deadline=None)
def test_a_batch_digest_is_the_hmac_of_its_rows_lines_however_it_is_fed(rows, step):
    frame = pd.DataFrame(rows, columns=["Age", "BMI", "Clinic"])
    key = b"q" * 32
    digests = Digests(StoreConfig("unused", audit_key=key.decode()))
    lines = b"".join(canonical(dict(zip(frame.columns, r, strict=True))) + b"\n"
                     for r in frame.itertuples(index=False))
    whole = digests.rows(frame)
    assert (whole.rows, whole.hexdigest()) == (len(frame), keyed(key, lines))
    fed = digests.rows()
    for start in range(0, len(frame), step):
        fed.update(frame.iloc[start:start + step])
    assert (fed.rows, fed.hexdigest()) == (whole.rows, whole.hexdigest())


def test_a_files_digest_is_the_hmac_of_its_bytes(tmp_path):
    data = os.urandom(3 * 2**20 + 5)  # more than one piece read
    (tmp_path / "out.csv").write_bytes(data)
    digests = Digests(StoreConfig("unused", audit_key="f" * 32))
    assert digests.file(tmp_path / "out.csv") == digests.data(data) == keyed(b"f" * 32, data)
