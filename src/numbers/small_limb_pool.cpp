#include "seqi/numbers/small_limb_pool.hpp"

#include <cstdlib>
#include <mutex>
#include <vector>

namespace seqi {
namespace {

constexpr std::size_t kClasses = 2;                  // 8 and 16 bytes
constexpr std::size_t kSlabBytes = std::size_t{1} << 20;

std::size_t class_of(std::size_t bytes) { return bytes <= 8 ? 0 : 1; }
std::size_t class_bytes(std::size_t c) { return 8 * (c + 1); }

struct FreeBlock {
  FreeBlock* next;
};

struct Slab {
  char* next = nullptr;
  std::size_t left = 0;  // bytes
};

// What ended threads handed back: whole free lists and partly used slabs, per class. Never
// destroyed (a GMP value may be freed during static destruction).
struct Stash {
  std::mutex m;
  std::vector<FreeBlock*> lists[kClasses];
  std::vector<Slab> slabs[kClasses];
};
Stash& stash() {
  static Stash* s = new Stash;
  return *s;
}

// Trivially destructible, so that it stays usable until the thread's very end.
struct Local {
  FreeBlock* list[kClasses];
  Slab slab[kClasses];
};
thread_local Local local{};

// Refills the thread's list or slab of class c from the stash, else with a new slab.
bool refill(std::size_t c) {
  {
    Stash& s = stash();
    std::lock_guard<std::mutex> lock(s.m);
    if (!s.lists[c].empty()) {
      local.list[c] = s.lists[c].back();
      s.lists[c].pop_back();
      return true;
    }
    if (!s.slabs[c].empty()) {
      local.slab[c] = s.slabs[c].back();
      s.slabs[c].pop_back();
      return true;
    }
  }
  char* p = static_cast<char*>(std::malloc(kSlabBytes));
  if (!p) return false;
  local.slab[c] = {p, kSlabBytes};
  return true;
}

}  // namespace

void* allocate_small_limbs(std::size_t bytes) {
  const std::size_t c = class_of(bytes), size = class_bytes(c);
  for (;;) {
    if (FreeBlock* b = local.list[c]) {
      local.list[c] = b->next;
      return b;
    }
    if (local.slab[c].left >= size) {
      void* p = local.slab[c].next;
      local.slab[c].next += size;
      local.slab[c].left -= size;
      return p;
    }
    if (!refill(c)) return nullptr;
  }
}

void release_small_limbs(void* p, std::size_t bytes) {
  if (!p) return;
  const std::size_t c = class_of(bytes);
  auto* b = static_cast<FreeBlock*>(p);
  b->next = local.list[c];
  local.list[c] = b;
}

void give_back_small_limbs() {
  Stash& s = stash();
  std::lock_guard<std::mutex> lock(s.m);
  for (std::size_t c = 0; c < kClasses; ++c) {
    if (local.list[c]) s.lists[c].push_back(local.list[c]);
    if (local.slab[c].left >= class_bytes(c)) s.slabs[c].push_back(local.slab[c]);
    local.list[c] = nullptr;
    local.slab[c] = {};
  }
}

}  // namespace seqi
