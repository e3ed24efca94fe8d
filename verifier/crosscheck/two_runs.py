"""The verifier's two-run check, from two back-to-back runs of it and of the cross-checks:
two_runs.py RULES.json RUN1_DIR RUN2_DIR
(each RUN_DIR as two_runs.sh leaves it: verifier.json and compare.md). Prints each rule's cost
against PyTorch's in both runs (compare.md's rule table, side by side), then every figure a
rule's cost uses whose two verifier readings differ by over 10% or that is not stable."""

import json
import os
import sys

from compare import rule_costs


def rule_rows(path):
    """compare.md's rule table: rule -> its cells."""
    rows, on = {}, False
    for line in open(path):
        if line.startswith("| rule |"):
            on = True
        elif on and line.startswith("| GL"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            rows[cells[0]] = cells
    return rows


def figures(path):
    doc = json.load(open(path))
    return {(e["name"], m["id"]): m for e in doc["experiments"] if e["status"] == "ok"
            for m in e["measurements"]}


def main():
    rules = json.load(open(sys.argv[1]))
    runs = sys.argv[2:4]
    first, second = (rule_rows(os.path.join(run, "compare.md")) for run in runs)
    print("| rule | cost from | unit | run 1: verifier | PyTorch | PyTorch vs verifier "
          "| run 2: verifier | PyTorch | PyTorch vs verifier |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|")
    for rule, a in first.items():
        b = second.get(rule, [""] * 6)
        print("| " + " | ".join(a[:6] + b[3:6]) + " |")

    one, two = (figures(os.path.join(run, "verifier.json")) for run in runs)
    used = sorted({(experiment, fid) for experiment, bad, good in rule_costs(rules)
                   for fid in (bad, good)})
    print()
    print("| figure | run 1 | run 2 | moved | stable |")
    print("|---|---:|---:|---:|---|")
    for key in used:
        if key not in one or key not in two:
            continue
        a, b = one[key], two[key]
        moved = (b["median"] - a["median"]) / a["median"] * 100 if a["median"] else 0.0
        if abs(moved) > 10 or not a["stable"] or not b["stable"]:
            print(f"| {key[0]}: {key[1]} | {a['median']:.4g} | {b['median']:.4g} | {moved:+.1f}% "
                  f"| {'yes' if a['stable'] else 'no'}, {'yes' if b['stable'] else 'no'} |")


if __name__ == "__main__":
    main()
