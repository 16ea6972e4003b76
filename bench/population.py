"""The whole-model views' speed (issue 29): the held-out rows' explanations together, a
dependence plot and a partial-dependence switch, against the model's own ``predict_proba`` on
the same rows in the same run.

    PYTHONPATH=. .venv/bin/python bench/population.py [--rows 1000] [--trees 100] [--repeat 3]

Goals on a 2-core machine: global contributions of 1,000 held-out rows of a 100-tree model
≤ 3 s (computed once per model, then cached), a dependence plot or cohort switch ≤ 0.3 s after
that; stability of one row ≤ 0.2 s.
"""

import argparse

import numpy as np
import pandas as pd

from bench.timing import best_time
from forestviz.app import new_rows
from forestviz.app.workbench import Workbench
from forestviz.app.workflow import Settings
from forestviz.explain.plots import population as population_plots
from forestviz.explain.whole.population import Population
from forestviz.io.bundled import load_dataset


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1000)
    parser.add_argument("--trees", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    bench = Workbench(load_dataset("breast_cancer"))
    for family in ("abrf1_qp", "erf"):
        bundle = bench.train(Settings(family=family, n_estimators=args.trees, random_state=0))
        rows = bench.dataset.X.iloc[np.resize(bundle.test_rows, args.rows)]
        encoded = bundle.preprocessor.transform(rows)
        reference = best_time(lambda e=encoded, b=bundle: b.estimator.predict_proba(e),
                              args.repeat)

        def everything(b=bundle, r=rows):
            found = new_rows.several(b, r, max_rows=None)
            return Population.from_outputs(found.outputs, r, found.target)

        ours = best_time(everything, args.repeat)
        population = everything()
        columns = list(population.importance()["column"])

        def switch(p=population, c=columns):
            """A column picked: its dependence figure and its partial dependence."""
            for column in c[:3]:
                population_plots.dependence_figure(p.dependence(column), column, p.target)
                bench.whole().partial_dependence(column)

        switch_time = best_time(switch, args.repeat) / 3
        cohort = best_time(lambda: bench.whole().cohorts("outcome"), args.repeat)
        e = bench.explain(int(bundle.test_rows[0]))
        stability = best_time(lambda e=e: bench.whole().stability(e), args.repeat)
        print(pd.Series({
            "model": f"{bundle.name}, {args.trees} trees", "rows": args.rows,
            "predict_proba (s)": round(reference, 3),
            "global contributions (s)": round(ours, 3),
            "ratio to predict_proba": round(ours / reference, 1),
            "column switch: dependence + partial dependence (s)": round(switch_time, 3),
            "cohort switch (s)": round(cohort, 3),
            "stability of one row (s)": round(stability, 3)}).to_string())
        print()


if __name__ == "__main__":
    main()
