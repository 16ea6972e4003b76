"""What the audit trail records of one explanation (issue 38): which model answered, what it was
asked, what it answered and which warnings were shown, as the facts of a ``row_explained``,
``report_written`` or ``explanation_disputed`` event (:func:`forestviz.store.audit.facts`).

* **The model**: a published version's blob SHA-256 (``blob_sha256``, the digest its file in
  the library is checked against at every open); a model trained or loaded in the session,
  which has no blob, is named ``unpublished_sha256``: the content digest of its model file
  (:func:`forestviz.store.blobs.content_digest`, the same for every file of one model), made
  once per model and kept while the model is.
* **The input**: ``input``, the keyed digest of the row's values as explained (the data set's
  row, or the values typed, edited or uploaded: :meth:`forestviz.store.digests.Digests.values`),
  beside the row's ID (``row``) or the typed patient identifier (``patient``) when there is one.
* **The answer**: the predicted ``class`` with ``risk`` (the number the tiles show: the risk of
  ``risk_of``) and the ``calibrated`` risk, or the predicted ``value``; the ``interval`` shown
  (low, high) and, when a guessed value can change the answer, the range over the guesses
  (``guessed_range``).
* **The warnings shown**: ``imputed`` (how many missing values were guessed), ``guessed`` (how
  many of those can change the answer: the glance's alarms), ``unfamiliar`` (the row is unlike
  the training rows) and ``counterfactual`` (what would change the answer was shown).

Texts from the data (IDs, identifiers, class names) are cut to :data:`TEXT_CHARS`, so the facts
stay within the trail's :data:`~forestviz.store.audit.DETAIL_CHARS` whatever the file held.
"""

from __future__ import annotations

import threading
import weakref

from forestviz.names import elide
from forestviz.store import blobs

TEXT_CHARS = 40  # of a row's ID, a patient's identifier or a class name in an event

_MODEL_DIGESTS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()


def _text(value) -> str | None:
    return None if value is None else elide(str(value), TEXT_CHARS)


def unpublished_digest(bench) -> str:
    """The content digest of the model file of ``bench``'s current model (made once per
    model: saving a forest takes a second or two)."""
    bundle = bench.model
    with _LOCK:
        found = _MODEL_DIGESTS.get(bundle)
    if found is None:
        found = blobs.content_digest(bench.save())
        with _LOCK:
            _MODEL_DIGESTS[bundle] = found
    return found


def model_facts(bench, blob_sha256: str | None) -> dict:
    """The model's part: ``blob_sha256`` of a published version, else the session model's
    ``unpublished_sha256`` (:func:`unpublished_digest`)."""
    if blob_sha256 is not None:
        return {"blob_sha256": blob_sha256}
    return {"unpublished_sha256": unpublished_digest(bench)}


def answer_facts(e, g) -> dict:
    """What the explanation ``e`` answered, as its glance ``g`` shows it."""
    if e.task == "classification":
        shown = e.classes[-1] if e.classes.size == 2 else e.predicted_class
        found = {"class": _text(e.predicted_class), "risk": float(g.value),
                 "risk_of": _text(shown), "calibrated": None if e.calibrated_risk is None
                 else float(e.calibrated_risk)}
    else:
        found = {"value": float(g.value)}
    if e.interval is not None:
        found["interval"] = [float(v) for v in e.interval]
    if g.alarms:
        found["guessed_range"] = [float(min(c.low for c in g.alarms)),
                                  float(max(c.high for c in g.alarms))]
    return found


def warning_facts(g, *, counterfactual: bool = False) -> dict:
    """The warnings shown with the glance ``g`` (only those that were)."""
    return {"imputed": len(g.checks) or None, "guessed": len(g.alarms) or None,
            "unfamiliar": True if g.unfamiliar is not None else None,
            "counterfactual": True if counterfactual else None}


def explanation_facts(bench, e, g, *, digests, blob_sha256: str | None = None,
                      row=None, patient=None, counterfactual: bool = False) -> dict:
    """The facts of one explanation ``e`` of ``bench``'s current model shown as the glance
    ``g`` (module docstring): ``digests`` the trail's keyed digests
    (:class:`~forestviz.store.digests.Digests`), ``blob_sha256`` the published version's blob
    (None: a session's model), ``row`` the data set's row ID, ``patient`` a typed identifier,
    ``counterfactual`` whether what would change the answer was shown. Items that do not
    apply are None (:func:`~forestviz.store.audit.facts` leaves them out)."""
    values = {} if e.original_row is None else e.original_row.to_dict()
    return {**model_facts(bench, blob_sha256), "row": _text(row), "patient": _text(patient),
            "input": digests.values(values), **answer_facts(e, g),
            **warning_facts(g, counterfactual=counterfactual)}
