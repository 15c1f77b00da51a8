// Resources and output paths: a thread that cannot start or no file descriptor left is exit 3
// with a message, never an abort; an output path that is a symbolic link, a device, a FIFO,
// this process's descriptor or a /proc entry is written through or refused, never replaced.
#include <boost/test/unit_test.hpp>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <exception>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "hardening_support.hpp"
#include "seqi/cli/resource_failure.hpp"
#include "seqi/core/resource_error.hpp"
#include "seqi/io/read_file.hpp"

BOOST_AUTO_TEST_SUITE(test_hardening_outputs)

namespace fs = std::filesystem;
using json = nlohmann::json;
using namespace seqi_test::hardening;

namespace {

bool is_model_json(const std::string& text) {
  const json j = json::parse(text, nullptr, false);
  return !j.is_discarded() && j.is_object() && j.value("format", "") == "seqi-transformer";
}

}  // namespace

// ---- resources: exit 3, never an abort ----------------------------------------------------

BOOST_AUTO_TEST_CASE(threads_that_cannot_start_exit_3_with_a_message) {
  if (kSanitized) {
    BOOST_TEST_MESSAGE("skipped under AddressSanitizer (it reserves terabytes of address space)");
    return;
  }
  // 300 sequences on --threads 1024: 300 threads of 8 MiB stacks cannot fit in 1 GiB of
  // address space, so thread creation fails part way; the started threads are joined.
  const Run r = verify({"--exact", "--threads", "1024", dataset("words-300.json")}, memory_limited(rlim_t{1} << 30));
  expect(r, 3, "out of resources");
  BOOST_TEST(r.err.find("terminate") == std::string::npos, describe(r));
}

BOOST_AUTO_TEST_CASE(no_file_descriptor_left_is_a_resource_failure_exit_3) {
  // In this process: the soft limit lowered, every descriptor below it taken, then restored.
  rlimit saved{};
  BOOST_REQUIRE(::getrlimit(RLIMIT_NOFILE, &saved) == 0);
  const rlimit low{64, saved.rlim_max};
  BOOST_REQUIRE(::setrlimit(RLIMIT_NOFILE, &low) == 0);
  std::vector<int> taken;
  for (int fd; (fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0;) taken.push_back(fd);
  std::exception_ptr error;  // examined once descriptors are back (the sanitizers' checks need some)
  try {
    seqi::read_file_limited(dataset("tiny-d2.json"), 1 << 20, "dataset");
  } catch (...) {
    error = std::current_exception();
  }
  for (int fd : taken) ::close(fd);
  BOOST_REQUIRE(::setrlimit(RLIMIT_NOFILE, &saved) == 0);
  std::string what = "<no error>";
  try {
    if (error) std::rethrow_exception(error);
  } catch (const seqi::ResourceError& e) {
    what = e.what();
  } catch (const std::exception& e) {
    what = std::string("another error: ") + e.what();
  }
  BOOST_TEST(what.find("tiny-d2.json: cannot open the dataset file") != std::string::npos, what);
  BOOST_TEST(what.find("ulimit -n") != std::string::npos, what);
  // Such an error, or a thread that cannot start, is exit 3 with a message.
  for (const std::exception_ptr& e : {std::make_exception_ptr(seqi::ResourceError("x: no descriptor")),
                                      std::make_exception_ptr(std::system_error(std::make_error_code(std::errc::resource_unavailable_try_again)))}) {
    std::ostringstream err;
    int code = -1;
    try {
      std::rethrow_exception(e);
    } catch (...) {
      code = seqi::resource_failure_exit(err, "verify", "Free memory.");
    }
    BOOST_TEST(code == 3);
    BOOST_TEST(err.str().rfind("verify: out of resources: ", 0) == 0, err.str());
  }
}

// ---- output paths -------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(a_link_to_a_regular_file_is_followed_and_kept) {
  const fs::path target = scratch_file("real-model.json"), link = scratch_file("link-model.json");
  write_file(target, "old");
  fs::create_symlink(target, link);
  const Run r = verify({"--exact", "--save-model", link.string(), dataset("tiny-d2.json")});
  BOOST_TEST(r.code == 0, describe(r));
  BOOST_TEST(fs::is_symlink(fs::symlink_status(link)));
  BOOST_TEST(fs::read_symlink(link) == target);
  BOOST_TEST(is_model_json(read_file(target)));
  // A dangling link: its target is created.
  const fs::path dangling = scratch_file("dangling.json"), created = scratch_file("created-by-link.json");
  fs::create_symlink(created, dangling);
  BOOST_TEST(verify({"--exact", "--save-model", dangling.string(), dataset("tiny-d2.json")}).code == 0);
  BOOST_TEST(fs::is_symlink(fs::symlink_status(dangling)));
  BOOST_TEST(is_model_json(read_file(created)));
}

BOOST_AUTO_TEST_CASE(a_link_to_a_device_is_written_through_and_kept) {
  const fs::path link = scratch_file("null-link.json");
  fs::create_symlink("/dev/null", link);
  const Run r = verify({"--exact", "--save-model", link.string(), dataset("tiny-d2.json")});
  BOOST_TEST(r.code == 0, describe(r));
  BOOST_TEST(fs::is_symlink(fs::symlink_status(link)));
  BOOST_TEST(fs::is_character_file(fs::status("/dev/null")));
}

BOOST_AUTO_TEST_CASE(a_fifo_is_written_through_and_kept) {
  const fs::path fifo = scratch_file("model.fifo");
  BOOST_REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  std::string received;
  std::thread reader([&] { received = read_file(fifo); });  // opens once verify opens to write
  const Run r = verify({"--exact", "--save-model", fifo.string(), dataset("tiny-d2.json")}, timed_out_after(60));
  reader.join();
  BOOST_TEST(r.code == 0, describe(r));
  BOOST_TEST(fs::is_fifo(fs::symlink_status(fifo)));
  BOOST_TEST(is_model_json(received));
}

BOOST_AUTO_TEST_CASE(a_link_to_this_process_standard_output_shares_it) {
  // What /dev/stdout is (a link to /proc/self/fd/1), in the scratch directory: with standard
  // output redirected to a file, the model and then the summary land in that file.
  const fs::path link = scratch_file("stdout-link"), out = scratch_file("stdout.txt");
  fs::create_symlink("/proc/self/fd/1", link);
  const Run r = verify({"--exact", "--save-model", link.string(), dataset("tiny-d2.json")}, writing_stdout(out.string()));
  BOOST_TEST(r.code == 0, describe(r));
  BOOST_TEST(fs::is_symlink(fs::symlink_status(link)));
  const std::string text = read_file(out);
  const auto summary = text.find("VERIFIED");
  BOOST_TEST(summary != std::string::npos, text);
  BOOST_TEST(is_model_json(text.substr(0, text.find("\n}\n") + 3)), text.substr(0, 300));
}

BOOST_AUTO_TEST_CASE(proc_entries_and_directories_are_refused_untouched) {
  const fs::path link = scratch_file("proc-link");
  fs::create_symlink("/proc/version", link);
  expect(verify({"--exact", "--save-model", link.string(), dataset("tiny-d2.json")}), 2, "is a /proc or /sys entry");
  BOOST_TEST(fs::is_symlink(fs::symlink_status(link)));
  expect(verify({"--exact", "--save-model", "/proc/self/status", dataset("tiny-d2.json")}), 2, "is a /proc or /sys entry");
  const fs::path dir_link = scratch_file("dir-link");
  fs::create_directory(scratch_file("a-directory"));
  fs::create_symlink(scratch_file("a-directory"), dir_link);
  expect(verify({"--exact", "--save-model", dir_link.string(), dataset("tiny-d2.json")}), 2, "is a directory");
  BOOST_TEST(fs::is_symlink(fs::symlink_status(dir_link)));
}

BOOST_AUTO_TEST_SUITE_END()
