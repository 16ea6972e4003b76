"""Training in a worker process (forestviz.app.jobs) against training in the calling thread.

The app trains in worker processes so pages never freeze; this measures what that costs, in
the same run: the start of a job once the forkserver is warm, the first job (forkserver start
plus its imports), and the default Train-page training on the bundled Pima table through the
pool against the same ``workflow.train_bundle`` call in this process.

    PYTHONPATH=. .venv/bin/python bench/jobs.py [--repeat 3]
"""

import argparse
import statistics
import time

from bench.timing import best_time
from forestviz.app import workflow
from forestviz.app.jobs import JobPool
from forestviz.io.bundled import DEFAULT_DATASET, load_dataset
from forestviz.io.dataset import DataChoice
from forestviz.registry import FAMILIES


def nothing(*, progress):
    return None


def run(pool: JobPool, fn, *args):
    job = pool.submit(fn, *args)
    job.wait()
    return job.result()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    repeat = parser.parse_args().repeat
    from bench import jobs  # this file as an importable module: workers look functions up by name

    pool = JobPool(preload=("forestviz.app.warm",))
    started = time.perf_counter()
    run(pool, jobs.nothing)
    first = time.perf_counter() - started
    starts = []
    for _ in range(10):
        started = time.perf_counter()
        run(pool, jobs.nothing)
        starts.append(time.perf_counter() - started)
    dataset = load_dataset(DEFAULT_DATASET)
    choice = DataChoice(f"bundled:{DEFAULT_DATASET}", dataset.target, dataset.id_column, (),
                        dataset.task)
    settings = workflow.default_settings(dataset.task)
    args = (dataset, choice, settings)
    direct = best_time(lambda: workflow.train_bundle(*args, progress=lambda *_: None), repeat)
    pooled = best_time(lambda: run(pool, workflow.train_bundle, *args), repeat)
    print(f"first job (forkserver start + imports): {first:.2f} s")
    print(f"start of a later job: median {1000 * statistics.median(starts):.1f} ms, "
          f"max {1000 * max(starts):.1f} ms")
    print(f"default training on {DEFAULT_DATASET} ({FAMILIES[settings.family].label}, "
          f"{settings.n_estimators} trees, with both baselines): in this thread {direct:.2f} s, "
          f"in a worker {pooled:.2f} s, ratio {pooled / direct:.2f}x")


if __name__ == "__main__":
    main()
