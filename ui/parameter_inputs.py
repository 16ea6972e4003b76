"""The Train page's input of a training number, as its registry entry describes it
(:mod:`forestviz.parameters`: label, range or the server's cap, step, format and help)."""

from __future__ import annotations

from forestviz.app.limits import Limits
from forestviz.parameters import Parameter


def parameter_input(container, parameter: Parameter, value, caps: Limits):
    """A slider or number input of ``parameter`` in ``container`` (a column or the page),
    starting at ``value`` and kept for the session; returns its value in the parameter's own
    units (the held-out share as a fraction, None for a depth of 0)."""
    widget = parameter.widget
    high = widget.high if widget.cap is None else getattr(caps, widget.cap)
    make = container.slider if widget.kind == "slider" else container.number_input
    shown = make(widget.label, widget.low, high, widget.shown(value), step=widget.step,
                 format=widget.format, help=widget.help, key=widget.key,
                 persist_state="session")
    return parameter.read(shown)
