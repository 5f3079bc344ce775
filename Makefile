# keval: `make demo` evaluates the example submissions; `make test` runs every test.
SHELL := /bin/bash
BUILD ?= build
KEVAL ?= $(BUILD)/keval
DEVICE ?= auto
PY = $(shell bash scripts/python.sh)
PREFIX ?= /usr/local
# Suites of keval runs on two workers, a file each at a time (a file's tests share its set-up,
# such as the examples run): their runs leave cores idle while they start and write.
XDIST ?= -n 2 --dist loadfile
# Every test has a time limit (pytest.ini's timeout); make test refuses to run without the
# plugin that enforces it (pytest would only warn of an unknown setting).
PYTEST = $(PY) -m pytest -o required_plugins=pytest-timeout

.PHONY: all deps build install demo test test-layers test-cpp test-runner test-e2e test-hostile test-adapters test-aa test-dataset test-generate test-scale test-mutate test-client test-ci test-docs clean

all: build

deps:
	@KEVAL_PREBUILT=$(if $(filter $(BUILD)/keval,$(KEVAL)),0,1) bash scripts/install-deps.sh

# A carried, prebuilt binary (KEVAL=path) is used as is. keval.python records the runner's
# Python beside the binary, so `build/keval run ...` finds it without KEVAL_PYTHON.
build: deps
	@if [ "$(KEVAL)" = "$(BUILD)/keval" ]; then \
	  cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release \
	    -DKEVAL_WARNINGS_AS_ERRORS=$(if $(filter true,$(CI)),ON,OFF) >/dev/null && \
	  ninja -C $(BUILD) -j$$(nproc) && \
	  echo "$(PY)" > $(BUILD)/keval.python ; fi

# keval on PATH: $(PREFIX)/bin/keval, its runner and the recorded Python in $(PREFIX)/share/keval.
install: build
	install -d $(PREFIX)/bin $(PREFIX)/share/keval/runner
	install -m 755 $(BUILD)/keval $(PREFIX)/bin/keval
	cp -r runner/keval_runner runner/keval_adapters runner/keval_dataset runner/keval_report runner/keval_mutate $(PREFIX)/share/keval/runner/
	echo "$(PY)" > $(PREFIX)/share/keval/python
	@echo "installed $(PREFIX)/bin/keval (runner Python: $(PY))"

demo: build
	KEVAL_PYTHON=$(PY) $(KEVAL) run --suite suites/keval --submissions examples/submissions.jsonl \
	  --out out/demo --device $(DEVICE)
	@$(PY) scripts/demo_check.py out/demo/results.jsonl examples/expected_verdicts.json
	-KEVAL_PYTHON=$(PY) $(KEVAL) report out/demo --out out/demo/report.html

test: build test-layers test-cpp test-runner test-e2e test-hostile test-adapters test-aa test-dataset test-generate test-scale test-mutate test-client test-ci test-docs

# What the build cannot check of the layers: no src/ include by a ../ path, no import cycle in
# runner/ (docs/decisions/0001-layers-as-cmake-libraries.md; CMake refuses an include up the
# layers).
test-layers:
	$(PYTEST) -q tests/layers

# Each test has a TIMEOUT (CMakeLists.txt, gtest_discover_tests).
test-cpp:
	cd $(BUILD) && ctest --output-on-failure -j2

# test_gpu.py needs a GPU: scripts/gpu-validate.sh runs it on the H200 (step runner-gpu).
test-runner:
	TRITON_INTERPRET=1 PYTHONPATH=runner $(PYTEST) -q tests/runner --ignore=tests/runner/test_gpu.py

test-e2e:
	KEVAL=$(abspath $(KEVAL)) KEVAL_PYTHON=$(PY) $(PYTEST) -q $(XDIST) tests/e2e

# Its first test's set-up is the three shared runs of every case: a longer limit.
test-hostile:
	KEVAL=$(abspath $(KEVAL)) KEVAL_PYTHON=$(PY) $(PYTEST) -q -o timeout=1500 tests/hostile

test-adapters:
	KEVAL=$(abspath $(KEVAL)) KEVAL_PYTHON=$(PY) $(PYTEST) -q $(XDIST) tests/adapters

# A/A on the CPU: each suite's baseline against itself, a loose bound that fails only when two
# runs in a row are off, and a one-sided slowdown that must fail it (bench/aa_bias.py).
test-aa:
	KEVAL=$(abspath $(KEVAL)) KEVAL_PYTHON=$(PY) $(PYTEST) -q tests/aa

# The latency dataset: export, import, splits, sweep variants, predictor (docs/dataset.md).
test-dataset:
	KEVAL=$(abspath $(KEVAL)) KEVAL_PYTHON=$(PY) PYTHONPATH=runner $(PYTEST) -q $(XDIST) tests/dataset

# Shards and merge, a one-node Slurm started on localhost, the HTTP service (docs/scale.md).
test-scale:
	KEVAL=$(abspath $(KEVAL)) KEVAL_PYTHON=$(PY) $(PYTEST) -q $(XDIST) tests/scale

# keval generate against a real local HTTP server, then run, scores and compare (docs/generate.md).
test-generate:
	KEVAL=$(abspath $(KEVAL)) KEVAL_PYTHON=$(PY) PYTHONPATH=runner $(PYTEST) -q tests/generate

# keval mutate: the operators on small sources, then the real binary on relu and softmax (docs/mutation.md).
test-mutate:
	KEVAL=$(abspath $(KEVAL)) KEVAL_PYTHON=$(PY) $(PYTEST) -q tests/mutate

# keval_client (clients/python) against a real keval serve on the CPU, and examples/grpo_loop.py
# end to end with a fake model (docs/client.md).
test-client:
	KEVAL=$(abspath $(KEVAL)) KEVAL_PYTHON=$(PY) $(PYTEST) -q tests/client

# scripts/check-commit-subjects.sh (which .ci/run calls) on temporary git repositories.
test-ci:
	$(PYTEST) -q tests/ci

# The map (docs/architecture.md, docs/decisions/) names only what exists; docs/ holds no dated
# log; bench/RESULTS.md fits on a screen.
test-docs:
	$(PYTEST) -q tests/docs

clean:
	rm -rf $(BUILD) out
