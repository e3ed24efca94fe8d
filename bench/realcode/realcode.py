#!/usr/bin/env python3
"""The real-code evaluation: run gpulint over the exported repositories, sample findings to
label, and score the labels.

  realcode.py findings GPULINT EXPORT_DIR          every finding, one TSV row each
  realcode.py sample   GPULINT EXPORT_DIR [--per-rule N | --more N]
                                                   findings not yet labelled, sampled per rule:
                                                   up to N labelled per rule, or N more per rule
                                                   (a later round, after the code changed)
  realcode.py score    GPULINT EXPORT_DIR          precision per rule and overall, recall on
                                                   the read loops, and each disagreement

Each repository is linted on its own, from its root, as its users would run gpulint, so
cross-module context is the repository's. Paths are '<owner>+<name>/<path in the repository>'.
A finding is identified by (path, line, column, code), as the exported sources pin them.
"""
import collections
import hashlib
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# REALCODE_SET=NAME: the repositories of NAME_manifest.tsv and their labels, NAME_labels.tsv (no
# read loops), kept apart so that the evaluation's own figures stay comparable: `outside`, ten
# repositories labelled before gpulint was tuned on them (it has been since), and `fresh`,
# `fresh2`, `fresh3` and `fresh4`, four to seven each, labelled before any change was made for them.
SET = os.environ.get("REALCODE_SET", "")
PREFIX = SET + "_" if SET else ""
LABELS = os.path.join(HERE, PREFIX + "labels.tsv")
RECALL = os.path.join(HERE, "recall.tsv") if not SET else ""
MANIFEST = os.path.join(HERE, PREFIX + "manifest.tsv")


def manifest_dirs():
    for line in open(MANIFEST, encoding="utf-8"):
        if line.strip() and not line.startswith("#"):
            yield line.split("\t")[0].replace("/", "+")


def findings(gpulint, export):
    rows = []
    for repo in manifest_dirs():
        root = os.path.join(export, repo)
        if not os.path.isdir(root):
            sys.exit(f"realcode.py: {root} missing: run bench/realcode/export.sh {export}")
        out = subprocess.run([gpulint, "--format", "json", "--no-cache", "."], cwd=root,
                             capture_output=True, text=True)
        # Exit 2 with a report is a file that could not be read (counted, not fatal).
        if out.returncode not in (0, 1, 2) or not out.stdout.startswith("{"):
            sys.exit(f"realcode.py: gpulint failed on {repo} (exit {out.returncode}):\n{out.stderr}")
        for d in json.loads(out.stdout)["diagnostics"]:
            rows.append((f"{repo}/{d['path']}", d["line"], d["column"], d["code"], d["message"]))
    rows.sort()
    return rows


def read_tsv(path, width):
    if not path or not os.path.exists(path):
        return []
    rows = []
    for n, line in enumerate(open(path, encoding="utf-8"), 1):
        if not line.strip() or line.startswith("#"):
            continue
        cols = line.rstrip("\n").split("\t")
        if len(cols) < width:
            sys.exit(f"realcode.py: {path}:{n}: expected {width} tab-separated columns")
        rows.append(cols)
    return rows


def labels():
    # path, line, column, code, TP|FP, reason
    out = {}
    for path, line, col, code, verdict, reason, *_ in read_tsv(LABELS, 6):
        if verdict not in ("TP", "FP"):
            sys.exit(f"realcode.py: {LABELS}: verdict must be TP or FP, not {verdict!r}")
        out[(path, int(line), int(col), code)] = (verdict, reason)
    return out


def key_rank(key):
    # A stable pseudo-random order: the sample does not depend on file order or on run.
    return hashlib.sha1("\t".join(map(str, key)).encode()).hexdigest()


def sample(gpulint, export, per_rule, more=False):
    known = labels()
    by_code = collections.defaultdict(list)
    for path, line, col, code, msg in findings(gpulint, export):
        key = (path, line, col, code)
        if key not in known:
            by_code[code].append((key_rank(key), path, line, col, code, msg))
    labelled = collections.Counter(key[3] for key in known)
    for code in sorted(by_code):
        want = per_rule if more else max(0, per_rule - labelled[code])
        for _, path, line, col, code, msg in sorted(by_code[code])[:want]:
            print(f"{path}\t{line}\t{col}\t{code}\t{msg}")


def score(gpulint, export):
    rows = findings(gpulint, export)
    found = {(p, l, col, c) for p, l, col, c, _ in rows}
    lines = {(p, l, c) for p, l, _, c, _ in rows}
    known = labels()
    per = collections.defaultdict(lambda: collections.Counter())
    disagree = []
    for key, (verdict, reason) in sorted(known.items()):
        code = key[3]
        if key in found:
            per[code]["TP" if verdict == "TP" else "FP"] += 1
            if verdict == "FP":
                disagree.append(f"false positive  {key[0]}:{key[1]}:{key[2]} {code}  ({reason})")
        else:
            per[code]["lost TP" if verdict == "TP" else "silenced FP"] += 1
            if verdict == "TP":
                disagree.append(f"lost true positive  {key[0]}:{key[1]}:{key[2]} {code}  ({reason})")
    unlabelled = collections.Counter(k[3] for k in found if k not in known)

    print("Real-code precision (labelled findings that gpulint reports today)")
    print(f"{'code':6} {'TP':>4} {'FP':>4} {'prec':>6} {'lost TP':>8} {'silenced FP':>12} {'unlabelled':>11}")
    tot = collections.Counter()
    for code in sorted(set(per) | set(unlabelled)):
        c = per[code]
        tot.update(c)
        n = c["TP"] + c["FP"]
        prec = f"{c['TP'] / n:.3f}" if n else "-"
        print(f"{code:6} {c['TP']:4} {c['FP']:4} {prec:>6} {c['lost TP']:8} {c['silenced FP']:12} "
              f"{unlabelled[code]:11}")
    n = tot["TP"] + tot["FP"]
    print(f"{'all':6} {tot['TP']:4} {tot['FP']:4} {tot['TP'] / n if n else 0:6.3f} "
          f"{tot['lost TP']:8} {tot['silenced FP']:12} {sum(unlabelled.values()):11}")

    expected = read_tsv(RECALL, 4)  # path, line, code, what
    hit = 0
    for path, line, code, what, *_ in expected:
        # The read loops name a line, not a column.
        if (path, int(line), code) in lines:
            hit += 1
        else:
            disagree.append(f"missed  {path}:{line} {code}  ({what})")
    if expected:
        loops = len({(r[0], r[4]) for r in expected if len(r) > 4})
        print(f"\nRecall on the read loops: {hit}/{len(expected)} = {hit / len(expected):.3f}"
              + (f" ({loops} loops)" if loops else ""))
    print(f"\nFindings today: {len(found)} in {len({k[0] for k in found})} files")
    if disagree:
        print("\nDisagreements:")
        for d in disagree:
            print("  " + d)


def main(argv):
    if len(argv) < 4 or argv[1] not in ("findings", "sample", "score"):
        sys.exit(__doc__)
    gpulint, export = os.path.abspath(argv[2]), os.path.abspath(argv[3])
    if argv[1] == "findings":
        for r in findings(gpulint, export):
            print("\t".join(map(str, r)))
    elif argv[1] == "sample":
        if "--more" in argv:
            sample(gpulint, export, int(argv[argv.index("--more") + 1]), more=True)
        else:
            per_rule = int(argv[argv.index("--per-rule") + 1]) if "--per-rule" in argv else 30
            sample(gpulint, export, per_rule)
    else:
        score(gpulint, export)


if __name__ == "__main__":
    main(sys.argv)
