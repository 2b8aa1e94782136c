"""mondrian_core.experiments.gp_experiments.partition_count_curves (the Random Forest kernel paper's
Figure 5) and its builder mondrian_core.figures.gp.partition_count_figure."""
from __future__ import annotations

import numpy as np
import pytest

from mondrian_core import datasets as ds
from mondrian_core.errors import InputError
from mondrian_core.experiments.gp_experiments import compare_kernels, partition_count_curves
from mondrian_core.figures.gp import partition_count_figure


@pytest.fixture(scope="module")
def split():
    data = ds.load_bundled("diabetes").subset(np.arange(120))
    return ds.train_val_test_split(data, (0.75, 0.25), random_state=0)


def test_each_m_is_the_comparison_at_that_m(split):
    train, test = split
    counts = [4, 16]
    curves = partition_count_curves(train.X, train.y, test.X, test.y, counts, random_state=2)
    assert set(curves) == {"Random Forest", "Fast Cluster"}
    for j, m in enumerate(counts):
        rows = compare_kernels(train.X, train.y, test.X, test.y, list(curves), n_partitions=m,
                               random_state=2)
        for row in rows:
            c = curves[row["kernel"]]
            assert c["m"][j] == m
            assert c["test_log_lik"][j] == row["test_log_lik"]
            assert c["mse"][j] == row["mse"]


def test_progress_is_reported_after_each_m(split):
    train, test = split
    seen = []
    partition_count_curves(train.X, train.y, test.X, test.y, [3, 5], kernels=("Fast Cluster",),
                           random_state=0, progress=lambda f, text: seen.append((f, text)))
    assert seen == [(0.5, "m = 3"), (1.0, "m = 5")]


@pytest.mark.parametrize("counts", [[], [0, 5], [[5]]])
def test_bad_counts_raise(split, counts):
    train, test = split
    with pytest.raises(InputError, match="counts"):
        partition_count_curves(train.X, train.y, test.X, test.y, counts)


def test_figure_has_one_line_per_kernel_in_each_panel():
    m = np.array([10, 100])
    curves = {"Random Forest": {"m": m, "test_log_lik": np.array([-1.2, -1.0]),
                                "mse": np.array([0.5, 0.4])},
              "Fast Cluster": {"m": m, "test_log_lik": np.array([-1.3, -1.1]),
                               "mse": np.array([0.6, 0.5])}}
    fig = partition_count_figure(curves, dataset_name="diabetes")
    assert len(fig.data) == 4
    assert [t.name for t in fig.data if t.showlegend is not False] == \
        ["Random Forest kernel", "Fast Cluster kernel"]
    np.testing.assert_array_equal(fig.data[1].y, [0.5, 0.4])  # RF's MSE, right panel
    assert fig.data[1].xaxis == "x2"
    assert fig.layout.xaxis.type == "log" and list(fig.layout.xaxis.tickvals) == [10, 100]
    assert "diabetes" in fig.layout.title.text


def test_calibration_columns_are_what_the_gp_predicts():
    from mondrian_core import PartitionGP
    from mondrian_core.experiments.gp_experiments import make_partitions, select_noise_variance

    d = ds.load_bundled("diabetes", standardize=True)
    tr, te = ds.train_val_test_split(d, (0.8, 0.2), random_state=0)
    row = compare_kernels(tr.X, tr.y, te.X, te.y, ["Fast Cluster"], n_partitions=10,
                          random_state=0)[0]
    P = make_partitions("Fast Cluster", 10, 8, 0).fit(tr.X, tr.y)
    s, _, _ = select_noise_variance(P, tr.X, tr.y)
    gp = PartitionGP(P, noise_variance=s).fit(tr.X, tr.y)
    mean, sd = gp.predict(te.X, return_std=True)
    assert row["noise_variance"] == pytest.approx(gp.noise_std() ** 2, rel=1e-9)
    var = sd**2 + gp.noise_std() ** 2
    assert row["mean_sq_z"] == pytest.approx(np.mean((te.y - mean) ** 2 / var), rel=1e-6)
