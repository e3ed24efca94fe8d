#include "machine/process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

namespace gpulint::system {
namespace {

std::atomic<pid_t> g_child{0};
static_assert(std::atomic<pid_t>::is_always_lock_free, "read from a signal handler");

void forward_signal(int signal, siginfo_t* info, void*) {
  // SI_KERNEL marks a signal the terminal sent to the whole foreground group, child included.
  const pid_t child = g_child.load();
  if (child > 0 && info->si_code != SI_KERNEL) ::kill(child, signal);
}

// The signals that end a process by default and that a user or a supervisor sends to stop a
// run (a closed terminal's SIGHUP among them): gpulint passes each on to the child and waits,
// so the child is never left running alone.
constexpr int kForwarded[] = {SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGALRM};
constexpr size_t kForwardedCount = sizeof kForwarded / sizeof kForwarded[0];

std::vector<char*> c_args(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  return args;
}

int decode_status(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return kExitSignalBase + WTERMSIG(status);
  return kExitSignalBase;
}

int wait_for(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return kExitSignalBase;
  }
  return decode_status(status);
}

// Forks a child that runs argv, with `prepare` run in the child before exec. An exec failure
// travels back through a close-on-exec pipe, so the caller can name it instead of guessing
// from exit code 127. Returns the pid, or -1 with *error set and the shell's exit code for
// the failure in *code.
template <typename Prepare>
pid_t spawn(const std::vector<std::string>& argv, Prepare prepare, std::string* error, int* code) {
  *code = kExitCannotExecute;
  int report[2];
  if (::pipe2(report, O_CLOEXEC) != 0) {
    *error = std::string("pipe: ") + std::strerror(errno);
    return -1;
  }
  std::vector<char*> args = c_args(argv);
  const pid_t pid = ::fork();
  if (pid < 0) {
    *error = std::string("fork: ") + std::strerror(errno);
    ::close(report[0]);
    ::close(report[1]);
    return -1;
  }
  if (pid == 0) {
    ::close(report[0]);
    prepare();
    ::execvp(args[0], args.data());
    const int cause = errno;
    [[maybe_unused]] const ssize_t n = ::write(report[1], &cause, sizeof cause);
    ::_exit(cause == ENOENT ? kExitNotFound : kExitCannotExecute);
  }
  ::close(report[1]);
  int cause = 0;
  ssize_t n;
  while ((n = ::read(report[0], &cause, sizeof cause)) < 0 && errno == EINTR) {
  }
  ::close(report[0]);
  if (n == static_cast<ssize_t>(sizeof cause)) {
    *error = "cannot run '" + argv[0] + "': " + std::strerror(cause);
    *code = cause == ENOENT ? kExitNotFound : kExitCannotExecute;
    wait_for(pid);
    return -1;
  }
  return pid;
}

}  // namespace

ChildExit run_inheriting_stdio(const std::vector<std::string>& argv) {
  ChildExit result;
  struct sigaction forward = {};
  forward.sa_sigaction = forward_signal;
  forward.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&forward.sa_mask);
  // The signals are held until the child's pid is stored: one that arrived between the fork
  // and the store would find no child to pass to, and be lost while gpulint waits on.
  sigset_t held, old_mask;
  sigemptyset(&held);
  for (int s : kForwarded) sigaddset(&held, s);
  ::pthread_sigmask(SIG_BLOCK, &held, &old_mask);
  struct sigaction old[kForwardedCount] = {};
  for (size_t i = 0; i < kForwardedCount; ++i) ::sigaction(kForwarded[i], &forward, &old[i]);
  auto restore = [&] {
    for (size_t i = 0; i < kForwardedCount; ++i) ::sigaction(kForwarded[i], &old[i], nullptr);
  };

  const pid_t pid = spawn(
      argv,
      [&] {
        restore();
        ::pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
      },
      &result.error, &result.code);
  if (pid >= 0) g_child.store(pid);
  ::pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
  if (pid >= 0) {
    result.code = wait_for(pid);
    g_child.store(0);
  }
  restore();
  return result;
}

CapturedRun run_capturing(const std::vector<std::string>& argv, std::chrono::milliseconds limit) {
  CapturedRun result;
  int out[2], err[2];
  if (::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0) {
    result.error = std::string("pipe: ") + std::strerror(errno);
    return result;
  }
  const pid_t pid = spawn(
      argv,
      [&] {
        const int null = ::open("/dev/null", O_RDONLY);
        ::dup2(null, STDIN_FILENO);
        ::dup2(out[1], STDOUT_FILENO);
        ::dup2(err[1], STDERR_FILENO);
      },
      &result.error, &result.code);
  ::close(out[1]);
  ::close(err[1]);
  if (pid < 0) {
    ::close(out[0]);
    ::close(err[0]);
    return result;
  }

  const auto deadline = std::chrono::steady_clock::now() + limit;
  pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
  std::string* sinks[2] = {&result.out, &result.err};
  int open_fds = 2;
  while (open_fds > 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      result.timed_out = true;
      ::kill(pid, SIGKILL);
      break;
    }
    if (::poll(fds, 2, static_cast<int>(left.count())) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      char buffer[4096];
      const ssize_t n = ::read(fds[i].fd, buffer, sizeof buffer);
      if (n > 0) {
        sinks[i]->append(buffer, static_cast<size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        ::close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  for (const pollfd& fd : fds) {
    if (fd.fd >= 0) ::close(fd.fd);
  }
  result.code = wait_for(pid);
  return result;
}

}  // namespace gpulint::system
