#include "seqi/distributed/launch_check.hpp"

#include "seqi/distributed/mpi_cooperation.hpp"
#include "seqi/io/quote_value.hpp"

namespace seqi {
namespace {

// The arguments joined with NUL bytes (never inside an argument) and split back.
std::string joined(const std::vector<std::string>& args) {
  std::string s;
  for (const auto& a : args) s += a + '\0';
  return s;
}
std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  for (std::size_t at = 0; at < s.size();) {
    const std::size_t end = s.find('\0', at);
    out.push_back(s.substr(at, end - at));
    at = end + 1;
  }
  return out;
}

std::string difference(std::size_t p, const std::vector<std::string>& mine, const std::vector<std::string>& first) {
  const std::string who = "process " + std::to_string(p) + " was started with other arguments than process 0: ";
  for (std::size_t k = 0; k < mine.size() && k < first.size(); ++k)
    if (mine[k] != first[k])
      return who + "argument " + std::to_string(k + 1) + " is " + quote_value(mine[k], 4096) + " there, " +
             quote_value(first[k], 4096) + " on process 0";
  const auto& longer = mine.size() > first.size() ? mine : first;
  return who + std::to_string(mine.size()) + " arguments there, " + std::to_string(first.size()) +
         " on process 0 (argument " + std::to_string(std::min(mine.size(), first.size()) + 1) + " is " +
         quote_value(longer[std::min(mine.size(), first.size())], 4096) + " on process " +
         (mine.size() > first.size() ? std::to_string(p) : "0") + ")";
}

}  // namespace

std::string launch_mismatch(const std::vector<std::string>& arguments) {
  const MpiSharding sharding;
  const auto all = sharding.all_gather(joined(arguments));
  for (std::size_t p = 1; p < all.size(); ++p)
    if (all[p] != all[0])
      return difference(p, split(all[p]), split(all[0])) +
             ". Start every process with the same arguments (mpirun -np N verify-mpi ARGUMENTS).";
  return "";
}

}  // namespace seqi
