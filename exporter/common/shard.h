#pragma once

#include <cstdint>
#include <string_view>

namespace podwait {

// 64-bit FNV-1a: stable across processes, platforms and versions (unlike std::hash), so every
// replica of a sharded deployment agrees on who owns which TiDB cluster.
inline uint64_t Fnv1a64(std::string_view data, uint64_t hash = 14695981039346656037ULL) {
  for (unsigned char c : data) {
    hash ^= c;
    hash *= 1099511628211ULL;
  }
  return hash;
}

// The shard that owns TiDB cluster namespace/name: FNV-1a of "namespace/name" mod total_shards.
inline int ShardOf(std::string_view ns, std::string_view cluster, int total_shards) {
  if (total_shards <= 1) return 0;
  uint64_t h = Fnv1a64(ns);
  h = Fnv1a64("/", h);
  h = Fnv1a64(cluster, h);
  return static_cast<int>(h % static_cast<uint64_t>(total_shards));
}

}  // namespace podwait
