#include "seqi/cli/resource_failure.hpp"

#include <exception>
#include <new>
#include <ostream>
#include <stdexcept>
#include <system_error>

#include "seqi/cli/run.hpp"
#include "seqi/core/resource_error.hpp"

namespace seqi {

int resource_failure_exit(std::ostream& err, const std::string& program, const std::string& advice) {
  try {
    throw;
  } catch (const std::bad_alloc&) {
    err << program << ": out of memory; the input needs more memory than this machine gives. " << advice << "\n";
  } catch (const std::length_error& e) {
    err << program << ": out of memory: a container would exceed its maximum size (" << e.what() << "). " << advice << "\n";
  } catch (const std::system_error& e) {
    err << program << ": out of resources: the system refused a thread or another resource (" << e.what() << "). "
        << advice << " Fewer --threads need less memory (each thread has its own stack).\n";
  } catch (const ResourceError& e) {
    err << program << ": out of resources: " << e.what() << "\n";
  }
  return kOutOfMemory;
}

}  // namespace seqi
