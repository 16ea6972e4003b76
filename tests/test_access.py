"""ui/access.py: roles from the configured ID-token claim and the pages each role may use."""

import pytest

from ui.access import ROLES, allowed_pages, may_use, role_from_claims


@pytest.mark.parametrize("claims, role", [
    ({"roles": "viewer"}, "viewer"),
    ({"roles": ["viewer", "admin"]}, "admin"),
    ({"roles": ["analyst", "unknown"]}, "analyst"),
    ({"roles": ["unknown"]}, None),
    ({"roles": None}, None),
    ({}, None),
    ({"roles": [3, "<b>admin</b>"]}, None),
])
def test_role_from_claims(claims, role):
    assert role_from_claims(claims) == role


def test_role_from_a_configured_claim():
    claims = {"roles": "viewer", "groups": ["analyst"]}
    assert role_from_claims(claims, "groups") == "analyst"


def test_each_role_has_the_previous_roles_pages():
    pages = [set(allowed_pages(role)) for role in ROLES]
    assert pages[0] < pages[1] < pages[2]
    assert {"data", "train"} & pages[0] == set()
    assert {"data", "train"} <= pages[1] and "audit" not in pages[1]
    assert "audit" in pages[2]


def test_no_role_no_page():
    assert allowed_pages(None) == []
    assert not may_use("admin", "no such page")
