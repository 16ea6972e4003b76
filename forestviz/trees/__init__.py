"""What every tree ensemble here shares: the fitted trees in one flat node numbering, their
leaf statistics (keys and values of the attention models), the fast leaf look-ups (a
vectorised descent, bit masks, threads), Decision Machines and decision paths in words, the
checks and progress convention of the estimators, what a fit learned as typed values
(``diagnostics``), the ε-contamination mix (``contamination``) and the exact nearest training
rows (``neighbors``).
"""

from forestviz._lazy import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    "fitted_trees": "forestviz.trees.fitted",
    "estimator_trees": "forestviz.trees.fitted",
    "FlatTrees": "forestviz.trees.flat",
    "LeafMasks": "forestviz.trees.masks",
    "forest_leaf_ids": "forestviz.trees.lookup",
    "LeafStats": "forestviz.trees.leaf_stats",
    "LeafTable": "forestviz.trees.leaf_values",
    "DecisionMachine": "forestviz.trees.machine",
    "PathStep": "forestviz.trees.paths",
    "Flip": "forestviz.trees.paths",
    "Alternative": "forestviz.trees.paths",
    "Progress": "forestviz.trees.checks",
    "check_sample_weight": "forestviz.trees.checks",
    "standard_scaling": "forestviz.trees.rows",
    "split_rows": "forestviz.trees.rows",
    "Diagnostics": "forestviz.trees.diagnostics",
    "NearestRows": "forestviz.trees.neighbors",
})
