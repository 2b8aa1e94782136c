"""Figure 6's relabelled cells (``_relative_cells``) against the original cell ids: every
train-train and test-train comparison the same, so the shared-cell counts are the same."""
import numpy as np
import pytest

from mondrian_core.experiments.kernel_convergence import _relative_cells


def _counts(tr, te):
    """The shared-cell counts over members, from rows (members, n)."""
    gram = sum((r[:, None] == r).astype(np.int64) for r in tr)
    cross = sum((e[:, None] == r).astype(np.int64) for e, r in zip(te, tr))
    return gram, cross


@pytest.mark.parametrize("width", [50, 40_000])  # int16 and the wide fallback
def test_relative_cells_keep_every_comparison(width):
    rng = np.random.default_rng(3)
    members, n, n_te = 6, 120, 40
    # member b's training cells in [b * width, b * width + width), test cells partly
    # in range, partly new (beyond every member's range) or in another member's range
    cells_tr = np.stack([b * width + rng.integers(0, width, n) for b in range(members)], 1)
    te_in = np.stack([b * width + rng.integers(0, width, n_te) for b in range(members)], 1)
    te_new = members * width + rng.integers(0, 10**6, (n_te, members))
    te_other = rng.integers(0, members * width, (n_te, members))
    pick = rng.integers(0, 3, (n_te, members))
    cells_te = np.choose(pick, [te_in, te_new, te_other])
    # most test rows share a cell with some training row: the comparisons are not trivial
    cells_te[:10] = cells_tr[:10]
    tr, te = _relative_cells(cells_tr, cells_te)
    assert tr.dtype == (np.int16 if width < 2**15 else np.int64)
    gram, cross = _counts(tr, te)
    gram0, cross0 = _counts(cells_tr.T, cells_te.T)
    np.testing.assert_array_equal(gram, gram0)
    np.testing.assert_array_equal(cross, cross0)
    assert cross0.sum() >= 10 * members  # the copied rows match in every member
