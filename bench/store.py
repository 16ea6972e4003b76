"""Model-library speed (issue 28): publishing and opening a 500-tree model, listing 1,000
published versions, each next to a reference measured in the same run.

    PYTHONPATH=. .venv/bin/python bench/store.py [--trees 500] [--versions 1000] [--repeat 3]

Goals: publish ≤ 5 s; open to the first explanation ≤ 2 s; list 1,000 versions ≤ 0.3 s. The
first open is timed on a library whose cache is empty (a server's first session opening that
version); the second on the same library (another session opening it: the cached model).
References: ``persistence.dumps`` / ``persistence.loads`` of the same model's plain model file
(the floor of publishing and opening: every byte goes through them), and the way a model is
opened without the library, ``Workbench.load`` of that file with its training table (baselines
fitted anew). The library is a real SQLite file in a temporary folder. Each step prints its
best wall time and that call's CPU time of this process (which a loaded machine inflates far
less: on a shared machine compare the CPU seconds with the goals).
"""

import argparse
import tempfile
import time
from dataclasses import asdict
from pathlib import Path

from sqlalchemy.orm import Session

from bench.timing import best_wall_and_cpu
from forestviz import persistence
from forestviz.app.workbench import Workbench
from forestviz.app.workflow import Settings
from forestviz.io.bundled import load_dataset
from forestviz.store import StoreConfig, open_library
from forestviz.store.library import ModelVersion
from forestviz.store.tables import PublishedModel


def first_explanation(library, name: str) -> None:
    bench = library.open_model(name).workbench
    bench.explain(bench.highest_risk_row())


def fresh_libraries(config: StoreConfig, count: int):
    """``count`` libraries of ``config``, each with its own empty cache (opened beforehand)."""
    return iter([open_library(config) for _ in range(count)])


def fill(library, template: ModelVersion, versions: int) -> None:
    """``versions`` rows like ``template`` under ten names (the blob is shared)."""
    fields = {k: v for k, v in asdict(template).items() if k not in ("name", "version")}
    fields["excluded"] = list(fields["excluded"])
    with Session(library.engine) as session, session.begin():
        session.add_all(PublishedModel(name=f"model {i % 10}", version=1000 + i, **fields)
                        for i in range(versions))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trees", type=int, default=500)
    parser.add_argument("--versions", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    dataset = load_dataset("pima_diabetes")
    bench = Workbench(dataset)
    started = time.perf_counter()
    bench.train(Settings(family="abrf1_qp", n_estimators=args.trees))
    print(f"ABRF-1 on Pima, {args.trees} trees, trained in {time.perf_counter() - started:.1f} s")
    model_file = bench.save()
    with tempfile.TemporaryDirectory() as folder:
        config = StoreConfig(Path(folder) / "var")
        library = open_library(config)
        names = iter(range(10**6))
        publish = best_wall_and_cpu(lambda: library.publish(bench, name=f"bench {next(names)}",
                                                            intended_use="Screening"),
                            args.repeat)
        payload = persistence.loads(model_file)
        dumps = best_wall_and_cpu(lambda: persistence.dumps(payload), 1)
        fresh = fresh_libraries(config, args.repeat)
        opened = best_wall_and_cpu(lambda: first_explanation(next(fresh), "bench 0"), args.repeat)
        first_explanation(library, "bench 0")
        cached = best_wall_and_cpu(lambda: first_explanation(library, "bench 0"), args.repeat)
        loads = best_wall_and_cpu(lambda: persistence.loads(model_file), args.repeat)
        upload = best_wall_and_cpu(lambda: Workbench(dataset).load(model_file).name, 1)
        fill(library, library.show("bench 0"), args.versions)
        count = len(library.versions())
        listing = best_wall_and_cpu(library.versions, args.repeat)
    rows = [("publish", publish, 5.0, "persistence.dumps of the model file", dumps),
            ("open to the first explanation", opened, 2.0, "persistence.loads of the model file",
             loads),
            ("open to the first explanation", opened, 2.0, "Workbench.load with the table",
             upload),
            ("open again (cached model)", cached, 2.0, "persistence.loads of the model file",
             loads),
            (f"list {count:,} versions", listing, 0.3, "—", (float("nan"),) * 2)]
    print(f"{'step':32} {'wall s':>7} {'CPU s':>7} {'goal':>5}  {'reference':37} {'wall s':>7} "
          f"{'CPU s':>7} {'ratio':>6}")
    for step, (wall, cpu), goal, reference, (base, base_cpu) in rows:
        print(f"{step:32} {wall:7.3f} {cpu:7.3f} {goal:5.1f}  {reference:37} {base:7.3f} "
              f"{base_cpu:7.3f} {cpu / base_cpu:6.2f}")


if __name__ == "__main__":
    main()
