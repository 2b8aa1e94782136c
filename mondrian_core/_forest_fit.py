"""scikit-learn's RandomForest and ExtraTrees fitted without their per-tree overhead.

``forest.fit(X, y)`` on a few hundred points spends most of its time outside the trees'
compiled builder: per tree it clones the tree estimator (parameter introspection through
``inspect.signature``), re-checks the targets (``type_of_target``), the random state and
the sample weights, and goes through joblib. The pages refit small forests many times
(the online page: 24 forests of 10 trees per visit; the partition kernels: 100 trees),
so :func:`fit_forest` makes the same fitted forest directly: the same per-tree seeds from
the forest's ``random_state``, the same bootstrap counts, the same criterion, splitter and
depth-first builder on the same float32 inputs, so every tree (thresholds, values) and
every prediction is identical to ``forest.fit``'s (tested against it). It covers the
settings the library uses (dense finite inputs, one output, no sample or class weights,
``max_samples``, ``max_leaf_nodes`` or monotonic constraints) and otherwise, or when
scikit-learn's private tree modules are not as expected, calls ``forest.fit``.
"""
from __future__ import annotations

import copy
import numbers

import numpy as np
import sklearn

try:  # scikit-learn's compiled tree builder (private: checked by the tests)
    from sklearn.tree._classes import CRITERIA_CLF, CRITERIA_REG, DENSE_SPLITTERS
    from sklearn.tree._tree import DepthFirstTreeBuilder, Tree
except ImportError:  # pragma: no cover - another scikit-learn layout: the slow path
    Tree = None

_MAX_INT = np.iinfo(np.int32).max
#: The scikit-learn releases whose private tree builder the fast path was checked
#: against (tests/test_forest_fit.py); another release takes ``forest.fit``.
CHECKED_SKLEARN = ("1.9.",)


def _lean_settings_ok(forest, X, y) -> bool:
    p = forest.get_params(deep=False)
    return (Tree is not None and sklearn.__version__.startswith(CHECKED_SKLEARN)
            and hasattr(np.random.MT19937, "_legacy_seeding")
            and isinstance(X, np.ndarray) and X.ndim == 2
            and np.asarray(y).ndim == 1 and p.get("max_samples") is None
            and p.get("max_leaf_nodes") is None and p.get("class_weight") is None
            and p.get("monotonic_cst") is None and not p.get("oob_score")
            and not p.get("warm_start") and p.get("min_weight_fraction_leaf") == 0.0
            and p.get("ccp_alpha") == 0.0
            and isinstance(p.get("random_state"), (numbers.Integral, np.random.RandomState))
            and isinstance(p.get("min_samples_leaf"), numbers.Integral)
            and isinstance(p.get("min_samples_split"), numbers.Integral)
            and isinstance(p.get("criterion"), str)
            and bool(np.isfinite(X).all()))


def _max_features(setting, n_features: int) -> int:
    """The tree's ``max_features_`` for a setting (as ``BaseDecisionTree._fit``)."""
    if setting == "sqrt":
        return max(1, int(np.sqrt(n_features)))
    if setting == "log2":
        return max(1, int(np.log2(n_features)))
    if setting is None:
        return n_features
    if isinstance(setting, numbers.Integral):
        return setting
    return max(1, int(setting * n_features)) if setting > 0.0 else 0


def _random_state(bits, seed: int) -> np.random.RandomState:
    """``np.random.RandomState(seed)`` on the reused bit generator ``bits``.

    ``RandomState(seed)`` first seeds a new MT19937 from the operating system's entropy
    and then re-seeds it the legacy way (~0.35 ms; two per tree); the legacy seeding
    alone gives the same stream (tested) in ~4 us.
    """
    bits._legacy_seeding(seed)
    return np.random.RandomState(bits)


def fit_forest(forest, X, y):
    """Fit a scikit-learn forest on ``(X, y)`` as ``forest.fit(X, y)`` does; return it.

    Parameters
    ----------
    forest : RandomForestClassifier, RandomForestRegressor, ExtraTreesClassifier or ExtraTreesRegressor
        A forest; its ``random_state`` an int or a ``RandomState`` (drawn from as
        ``fit`` would; otherwise ``forest.fit`` is called).
    X : ndarray of shape (N, D)
        Finite inputs.
    y : ndarray of shape (N,)
        Labels or targets.

    Returns
    -------
    forest
        The same object, fitted: its trees and predictions equal ``forest.fit(X, y)``'s.
    """
    if not _lean_settings_ok(forest, X, y):
        return forest.fit(X, y)
    forest._validate_params()
    X32 = np.asarray(X, dtype=np.float32)
    n_samples, n_features = X32.shape
    is_classifier = hasattr(forest, "predict_proba")
    y = np.asarray(y)
    if is_classifier:
        classes, encoded = np.unique(y, return_inverse=True)
        forest.classes_, forest.n_classes_ = classes, len(classes)
        y2 = np.ascontiguousarray(encoded.reshape(-1, 1), dtype=np.float64)
        n_classes = np.array([len(classes)], dtype=np.intp)
        tree_classes = np.arange(len(classes), dtype=np.float64)
    else:
        y2 = np.ascontiguousarray(y.reshape(-1, 1), dtype=np.float64)
        n_classes = np.array([1], dtype=np.intp)
    forest.n_features_in_, forest.n_outputs_ = n_features, 1
    forest._n_samples = n_samples
    forest._sample_weight = None
    forest._n_samples_bootstrap = n_samples if forest.bootstrap else None
    forest._validate_estimator()
    template = forest._make_estimator(append=False)  # one clone; the trees are copies
    max_features = _max_features(template.max_features, n_features)
    max_depth = _MAX_INT if template.max_depth is None else template.max_depth
    min_leaf = template.min_samples_leaf
    min_split = max(template.min_samples_split, 2 * min_leaf)
    splitter_cls = DENSE_SPLITTERS[template.splitter]
    rng = forest.random_state
    if isinstance(rng, numbers.Integral):
        rng = np.random.RandomState(rng)
    trees = []
    bits = np.random.MT19937()
    for _ in range(forest.n_estimators):
        seed = rng.randint(_MAX_INT)
        tree = copy.copy(template)
        tree.random_state = seed
        if forest.bootstrap:
            picks = _random_state(bits, seed).randint(0, n_samples, n_samples)
            weight = np.bincount(picks.astype(np.int32), minlength=n_samples).astype(np.float64)
        else:
            weight = None
        if is_classifier:
            criterion = CRITERIA_CLF[template.criterion](1, n_classes)
        else:
            criterion = CRITERIA_REG[template.criterion](1, n_samples)
        # the splitter draws its one integer from the generator when the build starts
        splitter = splitter_cls(criterion, max_features, min_leaf, 0.0,
                                _random_state(bits, seed), None)
        tree.tree_ = Tree(n_features, n_classes, 1)
        DepthFirstTreeBuilder(splitter, min_split, min_leaf, 0.0, max_depth,
                              template.min_impurity_decrease).build(tree.tree_, X32, y2,
                                                                    weight, None)
        tree.n_features_in_, tree.n_outputs_, tree.max_features_ = n_features, 1, max_features
        if is_classifier:
            tree.classes_, tree.n_classes_ = tree_classes, n_classes[0]
        trees.append(tree)
    forest.estimators_ = trees
    return forest


def predict_forest(forest, X) -> np.ndarray:
    """``forest.predict(X)`` for a fitted one-output forest, without the per-tree overhead.

    scikit-learn's ``predict`` runs each tree through joblib and a checked
    ``predict_proba`` / ``predict`` (~0.3 ms a tree on a hundred points); the trees'
    compiled ``tree_.predict`` summed in the same order, divided by the number of trees
    (and for a classifier the class of the largest mean probability) gives the same
    numbers (tested). Other inputs go to ``forest.predict``.

    Parameters
    ----------
    forest : fitted RandomForest or ExtraTrees classifier or regressor
        The forest (one output).
    X : ndarray of shape (n, D)
        Finite inputs.

    Returns
    -------
    ndarray of shape (n,)
        The predicted classes or values.
    """
    trees = getattr(forest, "estimators_", None)
    if (not trees or getattr(forest, "n_outputs_", None) != 1 or not isinstance(X, np.ndarray)
            or X.ndim != 2 or X.shape[1] != forest.n_features_in_
            or not np.isfinite(X).all()):
        return forest.predict(X)
    X32 = np.asarray(X, dtype=np.float32)
    if hasattr(forest, "predict_proba"):
        proba = np.zeros((X32.shape[0], forest.n_classes_), dtype=np.float64)
        for tree in trees:
            proba += tree.tree_.predict(X32)[:, :tree.n_classes_]
        proba /= len(trees)
        return forest.classes_.take(np.argmax(proba, axis=1), axis=0)
    out = np.zeros(X32.shape[0], dtype=np.float64)
    for tree in trees:
        out += tree.tree_.predict(X32)[:, 0]
    out /= len(trees)
    return out
