#!/usr/bin/env bash
# Start-up side by side: `--version`, and linting one 300-line training script (the example,
# three times over), for two gpulint binaries, interleaved run by run; prints the median and
# the 90th percentile wall time of each, in milliseconds, and of `true`, the floor of starting
# any program from this harness. The result cache is off, so every run parses. Pass the same
# binary twice to see the noise.
#
#   bench/startup.sh GPULINT_A GPULINT_B [RUNS]
set -euo pipefail
usage="usage: startup.sh GPULINT_A GPULINT_B [RUNS]"
a=${1:?$usage}
b=${2:?$usage}
runs=${3:-50}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for _ in 1 2 3; do cat "$root/examples/train.py"; done >"$work/train300.py"

python3 - "$a" "$b" "$runs" "$work/train300.py" <<'PY'
import statistics, subprocess, sys, time
a, b, runs, script = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
cases = {"--version": ["--version"], "lint 300 lines": ["--no-cache", "--exit-zero", script]}
times = {(binary, case): [] for binary in (a, b) for case in cases}
floor = []
for i in range(runs):
    start = time.perf_counter()
    subprocess.run(["true"], check=False)
    floor.append((time.perf_counter() - start) * 1000)
    for binary in ((a, b) if i % 2 == 0 else (b, a)):
        for case, args in cases.items():
            start = time.perf_counter()
            subprocess.run([binary, *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           check=False)
            times[(binary, case)].append((time.perf_counter() - start) * 1000)
print(f"{'true':15}   : median {statistics.median(floor):6.1f} ms (the floor)")
for case in cases:
    for label, binary in (("A", a), ("B", b)):
        t = sorted(times[(binary, case)])
        print(f"{case:15} {label}: median {statistics.median(t):6.1f} ms, "
              f"p90 {t[int(len(t) * 0.9)]:6.1f} ms  ({binary})")
PY
