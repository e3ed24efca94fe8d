"""Sets the verifier's figures next to PyTorch's: compare.py VERIFIER.json CROSSCHECK.json...
prints a Markdown table (experiment, figure, verifier, PyTorch, difference), marking
differences over 25%."""

import json
import sys


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
            ours = m["median"]
            diff = (t["median"] - ours) / ours * 100 if ours else float("nan")
            flag = " **>25%**" if abs(diff) > 25 else ""
            print(f"| {e['name']} | {m['id']} | {m['unit']} | {ours:.4g} | {t['median']:.4g} "
                  f"| {diff:+.0f}%{flag} |")


if __name__ == "__main__":
    main()
