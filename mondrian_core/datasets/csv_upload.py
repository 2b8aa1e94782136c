"""A user's CSV, validated: every problem a user can cause is an InputError saying what
to change. The bytes are only parsed as text: nothing is executed or unpickled."""
from __future__ import annotations

import csv
import io
import os
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from mondrian_core._validation import check_count, check_flag
from mondrian_core.cost import check_csv_cost
from mondrian_core.datasets.dataset import Dataset
from mondrian_core.errors import InputError

CSV_MAX_BYTES = 20_000_000
CSV_MAX_ROWS = 200_000
CSV_MIN_ROWS = 10
#: The most columns accepted: far more features than the app's models use; every
#: step after the parse stays linear in the columns (a picker lists each column).
CSV_MAX_COLUMNS = 5_000
_DELIMITERS = ",;\t|"


@dataclass(frozen=True, eq=False)
class CsvTable:
    """A parsed CSV before columns are chosen (:func:`read_csv_table`).

    Parameters
    ----------
    frame : pandas.DataFrame
        The parsed table.
    numeric_columns : tuple of str
        Columns that can be chosen as features or target.
    text_columns : tuple of str
        Columns that cannot (not numbers).
    delimiter : str
        The delimiter detected.
    notices : tuple of str, default=()
        What the user should know about the parse.
    """

    frame: pd.DataFrame
    numeric_columns: tuple[str, ...]
    text_columns: tuple[str, ...]
    delimiter: str
    notices: tuple[str, ...] = ()


def _read_bytes(source, max_bytes: int) -> bytes:
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
    elif isinstance(source, (str, os.PathLike)):
        path = Path(source)
        if not path.is_file():
            raise InputError(f"No file at {str(path)!r}.")
        with path.open("rb") as handle:
            data = handle.read(max_bytes + 1)
    elif hasattr(source, "getvalue"):  # streamlit UploadedFile, BytesIO
        data = source.getvalue()
    elif hasattr(source, "read"):
        data = source.read(max_bytes + 1)
    else:
        raise InputError("Give the CSV as bytes, a file path or an open binary file.")
    if isinstance(data, str):
        data = data.encode("utf-8")
    if len(data) > max_bytes:
        raise InputError(f"The file is larger than {max_bytes / 1e6:g} MB; upload a smaller "
                         "sample of the rows or fewer columns.")
    return data


def _decode(data: bytes) -> str:
    if not data.strip():
        raise InputError("The file is empty; upload a CSV with a header row and at least "
                         f"{CSV_MIN_ROWS} rows of numbers.")
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        raise InputError("The file is UTF-16 text; save it as 'CSV UTF-8' (or plain CSV) and "
                         "upload it again.")
    if b"\x00" in data:
        raise InputError("This looks like a binary file (it contains NUL bytes), not a CSV; "
                         "export the table as CSV (comma-separated text).")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise InputError(
            f"The file is not UTF-8 text (byte 0x{data[err.start]:02x} at position "
            f"{err.start}); save it as 'CSV UTF-8' and upload it again.") from None


def _sniff_delimiter(text: str) -> str:
    sample = text[:65536]
    if len(text) > len(sample) and "\n" in sample:
        sample = sample[: sample.rindex("\n")]
    try:
        return csv.Sniffer().sniff(sample, delimiters=_DELIMITERS).delimiter
    except csv.Error:
        return ","


def read_csv_table(source, *, max_bytes=CSV_MAX_BYTES, max_rows=CSV_MAX_ROWS,
                   max_columns=CSV_MAX_COLUMNS) -> CsvTable:
    """Parse a CSV (bytes, path or binary file) and sort its columns into numeric and text.

    The delimiter (comma, semicolon, tab or bar) is detected.

    Parameters
    ----------
    source : bytes, str, path or binary file
        The CSV (e.g. a Streamlit ``UploadedFile``); a ``str`` is a path.
    max_bytes : int, default=CSV_MAX_BYTES
        The largest file accepted.
    max_rows : int, default=CSV_MAX_ROWS
        The most data rows accepted.
    max_columns : int, default=CSV_MAX_COLUMNS
        The most columns accepted.

    Returns
    -------
    CsvTable
        The table with its columns sorted into numeric and text.

    Raises
    ------
    InputError
        For an empty, binary, non-UTF-8 or oversized file, one with more than
        ``max_rows`` rows or ``max_columns`` columns, one whose parse would take longer
        than :data:`mondrian_core.cost.CSV_BUDGET_SECONDS`, duplicated or missing header names, fewer than two
        columns, or text pandas cannot parse.
    """
    max_bytes = check_count(max_bytes, "max_bytes")
    max_rows = check_count(max_rows, "max_rows")
    max_columns = check_count(max_columns, "max_columns", minimum=2)
    text = _decode(_read_bytes(source, max_bytes))
    delimiter = _sniff_delimiter(text)
    try:
        header = next(csv.reader(io.StringIO(text), delimiter=delimiter))
    except (csv.Error, StopIteration):
        header = []
    names = [h.strip() for h in header]
    if len(names) > max_columns:
        raise InputError(f"The file has {len(names):,} columns; at most {max_columns:,} are "
                         "accepted. Upload only the columns you need (the features and the "
                         "target).")
    # refused before pandas sees it: the rows are counted by their line ends (a quoted
    # field may span lines, so this can only overcount)
    n_lines = text.count("\n") + (not text.endswith("\n"))
    check_csv_cost(max(n_lines - 1, 0), len(names), min_rows=CSV_MIN_ROWS)
    seen, dupes = set(), []
    for h in names:
        if h and h in seen and h not in dupes:
            dupes.append(h)
        seen.add(h)
    if dupes:
        raise InputError("Column names must be unique; the header repeats "
                         f"{', '.join(repr(d) for d in dupes[:5])}. Rename the duplicates.")
    try:
        with warnings.catch_warnings():
            # pandas only warns when a row has more fields than the header: make it an error
            warnings.simplefilter("error", pd.errors.ParserWarning)
            frame = pd.read_csv(io.StringIO(text), sep=delimiter, index_col=False,
                                nrows=max_rows + 1, skipinitialspace=True)
    except pd.errors.ParserWarning:
        raise InputError("Some rows have more fields than the header; check the delimiter and "
                         "quote fields that contain it.") from None
    except pd.errors.EmptyDataError:
        raise InputError("The file has no columns; upload a CSV with a header row.") from None
    except (pd.errors.ParserError, ValueError, csv.Error, OverflowError) as err:
        first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise InputError(f"Could not read the file as CSV ({first[:160]}); check that every "
                         "row has as many fields as the header.") from None
    if len(frame) > max_rows:
        raise InputError(f"The file has more than {max_rows:,} rows; upload a sample of at most "
                         f"{max_rows:,} rows.")
    frame.columns = [str(c).strip() for c in frame.columns]
    if len(set(frame.columns)) != frame.shape[1]:
        raise InputError("Column names must be unique; rename the repeated header names.")
    if frame.shape[1] < 2:
        raise InputError(
            f"Found only one column ({frame.columns[0]!r}) with delimiter {delimiter!r}; a "
            "data set needs at least one feature and a target column. Separate the columns "
            "with commas (or ; tab |).")
    if len(frame) == 0:
        raise InputError(f"The file has a header but no data rows; add at least {CSV_MIN_ROWS} "
                         "rows of numbers below the header.")
    numeric, text_cols = [], []
    for i, (col, dtype) in enumerate(zip(frame.columns, frame.dtypes)):
        if dtype == np.dtype(object):  # integers beyond 64 bits stay text in pandas: read them as floats
            column = frame.iloc[:, i]
            as_number = pd.to_numeric(column, errors="coerce")
            if as_number.notna().sum() == column.notna().sum():
                frame[col] = as_number
                dtype = as_number.dtype
        if pd.api.types.is_bool_dtype(dtype) or pd.api.types.is_numeric_dtype(dtype):
            numeric.append(col)
        else:
            text_cols.append(col)
    notices = []
    if text_cols:
        notices.append(f"Text columns that cannot be used: {_names(text_cols)}.")
    return CsvTable(frame=frame, numeric_columns=tuple(numeric), text_columns=tuple(text_cols),
                    delimiter=delimiter, notices=tuple(notices))


def _names(cols, most=6) -> str:
    shown = ", ".join(repr(c) for c in cols[:most])
    return shown + (f" and {len(cols) - most} more" if len(cols) > most else "")


def _text_example(series: pd.Series) -> str:
    values = series.dropna().astype(str)
    bad = values[pd.to_numeric(values, errors="coerce").isna()]
    return repr(bad.iloc[0][:20]) if len(bad) else "text"


def load_csv(source, feature_columns=None, target_column=None, *, name="uploaded CSV",
             standardize=False, max_bytes=CSV_MAX_BYTES, max_rows=CSV_MAX_ROWS,
             min_rows=CSV_MIN_ROWS,
             max_columns=CSV_MAX_COLUMNS) -> tuple[Dataset, list[str]]:
    """Load a user's CSV as a regression :class:`Dataset`, validated.

    Parameters
    ----------
    source : bytes, str, path or binary file
        The CSV (e.g. a Streamlit ``UploadedFile``); a ``str`` is a path.
    feature_columns : list of str, optional
        Numeric columns to use as inputs (default: every numeric column except the
        target).
    target_column : str, optional
        Numeric column to predict (default: the last numeric column).
    name : str, default="uploaded CSV"
        The data set's name (titles, file names).
    standardize : bool, default=False
        Whether to z-score the features (raw values kept in ``X_raw``).
    max_bytes, max_rows, min_rows, max_columns : int
        Size limits; rows are counted after dropping those with NaN/inf.

    Returns
    -------
    dataset : Dataset
        The regression set.
    notices : list of str
        What was done that the user should know (rows dropped, defaults chosen).

    Raises
    ------
    InputError
        Any problem the user can fix, with a message saying what to change.
    """
    for given, what in ((feature_columns, "feature_columns"), (target_column, "target_column")):
        names = [given] if isinstance(given, str) or given is None else given
        try:
            names = list(names)
        except TypeError:
            raise InputError(f"{what} must be a column name or a list of them, not "
                             f"{type(given).__name__}.") from None
        if any(not isinstance(c, str) for c in names if given is not None):
            raise InputError(f"{what} must name columns as strings (the header's names).")
        if what == "target_column" and not (given is None or isinstance(given, str)):
            raise InputError("target_column must be one column name (a string).")
    min_rows = check_count(min_rows, "min_rows")
    check_flag(standardize, "standardize")
    table = read_csv_table(source, max_bytes=max_bytes, max_rows=max_rows,
                           max_columns=max_columns)
    frame, numeric = table.frame, list(table.numeric_columns)
    notices = list(table.notices)
    available = list(frame.columns)
    # sets: a membership test per chosen column keeps the checks linear in the columns
    available_set, numeric_set = set(available), set(numeric)

    def check_exist(cols, what):
        missing = [c for c in cols if c not in available_set]
        if missing:
            raise InputError(f"No {what} column named {_names(missing)}; the file has "
                             f"{_names(available, 12)}.")
        text = [c for c in cols if c not in numeric_set]
        if text:
            examples = "; ".join(f"{c!r} has {_text_example(frame[c])}" for c in text[:3])
            raise InputError(f"{what.capitalize()} column(s) {_names(text)} contain text, not "
                             f"numbers ({examples}); choose among the numeric columns "
                             f"{_names(numeric, 12) or '(none)'} (numbers need '.' as the "
                             "decimal point).")

    if not numeric:
        raise InputError("The file has no numeric column (all columns contain text: "
                         f"{_names(available)}); check the delimiter and the decimal point "
                         "(use '.' for decimals).")
    if target_column is None:
        target_column = numeric[-1]
        notices.append(f"Using {target_column!r} (the last numeric column) as the target.")
    check_exist([target_column], "target")
    if feature_columns is None:
        feature_columns = [c for c in numeric if c != target_column]
    feature_columns = list(feature_columns)
    if not feature_columns:
        text = [c for c in available if c not in numeric_set]
        raise InputError("Choose at least one numeric feature column besides the target "
                         f"{target_column!r}" + (
                             f"; the columns {_names(text)} contain text (numbers need '.' as "
                             "the decimal point)." if text else "."))
    if target_column in feature_columns:
        raise InputError(f"The target {target_column!r} cannot also be a feature; remove it "
                         "from the feature columns.")
    if len(set(feature_columns)) != len(feature_columns):
        raise InputError("Each feature column can be chosen only once.")
    check_exist(feature_columns, "feature")

    values = frame[feature_columns + [target_column]].to_numpy(dtype=np.float64, na_value=np.nan)
    good = np.all(np.isfinite(values), axis=1)
    n_bad = int((~good).sum())
    if n_bad:
        notices.append(f"Dropped {n_bad:,} of {len(values):,} rows with missing or infinite "
                       "values (NaN/inf) in the chosen columns.")
    values_all, values = values, values[good]
    if len(values) < min_rows:
        empty = [c for c, ok in zip(feature_columns + [target_column],
                                     np.isfinite(values_all).any(axis=0)) if not ok]
        if empty:
            raise InputError(f"Column(s) {_names(empty)} have no numeric values; choose other "
                             "columns or check that every row has all fields.")
        dropped = f" ({n_bad:,} more have missing or infinite values)" if n_bad else ""
        raise InputError(f"Only {len(values)} complete rows in the chosen columns{dropped}; at "
                         f"least {min_rows} are needed. Choose other columns or add rows.")
    X, y = values[:, :-1], values[:, -1]
    constant = [c for c, s in zip(feature_columns, np.ptp(X, axis=0)) if s == 0]
    if constant:
        notices.append(f"Constant feature column(s) {_names(constant)} carry no information.")
    data = Dataset(X=X, y=y, name=name, feature_names=tuple(feature_columns),
                   target_name=target_column,
                   description=(f"Uploaded CSV: {len(y):,} rows, {len(feature_columns)} "
                                f"feature(s), target {target_column!r}."))
    return (data.standardize() if standardize else data), notices


