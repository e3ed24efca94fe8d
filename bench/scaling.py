#!/usr/bin/env python3
"""Looks for work that grows faster than the input: generates files of one shape each (many
accumulations, a deep chain of helpers, thousands of loaders...) at N and 2N repetitions, lints
each with gpulint on one thread, and prints how time and output grew. A linear shape grows about
2x; a shape that grows 4x or more is quadratic somewhere (each such case found so far was a real
file's hang waiting to happen: kohya-ss sd-scripts took minutes before 7b42967).

    bench/scaling.py BUILD/gpulint [N]        (N = 10000 by default)

Timings, not assertions: each is the best of three, and the machine is shared, so read the
ratios, not the seconds. Below a few thousand repetitions a run is a tenth of a second and the
ratios are mostly noise.
"""
import os
import subprocess
import sys
import tempfile
import time

HEAD = ("import torch\nfrom torch.utils.data import DataLoader\n"
        "model = torch.nn.Linear(2, 2).cuda()\n"
        "opt = torch.optim.SGD(model.parameters(), lr=1)\n")
STEP = "    opt.step()\n"


def accumulations(n):  # an accumulation and a name derived from it, n times
    body = "".join(f"        acc.append(loss)\n        a{i} = torch.stack(acc)\n" for i in range(n))
    return (HEAD + "def f(loader):\n    acc = []\n    for b in loader:\n"
            "        loss = model(b).sum()\n" + body + "        loss.backward()\n    " + STEP)


def rebinding(n):  # a name rebound from itself after an accumulation
    body = "".join(f"    loss = loss + w[{i}] * loss.detach()\n" for i in range(n))
    return (HEAD + "def f(loader, w):\n    acc = []\n    for b in loader:\n"
            "        acc.append(model(b).sum())\n    loss = torch.stack(acc).sum()\n" + body
            + "    loss.backward()\n" + STEP)


def helper_chain(n):  # each helper calls the next; the step loop calls the first
    defs = "".join(f"def f{i}(x):\n    return f{i + 1}(x).item()\n" for i in range(n))
    return (HEAD + defs + f"def f{n}(x):\n    return x\n"
            "for b in range(10):\n    f0(model(b))\n" + STEP)


def loaders(n):
    return HEAD + "".join(f"dl{i} = DataLoader(ds, batch_size=4)\nfor b in dl{i}:\n"
                          "    model(b).sum().backward()\n" + STEP for i in range(n))


def elifs(n):
    return (HEAD + "for b in range(3):\n    y = model(b)\n    if y.sum() > 0:\n        pass\n"
            + "".join(f"    elif y.sum() > {i}:\n        y = y.item()\n" for i in range(n)) + STEP)


def attributes(n):  # methods reading the attributes that __init__ set
    init = "".join(f"        self.a{i} = torch.zeros(1).cuda()\n" for i in range(n))
    methods = "".join(f"    def m{i}(self):\n        return self.a{i}.item() + self.m{i + 1}()\n"
                      for i in range(n))
    return (HEAD + "class T:\n    def __init__(self):\n" + init + methods
            + "t = T()\nfor b in range(3):\n    t.m0()\n" + STEP)


def assignments(n):  # a chain of names, each computed from the last, in one step loop
    body = "".join(f"        x{i + 1} = x{i} * 2\n" for i in range(n))
    return (HEAD + "def f(loader):\n    for b in loader:\n        x0 = model(b)\n" + body
            + f"        x{n}.sum().backward()\n    " + STEP)


SHAPES = [accumulations, rebinding, helper_chain, loaders, elifs, attributes, assignments]


def run(gpulint, path):
    best = None
    for _ in range(3):
        start = time.perf_counter()
        out = subprocess.run([gpulint, "--no-cache", "-j1", path], capture_output=True)
        if out.returncode not in (0, 1):
            sys.exit(f"scaling.py: gpulint exited {out.returncode} on {path}:\n"
                     f"{out.stderr.decode()}")
        elapsed = time.perf_counter() - start
        best = elapsed if best is None else min(best, elapsed)
    return best, len(out.stdout)


def main(argv):
    if len(argv) not in (2, 3):
        sys.exit("usage: bench/scaling.py BUILD/gpulint [N]")
    gpulint, n = os.path.abspath(argv[1]), int(argv[2]) if len(argv) == 3 else 10000
    print(f"{'shape':14} {'time N s':>9} {'time 2N s':>10} {'x':>6} {'output x':>9}")
    with tempfile.TemporaryDirectory() as tmp:
        for shape in SHAPES:
            results = []
            for size in (n, 2 * n):
                path = os.path.join(tmp, f"{shape.__name__}_{size}.py")
                with open(path, "w", encoding="utf-8") as f:
                    f.write(shape(size))
                results.append(run(gpulint, path))
            (t1, o1), (t2, o2) = results
            print(f"{shape.__name__:14} {t1:9.3f} {t2:10.3f} {t2 / t1:6.2f} {o2 / max(o1, 1):9.2f}")


if __name__ == "__main__":
    main(sys.argv)
