"""What the first page imports (docs/architecture.md, "what the first page imports"; docs/
performance.md, "Cold start"): the modules Home's first run needs load none of the model or
database packages, which the default training imports in the background. The training plan's
split count and the model file's type once pulled scikit-learn into it (found in session 19)."""

import subprocess
import sys

HEAVY = ("sklearn", "numba", "cvxpy", "dtreeviz", "matplotlib", "sqlalchemy", "alembic")


def test_the_first_pages_modules_import_no_model_or_database_package():
    code = ("import sys, ui.models, ui.state, ui.catalog, ui.library, ui.server; "
            f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))")
    found = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True, timeout=120)
    assert found.stdout.strip() == "[]", found.stdout
