// Storage for GMP's smallest limb arrays (1 and 2 limbs: the numerator or denominator of almost
// every rational of a dataset). malloc spends a 32-byte chunk on each 8- or 16-byte request;
// this pool carves them from large slabs, so a rational of two one-limb integers costs 48 bytes
// instead of 96. Only the allocation changes: every value is the same.
//
// Each thread keeps its own free lists (no lock on the fast path); a block freed by another
// thread joins that thread's list. A worker thread hands its lists and its slab back through
// give_back_small_limbs() before it ends (release_thread_number_caches() does), and new threads
// take them up, so nothing is lost with a thread. Slabs are never returned to the system (as
// malloc keeps most freed memory too).
#pragma once
#include <cstddef>

namespace seqi {

// Largest request (bytes) the pool serves; larger ones go to malloc.
inline constexpr std::size_t kSmallLimbBytes = 16;

// A block of at least `bytes` <= kSmallLimbBytes bytes, 8-byte aligned; nullptr only when the
// system has no memory for a new slab.
void* allocate_small_limbs(std::size_t bytes);
// Returns a block to the calling thread's list of class `bytes` <= kSmallLimbBytes (8 or 16).
// Precondition: the block has at least `bytes` usable bytes and is 8-byte aligned: one from
// allocate_small_limbs(n) with n >= bytes, or even one from malloc (then kept by the pool).
void release_small_limbs(void* p, std::size_t bytes);
// Hands the calling thread's free lists and slab to the other threads. Call last in a worker
// thread.
void give_back_small_limbs();

}  // namespace seqi
