"""Mondrian forests: the estimators (:mod:`.estimators`) apart from the online tree store
and its walks (:mod:`.tree_store`)."""
from mondrian_core.forest.amf import AMFClassifier, AMFRegressor
from mondrian_core.forest.debiased import DebiasedMondrianForestRegressor
from mondrian_core.forest.estimators import (
                                             MAX_ONLINE_UPDATES,
                                             MondrianForestClassifier,
                                             MondrianForestRegressor,
)
from mondrian_core.forest.tree_store import (
                                             EXTEND,
                                             INSERT_ABOVE,
                                             NO_CHANGE,
                                             OPERATION_NAMES,
                                             SPLIT_LEAF,
)

__all__ = ["AMFClassifier", "AMFRegressor", "DebiasedMondrianForestRegressor", "EXTEND",
           "INSERT_ABOVE", "MAX_ONLINE_UPDATES", "NO_CHANGE", "OPERATION_NAMES", "SPLIT_LEAF",
           "MondrianForestClassifier", "MondrianForestRegressor"]
