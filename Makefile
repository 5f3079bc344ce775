# keval: `make demo` evaluates the example submissions; `make test` runs every test.
SHELL := /bin/bash
BUILD ?= build
KEVAL ?= $(BUILD)/keval
DEVICE ?= auto
PY = $(shell bash scripts/python.sh)

.PHONY: all deps build demo test test-layers test-cpp test-runner test-e2e test-hostile test-adapters test-dataset test-generate test-scale clean

all: build

deps:
	@KEVAL_PREBUILT=$(if $(filter $(BUILD)/keval,$(KEVAL)),0,1) bash scripts/install-deps.sh

# A carried, prebuilt binary (KEVAL=path) is used as is.
build: deps
	@if [ "$(KEVAL)" = "$(BUILD)/keval" ]; then \
	  cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null && \
	  ninja -C $(BUILD) -j$$(nproc) ; fi

demo: build
	KEVAL_PYTHON=$(PY) $(KEVAL) run --suite suites/keval --submissions examples/submissions.jsonl \
	  --out out/demo --device $(DEVICE)

test: build test-layers test-cpp test-runner test-e2e test-hostile test-adapters test-dataset test-generate test-scale

# No src/ include up the layers, no import cycle in runner/ (docs/architecture.md, "Layers").
test-layers:
	$(PY) -m pytest -q tests/layers

test-cpp:
	cd $(BUILD) && ctest --output-on-failure -j2

# test_gpu.py needs a GPU: scripts/gpu-validate.sh runs it on the H200 (step runner-gpu).
test-runner:
	TRITON_INTERPRET=1 PYTHONPATH=runner $(PY) -m pytest -q tests/runner --ignore=tests/runner/test_gpu.py

test-e2e:
	KEVAL=$(abspath $(KEVAL)) KEVAL_PYTHON=$(PY) $(PY) -m pytest -q tests/e2e

test-hostile:
	KEVAL=$(abspath $(KEVAL)) KEVAL_PYTHON=$(PY) $(PY) -m pytest -q tests/hostile

test-adapters:
	KEVAL=$(abspath $(KEVAL)) KEVAL_PYTHON=$(PY) $(PY) -m pytest -q tests/adapters

# The latency dataset: export, import, splits, sweep variants, predictor (docs/dataset.md).
test-dataset:
	KEVAL=$(abspath $(KEVAL)) KEVAL_PYTHON=$(PY) PYTHONPATH=runner $(PY) -m pytest -q tests/dataset

# Shards and merge, a one-node Slurm started on localhost, the HTTP service (docs/scale.md).
test-scale:
	KEVAL=$(abspath $(KEVAL)) KEVAL_PYTHON=$(PY) $(PY) -m pytest -q tests/scale

# keval generate against a real local HTTP server, then run, scores and compare (docs/generate.md).
test-generate:
	KEVAL=$(abspath $(KEVAL)) KEVAL_PYTHON=$(PY) PYTHONPATH=runner $(PY) -m pytest -q tests/generate

clean:
	rm -rf $(BUILD) out
