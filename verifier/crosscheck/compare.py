"""Sets the verifier's figures next to PyTorch's:
compare.py RULES.json VERIFIER.json CROSSCHECK.json...
prints two Markdown tables, marking differences over 25%: every figure, then each rule's cost.
RULES.json is `gpulint rules --format json`: each rule's `measure` names the pair of figures its
cost comes from (rule metadata, at the default parameters), so no code is listed here."""

import json
import sys


def rule_costs(rules):
    """(experiment, bad, good) -> "GL101/GL105", rules sharing a pair in one row, code order."""
    rows = {}
    for rule in rules:
        m = rule.get("measure")
        if m:
            key = (m["experiment"], m["bad"], m["good"])
            rows[key] = rows[key] + "/" + rule["code"] if key in rows else rule["code"]
    return rows


def cost(figures, bad, good):
    if bad not in figures or good not in figures:
        return None, ""
    b, g = figures[bad], figures[good]
    if b.get("higher_is_better", b["unit"] in ("TFLOP/s", "GFLOP/s", "GB/s", "samples/s")):
        return g["median"] / b["median"], "x"
    return b["median"] - g["median"], b["unit"]


def diff_cell(ours, theirs):
    diff = (theirs - ours) / ours * 100 if ours else float("nan")
    flag = " **>25%**" if abs(diff) > 25 else ""
    return f"{diff:+.0f}%{flag}"


def torch_figures_of(paths):
    """The cross-check scripts' outputs: experiment -> its figures."""
    figures = {}
    for path in paths:
        try:
            doc = json.load(open(path))
        except (OSError, ValueError) as e:
            print(f"{path}: {e}", file=sys.stderr)
            continue
        figures[doc["experiment"]] = doc["figures"]
    return figures


def rule_rows(costs, verifier, torch_figures):
    """(rule, "experiment: bad vs good", unit, verifier's cost, PyTorch's) for each rule row
    both sides measured."""
    ours_by_experiment = {e["name"]: {m["id"]: m for m in e["measurements"]}
                          for e in verifier["experiments"] if e["status"] == "ok"}
    for (experiment, bad, good), rule in costs.items():
        ours, unit = cost(ours_by_experiment.get(experiment, {}), bad, good)
        theirs, _ = cost(torch_figures.get(experiment, {}), bad, good)
        if ours is not None and theirs is not None:
            yield rule, f"{experiment}: {bad} vs {good}", unit, ours, theirs


def main():
    costs = rule_costs(json.load(open(sys.argv[1])))
    verifier = json.load(open(sys.argv[2]))
    torch_figures = torch_figures_of(sys.argv[3:])
    print("| experiment | figure | unit | verifier | PyTorch | PyTorch vs verifier |")
    print("|---|---|---|---:|---:|---:|")
    for e in verifier["experiments"]:
        theirs = torch_figures.get(e["name"], {})
        if e["status"] != "ok":
            print(f"| {e['name']} | (failed: {e.get('error', '')}) | | | | |")
        for m in e["measurements"]:
            t = theirs.get(m["id"])
            if t is None:
                continue
            print(f"| {e['name']} | {m['id']} | {m['unit']} | {m['median']:.4g} "
                  f"| {t['median']:.4g} | {diff_cell(m['median'], t['median'])} |")
    print()
    print("| rule | cost from | unit | verifier | PyTorch | PyTorch vs verifier |")
    print("|---|---|---|---:|---:|---:|")
    for rule, pair, unit, ours, theirs in rule_rows(costs, verifier, torch_figures):
        print(f"| {rule} | {pair} | {unit} | {ours:.4g} | {theirs:.4g} "
              f"| {diff_cell(ours, theirs)} |")


if __name__ == "__main__":
    main()
