// Cubin cache in memory and on disk (see module_cache.h).
#include "backends/cuda/module_cache.h"

#include "backends/cpu/jit/compiler.h"
#include "backends/cuda/nvrtc_compile.h"
#include "core/env.hpp"
#include "runtime/disk_cache.h"
#include "runtime/kernel_cache.h"
#include "runtime/stats.h"

#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <mutex>
#include <sstream>

namespace cgrad::backends::cuda {

namespace {

struct Loaded {
  CUmodule module = nullptr;
  std::map<std::string, CUfunction> functions;
};

struct Cache {
  std::mutex mutex;
  std::map<std::pair<int, std::string>, Loaded> modules;  // (device, toolchain + source)
  std::map<std::string, std::string> errors;              // key -> compile error message
};

Cache& cache() {
  static auto* c = new Cache;  // never destroyed: modules live as long as the process
  return *c;
}

std::string cubin_path(const std::string& key) {
  return runtime::default_cache_dir() + "/cuda/" + key.substr(0, 2) + "/" + key + ".cubin";
}

bool read_file(const std::string& path, std::string& out) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  out.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  return true;
}

// The payload of a verified cache file, or false (missing, torn, foreign: then it is removed).
bool load_verified(const std::string& path, const std::string& key, std::string& payload) {
  std::string bytes;
  if (!read_file(path, bytes)) return false;
  const std::size_t trailer = runtime::cache_trailer(key, "").size();
  if (bytes.size() > trailer) {
    payload = bytes.substr(0, bytes.size() - trailer);
    if (bytes.compare(bytes.size() - trailer, trailer, runtime::cache_trailer(key, payload)) == 0) {
      runtime::disk::touch(path);  // the LRU clock of the disk bound (CGRAD_CACHE_BYTES)
      return true;
    }
  }
  if (core::env().debug >= 1)
    std::cerr << "[cgrad] cuda cache: " << path << " fails verification, rebuilding\n";
  std::remove(path.c_str());
  return false;
}

// Writes `data` to `path` through a temp file and rename(): readers never see a partial file.
// An unwritable cache only costs recompiles. True when published.
bool publish(const std::string& path, const std::string& data) {
  using runtime::disk::Where;
  const std::string dir = path.substr(0, path.rfind('/'));
  return runtime::disk::make_dirs(dir, Where::Cache) == 0 &&
         runtime::disk::write_atomically(path, data, Where::Cache) == 0;
}

}  // namespace

std::string cuda_toolchain_key(const std::string& arch) {
  std::string k = nvrtc_version_string() + " " + arch;
  for (const auto& o : nvrtc_options(arch)) k += " " + o;
  // Every kernel includes the scalar header, handed to NVRTC from memory, so its text is part
  // of what a cubin was compiled from: without it, a cache shared by builds with different
  // scalar.hpp (an edited checkout, another branch) loads cubins of the old arithmetic.
  return k + " cgrad/scalar.hpp " + runtime::content_hash(cpu::jit::scalar_header_text());
}

CUfunction kernel_function(DeviceContext& d, const std::string& source, const std::string& symbol) {
  const std::string arch = d.arch();
  const std::string toolchain = cuda_toolchain_key(arch);
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);  // compiles are serialized; each happens once
  auto mk = std::make_pair(d.index, toolchain + '\0' + source);
  auto it = c.modules.find(mk);
  if (it == c.modules.end()) {
    const std::string key = runtime::KernelCache::key(source, toolchain);
    if (auto e = c.errors.find(key); e != c.errors.end()) throw Error(ErrorCode::CompileError, e->second);
    const std::string path = cubin_path(key);
    std::string cubin;
    if (load_verified(path, key, cubin)) {
      runtime::counters().disk_cache_hits.fetch_add(1, std::memory_order_relaxed);
    } else {
      try {
        cubin = nvrtc_compile(source, symbol + ".cu", arch).cubin;
      } catch (const Error& e) {
        if (e.code() == ErrorCode::CompileError) c.errors[key] = e.what();
        throw;
      }
      runtime::counters().kernels_compiled.fetch_add(1, std::memory_order_relaxed);
      const std::string file = cubin + runtime::cache_trailer(key, cubin);
      const bool src_kept = publish(path.substr(0, path.size() - 6) + ".cu", source);  // kept for debugging
      if (publish(path, file)) {
        const int64_t bound = core::env().cache_bytes;
        runtime::disk::record_write(runtime::default_cache_dir(),
                                    file.size() + (src_kept ? source.size() : 0), key,
                                    bound > 0 ? uint64_t(bound) : 0);
      }
    }
    Loaded l;
    d.make_current();
    check(driver()->cuModuleLoadData(&l.module, cubin.data()), "cuModuleLoadData");
    it = c.modules.emplace(std::move(mk), std::move(l)).first;
  } else {
    runtime::counters().kernel_cache_hits.fetch_add(1, std::memory_order_relaxed);
  }
  Loaded& l = it->second;
  auto f = l.functions.find(symbol);
  if (f != l.functions.end()) return f->second;
  CUfunction fn = nullptr;
  check(driver()->cuModuleGetFunction(&fn, l.module, symbol.c_str()),
        ("cuModuleGetFunction " + symbol).c_str());
  l.functions.emplace(symbol, fn);
  return fn;
}

}  // namespace cgrad::backends::cuda
