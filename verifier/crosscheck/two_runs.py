"""The verifier's two-run check, from two back-to-back runs of it and of the cross-checks:
two_runs.py RULES.json RUN1_DIR RUN2_DIR
(each RUN_DIR as two_runs.sh leaves it: verifier.json and the cross-checks' torch-*.json).
Prints each rule's cost against PyTorch's in both runs, then every figure a rule's cost uses
whose two verifier readings differ by over 10% or that is not stable, with how many CPU cores
other processes used while its experiment ran in each run (host-bound figures move with it)."""

import glob
import json
import os
import sys

from compare import diff_cell, rule_costs, rule_rows, torch_figures_of


def run_of(directory, costs):
    verifier = json.load(open(os.path.join(directory, "verifier.json")))
    torch_figures = torch_figures_of(sorted(glob.glob(os.path.join(directory, "torch-*.json"))))
    rows = {row[0]: row for row in rule_rows(costs, verifier, torch_figures)}
    figures = {(e["name"], m["id"]): m for e in verifier["experiments"] if e["status"] == "ok"
               for m in e["measurements"]}
    loads = {e["name"]: e.get("host_load", {}) for e in verifier["experiments"]}
    return rows, figures, loads


def load_cell(load):
    other, steal = load.get("other_cores", -1), load.get("steal_cores", -1)
    return "-" if other < 0 else f"{other + max(steal, 0):.1f}"


def main():
    costs = rule_costs(json.load(open(sys.argv[1])))
    (rows1, figures1, loads1), (rows2, figures2, loads2) = (run_of(d, costs)
                                                            for d in sys.argv[2:4])
    print("| rule | cost from | unit | run 1: verifier | PyTorch | PyTorch vs verifier "
          "| run 2: verifier | PyTorch | PyTorch vs verifier |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|")
    for rule, pair, unit, ours, theirs in rows1.values():
        cells = (f"| {rule} | {pair} | {unit} | {ours:.4g} | {theirs:.4g} "
                 f"| {diff_cell(ours, theirs)} |")
        if rule in rows2:
            _, _, _, ours2, theirs2 = rows2[rule]
            cells += f" {ours2:.4g} | {theirs2:.4g} | {diff_cell(ours2, theirs2)} |"
        print(cells)

    used = sorted({(experiment, fid) for experiment, bad, good in costs for fid in (bad, good)})
    print()
    print("| figure | run 1 | run 2 | moved | stable | other processes' CPU cores |")
    print("|---|---:|---:|---:|---|---|")
    for key in used:
        if key not in figures1 or key not in figures2:
            continue
        a, b = figures1[key], figures2[key]
        moved = (b["median"] - a["median"]) / a["median"] * 100 if a["median"] else 0.0
        if abs(moved) > 10 or not a["stable"] or not b["stable"]:
            print(f"| {key[0]}: {key[1]} | {a['median']:.4g} | {b['median']:.4g} | {moved:+.1f}% "
                  f"| {'yes' if a['stable'] else 'no'}, {'yes' if b['stable'] else 'no'} "
                  f"| {load_cell(loads1.get(key[0], {}))}, {load_cell(loads2.get(key[0], {}))} |")


if __name__ == "__main__":
    main()
