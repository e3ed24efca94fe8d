# gpulint profile's shim. `gpulint profile -- CMD` puts the directory holding this file first on
# PYTHONPATH, so Python imports it at start-up in every process of the command. It waits for
# torch to be imported, counts steps, times the last steps of a warm-up without the profiler,
# records a window of steps after it with the PyTorch profiler, counts the synchronising CUDA
# calls of that window by the user's source line, writes both for gpulint to read, and then
# takes its hooks off. A step ends at an optimizer's step; in a program where no optimizer has
# stepped by the end of the warm-up, at a backward call, and where neither, at the DataLoader's
# next batch. The profiler's Python frames name a function, not the line being run, so the shim
# marks the trace itself: each synchronising call, each wait for a batch and each print gets an
# annotation naming the user's line ("gpulint/sync FILE:LINE", "gpulint/data FILE:LINE",
# "gpulint/print FILE:LINE"). The host's other work has no mark: a thread samples the stepping
# thread's line from the middle of the warm-up to the window's end. The warm-up's samples say
# how long the host spent at each line without the profiler; the window's, where the host was
# while the GPU idled. Nothing here may break the user's program: every failure is written down
# and the program goes on.
#
# Settings, from gpulint, in the environment:
#   GPULINT_PROFILE_DIR     where to write trace-rankN.json and window-rankN.json
#   GPULINT_PROFILE_WARMUP  steps before the window (default 10)
#   GPULINT_PROFILE_STEPS   steps in the window (default 20)
#   GPULINT_PROFILE_STOP    "1": end the program when the window is written

import os
import sys
import time

_SHIM_DIR = os.path.dirname(os.path.abspath(__file__))
_STEP_MARK = "gpulint/step "
_SYNC_MARK = "gpulint/sync "
_DATA_MARK = "gpulint/data "
_PRINT_MARK = "gpulint/print "
_SYNC_WARNING = "synchronizing CUDA operation"
# Between two samples of the stepping thread's line. A sample waits for the GIL, which a thread
# running Python hands over every switch interval (5 ms by default): busy Python is sampled at
# that rate, a thread blocked in C with the GIL released at this one.
_SAMPLE_S = 0.001
# A sample stands for the time since the one before, up to this: a sample that waited for the
# GIL saw only where the thread that held it let it go.
_SAMPLE_WEIGHT_S = 1.5 * _SAMPLE_S


def _chain_to_the_next_sitecustomize():
    # The environment's own sitecustomize (Debian's, a virtualenv's) would be shadowed by this
    # one: import it as Python would have.
    import importlib

    here = sys.modules.pop("sitecustomize", None)
    saved = list(sys.path)
    try:
        sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _SHIM_DIR]
        importlib.import_module("sitecustomize")
    except ImportError:
        pass
    finally:
        sys.path[:] = saved
        if here is not None:
            sys.modules["sitecustomize"] = here


# Where a step ends, most preferred first.
_SOURCES = ("optimizer", "backward", "batch")


class _Window:
    def __init__(self, out_dir):
        self.out_dir = out_dir
        self.warmup = int(os.environ.get("GPULINT_PROFILE_WARMUP", "10"))
        self.steps = int(os.environ.get("GPULINT_PROFILE_STEPS", "20"))
        self.stop = os.environ.get("GPULINT_PROFILE_STOP") == "1"
        self.library_dirs = ()
        self.rank = int(os.environ.get("RANK", os.environ.get("LOCAL_RANK", "0")))
        self.counts = dict.fromkeys(_SOURCES, 0)
        self.times = {s: [] for s in _SOURCES}  # when each warm-up boundary came
        self.source = None
        self.boundaries = 0
        self.unprofiled_step_us = None
        self.unprofiled_lines = []  # (file, line, host us a step there), the warm-up's
        self.optimizer = None
        self.profiler = None
        self.mark = None
        self.syncs = {}
        self.handle = None
        self.shown = None
        self.catcher = None
        self.wrapped = []
        self.error = None
        self.done = False
        self.mark_times = []  # the host's clock at each step mark, to place the samples
        self.samples = []  # (the host's clock, the time it stands for, the user line)
        self.sampler = None
        self.sampling = False

    # A file is the user's unless it is torch's, the standard library's, an installed
    # package's or the shim's.
    def users(self, path):
        if path.startswith("<"):
            return False
        path = os.path.abspath(path)
        if "site-packages" in path or "dist-packages" in path:
            return False
        return not any(path.startswith(d) for d in self.library_dirs)

    def attach(self, torch):
        import sysconfig

        from torch.optim.optimizer import register_optimizer_step_post_hook
        from torch.utils.data import dataloader

        self.torch = torch
        paths = sysconfig.get_paths()
        self.library_dirs = tuple(
            os.path.join(os.path.abspath(d), "")
            for d in (os.path.dirname(torch.__file__), paths["stdlib"], paths["platstdlib"],
                      _SHIM_DIR)
        )
        self.handle = register_optimizer_step_post_hook(self.on_step)
        self.wrap(torch.autograd, "backward", None, count=False, after=lambda: self.on("backward"))
        self.wrap(dataloader._BaseDataLoaderIter, "__next__", _DATA_MARK, count=False,
                  before=lambda: self.on("batch"))

    # One boundary per step: with several optimizers (a GAN's two), only the first one seen.
    def on_step(self, optimizer, args, kwargs):
        if self.optimizer is None:
            self.optimizer = optimizer
        if optimizer is self.optimizer:
            self.on("optimizer")

    def on(self, source):
        if self.done:
            return
        try:
            count = self.counts[source] = self.counts[source] + 1
            # The warm-up's samples count from the middle of its timed steps (time_warmup):
            # sampling starts just before, so the first half of the warm-up runs without it.
            if self.sampler is None and count >= max(1, (self.lead() - 1) // 2):
                self.start_sampler()
            if self.source is None:
                if count <= self.warmup + 1:
                    self.times[source].append(time.perf_counter())
                # A source is chosen once it reaches the window, unless a preferred one has
                # been seen (a step's backward and its batch come before its optimizer step).
                preferred = _SOURCES[: _SOURCES.index(source)]
                if count < self.lead() or any(self.counts[s] for s in preferred):
                    return
                self.source = source
            elif source != self.source:
                return
            self.boundaries = count
            if self.boundaries == self.lead() and self.profiler is None:
                self.start_profiler()
            if self.boundaries == self.warmup + 1:
                self.begin()
            elif self.boundaries > self.warmup + 1:
                self.close_mark()
            if self.boundaries == self.warmup + self.steps + 1:
                self.end()
            elif self.boundaries >= self.warmup + 1:
                self.open_mark()
        except Exception as e:  # the program goes on; gpulint reports what failed
            self.fail(e)

    def open_mark(self):
        from torch.autograd.profiler import record_function

        self.mark = record_function(_STEP_MARK + str(self.boundaries - self.warmup))
        self.mark_times.append(time.perf_counter())
        self.mark.__enter__()

    def close_mark(self):
        if self.mark is not None:
            self.mark.__exit__(None, None, None)
            self.mark = None

    # The profiler starts a step ahead of the window: the GPU work that the window's first
    # step runs was launched in the step before it, and CUDA activity launched before the
    # profiler started is not recorded (on the H100, the first step read 16.3 ms of mostly idle
    # GPU where the others read 8.9 to 11.0).
    def lead(self):
        return max(self.warmup, 1)

    # The median of the last half of the warm-up's steps before the profiler started, timed on
    # the host: what the profiler's own overhead is measured against. Over the same steps, the
    # host's time at each line, from the samples: what a line holds the host without the
    # profiler, whose overhead lengthens the host's work and shortens its waits for the GPU.
    def time_warmup(self):
        times = self.times[self.source][: self.lead()]
        steps = [b - a for a, b in zip(times, times[1:])]
        half = len(steps) // 2
        last = sorted(steps[half:])
        if last:
            self.unprofiled_step_us = last[len(last) // 2] * 1e6
            start, end = times[half], times[-1]
            at = {}
            for t, weight, site in self.samples:
                if start < t <= end:
                    at[site[:2]] = at.get(site[:2], 0.0) + weight
            self.unprofiled_lines = [
                [f, n, round(w * 1e6 / len(last), 1)] for (f, n), w in sorted(at.items())
            ]
        self.samples = []

    def start_profiler(self):
        torch = self.torch
        self.time_warmup()
        activities = [torch.profiler.ProfilerActivity.CPU]
        if torch.cuda.is_available():
            activities.append(torch.profiler.ProfilerActivity.CUDA)
        # No Python stacks: they tripled the host time of a step (4.9 to 15 ms on the
        # four-sync fixture, H100) and name functions rather than lines; the marks say the lines.
        self.profiler = torch.profiler.profile(activities=activities)
        self.profiler.start()

    def begin(self):
        import builtins
        import warnings

        torch = self.torch
        # Printing a tensor reads it on the host, in several synchronising calls.
        self.wrap(builtins, "print", _PRINT_MARK, count=False)
        if torch.cuda.is_available():
            # Sync debug mode leaves out the explicit synchronize: it is counted here.
            self.wrap(torch.cuda, "synchronize", _SYNC_MARK, count=True)
            # Every sync warning, not once per line; catch_warnings puts the filters and
            # showwarning back at the end.
            self.catcher = warnings.catch_warnings()
            self.catcher.__enter__()
            warnings.filterwarnings("always", message=".*" + _SYNC_WARNING)
            self.shown = warnings.showwarning
            warnings.showwarning = self.on_warning
            torch.cuda.set_sync_debug_mode(1)
        self.samples = []

    def start_sampler(self):
        import threading

        stepping = threading.get_ident()
        self.sampling = True

        # A failure here stops the sampling, quietly: the samples taken so far still count,
        # and a thread's traceback must not land in the program's output.
        def sample():
            frames = sys._current_frames
            try:
                before = time.perf_counter()
                while self.sampling:
                    time.sleep(_SAMPLE_S)
                    frame = frames().get(stepping)
                    site = self.user_site(frame) if frame is not None else ("", 0, "")
                    now = time.perf_counter()
                    if site[0]:
                        self.samples.append((now, min(now - before, _SAMPLE_WEIGHT_S), site))
                    before = now
            except Exception:
                self.sampling = False

        self.sampler = threading.Thread(target=sample, name="gpulint-sampler", daemon=True)
        self.sampler.start()

    # The user's frame that called into torch: the innermost one in the user's files.
    def user_site(self, frame):
        while frame is not None and not self.users(frame.f_code.co_filename):
            frame = frame.f_back
        if frame is None:
            return ("", 0, "")
        return (os.path.abspath(frame.f_code.co_filename), frame.f_lineno, frame.f_code.co_name)

    def annotation(self, mark, site):
        from torch.autograd.profiler import record_function

        return record_function("%s%s:%d" % (mark, site[0], site[1]))

    # Replaces owner.name until the shim detaches: `before` and `after` run around each call,
    # and inside the window the call runs inside an annotation naming the user's line.
    def wrap(self, owner, name, mark, count, before=None, after=None):
        original = getattr(owner, name)
        window = self

        def wrapper(*args, **kwargs):
            if before is not None:
                before()
            if mark is None or window.profiler is None:
                result = original(*args, **kwargs)
            else:
                site = window.user_site(sys._getframe(1))
                if count:
                    window.syncs[site] = window.syncs.get(site, 0) + 1
                with window.annotation(mark, site):
                    result = original(*args, **kwargs)
            if after is not None:
                after()
            return result

        setattr(owner, name, wrapper)
        self.wrapped.append((owner, name, original))

    def on_warning(self, message, category, filename, lineno, file=None, line=None):
        if _SYNC_WARNING not in str(message):
            return self.shown(message, category, filename, lineno, file, line)
        # Torch hands its warning to Python once the operator has returned: this instant mark
        # comes right after the blocking calls in the trace.
        site = self.user_site(sys._getframe(1))
        self.syncs[site] = self.syncs.get(site, 0) + 1
        with self.annotation(_SYNC_MARK, site):
            pass

    # Every hook off, the program's own functions and warning filters back.
    def detach(self):
        self.done = True
        self.sampling = False
        if self.sampler is not None:
            self.sampler.join(1.0)
            self.sampler = None
        for owner, name, original in reversed(self.wrapped):
            setattr(owner, name, original)
        self.wrapped = []
        if self.handle is not None:
            self.handle.remove()
            self.handle = None
        if self.catcher is not None:
            self.catcher.__exit__(None, None, None)
            self.catcher = None
            self.torch.cuda.set_sync_debug_mode(0)

    def end(self):
        self.close_mark()
        self.detach()
        if self.torch.cuda.is_available():
            self.torch.cuda.synchronize()
        self.profiler.stop()
        self.profiler.export_chrome_trace(self.path("trace"))
        self.profiler = None
        self.write()
        if self.stop:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(0)

    # A program that ends inside the window (or before it) still leaves what was seen.
    def at_exit(self):
        if self.done or not hasattr(self, "torch"):
            return
        try:
            if self.profiler is not None:
                self.stop = False
                self.end()
            else:
                self.detach()  # the sampler too, before its samples are written
                self.write()
        except Exception as e:
            self.fail(e)

    def fail(self, e):
        self.error = "%s: %s" % (type(e).__name__, e)
        try:
            self.detach()
            self.write()
        except Exception:
            pass

    def path(self, kind):
        return os.path.join(self.out_dir, "%s-rank%d.json" % (kind, self.rank))

    def write(self):
        import json

        # A process that never stepped and has nothing to say (torchrun's own launcher, which
        # imports torch and shares rank 0's default) leaves a rank's real record alone.
        nothing = not any(self.counts.values()) and self.error is None
        if nothing and os.path.exists(self.path("window")):
            return

        syncs = [
            {"file": f, "line": n, "function": fn, "count": c}
            for (f, n, fn), c in sorted(self.syncs.items())
        ]
        sites = {}
        samples = [
            [round(t * 1e6, 1), sites.setdefault(site[:2], len(sites))]
            for t, _, site in self.samples
        ]
        window = {
            "rank": self.rank,
            "warmup": self.warmup,
            "steps": max(0, min(self.boundaries - self.warmup - 1, self.steps)),
            "step_source": self.source,
            "unprofiled_step_us": self.unprofiled_step_us,
            "unprofiled_lines": self.unprofiled_lines,
            "torch": getattr(self.torch, "__version__", ""),
            "cuda": bool(self.torch.cuda.is_available()),
            "syncs": syncs,
            "mark_us": [round(t * 1e6, 1) for t in self.mark_times],
            "sample_sites": [list(site) for site in sites],
            "samples": samples,
            "error": self.error,
        }
        tmp = self.path("window") + ".tmp"
        with open(tmp, "w") as f:
            json.dump(window, f)
        os.replace(tmp, self.path("window"))


class _WhenTorchIsImported:
    """A meta-path finder that runs `then(torch)` once torch has finished importing."""

    def __init__(self, then):
        self.then = then

    def find_spec(self, name, path=None, target=None):
        if name != "torch":
            return None
        import importlib.util

        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            return spec
        loader, then = spec.loader, self.then

        class _Loader:
            def create_module(self, spec):
                return loader.create_module(spec)

            def exec_module(self, module):
                loader.exec_module(module)
                then(module)

        spec.loader = _Loader()
        return spec


def _install():
    import atexit

    out_dir = os.environ.get("GPULINT_PROFILE_DIR")
    if not out_dir:
        return
    window = _Window(out_dir)
    atexit.register(window.at_exit)

    def then(torch):
        try:
            window.attach(torch)
        except Exception as e:
            window.torch = torch
            window.fail(e)

    if "torch" in sys.modules:
        then(sys.modules["torch"])
    else:
        sys.meta_path.insert(0, _WhenTorchIsImported(then))


_install()
_chain_to_the_next_sitecustomize()
