"""Defaults of the "Partition-kernel GPs" page, in one place for the page and its claim test.

Under these settings the page shows its claims (Davies and Ghahramani 2014, Figure 1 and
section 5): on 1-D data with jumps the Random Forest and Fast Cluster kernel GPs' posterior
means are piecewise constant and closer to the true function than the RBF GP's, and the
closed-form preconditioner makes conjugate gradients converge in fewer iterations.
``tests/claims/test_partition_gp.py`` checks them with ``mondrian_core`` directly.
"""
N_POINTS = 150             #: toy data with jumps (toy_jumps_1d), noise as drawn there
N_PARTITIONS = 100         #: partitions m
MAX_LEVEL = 6              #: depth parameter h
NOISE_VARIANCE = 0.1       #: the partition-kernel GPs' noise s (standardised y)
LIFETIME = 20.0            #: the Mondrian kernel's lifetime (x in [0, 1])
CG_KERNEL = "Fast Cluster"  #: the kernel of the CG view
CG_TOL = 1e-8              #: CG's relative tolerance in the CG view
GRID = (-0.05, 1.05, 300)  #: the posterior panels' grid: start, stop, points
REAL_DATA = "diabetes"     #: the real-data views' data set
REAL_PARTITIONS = 100      #: partitions m of the real-data views
SEED = 0
