#!/usr/bin/env bash
# One device call that checks keval's GPU path end to end. Run on the GPU machine from the repo
# root with a carried binary: KEVAL=.device/keval bash scripts/gpu-validate.sh [steps...]
# Steps: env core demo hostile sanitize runner-gpu warden-clock calibration throughput repeatability suite
#        suite-correct ncu elementwise-tuning peers peers-llm kernelbench-refs kbx-published
#        aa-kbx (AA_RUNS, AA_SIDES_TASKS, PEER_TASKS, AA_BASELINE)
#        serve-load (scripts/serve-load.sh: LANES, SERVE_JOBS, CLIENTS, REQUESTS, KILL_AT, LOAD_S)
#        mutate (MUTATE_TASKS, default the tasks suites/keval/MUTANTS.md names as not yet counted;
#        resumable: a cut step goes on where it stopped when run again on the same machine)
#        (peer checkouts exported under $PEERS, default .device/peers)
# (default: env core demo).
# Logs go to $OUT (or ./gpu-logs), packed into logs.tgz with PACK=1; the last lines printed
# are the summary.
set -uo pipefail
KEVAL=${KEVAL:-build/keval}
LOG=${OUT:-gpu-logs}
mkdir -p "$LOG"
export KEVAL_PYTHON=${KEVAL_PYTHON:-python3} PYTHONUNBUFFERED=1 KEVAL="$(realpath "$KEVAL")"
# Each step is cut at STEP_TIMEOUT seconds, so one slow step cannot take a whole device call.
STEP_TIMEOUT=${STEP_TIMEOUT:-240}
JOBS=${JOBS:-2}  # worker slots per GPU for core, suite and demo
# DEVICE=cpu: the peer steps on the CPU (a dry run of this script before a device call)
DEVICE=${DEVICE:-cuda}
# THROUGHPUT_ARGS, REPEAT_ARGS, NCU_ARGS: arguments of those benches (e.g. "--tasks a,b");
# THROUGHPUT_JOBS: slots per GPU for the throughput bench (default $JOBS)
# TASKS=a,b: the suite step validates only these (a STATUS.md from several runs:
# keval validate --status FILE --from RESULTS --from RESULTS2 ...)
# Peer steps: PEER_SUITES (peers: which suites), PEER_TASKS (a --tasks glob), PEER_JOBS (slots
# per GPU), LLM_TIMEOUT (peers-llm: seconds per job and per script), JUDGE_JOBS (compare-judges
# scripts at once), KBX_TASKS (kbx-published)
T="timeout -k 5 $STEP_TIMEOUT"
CORE=vector_add,relu,softmax,layer_norm,rms_norm,row_sum,matmul,bias_gelu,cross_entropy,cumsum,rope,w8a16_matmul
steps=${*:-env core demo}
summary=()
for step in $steps; do
  start=$(date +%s)
  case $step in
    env) { nvidia-smi; $KEVAL_PYTHON -c 'import torch, triton, sys; print(sys.version, torch.__version__, triton.__version__, torch.cuda.get_device_name())'; $KEVAL --version; ls -l /dev/nvidia*; } > "$LOG/env.txt" 2>&1; rc=$? ;;
    core) $T $KEVAL validate --suite suites/keval --tasks "$CORE" --device cuda --jobs "$JOBS" --out /tmp/kv-core > "$LOG/core.txt" 2>&1; rc=$?
          cp /tmp/kv-core/results.jsonl "$LOG/core-results.jsonl" 2>/dev/null
          $KEVAL_PYTHON bench/job_seconds.py /tmp/kv-core/results.jsonl >> "$LOG/core.txt" 2>&1 ;;
    suite-correct) $T $KEVAL validate --suite suites/keval --device cuda --no-timing --jobs "$JOBS" --out /tmp/kv-suite-correct > "$LOG/suite-correct.txt" 2>&1; rc=$?
          cp /tmp/kv-suite-correct/results.jsonl "$LOG/suite-correct-results.jsonl" 2>/dev/null ;;
    suite) $T $KEVAL validate --suite suites/keval ${TASKS:+--tasks "$TASKS"} --device cuda --jobs "$JOBS" --out /tmp/kv-suite --status "$LOG/STATUS.md" > "$LOG/suite.txt" 2>&1; rc=$?
          cp /tmp/kv-suite/results.jsonl "$LOG/suite-results.jsonl" 2>/dev/null; cp /tmp/kv-suite/summary.json "$LOG/suite-summary.json" 2>/dev/null
          # cut short: a STATUS.md of what it judged
          [ -s "$LOG/STATUS.md" ] || $KEVAL validate --suite suites/keval --status "$LOG/STATUS.md" --from "$LOG/suite-results.jsonl" >> "$LOG/suite.txt" 2>&1
          $KEVAL_PYTHON bench/job_seconds.py /tmp/kv-suite/results.jsonl >> "$LOG/suite.txt" 2>&1 ;;
    demo) $T $KEVAL run --suite suites/keval --submissions examples/submissions.jsonl --out /tmp/kv-demo --device cuda --jobs "$JOBS" > "$LOG/demo.txt" 2>&1; rc=$?
          cp /tmp/kv-demo/results.jsonl "$LOG/demo-results.jsonl" 2>/dev/null; cp /tmp/kv-demo/summary.json "$LOG/demo-summary.json" 2>/dev/null
          $KEVAL_PYTHON bench/job_seconds.py /tmp/kv-demo/results.jsonl >> "$LOG/demo.txt" 2>&1 ;;
    sanitize) mkdir -p /tmp/kv-san-subs && python3 - "$LOG" <<'PY' && $T $KEVAL run --suite suites/keval --submissions /tmp/kv-san-subs/subs.jsonl --out /tmp/kv-san --device cuda --no-timing --sanitize > "$LOG/sanitize.txt" 2>&1; rc=$?
import json, pathlib
rows = [{"id": "relu_golden", "task": "relu", "code": pathlib.Path("suites/keval/relu/golden.py").read_text()}]
for path in ["tests/sanitize/oob_read_discarded.py"] + [f"tests/hostile/cases/{n}.py" for n in ("oob_store_past_input", "oob_store_before_input")]:
    name, code = pathlib.Path(path).stem, pathlib.Path(path).read_text()
    task = next(l.split(":", 1)[1].strip() for l in code.splitlines() if l.startswith("# task:"))
    rows.append({"id": name, "task": task, "code": code})
pathlib.Path("/tmp/kv-san-subs/subs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
PY
          cat /tmp/kv-san/logs/memcheck-*.log >> "$LOG/sanitize.txt" 2>/dev/null ;;
    peers) P=${PEERS:-.device/peers}  # exported peer checkouts (never committed)
          # each peer's own references as submissions of their tasks (issue 6), the PyTorch ones
          # under any-code. One lane per GPU (CUDA_VISIBLE_DEVICES), the suites dealt out to the
          # lanes in turn and run one after another in each: one suite per GPU at a time, so
          # their memory never adds up (session 6: four at once on two GPUs ran out of memory).
          # PEER_SUITES picks some (tritonbench-g tritonbench-t kernelbench kernelbenchx), an
          # entry NAME@GLOB only its tasks matching GLOB (one suite over two GPUs:
          # "tritonbench-t@[a-l]* tritonbench-t@[!a-l]*"; else PEER_TASKS), PEER_JOBS slots per
          # GPU (default 4), each suite cut at STEP_TIMEOUT.
          declare -A spec=([tritonbench-g]=tritonbench-g:$P/TritonBench [tritonbench-t]=tritonbench-t:$P/TritonBench:any-code
                           [kernelbench]=kernelbench:$P/KernelBench:1,2,any-code [kernelbenchx]=kernelbenchx:$P/KernelBenchX:any-code)
          lanes=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU'); [ "$DEVICE" = cuda ] && [ "$lanes" -gt 0 ] || lanes=1
          read -ra names <<< "${PEER_SUITES:-tritonbench-g tritonbench-t kernelbenchx kernelbench}"  # no pathname expansion of globs
          for ((lane = 0; lane < lanes; lane++)); do
            ( for ((k = lane; k < ${#names[@]}; k += lanes)); do entry=${names[k]}; name=${entry%%@*}
                glob=${PEER_TASKS:-}; [ "$entry" = "$name" ] || glob=${entry#*@}
                tag=$name; [ "$entry" = "$name" ] || tag=$name-$(printf '%s' "$glob" | tr -c 'A-Za-z0-9' '_')
                CUDA_VISIBLE_DEVICES=$([ "$DEVICE" = cuda ] && echo $lane) $T $KEVAL validate --suite "${spec[$name]}" ${glob:+--tasks "$glob"} \
                  --device "$DEVICE" --no-timing --jobs "${PEER_JOBS:-4}" --out "/tmp/kv-$tag" > "$LOG/peers-$tag.txt" 2>&1
                echo "rc=$?" >> "$LOG/peers-$tag.txt"
                cp "/tmp/kv-$tag/results.jsonl" "$LOG/peers-$tag-results.jsonl" 2>/dev/null
              done ) &
          done; wait
          { tail -qn 3 "$LOG"/peers-*.txt; python3 scripts/verdict_counts.py "$LOG"/peers-*-results.jsonl; } > "$LOG/peers.txt" 2>&1; rc=$? ;;
    aa-kbx) P=${PEERS:-.device/peers}
          # A/A on KernelBenchX (issue 19): its references timed against themselves AA_RUNS times
          # (default 2, each cut at STEP_TIMEOUT; AA_BASELINE=golden,eager: the golden in the guest
          # against itself in the warden, eager beside it; AA_SAMPLES=N: N samples of every case,
          # for bench/stop_rule_replay.py), the runs side by side (bench/aa_compare.py),
          # then both sides of AA_SIDES_TASKS' cases from the first run's keval.db (aa_sides.py)
          runs=()
          for ((k = 1; k <= ${AA_RUNS:-2}; k++)); do
            rm -rf "/tmp/kv-aa-$k"
            $T $KEVAL_PYTHON bench/aa_bias.py --suite "kernelbenchx:$P/KernelBenchX:any-code" --tasks "${PEER_TASKS:-a*,b*,c*}" \
              --device "$DEVICE" --jobs "$JOBS" --out "/tmp/kv-aa-$k" ${AA_BASELINE:+--baseline "$AA_BASELINE"} \
              ${AA_SAMPLES:+--min-samples "$AA_SAMPLES" --max-samples "$AA_SAMPLES" --max-seconds 10} > "$LOG/aa-kbx-$k.txt" 2>&1
            cp "/tmp/kv-aa-$k/results.jsonl" "$LOG/aa-kbx-$k-results.jsonl" 2>/dev/null
            cp "/tmp/kv-aa-$k/keval.db" "$LOG/aa-kbx-$k.db" 2>/dev/null
            runs+=("/tmp/kv-aa-$k")
          done
          { grep -H "^overall\|^baseline\|^speedup" "$LOG"/aa-kbx-*.txt
            $KEVAL_PYTHON bench/aa_compare.py "runs=$(IFS=,; echo "${runs[*]}")"
            $KEVAL_PYTHON bench/aa_sides.py /tmp/kv-aa-1 --tasks "${AA_SIDES_TASKS:-argmax,binary_cross_entropy}"
            [ -z "${AA_SAMPLES:-}" ] || $KEVAL_PYTHON bench/stop_rule_replay.py "${runs[@]}"
            $KEVAL_PYTHON bench/job_seconds.py /tmp/kv-aa-1/results.jsonl; } > "$LOG/aa-kbx.txt" 2>&1; rc=$? ;;
    kernelbench-refs) P=${PEERS:-.device/peers}; mkdir -p /tmp/kv-kb
          # 20 level-1 and 10 level-2 problems: the reference as ModelNew (expect pass under
          # any-code) and a broken one (outputs off by 10% + 0.1, beyond the 1e-2 tolerance: expect mismatch)
          PYTHONPATH=runner $KEVAL_PYTHON - "$P/KernelBench" <<'PY'
import json, sys
from keval_adapters.kernelbench.problems import list_problems
problems = [p for p in list_problems(sys.argv[1], [1])][:20] + [p for p in list_problems(sys.argv[1], [2])][:10]
broken = "\n\nclass ModelNew(Model):\n    def forward(self, *args):\n        return super().forward(*args) * 1.1 + 0.1\n"
with open("/tmp/kv-kb/subs.jsonl", "w") as f:
    for p in problems:
        code = open(p.path).read()
        f.write(json.dumps({"id": p.name + ":ref", "task": p.name, "code": code + "\n\nclass ModelNew(Model):\n    pass\n"}) + "\n")
        f.write(json.dumps({"id": p.name + ":broken", "task": p.name, "code": code + broken}) + "\n")
PY
          # verdicts only (issue 6 asks for them, not for speedups): session 3 timed them, 6 of 60 in 190 s
          $T $KEVAL run --suite "kernelbench:$P/KernelBench:1,2,any-code" --submissions /tmp/kv-kb/subs.jsonl --device "$DEVICE" --no-timing --jobs "$JOBS" --out /tmp/kv-kb/out > "$LOG/kernelbench-refs.txt" 2>&1; rc=$?
          cp /tmp/kv-kb/out/results.jsonl "$LOG/kernelbench-refs.jsonl" 2>/dev/null ;;
    kbx-published) P=${PEERS:-.device/peers}
          # a few KernelBenchX references timed here beside the times KernelBenchX published for
          # its nearest GPU (h800: Hopper, like the H200)
          { $T $KEVAL validate --suite "kernelbenchx:$P/KernelBenchX:any-code" --tasks "${KBX_TASKS:-sigmoid,Lion,fused_transformer_block}" \
               --device "$DEVICE" --jobs "$JOBS" --out /tmp/kv-kbx-times | tail -n 8
            $KEVAL published-times --suite "kernelbenchx:$P/KernelBenchX" --results /tmp/kv-kbx-times/results.jsonl --gpu h800; } > "$LOG/kbx-published.txt" 2>&1; rc=$? ;;
    peers-llm) P=${PEERS:-.device/peers}
          # two models' G and T outputs judged by keval, then by TritonBench's own criterion
          # (compare-judges, in the background while the next file is judged); jobs and scripts
          # are cut at LLM_TIMEOUT seconds (a model's kernel may never end)
          { for pair in g:Bench_G_general_purpose/output_gpt-4o_simp g:Bench_G_general_purpose/output_claude-3-5-sonnet-20240620_simp t:Bench_T_general_purpose/output_gpt-4o t:Bench_T_general_purpose/output_claude-3-5-sonnet-20240620; do
              kind=tritonbench-${pair%%:*}; src=$P/TritonBench/LLM_generated/${pair#*:}.jsonl; name=$(basename "${pair#*:}"); out=/tmp/kv-llm-$name
              echo "== $kind ${pair#*:}"; $T $KEVAL run --suite "$kind:$P/TritonBench" --submissions "$kind:$src" ${PEER_TASKS:+--tasks "$PEER_TASKS"} --device "$DEVICE" --no-timing \
                   --jobs "${PEER_JOBS:-$JOBS}" --timeout "${LLM_TIMEOUT:-90}" --out "$out" | tail -n 3
              cp "$out/results.jsonl" "$LOG/llm-$name-results.jsonl" 2>/dev/null; cp "$out/summary.json" "$LOG/llm-$name-summary.json" 2>/dev/null
              # --deadline: what the step's time leaves, so a comparison cut short still writes its report
              deadline=$((STEP_TIMEOUT - ($(date +%s) - start) - 10)); [ "$deadline" -gt 1 ] || deadline=1
              { $T $KEVAL compare-judges --suite "$kind:$P/TritonBench" --submissions "$kind:$src" --results "$out/results.jsonl" --out "$LOG/llm-$name-judges.json" \
                   --device "$DEVICE" --jobs "${JUDGE_JOBS:-$JOBS}" --timeout "${LLM_TIMEOUT:-90}" --deadline "$deadline" \
                   > "$LOG/llm-$name-judges.txt" 2>&1; echo "rc=$?" >> "$LOG/llm-$name-judges.txt"; } &
            done; wait
            for f in "$LOG"/llm-*-judges.txt; do echo "== $f"; tail -n 30 "$f"; done; } > "$LOG/peers-llm.txt" 2>&1; rc=$? ;;
    mutate) M=/var/tmp/kv-mutate  # fixed: a cut step resumes there; the differential check is left to the CPU
          $T $KEVAL mutate --suite suites/keval --tasks "${MUTATE_TASKS:-moe_permute,topk,topk_logits_processor}" \
            --out "$M" --device cuda --jobs "${MUTATE_JOBS:-8}" --equivalence-trials 0 > "$LOG/mutate.txt" 2>&1; rc=$?
          tar -czf "$LOG/mutate.tgz" -C "$M" . 2>/dev/null ;;
    hostile) runs=/var/tmp/kv-hostile-runs  # fixed: a cut step's verdicts are found there (and a rerun resumes)
          KEVAL_HOSTILE_DEVICE=cuda KEVAL_HOSTILE_JOBS=$JOBS KEVAL_HOSTILE_RUNS_DIR=$runs $T $KEVAL_PYTHON -m pytest -q tests/hostile > "$LOG/hostile.txt" 2>&1; rc=$?
          # the verdicts so far, also when the step was cut (results.jsonl grows as they come)
          cp "$runs/out_main/results.jsonl" "$LOG/hostile-results.jsonl" 2>/dev/null
          $KEVAL_PYTHON -c 'import json,sys; [print(r["id"], r["verdict"]) for r in map(json.loads, open(sys.argv[1]))]' "$LOG/hostile-results.jsonl" >> "$LOG/hostile.txt" 2>&1 ;;
    serve-load) LOG="$LOG/serve-load" DEVICE=$DEVICE JOBS=${SERVE_JOBS:-} $T bash scripts/serve-load.sh > "$LOG/serve-load.txt" 2>&1; rc=$? ;;
    warden-clock)
          # the warden's own CUDA clock (docs/trust.md): which primitive orders two processes'
          # streams here, its parts alone, A/A of the core tasks' goldens under each clock, the
          # forging cases with the warden's clock
          # (each part cut short enough that the step, at STEP_TIMEOUT=100, fits one 600 s call)
          # (the primitives that hung on the H100 left out: stream-wait-flush, ipc-events-uid)
          { timeout 120 $KEVAL_PYTHON bench/cross_process_sync.py --samples 100 --limit-s 15 \
              --only host-words,host-words-uid,host-words-call,host-words-stream,stream-wait,ipc-events
            for clock in warden:stream warden:host guest; do tag=${clock/:/-}; rm -rf "/tmp/kv-aa-$tag"
              KEVAL_CUDA_CLOCK=${clock%%:*} KEVAL_CLOCK_GATE=${clock#*:} $T $KEVAL_PYTHON bench/aa_bias.py --suite suites/keval \
                --tasks "$CORE" --device cuda --jobs "$JOBS" --min-samples "${AA_SAMPLES:-30}" \
                --max-samples "${AA_SAMPLES:-30}" --out "/tmp/kv-aa-$tag" > "$LOG/warden-clock-aa-$tag.txt" 2>&1
              echo "== A/A, $clock clock (rc=$?)"; grep -v '^ ' "$LOG/warden-clock-aa-$tag.txt" | tail -n 30
              cp "/tmp/kv-aa-$tag/results.jsonl" "$LOG/warden-clock-aa-$tag-results.jsonl" 2>/dev/null
              $KEVAL_PYTHON bench/job_seconds.py "/tmp/kv-aa-$tag/results.jsonl"
            done
            KEVAL_CUDA_CLOCK=warden KEVAL_HOSTILE_CASES="${HOSTILE_CASES:-pgb_*,forge_*,side_stream*,l2_persist*,background_thread*}" \
              KEVAL_HOSTILE_DEVICE=cuda KEVAL_HOSTILE_JOBS=$JOBS $T $KEVAL_PYTHON -m pytest -q tests/hostile | tail -n 30
          } > "$LOG/warden-clock.txt" 2>&1; rc=$? ;;
    runner-gpu) PYTHONPATH=runner $T $KEVAL_PYTHON -m pytest -q tests/runner/test_gpu.py tests/runner/test_launch_cover_gpu.py tests/runner/test_warden_gpu_clock_gpu.py > "$LOG/runner-gpu.txt" 2>&1; rc=$? ;;
    calibration) $T $KEVAL_PYTHON bench/calibration.py > "$LOG/calibration.txt" 2>&1; rc=$? ;;
    throughput) $T $KEVAL_PYTHON bench/throughput.py ${THROUGHPUT_ARGS:---copies 1} --device cuda --jobs "${THROUGHPUT_JOBS:-$JOBS}" > "$LOG/throughput.txt" 2>&1; rc=$? ;;
    repeatability) $T $KEVAL_PYTHON bench/repeatability.py ${REPEAT_ARGS:-} --device cuda > "$LOG/repeatability.txt" 2>&1; rc=$? ;;
    ncu) $T $KEVAL_PYTHON bench/ncu_agreement.py ${NCU_ARGS:-} > "$LOG/ncu.txt" 2>&1; rc=$? ;;
    elementwise-tuning) $T $KEVAL_PYTHON bench/elementwise_tuning.py > "$LOG/elementwise-tuning.txt" 2>&1; rc=$? ;;
    *) echo "unknown step $step"; rc=2 ;;
  esac
  summary+=("$step: rc=$rc in $(( $(date +%s) - start ))s")
  tail -n 25 "$LOG/$step.txt" 2>/dev/null
done
printf '%s\n' "${summary[@]}"
# PACK=1: every log in one logs.tgz (a device call brings back only a few files from $OUT)
if [ -n "${PACK:-}" ]; then
  tar czf /tmp/gpu-logs.tgz -C "$LOG" . && find "$LOG" -mindepth 1 -delete && mv /tmp/gpu-logs.tgz "$LOG/logs.tgz"
fi
