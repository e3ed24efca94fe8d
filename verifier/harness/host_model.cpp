#include "verifier/harness/host_model.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

extern char** environ;

namespace gpulint::verifier {
namespace {

// Each figure is the median over bursts of back-to-back calls, after three bursts of warm-up, with
// the GPU drained between bursts: per-call host time as a step loop sees it. Given a GEMM shape
// M N K (0 0 0: none), it also times torch.mm of that FP32 GEMM on every CPU core, each sample
// after one warm-up call, as placement's CPU figure; given a batch's element count E (0: none),
// torch.randn of a fresh CPU tensor that size, as placement's host fill.
constexpr std::string_view kProbe = R"PY(
import json, os, statistics, sys, time
try:
    import torch
except Exception as e:
    print(json.dumps({"error": "python cannot import torch (%s)" % e}))
    sys.exit(0)
if not torch.cuda.is_available():
    print(json.dumps({"error": "torch %s sees no CUDA GPU" % torch.__version__}))
    sys.exit(0)
# The per-call figures on one core, the last this process may use, as the verifier's
# host-bound experiments and the cross-checks run; the CPU GEMM on all of them.
cores = os.sched_getaffinity(0)
os.sched_setaffinity(0, {max(cores)})
torch.cuda.init()
drain = torch.cuda.synchronize

def per_call(fn, calls=100, bursts=25):
    for _ in range(3 * calls):
        fn()
    drain()
    times = []
    for _ in range(bursts):
        drain()
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        times.append((time.perf_counter() - t0) / calls * 1e6)
        drain()
    return statistics.median(times)

figures = {"launch_us": per_call(lambda: torch.cuda._sleep(0))}
value = torch.zeros(1, device="cuda")
figures["item_us"] = per_call(value.item)
figures["synchronize_us"] = per_call(torch.cuda.synchronize)
sink = open(os.devnull, "w")
loss = 0.1234
figures["print_us"] = per_call(
    lambda: print(f"step {7} loss {loss * 1e-6:.4f}", file=sink, flush=True))
layers = torch.nn.Sequential(
    *[m for _ in range(8) for m in (torch.nn.Linear(1024, 1024), torch.nn.ReLU())]).cuda()
x = torch.zeros(1, 1024, device="cuda")
with torch.no_grad():
    figures["module_us"] = per_call(lambda: layers(x), calls=20) / 8

def alloc():
    t = torch.empty(64 * 3 * 224 * 224, device="cuda")
    del t

figures["alloc_us"] = per_call(alloc)
result = {"torch": torch.__version__, "figures": figures}
m, n, k, e = (int(v) for v in sys.argv[1:5])
os.sched_setaffinity(0, cores)
torch.set_num_threads(os.cpu_count())
if m > 0:
    a, b = torch.rand(m, k), torch.rand(k, n)
    torch.mm(a, b)
    result["cpu_gemm_ms"] = []
    for _ in range(15):
        t0 = time.perf_counter()
        torch.mm(a, b)
        result["cpu_gemm_ms"].append((time.perf_counter() - t0) * 1e3)
if e > 0:
    torch.randn(e)
    result["cpu_randn_ms"] = []
    for _ in range(9):
        t0 = time.perf_counter()
        torch.randn(e)
        result["cpu_randn_ms"].append((time.perf_counter() - t0) * 1e3)
print(json.dumps(result))
)PY";

struct Child {
  pid_t pid = -1;
  int out = -1;
  ~Child() {
    if (out >= 0) close(out);
    if (pid > 0) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
  }
};

// The probe's standard output; throws std::runtime_error when it cannot be run or runs out
// of time. Its standard error is left out: torch's warnings are not the verifier's.
std::string run_probe(const std::string& python, double timeout_s, const ProbeWork& work) {
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) throw std::runtime_error("cannot make a pipe");
  Child child;
  child.out = pipe_fds[0];
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  std::string source(kProbe),
      m = std::to_string(work.cpu_gemm.m), n = std::to_string(work.cpu_gemm.n),
      k = std::to_string(work.cpu_gemm.k), e = std::to_string(work.randn_elements);
  char* argv[] = {const_cast<char*>(python.c_str()),
                  const_cast<char*>("-c"),
                  source.data(),
                  m.data(),
                  n.data(),
                  k.data(),
                  e.data(),
                  nullptr};
  const int status = posix_spawnp(&child.pid, python.c_str(), &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  close(pipe_fds[1]);
  if (status != 0) {
    child.pid = -1;
    throw std::runtime_error("cannot run " + python);
  }
  std::string output;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      throw std::runtime_error(python + " did not finish the probe within " +
                               std::to_string(static_cast<int>(timeout_s)) + " s");
    }
    pollfd p{child.out, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
    char buf[4096];
    const ssize_t n = read(child.out, buf, sizeof buf);
    if (n > 0) {
      output.append(buf, static_cast<size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  int wait_status = 0;
  waitpid(child.pid, &wait_status, 0);
  child.pid = -1;
  if (!WIFEXITED(wait_status) || WEXITSTATUS(wait_status) != 0) {
    throw std::runtime_error(python + " failed running the probe");
  }
  return output;
}

}  // namespace

std::string_view torch_probe_source() { return kProbe; }

HostModel host_model_from_probe(std::string_view output, std::string_view python) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(output);
  } catch (const nlohmann::json::parse_error&) {
    throw std::runtime_error("the probe printed no JSON");
  }
  if (!j.is_object()) throw std::runtime_error("the probe printed no JSON object");
  if (j.contains("error")) throw std::runtime_error(j["error"].get<std::string>());
  try {
    const nlohmann::json& f = j.at("figures");
    HostModel m;
    m.source = "torch";
    m.detail = "torch " + j.at("torch").get<std::string>() + " through " + std::string(python);
    m.launch_us = f.at("launch_us").get<double>();
    m.item_us = f.at("item_us").get<double>();
    m.synchronize_us = f.at("synchronize_us").get<double>();
    m.print_us = f.at("print_us").get<double>();
    m.module_us = f.at("module_us").get<double>();
    m.alloc_us = f.at("alloc_us").get<double>();
    if (j.contains("cpu_gemm_ms")) m.cpu_gemm_ms = j["cpu_gemm_ms"].get<std::vector<double>>();
    if (j.contains("cpu_randn_ms")) m.cpu_randn_ms = j["cpu_randn_ms"].get<std::vector<double>>();
    for (double v :
         {m.launch_us, m.item_us, m.synchronize_us, m.print_us, m.module_us, m.alloc_us}) {
      if (!(v >= 0 && v < 1e6)) throw std::runtime_error("the probe printed a figure out of range");
    }
    for (const std::vector<double>* samples : {&m.cpu_gemm_ms, &m.cpu_randn_ms}) {
      for (double v : *samples) {
        if (!(v > 0 && v < 1e7))
          throw std::runtime_error("the probe printed a figure out of range");
      }
    }
    return m;
  } catch (const nlohmann::json::exception&) {
    throw std::runtime_error("the probe's JSON lacks a figure");
  }
}

HostModel probe_host_model(const std::string& python, double timeout_s, const ProbeWork& work) {
  try {
    return host_model_from_probe(run_probe(python, timeout_s, work), python);
  } catch (const std::exception& e) {
    HostModel m;
    m.detail = e.what();
    return m;
  }
}

}  // namespace gpulint::verifier
