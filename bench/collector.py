"""The garbage collection Streamlit runs after every page or fragment run (its
``runner.postScriptGC``), in the server's process: with everything the pages import frozen by
:func:`ui.launch.freeze_imports` and the default model loaded after (as the server does), then
with the same objects unfrozen (as before), in the same run; the ratio is what an idle page's
follow (a fragment run every second) costs now against before.

    PYTHONPATH=. .venv/bin/python bench/collector.py [--repeat 5]
"""

import argparse
import gc

from bench.timing import best_time
from forestviz.app import model_cache
from forestviz.app.workflow import load_families
from ui import launch


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    load_families()
    launch.freeze_imports()  # as the server's start does, before its default model is loaded
    bundle = model_cache.load(*model_cache.default())  # the server's default model (make run)
    tracked = len(gc.get_objects())
    after = best_time(lambda: gc.collect(2), args.repeat)
    gc.unfreeze()
    before = best_time(lambda: gc.collect(2), args.repeat)
    print(f"objects the collection scans: {len(gc.get_objects()):,}, with the imports frozen "
          f"{tracked:,} (the default model {'loaded' if bundle else 'not stored: make run'})")
    print(f"full collection: {before * 1e3:.1f} ms, with the imports frozen {after * 1e3:.2f} ms:"
          f" {before / after:.0f}x less")


if __name__ == "__main__":
    main()
