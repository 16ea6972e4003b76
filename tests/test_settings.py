"""The Train page's settings (:mod:`forestviz.settings`) take a base only from the family's own
bases (:attr:`forestviz.registry.Family.bases`): the default for a family that offers none (the
Enhanced RF grows its own forest), a model file or a command line naming another is refused;
`forestviz train --base` trains on the base asked for."""

import pytest

from forestviz.persistence.model_file import ModelFile
from forestviz.registry import FAMILIES
from forestviz.settings import DEFAULT_BASE, Settings, settings_problem
from tests.cli_tables import ID, TARGET
from tests.test_store_cli import here


@pytest.mark.parametrize("family", sorted(FAMILIES))
@pytest.mark.parametrize("base", ["random", "extra", "boosted", ""])
def test_a_base_is_one_the_family_offers(family, base):
    offered = FAMILIES[family].bases or {DEFAULT_BASE: ""}
    if base in offered:
        assert Settings(family=family, base=base).base == base
        return
    with pytest.raises(ValueError, match=r"^base must be one of ") as refused:
        Settings(family=family, base=base)
    assert str(refused.value) == f"base must be one of {sorted(offered)}, got {base!r}"


def test_the_enhanced_forest_offers_no_base_but_the_default():
    assert FAMILIES["erf"].bases is None
    assert settings_problem({**Settings().__dict__, "family": "erf", "base": "extra"}) == (
        "base must be one of ['random'], got 'extra'")


@pytest.mark.slow  # two small trainings through the command line
def test_the_command_line_trains_on_the_base_asked_for_and_refuses_another(table, tmp_path,
                                                                           capsys):
    out = tmp_path / "extra.skops"
    assert here(tmp_path / "var", "train", table, "--target", TARGET, "--id", ID, "--drop",
                "note", "--model", "abrf1", "--base", "extra", "--trees", "5",
                "--out", out) == 0
    assert ModelFile.read(out.read_bytes()).settings.base == "extra"
    capsys.readouterr()
    assert here(tmp_path / "var", "train", table, "--target", TARGET, "--id", ID, "--drop",
                "note", "--model", "erf", "--base", "extra", "--out", tmp_path / "erf.skops") == 2
    assert capsys.readouterr().err == (
        "forestviz: error: --base: base must be one of ['random'], got 'extra'.\n")
    assert not (tmp_path / "erf.skops").exists()
