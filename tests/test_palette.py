"""The figures' colours told apart by people with a colour-vision deficiency (issue 39, item 1):
each palette simulated for protanopia, deuteranopia and tritanopia (Machado, Oliveira &
Fernandes, "A physiologically-based model for simulation of color vision deficiency", IEEE
TVCG 2009, at full severity, through colorspacious) and its colours compared by their distance
in CAM02-UCS (ΔE′; about 1 is a just-noticeable difference)."""

import itertools

import numpy as np
import pytest
from colorspacious import cspace_convert, deltaE

from forestviz.explain.plots.conventions import PALE, STRONG, TOTAL

VISION = (None, "protanomaly", "deuteranomaly", "tritanomaly")


def rgb(colour: str) -> np.ndarray:
    return np.array([int(colour[i:i + 2], 16) for i in (1, 3, 5)]) / 255


def seen(colour: str, deficiency: str | None) -> np.ndarray:
    if deficiency is None:
        return rgb(colour)
    space = {"name": "sRGB1+CVD", "cvd_type": deficiency, "severity": 100}
    return np.clip(cspace_convert(rgb(colour), space, "sRGB1"), 0, 1)


def closest(colours, deficiency) -> float:
    return min(deltaE(seen(a, deficiency), seen(b, deficiency), input_space="sRGB1")
               for a, b in itertools.combinations(colours, 2))


@pytest.mark.parametrize("deficiency", VISION)
def test_the_strong_colours_and_the_totals_grey_stay_apart(deficiency):
    # the two sides of an argument, the third part and a waterfall's ends
    assert closest([*STRONG, TOTAL], deficiency) >= 20


@pytest.mark.parametrize("deficiency", VISION)
def test_each_strong_colour_stays_apart_from_its_pale_one_and_the_pale_ones_apart(deficiency):
    assert min(closest(pair, deficiency) for pair in zip(STRONG, PALE, strict=True)) >= 20
    assert closest(PALE, deficiency) >= 10


def test_a_colour_close_to_another_for_a_protanope_is_caught():
    # the green the third part had until issue 39, beside the orange
    assert closest(["#d9650b", "#2b8a3e"], "protanomaly") < 10
