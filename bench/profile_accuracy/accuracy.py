"""How far gpulint profile's predicted savings are from what fixing the lines saves, measured.

For each case, REPEATS times in turns: `gpulint profile --stop` on the script gives the predicted
saving of each fix (a line alone, or the synchronising lines together); then the script and
each fixed variant are timed (time_steps.py, no profiler). The median prediction is compared
with the measured saving, the base's mean step less the variant's. Prints a Markdown table.
Needs a CUDA GPU, torch, Lightning and accelerate. CASE... keeps the cases whose names contain
one of them.

    python bench/profile_accuracy/accuracy.py BUILD/gpulint [REPEATS (2) [CASE...]]
"""

import os
import re
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TIMER = os.path.join(ROOT, "bench", "profile_accuracy", "time_steps.py")
TRAIN = os.path.join(ROOT, "examples", "train.py")
FOUR = os.path.join(ROOT, "fixtures", "profile", "four_syncs.py")
LIGHTNING = os.path.join(ROOT, "fixtures", "profile", "lightning_item.py")
ACCELERATE = os.path.join(ROOT, "fixtures", "profile", "accelerate_cpu.py")


def loader_with_workers(tmp):
    """examples/train.py with its DataLoader given workers and pinned memory."""
    text = open(TRAIN).read()
    fixed = text.replace("shuffle=True)", "shuffle=True, num_workers=4, pin_memory=True)")
    assert fixed != text
    path = os.path.join(tmp, "train_fixed_loader.py")
    open(path, "w").write(fixed)
    return [path]


# (name, base argv, [(fix, prediction, variant argv or a maker of the variant's argv)])
# A prediction is ("line", N): that line's saving alone, or ("group",): the synchronising lines'.
CASES = [
    ("examples/train.py", [TRAIN, "--epochs", "1"],
     [("DataLoader: workers, pinned", ("line", 73), loader_with_workers)]),
    ("four_syncs.py --matmuls 9", [FOUR, "--matmuls", "9", "--steps", "200"],
     [("all four lines", ("group",),
       ["--without", "item", "--without", "cpu", "--without", "sync", "--without", "print"]),
      ("the print alone", ("line", 51), ["--without", "print"])]),
    ("lightning_item.py", [LIGHTNING, "--steps", "300"],
     [("the .item()", ("line", 47), ["--without", "item"])]),
    ("accelerate_cpu.py", [ACCELERATE, "--steps", "300"],
     [("the .cpu()", ("line", 41), ["--without", "cpu"])]),
    ("accelerate_cpu.py --batch 16384 --host-ms 3",
     [ACCELERATE, "--steps", "200", "--batch", "16384", "--host-ms", "3"],
     [("the .cpu()", ("line", 41), ["--without", "cpu"])]),
]


def run(argv, env=None):
    return subprocess.run(argv, capture_output=True, text=True, env=env, timeout=300)


def predictions(gpulint, argv):
    done = run([gpulint, "profile", "--stop", "--", sys.executable] + argv)
    report = done.stderr
    lines = {int(m.group(2)): float(m.group(3)) for m in re.finditer(
        r"(\S+):(\d+)\s+(?:sync|data) .*fixing it alone saves ~([\d.]+) ms", report)}
    group = re.search(r"would save about ([\d.]+) ms a step", report)
    unprofiled = re.search(r"without the profiler the step took ([\d.]+) ms", report)
    profiled = re.search(r"  step ([\d.]+) ms: GPU busy", report)
    return {"lines": lines, "group": float(group.group(1)) if group else None,
            "unprofiled": float(unprofiled.group(1)) if unprofiled else None,
            "profiled": float(profiled.group(1)) if profiled else None, "report": report}


def step_ms(argv):
    done = run([sys.executable, TIMER] + argv)
    m = re.search(r"time_steps: ([\d.]+) ms/step", done.stderr)
    if not m:
        raise RuntimeError("no timing from %s:\n%s" % (argv, done.stderr[-2000:]))
    return float(m.group(1))


def guess_of(predicted, what):
    return predicted["group"] if what[0] == "group" else predicted["lines"].get(what[1])


def spread(values, unit=" ms"):
    return "%.2f%s (%s)" % (statistics.median(values), unit, ", ".join("%.2f" % v for v in values))


def main():
    gpulint = os.path.abspath(sys.argv[1])
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    only = sys.argv[3:]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, base, fixes in CASES:
            if only and not any(o in name for o in only):
                continue
            variants = []
            for fix, _, variant in fixes:
                variants.append(variant(tmp) + base[1:] if callable(variant) else base + variant)
            # A process's step time moves by up to a fifth from one run to the next on a shared
            # host (examples/train.py: 3.8 to 5.5 ms): the profile runs as often as the timings,
            # in turns with them, and its median prediction is compared.
            profiles = []
            times = [[] for _ in range(len(fixes) + 1)]
            for _ in range(repeats):
                profiles.append(predictions(gpulint, base))
                sys.stderr.write(profiles[-1]["report"])
                for i, argv in enumerate([base] + variants):
                    times[i].append(step_ms(argv))
            unprofiled = [p["unprofiled"] or 0 for p in profiles]
            for (fix, what, _), variant_times in zip(fixes, times[1:]):
                guesses = [g for g in (guess_of(p, what) for p in profiles) if g is not None]
                guess = statistics.median(guesses) if guesses else None
                savings = [b - v for b, v in zip(times[0], variant_times)]
                measured = statistics.mean(savings)
                error = ("%+.0f%%" % (100 * (guess - measured) / measured)
                         if guess is not None and measured > 0 else "-")
                rows.append("| %s | %s | %s | %s | %s | %.2f ms (%.2f to %.2f) | %s |" % (
                    name, fix, spread(unprofiled), spread(times[0]),
                    spread(guesses) if guesses else "-", measured, min(savings), max(savings),
                    error))
            print("\n".join(rows[-len(fixes):]), flush=True)
    print()
    print("| script | fix | step, profile's warm-up (runs) | step measured (runs) | "
          "predicted saving (runs) | measured saving (spread) | error |")
    print("|---|---|---|---|---|---|---|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
