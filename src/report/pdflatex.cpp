#include "seqi/report/pdflatex.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <fstream>
#include <vector>

namespace seqi {

namespace {

namespace fs = std::filesystem;

// First executable `name` on PATH, or "".
std::string find_on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  if (!path) return "";
  std::string dirs(path);
  std::size_t start = 0;
  while (start <= dirs.size()) {
    const std::size_t end = std::min(dirs.find(':', start), dirs.size());
    const std::string dir = end > start ? dirs.substr(start, end - start) : ".";
    std::string candidate = dir + "/" + name;
    if (::access(candidate.c_str(), X_OK) == 0 && !fs::is_directory(candidate)) return candidate;
    start = end + 1;
  }
  return "";
}

std::string last_lines(const fs::path& file, std::size_t count) {
  std::ifstream in(file);
  if (!in) return "(no log file " + file.string() + ")";
  std::deque<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    lines.push_back(line);
    if (lines.size() > count) lines.pop_front();
  }
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

// Runs `exe args...` in `dir` with stdin, stdout and stderr on /dev/null; returns the exit
// status (or -1 if it could not be started or was killed by a signal).
int run_in_dir(const std::string& exe, const std::vector<std::string>& args, const std::string& dir) {
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(exe.c_str()));
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    const int null = ::open("/dev/null", O_RDWR);
    if (null >= 0) {
      ::dup2(null, 0);
      ::dup2(null, 1);
      ::dup2(null, 2);
    }
    if (::chdir(dir.c_str()) != 0) ::_exit(126);
    ::execv(exe.c_str(), argv.data());
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

std::string compile_pdf(const std::string& tex_path) {
  const std::string exe = find_on_path("pdflatex");
  if (exe.empty())
    return "pdflatex not found on PATH: install TeX Live (texlive-latex-base, -latex-recommended, "
           "-latex-extra, -pictures) or compile " + tex_path + " by hand";
  std::error_code ec;
  const fs::path tex = fs::absolute(tex_path, ec);
  if (ec || !fs::is_regular_file(tex)) return tex_path + ": no such file to compile";
  const std::string dir = tex.parent_path().string();
  const std::vector<std::string> args{"-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape",
                                      "-output-directory=" + dir, tex.filename().string()};
  fs::path log = tex, pdf = tex;
  log.replace_extension(".log");
  pdf.replace_extension(".pdf");
  for (int pass = 1; pass <= 2; ++pass) {
    const int rc = run_in_dir(exe, args, dir);
    if (rc != 0)
      return "pdflatex failed on " + tex.string() + " (pass " + std::to_string(pass) + ", exit status " +
             std::to_string(rc) + "); end of " + log.string() + ":\n" + last_lines(log, 25);
  }
  if (!fs::is_regular_file(pdf)) return "pdflatex reported success but wrote no " + pdf.string();
  return "";
}

}  // namespace seqi
