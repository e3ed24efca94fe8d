"""Sets the verifier's figures next to PyTorch's: compare.py VERIFIER.json CROSSCHECK.json...
prints two Markdown tables, marking differences over 25%: every figure, then each rule's cost
(the pair of figures verifier/harness/costs.cpp takes, with the default parameters)."""

import json
import sys


# rule: (experiment, bad figure, good figure); rates (higher is better) give good/bad, times
# give bad - good. Mirrors cost_spec() in verifier/harness/costs.cpp at the defaults.
COSTS = {
    "GL101/GL102/GL105": ("sync", "balanced.readback", "balanced.pipelined"),
    "GL103": ("sync", "balanced.device_sync", "balanced.pipelined"),
    "GL104": ("sync", "balanced.print", "balanced.pipelined"),
    "GL106": ("dynamic", "shape.readback_launch", "shape.fixed_launch"),
    "GL107": ("dynamic", "alloc.free_malloc", "alloc.reuse"),
    "GL503": ("dynamic", "weights.recreate", "weights.reuse"),
    "GL201": ("loading", "loader.inline", "loader.workers"),
    "GL206": ("loading", "batch.b1", "batch.b64"),
    "GL202": ("transfer", "h2d.pageable", "h2d.pinned"),
    "GL204": ("transfer", "host.pageable_async", "host.pinned_async"),
    "GL205": ("transfer", "host.pinned_sync", "host.pinned_async"),
    "GL301/GL302": ("placement", "gemm.cpu", "gemm.gpu"),
    "GL303": ("placement", "fill.host_copy", "fill.device"),
    "GL401": ("precision", "gemm.fp32", "gemm.bf16"),
    "GL403": ("precision", "gemm.fp16", "gemm.bf16"),
    "GL404": ("precision", "gemm.fp32", "gemm.tf32"),
    "GL405": ("precision", "gemm.bf16.k4095", "gemm.bf16.k4096"),
    "GL501": ("debug", "balanced.sync_each", "balanced.async"),
}


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


def main():
    verifier = json.load(open(sys.argv[1]))
    torch_figures = {}
    for path in sys.argv[2:]:
        try:
            doc = json.load(open(path))
        except (OSError, ValueError) as e:
            print(f"{path}: {e}", file=sys.stderr)
            continue
        torch_figures[doc["experiment"]] = doc["figures"]
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

    ours_by_experiment = {e["name"]: {m["id"]: m for m in e["measurements"]}
                          for e in verifier["experiments"] if e["status"] == "ok"}
    print()
    print("| rule | cost from | unit | verifier | PyTorch | PyTorch vs verifier |")
    print("|---|---|---|---:|---:|---:|")
    for rule, (experiment, bad, good) in COSTS.items():
        ours, unit = cost(ours_by_experiment.get(experiment, {}), bad, good)
        theirs, _ = cost(torch_figures.get(experiment, {}), bad, good)
        if ours is None or theirs is None:
            continue
        print(f"| {rule} | {experiment}: {bad} vs {good} | {unit} | {ours:.4g} | {theirs:.4g} "
              f"| {diff_cell(ours, theirs)} |")


if __name__ == "__main__":
    main()
