"""Report file names (forestviz.explain.report.names): row ID, model and date, an edited report
named as such, nothing from a file able to name a folder."""

import datetime

import pytest

from forestviz.explain.report.names import NEW_PATIENT, report_file_name, safe_part

DAY = datetime.date(2026, 11, 27)


def test_the_name_says_row_model_and_date():
    assert (report_file_name("P0543", "Enhanced RF (ERF)", "pdf", date=DAY)
            == "forestviz-P0543-Enhanced_RF_ERF-2026-11-27.pdf")
    assert (report_file_name("P0543 (edited)", "Enhanced RF (ERF)", "html", edited=True,
                             date=DAY)
            == "forestviz-P0543-edited-Enhanced_RF_ERF-2026-11-27.html")
    assert report_file_name(None, "ABRF", "pdf", date=DAY) == (
        "forestviz-new-patient-ABRF-2026-11-27.pdf")
    assert report_file_name(NEW_PATIENT, "ABRF", "pdf", date=DAY) == (  # the page's new patient
        "forestviz-new-patient-ABRF-2026-11-27.pdf")


@pytest.mark.parametrize("hostile", ["../../etc/passwd", "/root/.ssh", "a\\b\\..\\c", "..",
                                     "\x00\n", "<script>", "x" * 500, "é名"])
def test_no_part_from_a_file_names_a_folder(hostile):
    name = report_file_name(hostile, hostile, "pdf", date=DAY)
    assert "/" not in name and "\\" not in name and ".." not in name
    assert name.startswith("forestviz-") and name.endswith("-2026-11-27.pdf")
    assert len(name) <= len("forestviz---2026-11-27.pdf") + 2 * 40
    assert safe_part(hostile, "row")  # never empty
