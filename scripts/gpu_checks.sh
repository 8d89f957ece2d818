#!/usr/bin/env bash
# The GPU checks of issues 36 and 38, as one script of about five minutes on one H100/H200:
#   1. the lab's SimCSE and JEPA steps against a plain PyTorch loop (benchmarks/bench_step.py, ratios);
#   2. the probe's ms per update on setup (i) with exact metrics at every update, and its split;
#   3. the claims table at the paper's length with 5 seeds (its run folders tarred for reuse on a CPU),
#      the setups in the order of SETUPS, so that a cut-off keeps the first ones whole.
# Each step has its own time limit and writes its output to $OUT as it goes, so a slow step loses only itself.
#
#   OUT=/tmp/gpu DATA=../shared/data bash scripts/gpu_checks.sh          # SCALE=tiny: a CPU dry run
#   RUN=bench_step ... bash scripts/gpu_checks.sh                         # only the steps named (comma list)
set -u
OUT=${OUT:-/tmp/gpu-checks}
DATA=${DATA:-../shared/data}
SCALE=${SCALE:-full}
DEVICE=${DEVICE:-cuda}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1

RUN=${RUN:-bench_step,claims,probe_split}
step() { # name, seconds, command...
    local name=$1 limit=$2
    shift 2
    case ",$RUN," in *",$name,"*) ;; *) echo "== $name: skipped (RUN=$RUN)"; return 0 ;; esac
    echo "== $name ($(date -u +%H:%M:%S), limit ${limit}s): $*"
    timeout "$limit" "$@" >"$OUT/$name.txt" 2>&1
    echo "exit $?" >>"$OUT/$name.txt"
    tail -n 30 "$OUT/$name.txt"
}

if [ "$SCALE" = tiny ]; then
    STEPS=4 EVAL=2 UPDATES=20 CLAIMS=(--short --seeds 2) PROBE=(--limit 400)
else
    STEPS=200 EVAL=100 UPDATES=1000 CLAIMS=(--seeds 5) PROBE=()
fi
command -v nvidia-smi >/dev/null && nvidia-smi -L
python3 -c "import torch; print('torch', torch.__version__, 'cuda', torch.cuda.is_available())"

step bench_step 150 python3 benchmarks/bench_step.py --device "$DEVICE" --encoder bundled --steps "$STEPS" \
    --eval-every "$EVAL" --ab-buckets --data-dir "$DATA"
step claims "${CLAIMS_SECONDS:-370}" python3 -m engine claims "${CLAIMS[@]}" --setups "${SETUPS:-i,iv-nouns,iii,iv,ii,app-a,app-b}" --device "$DEVICE" --data-dir "$DATA" \
    --out cache/claims-gpu --markdown-out "$OUT/claims.md"
[ -d cache/claims-gpu ] && tar czf "$OUT/claims-runs.tgz" -C cache claims-gpu 2>/dev/null
step probe_split 60 python3 benchmarks/bench_probe_split.py --device "$DEVICE" --data-dir "$DATA" \
    --updates "$UPDATES" "${PROBE[@]}"
ls -la "$OUT"
