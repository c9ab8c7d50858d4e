#!/usr/bin/env bash
# Check agdebug on a real NVIDIA GPU: install CuPy and the project, run the test suite
# with the real "cuda" device fixture, and print a short report.
#
#   bash benchmarks/gpu_check.sh                 # pip install -e ".[gpu,test]"
#   GPU_EXTRA="cupy-cuda13x[ctk]" bash benchmarks/gpu_check.sh   # another CuPy wheel
#
# The report and logs land in $OUT when it is set (else a temporary folder) and on stdout.
set -uo pipefail
cd "$(dirname "$0")/.."

PY=${PYTHON:-python3}
LOG=${OUT:-$(mktemp -d)}
REPORT=$LOG/gpu_check_report.txt
: > "$REPORT"
say() { echo "$*" | tee -a "$REPORT"; }
summary() { grep -E "[0-9]+ (passed|failed|skipped|errors?|deselected)" "$1" | tail -1; }

say "== agdebug GPU check, $(date -u +%Y-%m-%dT%H:%M:%SZ)"
say "gpu: $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader \
             2>/dev/null || echo 'nvidia-smi not found')"

# 1. Install: the documented way, plus an optional extra wheel (e.g. the CUDA toolkit).
if ! "$PY" -m pip install -q -e ".[gpu,test]" ${GPU_EXTRA:-} >"$LOG/pip.txt" 2>&1; then
    say "FAIL: pip install"; tail -20 "$LOG/pip.txt" | tee -a "$REPORT"; exit 1
fi
say "cupy: $("$PY" -c 'import cupy; print(cupy.__version__)' 2>&1 | tail -1)"

# 2. Smoke test: a CUDA tensor, a backward, the gradient on the device.
if ! "$PY" - >"$LOG/smoke.txt" 2>&1 <<'EOF'
import agdebug as ag
assert ag.cuda.is_available(), "agdebug.cuda.is_available() is False"
print("devices:", ag.cuda.device_count(), ag.cuda.get_device_name())
x = ag.tensor([1.0, 2.0, 3.0], device="cuda", requires_grad=True)
(x.exp() * x).sum().backward()
ag.cuda.synchronize()
assert x.grad.device == "cuda:0", x.grad.device
print("smoke: backward on cuda:0 ok,", x.grad)
EOF
then
    say "FAIL: smoke test"; tail -20 "$LOG/smoke.txt" | tee -a "$REPORT"
    say "hint: 'nvrtc' or 'libcu*' not found -> GPU_EXTRA='cupy-cuda12x[ctk]' (CUDA from pip)"
    exit 1
fi
tee -a "$REPORT" < "$LOG/smoke.txt"

# 3. The suite: the "device" fixture now runs "cuda" for real; the fake-CuPy tests still run.
"$PY" -m pytest tests -q -p no:cacheprovider -rfE >"$LOG/pytest.txt" 2>&1
status=$?
say "whole suite: $(summary "$LOG/pytest.txt")"
grep -E "^(FAILED|ERROR) " "$LOG/pytest.txt" | head -40 | tee -a "$REPORT"

# 4. The tests that ran on the real device (the device fixture's "cuda" parameter).
"$PY" -m pytest tests -q -p no:cacheprovider -m real_cuda >"$LOG/real_cuda.txt" 2>&1
say "on the real GPU: $(summary "$LOG/real_cuda.txt")"
if grep -qE "[0-9]+ skipped" "$LOG/real_cuda.txt" && ! grep -qE "[0-9]+ passed" \
        "$LOG/real_cuda.txt"; then
    say "WARNING: the cuda device tests were skipped: CuPy does not see the GPU"
    status=1
fi
say "logs: $LOG (pytest.txt, real_cuda.txt); exit status $status"
exit "$status"
