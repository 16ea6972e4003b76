# forestviz: `make run` sets everything up and starts the app; `make test` sets up and runs every test.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
# fonts-droid-fallback: glyphs DejaVu lacks (CJK) in the PDF record and the tree drawings
RUNTIME_DEBS := graphviz fonts-dejavu-core fonts-droid-fallback libpango-1.0-0 libpangoft2-1.0-0 \
	libharfbuzz-subset0
# postgresql: the throwaway server the store tests also run on (tests/postgres_server.py)
TEST_DEBS := $(RUNTIME_DEBS) chromium postgresql
PORT ?= 8501
# pytest-xdist workers for each test tier run alone; in the unit and slow tiers each keeps BLAS
# to one thread, as more threads than cores only spin
TEST_WORKERS ?= 2
# workers for `make test`'s one run of every tier: a third, because a browser test waits on its
# pages, servers and sleeps for about a quarter of its time (0.17 to 1.9 cores each;
# docs/performance.md, "The suite's 15 minutes")
ALL_WORKERS ?= 3
# worksteal: a worker that runs out of tests takes half of the other's queue. xdist's default
# ("load") never takes back tests it has sent, so one worker was left to finish the slow tier's
# AppTest flows and the nested debug-build run (tests/test_kernel_bounds.py) while the other
# idled (docs/performance.md, "Where the time goes")
WORKSTEAL := -n $(TEST_WORKERS) --dist worksteal
ONE_BLAS_THREAD := OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1

# Python writes its bytecode caches (__pycache__, ignored by git) even where the environment
# says not to: without them every pytest process compiled and rewrote the asserts of all 214
# test modules again, and a collection took 15 s instead of 9 s. So the installer need not
# compile every module it installs (plotly alone has thousands no page imports): the first
# import compiles what is used, once (docs/performance.md)
unexport PYTHONDONTWRITEBYTECODE
# uv installs the exact pins (its `pip install`): from its cache it links the files where pip
# unpacked every wheel again, 3 s for the runtime's pins where pip took 15 s (docs/performance.md,
# "Session 28"). It is itself pinned, and put in the venv by the machine's pip.
UV_VERSION := 0.13.9
UV_INSTALL := $(VENV)/bin/uv pip install --quiet --python $(PY)

.PHONY: run test test-setup test-unit test-slow test-browser fuzz fuzz-tables fuzz-steps \
  lint bench reproduce system-deps test-system-deps clean freeze

# ui.launch is Streamlit's command line that also starts loading the default model at once
# (docs/performance.md, "Cold start and page speed"); it takes the same arguments
run: $(VENV)/.runtime $(VENV)/.kernels $(VENV)/.default-model system-deps
	$(PY) -m ui.launch run app.py --server.address 127.0.0.1 --server.port $(PORT)

# What every test tier needs, made two at a time: the test packages' install beside the
# kernels' compile, each on one core (a clean clone's set-up, docs/performance.md)
TEST_SETUP := $(VENV)/.test $(VENV)/.kernels $(VENV)/.default-model test-system-deps

test-setup:
	$(MAKE) --no-print-directory --jobs=2 $(TEST_SETUP)

TEST_DEPS = test-setup

# Every test (docs/performance.md, "Test suite"): ruff, then the unit, slow and browser tiers in
# one pytest run on ALL_WORKERS pytest-xdist workers, each with one BLAS thread (each browser
# test with the app server and Chromium of its worker): the CPU-bound tests fill what the
# browser tests leave while they wait, and the workers' start-ups and last stragglers are paid
# once. One tier alone: make test-unit (ruff and the unit tests: the inner loop, stopping at the
# first failure), make test-slow, make test-browser.
test: $(TEST_DEPS)
	$(PY) -m ruff check .
	$(ONE_BLAS_THREAD) $(PY) -m pytest -n $(ALL_WORKERS) --dist worksteal

test-unit: $(TEST_DEPS)
	$(PY) -m ruff check .
	$(ONE_BLAS_THREAD) $(PY) -m pytest $(WORKSTEAL) -x -m "not slow and not browser"

test-slow: $(TEST_DEPS)
	$(ONE_BLAS_THREAD) $(PY) -m pytest $(WORKSTEAL) -m "slow and not browser"

test-browser: $(TEST_DEPS)
	$(PY) -m pytest -n $(TEST_WORKERS) -m browser

# The generated tests' long profiles (docs/reliability.md): hundreds of tables and of step
# orders through one session of the app
fuzz: fuzz-tables fuzz-steps

# The longer generated profiles (docs/reliability.md): FUZZ_TABLES tables drawn across the
# generated-table tests (up to 3,000 rows each), a line per table and every failing table's
# CSV in FUZZ_LOG; the run ends saying how many tables a minute it ran.
FUZZ_TABLES ?= 500
FUZZ_LOG ?= fuzz-log
fuzz-tables: $(VENV)/.test $(VENV)/.kernels test-system-deps
	mkdir -p $(FUZZ_LOG) && rm -f $(FUZZ_LOG)/tables.log
	start=$$(date +%s); FORESTVIZ_FUZZ_TABLES=$(FUZZ_TABLES) \
	FORESTVIZ_FUZZ_LOG=$(abspath $(FUZZ_LOG)) $(ONE_BLAS_THREAD) $(PY) -m pytest $(WORKSTEAL) \
	-p no:randomly tests/test_generated_tables.py; status=$$?; \
	awk -F '\t' -v s=$$(( $$(date +%s) - start )) '$$5 != "ok" {print "failed:", $$0} \
	END {printf "generated tables: %d in %d s, %.1f tables per minute\n", NR, s, 60 * NR / s}' \
	$(FUZZ_LOG)/tables.log; exit $$status

# tests/test_steps.py (STEP_SEQUENCES sets how many): a line per sequence (its steps) in
# FUZZ_LOG/steps.log; the run ends saying how many sequences a minute it ran
fuzz-steps: $(VENV)/.test $(VENV)/.kernels test-system-deps
	mkdir -p $(FUZZ_LOG) && rm -f $(FUZZ_LOG)/steps.log
	start=$$(date +%s); FORESTVIZ_FUZZ=1 STEPS_LOG=$(abspath $(FUZZ_LOG))/steps.log \
	$(ONE_BLAS_THREAD) $(PY) -m pytest -p no:randomly -q tests/test_steps.py \
	--hypothesis-show-statistics --durations=1; status=$$?; \
	awk -v s=$$(( $$(date +%s) - start )) '{steps += $$1} END {printf \
	"step sequences: %d (%d steps) in %d s, %.1f a minute\n", NR, steps, s, 60 * NR / s}' \
	$(FUZZ_LOG)/steps.log; exit $$status

lint: $(VENV)/.test
	$(PY) -m ruff check .

BENCHES := leafstats abrf erf neighbors agboost explain store
REPRODUCTIONS := reproduce_selection reproduce_abrf reproduce_erf reproduce_agboost

bench: $(VENV)/.runtime system-deps
	for b in $(BENCHES); do echo "== bench/$$b.py"; PYTHONPATH=. $(PY) bench/$$b.py || exit 1; done

reproduce: $(VENV)/.bench
	for b in $(REPRODUCTIONS); do echo "== bench/$$b.py"; PYTHONPATH=. $(PY) bench/$$b.py || exit 1; done

system-deps:
	bash scripts/ensure-debian-packages.sh $(RUNTIME_DEBS)

test-system-deps:
	bash scripts/ensure-debian-packages.sh $(TEST_DEBS)

$(VENV)/bin/python:
	$(PYTHON) -m venv --without-pip $(VENV)

# a venv made before uv (with pip in it) gets uv too
$(VENV)/bin/uv: | $(VENV)/bin/python
	$(PYTHON) -m pip --python $(PY) install --quiet uv==$(UV_VERSION)

$(VENV)/.runtime: requirements.txt | $(VENV)/bin/uv
	$(UV_INSTALL) -r requirements.txt
	touch $@

# The numba kernels (ERF's, the leaf look-ups') are compiled on first use and cached beside
# their modules (cache=True): compile them here, after the install, so that no app start or
# first training pays for it.
# forestviz.app.warm runs the default classification training on a small table (what the
# training workers' forkserver also imports); numba recompiles when a kernel's source changes.
# matplotlib's font list (built once per machine, seconds) is made here too, not at the first
# tree drawing.
KERNEL_SOURCES := $(wildcard forestviz/enhanced/*.py forestviz/trees/*.py)
$(VENV)/.kernels: $(KERNEL_SOURCES) $(VENV)/.runtime
	PYTHONPATH=. $(PY) -c "import forestviz.app.warm, matplotlib.font_manager"
	touch $@

# The default model's file (forestviz.app.model_cache), so that a server loads it at its start
# rather than training it; its name hashes the library's code and the data, so a change to
# either only makes the server train (and store) it again.
$(VENV)/.default-model: $(shell find forestviz -name '*.py') $(wildcard data/*.csv) $(VENV)/.kernels
	PYTHONPATH=. $(PY) -m forestviz.app.model_cache
	touch $@

$(VENV)/.bench: requirements-bench.txt $(VENV)/.runtime
	$(UV_INSTALL) -r requirements-bench.txt
	touch $@

$(VENV)/.test: requirements-test.txt $(VENV)/.runtime
	$(UV_INSTALL) -r requirements-test.txt
	touch $@

freeze: $(VENV)/.test
	$(VENV)/bin/uv pip freeze --python $(PY) --exclude-editable

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache

