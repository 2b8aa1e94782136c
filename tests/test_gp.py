"""PartitionGP and PartitionKernelPCA against dense, obvious computations."""
import numpy as np
import pytest
from scipy import stats

from mondrian_core import (
    FastClusterPartitions,
    InputError,
    PartitionAlgebra,
    PartitionGP,
    PartitionKernelPCA,
    RandomForestPartitions,
    partition_algebra,
)
from mondrian_core.gp import cg_residual_history
from mondrian_core.partitions import MondrianPartitions


def toy(n=120, seed=0):
    """1-D data with jumps, like the paper's Figure 1."""
    rng = np.random.default_rng(seed)
    x = np.sort(rng.uniform(0, 10, n))
    f = np.where(x < 3, 1.0, np.where(x < 6, -1.0, 0.5 * np.sin(2 * x)))
    return x[:, None], f + 0.1 * rng.standard_normal(n)


def dense_posterior(P, X, y, Xt, s):
    K, Ks = P.kernel(X), P.kernel(X, Xt)
    A = K + s * np.eye(len(X))
    mean = Ks.T @ np.linalg.solve(A, y)
    cov = P.kernel(Xt) - Ks.T @ np.linalg.solve(A, Ks)
    return mean, cov


CASES = [
    # (sampler, max_dense): data space (N <= C), weight space (C < N), CG fallback
    (RandomForestPartitions(n_partitions=30, random_state=0), 3000),
    (FastClusterPartitions(n_partitions=30, max_level=2, random_state=0), 3000),
    (FastClusterPartitions(n_partitions=30, max_level=5, random_state=0), 10),
    (MondrianPartitions(n_partitions=30, lifetime=2.0, random_state=0), 3000),
]


@pytest.mark.parametrize("sampler,max_dense", CASES,
                         ids=["rf-data", "fc-weights", "fc-cg", "mondrian-data"])
def test_cg_mean_and_exact_variance_equal_dense_solve(sampler, max_dense):
    X, y = toy()
    Xt = np.linspace(-1, 11, 50)[:, None]
    s = 0.05
    gp = PartitionGP(sampler, noise_variance=s, tol=1e-12, normalize_y=False,
                     max_dense=max_dense).fit(X, y)
    mean, cov = dense_posterior(gp.partitions_, X, y, Xt, s)
    m, sd = gp.predict(Xt, return_std=True)
    assert np.allclose(m, mean, rtol=0, atol=1e-9)
    assert np.allclose(sd**2, np.diag(cov), rtol=0, atol=1e-9)
    assert gp.n_iter_ == len(gp.residuals_) - 1 > 0
    assert gp.residuals_[-1] <= 1e-12 * 1.0001


def test_weight_space_path_is_used_and_exact_with_unseen_clusters():
    X, y = toy(200)
    fc = FastClusterPartitions(n_partitions=20, max_level=2, random_state=2)
    gp = PartitionGP(fc, noise_variance=0.1, tol=1e-12, normalize_y=False).fit(X, y)
    assert gp.algebra_.n_clusters < len(X)
    # a GP trained on half the points: the other half can fall in clusters without data
    X2, y2 = X[::2], y[::2]
    gp.fit(X2, y2)
    mean, cov = dense_posterior(gp.partitions_, X2, y2, X, 0.1)
    m, sd = gp.predict(X, return_std=True)
    assert np.allclose(m, mean, atol=1e-9) and np.allclose(sd**2, np.diag(cov), atol=1e-9)


def test_normalize_y_rescales_mean_and_std():
    X, y = toy()
    fc = FastClusterPartitions(n_partitions=20, max_level=3, random_state=1)
    a = PartitionGP(fc, noise_variance=0.1, tol=1e-12).fit(X, y)
    mu, sd = y.mean(), y.std()
    b = PartitionGP(fc, noise_variance=0.1, tol=1e-12, normalize_y=False).fit(X, (y - mu) / sd)
    ma, sa = a.predict(X, return_std=True)
    mb, sb = b.predict(X, return_std=True)
    assert np.allclose(ma, mu + sd * mb, atol=1e-9) and np.allclose(sa, sd * sb, atol=1e-9)


def test_posterior_samples_have_the_posterior_moments():
    X, y = toy(80)
    Xt = np.linspace(0, 10, 25)[:, None]
    gp = PartitionGP(FastClusterPartitions(20, 3, random_state=0), noise_variance=0.1,
                     tol=1e-12, normalize_y=False).fit(X, y)
    mean, cov = dense_posterior(gp.partitions_, X, y, Xt, 0.1)
    n = 4000
    S = gp.sample_y(Xt, n_samples=n, random_state=0)
    assert S.shape == (25, n)
    var = np.diag(cov)
    # sample mean within 4 standard errors; sample variance within 4 of its s.e.
    assert np.all(np.abs(S.mean(1) - mean) < 4 * np.sqrt(var / n) + 1e-12)
    assert np.all(np.abs(S.var(1, ddof=1) - var) < 4 * var * np.sqrt(2 / (n - 1)) + 1e-12)
    # same seed, same samples
    assert np.array_equal(S[:, :3], gp.sample_y(Xt, n_samples=n, random_state=0)[:, :3])


@pytest.mark.parametrize("sampler", [FastClusterPartitions(100, 6, random_state=0),
                                     RandomForestPartitions(100, random_state=0)],
                         ids=["fast-cluster", "random-forest"])
@pytest.mark.parametrize("s", [0.01, 0.1])
def test_preconditioner_cuts_cg_iterations_on_the_page_systems(sampler, s):
    X, y = toy(200)
    plain = PartitionGP(sampler, noise_variance=s, preconditioner=False).fit(X, y)
    pre = PartitionGP(sampler, noise_variance=s, preconditioner=True).fit(X, y)
    assert pre.n_iter_ < plain.n_iter_
    assert np.allclose(pre.predict(X), plain.predict(X), atol=1e-4)
    # the paper's "small constant" sigma does worse than sigma = noise variance, and
    # the paper's m**2 scale leaves preconditioned CG unchanged (scale invariance)
    alg = PartitionAlgebra(pre.partitions_.labels(X))
    z = (y - y.mean()) / y.std()
    op = alg.system_operator(s)
    _, r_ours, _ = cg_residual_history(op, z, preconditioner=alg.preconditioner(s))
    _, r_small, _ = cg_residual_history(op, z, preconditioner=alg.preconditioner(s, sigma=1e-3 * s))
    _, r_paper, _ = cg_residual_history(op, z, preconditioner=alg.preconditioner(s, scale=100.0**2))
    assert len(r_ours) < len(r_small)
    assert len(r_paper) == len(r_ours)


def test_bad_noise_raises():
    X, y = toy(20)
    with pytest.raises(InputError, match="noise_variance"):
        PartitionGP(FastClusterPartitions(5), noise_variance=0.0).fit(X, y)


@pytest.mark.parametrize("sampler", [FastClusterPartitions(40, 4, random_state=0),
                                     RandomForestPartitions(40, random_state=0)],
                         ids=["fast-cluster", "random-forest"])
def test_kernel_pca_matches_dense_eigendecomposition(sampler):
    rng = np.random.default_rng(5)
    X = rng.standard_normal((150, 4))
    y = X[:, 0] ** 2 + X[:, 1]
    kpca = PartitionKernelPCA(sampler, n_components=2, tol=1e-10)
    E = kpca.fit_transform(X, y)
    K = kpca.partitions_.kernel(X)
    H = np.eye(150) - 1 / 150
    vals, vecs = np.linalg.eigh(H @ K @ H)
    assert np.allclose(kpca.eigenvalues_, vals[::-1][:2], rtol=1e-8)
    dense = vecs[:, ::-1][:, :2] * np.sqrt(vals[::-1][:2])
    for k in range(2):  # up to sign
        assert min(np.abs(E[:, k] - dense[:, k]).max(), np.abs(E[:, k] + dense[:, k]).max()) < 1e-6


def test_woodbury_preconditioned_cg_is_exact_and_stops_at_once():
    """C < N: CG preconditioned by the exact cluster-space inverse; same answers as the
    unpreconditioned solve and the dense GP, variances from the same factor."""
    X, y = toy(300, seed=4)
    Xt = np.linspace(-1, 11, 40)[:, None]
    s = 0.05
    fc = FastClusterPartitions(n_partitions=25, max_level=3, random_state=5)
    fast = PartitionGP(fc, noise_variance=s, tol=1e-10, normalize_y=False).fit(X, y)
    assert fast.algebra_.n_clusters < len(X) and fast._woodbury is not None
    assert fast.n_iter_ <= 2 and fast.residual_ <= 1e-10
    plain = PartitionGP(fc, noise_variance=s, tol=1e-12, normalize_y=False,
                        preconditioner=False).fit(X, y)
    np.testing.assert_allclose(fast.alpha_, plain.alpha_, rtol=0, atol=1e-8)
    mean, cov = dense_posterior(fast.partitions_, X, y, Xt, s)
    m, sd = fast.predict(Xt, return_std=True)
    np.testing.assert_allclose(m, mean, rtol=0, atol=1e-9)
    np.testing.assert_allclose(sd**2, np.diag(cov), rtol=0, atol=1e-9)
    # the weight-space path without the fit's factor gives the same variances
    m2, sd2 = plain.predict(Xt, return_std=True)
    np.testing.assert_allclose(sd2, sd, rtol=0, atol=1e-9)


def test_kernel_pca_on_threads_gives_the_same_components(monkeypatch):
    """Threaded products split the points into blocks (here blocks of 40 points): the
    components are those of one thread, up to rounding of the cluster sums."""
    monkeypatch.setattr(partition_algebra, "_MIN_BLOCK_ROWS", 40)
    X = np.random.default_rng(6).standard_normal((150, 4))
    one = PartitionKernelPCA(FastClusterPartitions(40, 4, random_state=0), tol=1e-10).fit(X)
    many = PartitionKernelPCA(FastClusterPartitions(40, 4, random_state=0, n_jobs=2),
                              tol=1e-10, n_jobs=3).fit(X)
    assert len(many.algebra_._blocks()) == 3
    np.testing.assert_allclose(many.eigenvalues_, one.eigenvalues_, rtol=1e-10)
    np.testing.assert_allclose(many.embedding_, one.embedding_, rtol=0, atol=1e-8)
    np.testing.assert_allclose(many.transform(X[:20]), one.transform(X[:20]), rtol=0, atol=1e-8)


def test_kernel_pca_projects_new_points_as_the_dense_centred_kernel():
    """New points: sum_i alpha_ik k_c(x, x_i), with k_c the kernel centred on the fitted
    points, computed densely; some partitions here have a single cluster (level 0)."""
    rng = np.random.default_rng(11)
    X, Xn = rng.standard_normal((120, 3)), rng.standard_normal((15, 3)) * 1.5
    kpca = PartitionKernelPCA(FastClusterPartitions(30, 3, random_state=2), n_components=3,
                              tol=1e-12).fit(X)
    P = kpca.partitions_
    labels = P.labels(X)
    assert (labels == labels[:, :1]).all(axis=1).any()
    K, Kn = P.kernel(X), P.kernel(Xn, X)
    r, rn, g = K.mean(axis=1), Kn.mean(axis=1), K.mean()
    Kc = Kn - rn[:, None] - r[None, :] + g
    np.testing.assert_allclose(kpca.transform(Xn), Kc @ kpca.dual_coef_, rtol=0, atol=1e-9)
    H = np.eye(120) - 1 / 120
    vals = np.linalg.eigvalsh(H @ K @ H)[::-1][:3]
    np.testing.assert_allclose(kpca.eigenvalues_, vals, rtol=1e-9)


@pytest.mark.parametrize("normalize_y", [False, True])
def test_log_predictive_density_is_the_dense_gaussian_log_density(normalize_y):
    """log N(y; mu, var_f + noise) from the dense posterior, in the units of y: with
    normalize_y the model works on standardised targets, so mean and sd scale back."""
    X, y = toy(100)
    Xt, yt = toy(40, seed=1)
    s = 0.05
    gp = PartitionGP(FastClusterPartitions(20, 3, random_state=2), noise_variance=s,
                     tol=1e-12, normalize_y=normalize_y).fit(X, y)
    mu, sd = (y.mean(), y.std()) if normalize_y else (0.0, 1.0)
    mean, cov = dense_posterior(gp.partitions_, X, (y - mu) / sd, Xt, s)
    want = stats.norm.logpdf(yt, mu + sd * mean, sd * np.sqrt(np.diag(cov) + s))
    got = gp.log_predictive_density(Xt, yt)
    assert got.shape == (40,)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-8)


@pytest.mark.parametrize("make", [
    lambda: FastClusterPartitions(n_partitions=30, max_level=4, random_state=1),
    lambda: RandomForestPartitions(n_partitions=30, max_level=5, random_state=1),
    lambda: MondrianPartitions(n_partitions=30, lifetime=8.0, random_state=1),
])
def test_predict_and_sample_at_once_equals_the_two_calls(make):
    """The posterior panels' one placement of the grid gives predict's and sample_y's
    numbers exactly (the Mondrian's conditional draw on new points is seeded at fit)."""
    X, y = toy(80, seed=4)
    grid = np.linspace(-0.2, 1.2, 57)[:, None]
    gp = PartitionGP(make(), noise_variance=0.1).fit(X, y)
    mean, std, samples = gp.predict_and_sample(grid, 3, 11)
    want_mean, want_std = gp.predict(grid, return_std=True)
    np.testing.assert_array_equal(mean, want_mean)
    np.testing.assert_array_equal(std, want_std)
    np.testing.assert_array_equal(samples, gp.sample_y(grid, 3, random_state=11))
