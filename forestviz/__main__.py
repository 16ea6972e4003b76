"""``python -m forestviz``: the command line (:mod:`forestviz.cli`)."""

from forestviz.cli.main import run

if __name__ == "__main__":  # Dask's worker processes import this module again: run only here
    run()
