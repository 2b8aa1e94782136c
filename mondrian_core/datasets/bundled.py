"""Small real regression sets that load offline from files shipped inside scikit-learn
and plotly (see ``data/README.md``)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from mondrian_core._docstrings import docfiller
from mondrian_core._validation import check_flag
from mondrian_core.datasets.dataset import Dataset
from mondrian_core.errors import InputError

# The loaders share one signature, documented here once.
_loader_doc = docfiller({"loader": """\
Parameters
----------
standardize : bool, default=True
    Whether to z-score the features (the target stays in its units); the raw
    features are kept in ``X_raw``.

Returns
-------
Dataset
    A regression set.
"""})


@_loader_doc
def load_diabetes(standardize=True) -> Dataset:
    """Load the diabetes set (Efron et al. 2004), shipped with scikit-learn: 442 x 10.

    Features: age, sex, BMI, blood pressure and six blood serum measurements;
    target: a measure of disease progression one year after baseline (25-346).
    Raw (unscaled) features come from scikit-learn's ``load_diabetes(scaled=False)``.

    %(loader)s
    """
    from sklearn.datasets import load_diabetes as _load

    bunch = _load(scaled=False)
    names = ("age (years)", "sex", "BMI", "blood pressure", "s1 tc", "s2 ldl", "s3 hdl",
             "s4 tch", "s5 ltg", "s6 glu")
    data = Dataset(X=bunch.data, y=bunch.target, name="diabetes", feature_names=names,
                   target_name="disease progression after 1 year",
                   description=("Real: diabetes, 442 patients x 10 baseline variables "
                                "(Efron et al. 2004), shipped with scikit-learn."))
    return data.standardize() if check_flag(standardize, "standardize") else data


def _plotly_dataset(name: str) -> pd.DataFrame:
    import plotly

    path = Path(plotly.__file__).parent / "package_data" / "datasets" / f"{name}.csv.gz"
    return pd.read_csv(path)


@_loader_doc
def load_gapminder(standardize=True) -> Dataset:
    """Load Gapminder life expectancy, shipped with plotly: 1,704 x 2.

    142 countries every 5 years 1952-2007; features log10 GDP per capita
    (inflation-adjusted US$) and year; target life expectancy at birth (years).
    Two inputs, so the pages can draw the prediction surface of real data.

    %(loader)s
    """
    df = _plotly_dataset("gapminder")
    X = np.column_stack([np.log10(df["gdpPercap"].to_numpy(float)), df["year"].to_numpy(float)])
    data = Dataset(X=X, y=df["lifeExp"].to_numpy(float), name="gapminder",
                   feature_names=("log10 GDP per capita (US$)", "year"),
                   target_name="life expectancy (years)",
                   description=("Real: Gapminder life expectancy vs GDP per capita and year, "
                                "142 countries x 12 years (gapminder.org, CC BY 4.0), "
                                "shipped with plotly."))
    return data.standardize() if check_flag(standardize, "standardize") else data


@_loader_doc
def load_tips(standardize=True) -> Dataset:
    """Load restaurant tips (Bryant and Smith 1995), shipped with plotly: 244 x 2.

    Features total bill (US$) and party size; target the tip (US$).

    %(loader)s
    """
    df = _plotly_dataset("tips")
    X = df[["total_bill", "size"]].to_numpy(float)
    data = Dataset(X=X, y=df["tip"].to_numpy(float), name="tips",
                   feature_names=("total bill (US$)", "party size"), target_name="tip (US$)",
                   description=("Real: 244 restaurant bills and tips recorded by one waiter "
                                "(Bryant & Smith 1995), shipped with plotly."))
    return data.standardize() if check_flag(standardize, "standardize") else data


#: Bundled real regression sets by name: (loader, one-line description).
BUNDLED_DATASETS = {
    "diabetes": (load_diabetes, "Diabetes progression, 442 x 10 (scikit-learn)"),
    "gapminder": (load_gapminder, "Life expectancy vs GDP and year, 1,704 x 2 (plotly)"),
    "tips": (load_tips, "Restaurant tips, 244 x 2 (plotly)"),
}


def load_bundled(name: str, standardize=True) -> Dataset:
    """Load one of :data:`BUNDLED_DATASETS` by name.

    Parameters
    ----------
    name : {"diabetes", "gapminder", "tips"}
        The data set.
    standardize : bool, default=True
        Whether to z-score the features.

    Returns
    -------
    Dataset
        A regression set.

    Raises
    ------
    InputError
        If the name is unknown.
    """
    try:
        loader = BUNDLED_DATASETS[name][0]
    except (KeyError, TypeError):  # TypeError: an unhashable name
        raise InputError(f"Unknown data set {name!r}; choose one of "
                         f"{', '.join(BUNDLED_DATASETS)}.") from None
    return loader(standardize=standardize)


