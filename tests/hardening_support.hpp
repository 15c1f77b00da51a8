// Helpers shared by the hostile-input suites (test_hardening, test_hardening_files): verify run
// as a subprocess (fork and exec, with an optional address-space limit, a timeout, a stdin file
// and a stdout file), its exit code, signal and output, and a scratch directory removed at exit.
#pragma once
#include <boost/test/unit_test.hpp>

#include "scratch_files.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <string>
#include <vector>
#include "build_paths.hpp"

namespace seqi_test::hardening {

namespace fs = std::filesystem;

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif
#else
inline constexpr bool kSanitized = false;
#endif

using seqi::testing::read_file;
using seqi::testing::write_file;

inline const fs::path& scratch() { return seqi::testing::scratch("seqi-hardening"); }

inline fs::path scratch_file(const std::string& name) { return scratch() / name; }
inline std::string dataset(const std::string& name) { return (fs::path(SEQI_DATASETS_DIR) / name).string(); }

struct Run {
  int code = -1;     // exit status, or -1 when killed by a signal
  int signal = 0;
  std::string out, err;
};

inline std::string describe(const Run& r) {
  return "exit " + std::to_string(r.code) + " signal " + std::to_string(r.signal) + "\nstdout:\n" + r.out.substr(0, 2000) +
         "\nstderr:\n" + r.err.substr(0, 2000);
}

struct Launch {
  std::string stdin_path = "/dev/null";
  std::string stdout_path;  // "" = a scratch file read back
  rlim_t address_space = 0;  // 0 = no limit
  int timeout_s = 120;       // the run is killed after this (a hang is a failure, not a wait)
};

inline Launch memory_limited(rlim_t bytes) {
  Launch l;
  l.address_space = kSanitized ? 0 : bytes;  // ASan reserves terabytes of address space
  return l;
}
inline Launch timed_out_after(int seconds) {
  Launch l;
  l.timeout_s = seconds;
  return l;
}
inline Launch reading_stdin(const std::string& path) {
  Launch l;
  l.stdin_path = path;
  return l;
}
inline Launch writing_stdout(const std::string& path) {
  Launch l;
  l.stdout_path = path;
  return l;
}

// Runs argv[0] = exe with args; returns exit code, signal and the captured output.
inline Run run(const std::string& exe, const std::vector<std::string>& args, const Launch& how = {}) {
  static int counter = 0;
  const int k = counter++;
  const fs::path out = how.stdout_path.empty() ? scratch() / ("run" + std::to_string(k) + ".out") : fs::path(how.stdout_path);
  const fs::path err = scratch() / ("run" + std::to_string(k) + ".err");
  std::vector<char*> argv{const_cast<char*>(exe.c_str())};
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  BOOST_REQUIRE(pid >= 0);
  if (pid == 0) {
    const int in = ::open(how.stdin_path.c_str(), O_RDONLY);
    const int o = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int e = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (in < 0 || o < 0 || e < 0) ::_exit(125);
    ::dup2(in, 0), ::dup2(o, 1), ::dup2(e, 2);
    if (how.address_space) {
      const rlimit lim{how.address_space, how.address_space};
      ::setrlimit(RLIMIT_AS, &lim);
    }
    ::alarm(static_cast<unsigned>(how.timeout_s));  // SIGALRM ends a hang
    ::execv(exe.c_str(), argv.data());
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) BOOST_REQUIRE(errno == EINTR);
  Run r;
  if (WIFEXITED(status)) r.code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  if (how.stdout_path.empty()) r.out = read_file(out);
  r.err = read_file(err);
  return r;
}

inline Run verify(const std::vector<std::string>& args, const Launch& how = {}) { return run(SEQI_VERIFY_EXE, args, how); }

// The run ended with `code` and stderr holding `fragment`; stderr is short and free of
// control characters (besides newlines).
inline void expect(const Run& r, int code, const std::string& fragment) {
  BOOST_TEST(r.signal == 0, describe(r));
  BOOST_TEST(r.code == code, describe(r));
  BOOST_TEST(r.err.find(fragment) != std::string::npos, "stderr lacks \"" << fragment << "\": " << describe(r));
  for (char c : r.err)
    BOOST_TEST_REQUIRE((c == '\n' || (static_cast<unsigned char>(c) >= 0x20 && static_cast<unsigned char>(c) < 0x7f)),
                       "control or non-ASCII byte " << int(static_cast<unsigned char>(c)) << " in stderr");
}

inline std::string one_pair_dataset(const std::string& input) {
  return R"({"dimension": 2, "pairs": [{"input": )" + input + R"(, "output": [["1", "1"]]}]})";
}

inline fs::path saved_model(const std::string& dataset_name) {
  const fs::path m = scratch_file("model-" + fs::path(dataset_name).stem().string() + ".json");
  if (!fs::exists(m)) {
    const Run r = verify({"--save-model", m.string(), dataset(dataset_name)});
    BOOST_REQUIRE_MESSAGE(r.code == 0, describe(r));
  }
  return m;
}

}  // namespace seqi_test::hardening
