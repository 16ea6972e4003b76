"""load_csv's limits on one value (cell) and one row, checked before parsing, and its lean
parser: pyarrow reads what pandas' C reader would, within 4 times the file size at its peak."""

import json
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_data_loader import CORPUS

import forestviz.io.csv_input as csv_input
from forestviz.io.csv_input import MAX_CELL_CHARS, MAX_LINE_CHARS, DataError, load_csv

REPO = Path(__file__).resolve().parents[1]
CELL, LINE = 50, 200  # small limits keep the files small; the defaults are tested on their own


def refusal(content: bytes, **limits) -> str:
    with pytest.raises(DataError) as error:
        load_csv(content, **{"max_cell_chars": CELL, "max_line_chars": LINE, **limits})
    message = str(error.value)
    assert "\n" not in message  # one line
    return message


def accepted(content: bytes, **limits) -> pd.DataFrame:
    return load_csv(content, **{"max_cell_chars": CELL, "max_line_chars": LINE, **limits})


# --------------------------------------------------------------------------- value and row limits


def test_the_limits_are_stated():
    assert MAX_CELL_CHARS == 100_000
    assert MAX_CELL_CHARS < MAX_LINE_CHARS == 1_000_000


def test_the_issue_file_is_refused_naming_row_and_column():
    message = refusal(b"a,b\n1,2\n3," + b"7" * 1000 + b"\n")
    assert message == (
        "Row 3 of the file (its first line is row 1), column 'b', holds a value of 1,000 "
        "characters; forestviz accepts at most 50 characters per cell. Shorten or remove that "
        "value, and upload again."
    )


@pytest.mark.parametrize(
    ("content", "row", "column"),
    [
        (b"a,b,c\n1,2,3\n" + b"x" * 51 + b",5,6\n", 3, "'a'"),  # first column
        (b"a,b,c\n1,2,3\n4,5," + b"x" * 51 + b"\n", 3, "'c'"),  # last column, then a line break
        (b"a,b,c\n1,2,3\n4,5," + b"x" * 51, 3, "'c'"),  # last value of the file
        (b"a;b\n1;2\n\n3;" + b"x" * 51 + b"\n", 4, "'b'"),  # a blank line is a row too
        (b"a,b\r\n1,2\r\n3," + b"x" * 51 + b"\r\n", 3, "'b'"),  # Windows line breaks
        (b"a,b\r1,2\r3," + b"x" * 51 + b"\r", 3, "'b'"),  # old Mac line breaks
        (b"\xef\xbb\xbfa,b\n1,2\n3," + b"x" * 51 + b"\n", 3, "'b'"),  # UTF-8 BOM
        (b"sep=;\na;b\n1;2\n3;" + b"x" * 51 + b"\n", 4, "'b'"),  # Excel's sep= line is row 1
        (b"a\tb\tc\n1\t\t" + b"x" * 51 + b"\n", 2, "'c'"),  # an empty value before it
        (b"a,a,b\n1,2,3\n4," + b"x" * 51 + b",6\n", 3, "'a (2)'"),  # the name as shown
    ],
)
def test_an_over_long_unquoted_value_is_refused_with_its_row_and_column(content, row, column):
    message = refusal(content)
    assert message.startswith(f"Row {row} of the file (its first line is row 1), column {column},")
    assert "holds a value of 51 characters" in message


def test_an_over_long_quoted_value_with_separators_and_line_breaks_is_one_value():
    value = '"' + "ab,\ncd\r\n" * 6 + 'x""y"'  # 52 characters between the quotes, 51 once read
    content = f'a,b,c\n1,"x\ny",3\n"q",{value},z\n'.encode()
    message = refusal(content)
    # the quoted line break of row 2 does not start a row; the commas inside stay in the value
    assert message.startswith("Row 3 of the file (its first line is row 1), column 'b',")
    assert "holds a value of 51 characters" in message


@pytest.mark.parametrize(("row", "column"), [('"{}",2,3', "'a'"), ('1,2,"{}"', "'c'")])
def test_an_over_long_quoted_value_is_refused_in_any_column(row, column):
    value = "line,\n" * 9  # 54 characters
    message = refusal(f'a,b,c\n1,"2\n2",3\n{row.format(value)}\n'.encode())
    assert message.startswith(f"Row 3 of the file (its first line is row 1), column {column},")
    assert "holds a value of 54 characters" in message


def test_a_quoted_value_after_a_space_is_refused_after_parsing():
    # pandas skips the space and reads the quotes; the scan counts them as text, so the parsed
    # table is checked and its data rows are numbered
    message = refusal(b'a,b,c\n1,2,3\n"x,y", "' + b"line,\n" * 9 + b'",3\n')
    assert message.startswith("Data row 2 (the first row below the column names is 1), column 'b'")


def test_a_quoted_value_just_under_the_limit_is_accepted():
    value = "ab,\ncd" * 8 + "x" * 2  # 50 characters
    frame = accepted(f'a,b\n1,"{value}"\n'.encode())
    assert frame["b"].tolist() == [value]
    assert "51 characters" in refusal(f'a,b\n1,"{value}x"\n'.encode())


def test_characters_are_counted_not_bytes():
    frame = accepted(("a,b\n1," + "é" * 50 + "\n").encode())  # 100 bytes, 50 characters
    assert frame["b"].str.len().tolist() == [50]
    assert "51 characters" in refusal(("a,b\n1," + "€" * 51 + "\n").encode("cp1252"))


def test_long_column_names_are_shortened_and_kept_plain():
    name = "<b>Glucose</b>\nafter fasting, in mg/dL at the clinic"  # data: shown as written
    content = f'"{name}",b\n' + "x" * 61 + ",2\n"
    message = refusal(content.encode(), max_cell_chars=60)
    assert "column '<b>Glucose</b> after fasting, in mg/dL …'," in message  # 40 characters


def test_an_over_long_column_name_is_refused_in_row_1():
    message = refusal(b"a," + b"n" * 60 + b"\n1,2\n")
    assert message.startswith("Row 1 of the file (its first line is row 1), column ")
    assert "holds a value of 60 characters" in message


def test_a_value_beyond_the_named_columns_is_numbered():
    message = refusal(b"a,b\n1,2\n4,5\n" + b"6,7," + b"x" * 51 + b"\n")
    assert "Row 4 of the file (its first line is row 1), column 3," in message


def test_an_over_long_row_is_refused_with_its_row():
    row = ",".join(["x" * 40] * 5)  # 204 characters, each value within the cell limit
    message = refusal(f"a,b,c,d,e\n1,2,3,4,5\n{row}\n".encode())
    assert message == (
        "Row 3 of the file (its first line is row 1) is 204 characters long; forestviz accepts "
        "at most 200 characters per row. Shorten its long values or remove columns, and upload "
        "again."
    )


def test_a_row_with_quoted_line_breaks_is_measured_whole():
    row = ",".join(['"' + "x\n" * 15 + '"'] * 7)  # short lines; one row of 7 x 32 + 6 characters
    assert "Row 2 of the file (its first line is row 1) is 230 characters" in refusal(
        f"a,b,c,d,e,f,g\n{row}\n".encode()
    )


def test_values_and_rows_just_within_the_limits_are_accepted():
    row = ",".join(["x" * 50] * 3) + "," + "y" * 47  # 200 characters in values of 50
    for end in ("\n", "\r\n", ""):
        frame = accepted(f"a,b,c,d\n1,2,3,4\n{row}{end}".encode())
        assert frame.shape == (2, 4) and frame.iloc[1, 0] == "x" * 50
    assert "201 characters long" in refusal(f"a,b,c,d\n1,2,3,4\n{row}y\n".encode())


def test_the_default_limits_apply():
    frame = load_csv(b"a,b\n1," + b"x" * MAX_CELL_CHARS + b"\n")
    assert frame["b"].str.len().tolist() == [MAX_CELL_CHARS]
    with pytest.raises(DataError, match="at most 100,000 characters per cell"):
        load_csv(b"a,b\n1," + b"x" * (MAX_CELL_CHARS + 1) + b"\n")
    row = ",".join(["x" * 90_000] * 12).encode()  # 1,080,011 characters in a row
    with pytest.raises(DataError, match="at most 1,000,000 characters per row"):
        load_csv(b"c1,c2,c3,c4,c5,c6,c7,c8,c9,c10,c11,c12\n" + row + b"\n")


def test_a_value_behind_a_stray_quote_is_still_refused():
    # 5'11" makes the quotes unreliable for the scan; the parsed table is checked instead
    content = b'height,note\n6,ok\n5\'11",ok\n6,"' + b"w," * 30 + b'"\n'
    message = refusal(content)
    assert message.startswith("Data row 3 (the first row below the column names is 1), column ")
    assert "column 'note', holds a value of 60 characters" in message


def test_a_100_mb_value_is_refused_without_parsing_it():
    content = b"a,b\n1,2\n3," + b"7" * (100 * 2**20) + b"\n"
    start = time.perf_counter()
    with pytest.raises(DataError, match=r"Row 3 .* column 'b', holds a value of 104,857,600 "):
        load_csv(content)
    seconds = time.perf_counter() - start
    assert seconds < 60, f"refused in {seconds:.1f} s"  # a hang detector: 0.1 s quiet, 6 s loaded


# --------------------------------------------------------------------------- the lean parser


def c_reader_only(monkeypatch):
    monkeypatch.setattr(csv_input, "_parse_arrow", lambda *_: None)


@pytest.mark.parametrize("name", list(CORPUS))
def test_pyarrow_and_the_c_reader_agree_on_the_corpus(name, monkeypatch):
    content = CORPUS[name][0]
    outcomes = []
    for switch in (lambda: None, lambda: c_reader_only(monkeypatch)):
        switch()
        try:
            outcomes.append(load_csv(content))
        except DataError as error:
            outcomes.append(str(error))
    if isinstance(outcomes[0], str) or isinstance(outcomes[1], str):
        assert outcomes[0] == outcomes[1]
    else:
        pd.testing.assert_frame_equal(outcomes[0], outcomes[1])  # dtypes included


VALUES = st.sampled_from(
    ["1", "-3", "+3", "4.5", "1e3", "x", "y z", "", "NA", "nan", "None", "True", "false",
     "0x1F", " 7", "  ", '"q,r"', '"a""b"', '" s"', '"x"y', "2024-01-05", "12:30",
     "2024-01-05 10:00", "5'11\"", "1,5", "é", "\t8", "nan ", "\tnan", '"nan "', "x ",
     "2024-01-05 ", '" 2024-01-05"', '"12:30 "', "1 "]
)


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(
    delimiter=st.sampled_from([",", ";", "\t", "|"]),
    rows=st.integers(2, 4).flatmap(lambda k: st.lists(st.lists(VALUES, min_size=k, max_size=k),
                                                       min_size=1, max_size=6)),
)
def test_pyarrow_and_the_c_reader_agree_on_generated_tables(delimiter, rows, monkeypatch):
    header = delimiter.join(f"c{j}" for j in range(len(rows[0])))
    content = "\n".join([header, *(delimiter.join(row) for row in rows), ""]).encode()
    outcomes = []
    with monkeypatch.context() as patch:
        for c_only in (False, True):
            if c_only:
                c_reader_only(patch)
            try:
                outcomes.append(load_csv(content))
            except DataError as error:
                outcomes.append(str(error))
    if isinstance(outcomes[0], str) or isinstance(outcomes[1], str):
        assert outcomes[0] == outcomes[1]
    else:
        pd.testing.assert_frame_equal(outcomes[0], outcomes[1])


def test_hexadecimal_and_signed_numbers_read_as_pandas_reads_them():
    frame = load_csv(b"id,delta,when\n0x1F,+3,2024-01-05\n0x2A,-2,2024-02-29\n")
    assert frame["id"].tolist() == ["0x1F", "0x2A"]  # text, as pandas keeps it
    assert frame["delta"].dtype == np.int64
    assert frame["when"].tolist() == ["2024-01-05", "2024-02-29"]  # dates stay as written


MEMORY_CHILD = textwrap.dedent(
    """
    import json, re, sys, time
    from pathlib import Path
    from forestviz.io.csv_input import load_csv

    def status(key):
        text = Path("/proc/self/status").read_text()
        return int(re.search(key + r":\\s+(\\d+) kB", text).group(1)) * 1024

    load_csv(b"a,b,c\\n1,2.5,x\\n3,4.5,y\\n")  # warm up: pyarrow's pools and threads
    data = Path(sys.argv[1]).read_bytes()
    baseline = status("VmRSS")
    try:
        Path("/proc/self/clear_refs").write_text("5")  # the peak restarts here
    except OSError:
        baseline = min(baseline, status("VmHWM"))  # only ever overstates the extra memory
    frame = load_csv(data)
    print(json.dumps({"extra": status("VmHWM") - baseline, "rows": len(frame)}))
    """
)


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc (Linux)")
def test_parsing_a_20_mb_numeric_table_costs_at_most_4_times_its_size(tmp_path):
    rows = 250_000
    values = np.round(np.random.default_rng(0).uniform(0, 300, (rows, 11)), 3)
    text = "\n".join(["x0,x1,x2,x3,x4,x5,x6,x7,x8,x9,x10", *map(",".join, values.astype(str))])
    path = tmp_path / "numbers.csv"
    path.write_text(text + "\n")
    size = path.stat().st_size
    result = subprocess.run(
        [sys.executable, "-c", MEMORY_CHILD, str(path)], capture_output=True, text=True,
        cwd=REPO, env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"}, check=True,
    )
    measured = json.loads(result.stdout)
    assert measured["rows"] == rows
    assert measured["extra"] <= 4 * size, f"{measured['extra'] / size:.2f} x the file size"
