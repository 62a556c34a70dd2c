// run_process: start a program without a shell, capture its output, and never wait forever.
//
// posix_spawnp (vfork-like, safe in a multi-threaded process) with stdin from /dev/null and
// stdout + stderr into an unlinked temp file: a pipe would need a reader thread to avoid a
// deadlock on large outputs. The child gets its own process group, so a timeout kills the
// compiler driver and the cc1plus/ld it started. Waiting uses a pidfd where the kernel has one
// (exact wake-up) and short sleeps otherwise.
#include "backends/cpu/jit/compiler.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>

extern char** environ;

namespace cgrad::backends::cpu::jit {

namespace {

int open_capture_file() {
  const char* t = std::getenv("TMPDIR");
  std::string tmpl = std::string((t && *t == '/') ? t : "/tmp") + "/cgrad-out-XXXXXX";
  int fd = ::mkostemp(tmpl.data(), O_CLOEXEC);
  if (fd < 0) {
    tmpl = "/tmp/cgrad-out-XXXXXX";
    fd = ::mkostemp(tmpl.data(), O_CLOEXEC);
  }
  if (fd >= 0) ::unlink(tmpl.c_str());
  return fd;
}

int pidfd_open_or_minus_one(pid_t pid) {
#ifdef SYS_pidfd_open
  return static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
#else
  (void)pid;
  return -1;
#endif
}

// Waits for `pid` until `deadline`; true with *status set when it exited, false on timeout.
bool wait_until(pid_t pid, std::chrono::steady_clock::time_point deadline, int* status) {
  using namespace std::chrono;
  int pidfd = pidfd_open_or_minus_one(pid);
  auto nap = microseconds(50);
  bool exited = false;
  for (;;) {
    pid_t w = ::waitpid(pid, status, WNOHANG);
    if (w == pid) {
      exited = true;
      break;
    }
    if (w < 0 && errno != EINTR) {  // ECHILD: SIGCHLD is ignored, the child was reaped for us
      *status = 0;
      exited = true;
      break;
    }
    auto now = steady_clock::now();
    if (now >= deadline) break;
    if (pidfd >= 0) {
      pollfd p{pidfd, POLLIN, 0};
      auto left = duration_cast<milliseconds>(deadline - now).count() + 1;
      ::poll(&p, 1, static_cast<int>(std::min<long long>(left, 1000)));
    } else {
      std::this_thread::sleep_for(std::min<nanoseconds>(nap, deadline - now));
      nap = std::min<microseconds>(nap * 2, milliseconds(2));
    }
  }
  if (pidfd >= 0) ::close(pidfd);
  return exited;
}

}  // namespace

ProcessResult run_process(const std::vector<std::string>& argv, int timeout_ms, std::size_t max_output) {
  ProcessResult r;
  if (argv.empty()) return r;
  int out = open_capture_file();
  int devnull = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (out < 0 || devnull < 0) {
    if (out >= 0) ::close(out);
    if (devnull >= 0) ::close(devnull);
    r.exit_code = 127;
    r.output =
        std::string("cannot create a temp file for the output of ") + argv[0] + ": " + std::strerror(errno);
    return r;
  }

  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, devnull, 0);
  posix_spawn_file_actions_adddup2(&fa, out, 1);
  posix_spawn_file_actions_adddup2(&fa, out, 2);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // Own process group (killable as a whole), no blocked signals, default dispositions.
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  posix_spawnattr_setpgroup(&attr, 0);
  sigset_t none, defaults;
  sigemptyset(&none);
  posix_spawnattr_setsigmask(&attr, &none);
  sigemptyset(&defaults);
  for (int s : {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD}) sigaddset(&defaults, s);
  posix_spawnattr_setsigdefault(&attr, &defaults);

  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  int rc = ::posix_spawnp(&pid, args[0], &fa, &attr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  ::close(devnull);
  if (rc != 0) {
    ::close(out);
    r.exit_code = 127;
    r.output = "cannot run " + argv[0] + ": " + std::strerror(rc);
    return r;
  }

  int status = 0;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  if (!wait_until(pid, deadline, &status)) {
    ::kill(-pid, SIGKILL);
    ::kill(pid, SIGKILL);
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    r.timed_out = true;
  }
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : -1;

  r.output.resize(max_output);
  size_t got = 0;
  while (got < max_output) {
    ssize_t n = ::pread(out, r.output.data() + got, max_output - got, static_cast<off_t>(got));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  r.output.resize(got);
  ::close(out);
  return r;
}

}  // namespace cgrad::backends::cpu::jit
