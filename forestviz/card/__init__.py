"""The model card a published model carries (:mod:`.card`): its intended and out-of-scope use,
its data, its held-out metrics with bootstrap intervals (:mod:`.measures`), its calibration
(:mod:`.calibration`) and its performance by the subgroups its publisher named
(:mod:`.subgroups`); :mod:`.views` lays it out once for the Models page, the HTML and PDF file
and the command line. No Streamlit here; the library (:mod:`forestviz.store`) builds and keeps
it at publish."""

from forestviz._lazy import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    "build_card": "forestviz.card.card",
    "digest": "forestviz.card.card",
    "finished": "forestviz.card.card",
})
