"""One run of the Explain page for a row (issue 38's "summary within 1 s with 10 other sessions
busy"): the script thread's CPU seconds for the whole run and until the summary is laid out,
next to the library's explanation and glance of the same rows measured in the same run, and a
row's figures built as the page did before (every one, each run) against those it shows, built
once and kept (:mod:`forestviz.app.row_cache`).

    PYTHONPATH=. .venv/bin/python bench/explain_page.py [--rows 5] [--profile 30]

The app runs under Streamlit's AppTest (one process, the default model trained by the Home
page's button, Pima); the rows are chosen by ID, one page run each (AppTest reruns the whole
script, app.py's navigation included, where a browser reruns only the page's fragment), each
row the first time (its tree drawings made) and again (drawings and figures kept). Every
session's script shares one interpreter, so a run's CPU seconds are what it takes from the
other sessions. ``--profile N`` prints the N costliest functions (cumulative) of the script
thread over the measured runs (cProfile, enabled in that thread only).
"""

import argparse
import cProfile
import pstats
import statistics
import tempfile
import time
from pathlib import Path

from streamlit.runtime.scriptrunner.script_runner import ScriptRunner

import ui.summary_view
from bench.timing import best_time
from forestviz.app.workbench import Workbench
from forestviz.explain.plots.conventions import WIDTH
from forestviz.explain.row.figures import figures
from forestviz.explain.row.view import figure_names
from tests.apptest_helpers import app, finish_jobs
from ui.state import CHOICE

RUNS: list[dict] = []  # one entry per script run: its thread's CPU seconds, whole and to summary


def measured(run_script, profiler: cProfile.Profile | None):
    def run(self, rerun_data):
        entry = {"start": time.thread_time()}
        RUNS.append(entry)
        if profiler is not None:
            profiler.enable()
        try:
            return run_script(self, rerun_data)
        finally:
            if profiler is not None:
                profiler.disable()
            entry["whole"] = time.thread_time() - entry["start"]
    return run


def summary_marked(summary):
    def laid_out(*args, **kwargs):
        summary(*args, **kwargs)
        if RUNS and "summary" not in RUNS[-1]:
            RUNS[-1]["summary"] = time.thread_time() - RUNS[-1]["start"]
    return laid_out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=5)
    parser.add_argument("--profile", type=int, default=0)
    args = parser.parse_args()
    profiler = cProfile.Profile() if args.profile else None
    at = app()
    at.button(key="home_explain").click().run()
    finish_jobs(at)
    at.radio(key="explain_picker").set_value("id").run()
    bundle, dataset = at.session_state["model"], at.session_state["dataset"]
    rows = [str(dataset.ids.iloc[p]) for p in bundle.test_rows[: args.rows + 1]]
    at.text_input(key="explain_id").input(rows[0]).run()  # warm: imports, the model's digest
    ScriptRunner._run_script = measured(ScriptRunner._run_script, profiler)
    ui.summary_view.summary = summary_marked(ui.summary_view.summary)
    for passed in ("first time", "again"):  # again: the same rows, as a busy session does
        RUNS.clear()
        for row in rows[1:]:
            at.text_input(key="explain_id").input(row).run()
            assert not at.exception, at.exception
        whole = [r["whole"] for r in RUNS]
        summary = [r["summary"] for r in RUNS]
        print(f"{passed}, {len(whole)} rows: page run CPU median {statistics.median(whole):.3f} "
              f"s (max {max(whole):.3f}); to the summary median "
              f"{statistics.median(summary):.3f} s (max {max(summary):.3f})")
    bench = Workbench(dataset, at.session_state[CHOICE], model=bundle)
    ids = dataset.ids.astype(str).tolist()

    def library() -> None:
        for row in rows[1:]:
            bench.glance(bench.explain(values=dataset.X.iloc[ids.index(row)], row_id=row))
    reference = best_time(library, 3, clock=time.process_time) / len(rows[1:])
    print(f"the library's explanation + glance of a row: {reference:.3f} CPU-s; ratios: "
              f"page run {statistics.median(whole) / reference:.1f}, "
              f"to the summary {statistics.median(summary) / reference:.1f}")
    e = bench.explain(values=dataset.X.iloc[ids.index(rows[1])], row_id=rows[1])
    choice = bench.tree_choice(e)
    every = best_time(lambda: figures(e, width=WIDTH, trees=choice.trees), 3, time.process_time)
    names = figure_names(choice.equal_weights)
    shown = best_time(lambda: figures(e, width=WIDTH, trees=choice.trees, names=names), 3,
                      time.process_time)
    glance = bench.glance(e)
    bench.explain_view(e, glance, width=WIDTH)
    kept = best_time(lambda: bench.explain_view(e, glance, width=WIDTH), 3, time.process_time)
    print(f"a row's figures: every one built, as the page did before issue 38's change "
          f"{every:.3f} CPU-s; those shown {shown:.3f} ({every / shown:.1f}x less); kept "
          f"(the row's whole view again) {kept * 1000:.2f} ms ({every / kept:.0f}x less)")
    if profiler is not None:
        profiler.dump_stats(str(Path(tempfile.gettempdir()) / "explain_page.prof"))
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(args.profile)


if __name__ == "__main__":
    main()
