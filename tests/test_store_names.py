"""Model names in one normal form (forestviz.names.normal_form, look_alike_key): invisible
characters and compatibility forms are one name with the plain one, a look-alike of a published
name is refused, a reference pasted with an invisible character or a full-width "@" finds its
model; lengths are refused before any work; an identical re-publication is said in one line
and makes no version."""

import time
import unicodedata

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from forestviz.names import clean, look_alike_key, normal_form
from forestviz.store import AlreadyPublished, StoreError, parse_ref
from tests.store_helpers import trained

LENGTH_HANG_GUARD = 0.5  # s: ten times the 50 ms a refusal of a long text may take (was 4-9 s)
# Each look-alike of "Pima risk" the probe published beside it, and what it is now.
INVISIBLE = {
    "zero-width space": "Pima\u200b risk",
    "word joiner": "Pima\u2060 risk",
    "byte order mark": "\ufeffPima risk",
    "soft hyphen": "Pi\u00adma risk",
    "tag characters": "Pima risk\U000e0070\U000e0069\U000e007f",
    "zero-width joiner": "Pi\u200dma risk",
    "variation selector": "Pima\ufe0f risk",
    "Hangul filler (NFKC makes another invisible one)": "Pima\u3164 risk",
}
LOOK_ALIKE = {
    "Cyrillic Er": "\u0420ima risk",
    "Cyrillic i": "Pima r\u0456sk",
    "Greek omicron and Latin l": "P\u0131ma risk",
    "r and n for m": "Pirna risk",
}


@pytest.mark.parametrize("name", INVISIBLE.values(), ids=INVISIBLE.keys())
def test_invisible_characters_are_not_part_of_a_name(name):
    assert normal_form(name) == "Pima risk"


@pytest.mark.parametrize("name", LOOK_ALIKE.values(), ids=LOOK_ALIKE.keys())
def test_look_alikes_share_the_skeleton_and_visible_differences_do_not(name):
    assert normal_form(name) != "Pima risk"
    assert look_alike_key(name) == look_alike_key("Pima risk")


@pytest.mark.parametrize("other", ["pima risk", "Pima risks", "Pima  risk 2", "Pima-risk"])
def test_names_that_read_differently_have_different_skeletons(other):
    assert look_alike_key(other) != look_alike_key("Pima risk") or normal_form(
        other) == "Pima risk"


def test_compatibility_forms_are_their_plain_letters():
    assert normal_form("House prices\uff205") == "House prices@5"  # full-width "@"
    assert normal_form("\uff30\uff49\uff4d\uff41 risk") == "Pima risk"  # full-width letters
    assert normal_form("\ufb01t") == "fit"  # the "fi" ligature


@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=40))
@example("\u3164x")
@example("e\u200b\u0301")
@example("a\u202e\u0301")
@example("0 0")
def test_the_normal_form_is_stable_visible_and_one_line(text):
    found = normal_form(text)
    assert normal_form(found) == found
    assert unicodedata.is_normalized("NFKC", found)
    assert found == clean(found)
    for char in found:
        assert unicodedata.category(char) not in ("Cf", "Cc", "Zl", "Zp"), repr(char)
        assert char.isspace() or normal_form(char) == char, repr(char)  # nothing invisible


def test_references_are_read_in_the_normal_form():
    # the app's message once said "House prices@\u20605": pasted, it names version 5
    assert parse_ref("House prices@\u20605") == ("House prices", 5)
    assert parse_ref("House prices\uff205") == ("House prices", 5)
    assert parse_ref("\u200bPima risk") == ("Pima risk", None)
    assert parse_ref("Pima risk@\uff15") == ("Pima risk", 5)  # a full-width digit
    with pytest.raises(StoreError, match="names no version"):
        parse_ref("Pima risk@\u00b2x")


@pytest.mark.slow
def test_a_look_alike_name_is_one_name_or_refused(bench, library):
    first = library.publish(bench, name="Pima risk", description="first", intended_use="Screening")
    for kind, name in INVISIBLE.items():  # the same name: a new version of it
        info = library.publish(bench, name=name, description=kind, intended_use="Screening")
        assert info.name == "Pima risk", kind
    assert {v.name for v in library.versions()} == {"Pima risk"}
    for name in LOOK_ALIKE.values():
        with pytest.raises(StoreError) as refused:
            library.publish(bench, name=name, description="another", intended_use="Screening")
        message = str(refused.value)
        assert "looks like the published model's name 'Pima risk'" in message
        assert "\n" not in message
    with pytest.raises(StoreError, match="cannot contain '@'"):
        library.publish(bench, name="Pima risk\uff20home", intended_use="Screening")
    assert library.show("Pima\u200b risk", 1) == first
    assert len(library.versions()) == 1 + len(INVISIBLE)


@pytest.mark.parametrize("field", ["name", "description", "intended_use"])
def test_a_long_text_is_refused_before_any_work(bench, library, field):
    texts = {"name": "Pima risk", "description": "", "intended_use": ""}
    texts[field] = "Pima risk " * 1_000_000  # 10 MB
    started = time.monotonic()
    with pytest.raises(StoreError) as refused:
        library.publish(bench, **texts)
    took = time.monotonic() - started
    assert "characters; this one has 10,000,000." in str(refused.value)
    assert took < LENGTH_HANG_GUARD, f"refusing 10 MB took {took:.2f} s"
    assert library.versions() == []


@pytest.mark.slow
def test_an_identical_re_publication_makes_no_version(bench, library):
    first = library.publish(bench, name="Pima risk", description="Diabetes risk",
                            intended_use="Screening")
    with pytest.raises(AlreadyPublished) as again:
        library.publish(bench, name="Pima\u200b risk", description="Diabetes risk ",
                        intended_use="Screening")
    assert again.value.info == first
    assert str(again.value) == ("This model is published already, with this description and "
                                "intended use, as 'Pima risk@1': no new version was made.")
    assert [v.version for v in library.versions()] == [1]
    # another description, or another model, is a new version
    second = library.publish(bench, name="Pima risk", description="Diabetes risk, 5 years",
                             intended_use="Screening")
    other = library.publish(trained(trees=11), name="Pima risk",
                            description="Diabetes risk, 5 years", intended_use="Screening")
    assert (second.version, other.version) == (2, 3)
    library.retire("Pima risk", 2)  # a retired version is no longer in use: publish brings it back
    assert library.publish(bench, name="Pima risk",
                           description="Diabetes risk, 5 years",
                           intended_use="Screening").version == 4
    events = library.audit.query(action="model_published")
    assert list(events["version"]) == [1, 2, 3, 4]
