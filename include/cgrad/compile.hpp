/// cgrad::compile(fn): trace a function of tensors once into a plan, replay it on new inputs.
///
/// The first call with a given input signature (each argument's shape, dtype, device and
/// layout, and which arguments are the same tensor) runs `fn`, evaluates what it returns and
/// keeps the plan; later calls with that signature bind the new inputs to the plan and run it
/// without calling `fn`. A call with another signature traces again (counted in
/// `stats().traces`; at most 8 signatures are kept per compiled function). docs/plans.md has
/// the whole policy: arguments and captured tensors are evaluated before the plan runs,
/// captured tensors are read at each call, and assigns inside `fn` are repeated at each call.
#pragma once

#include <cgrad/tensor.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace cgrad {

namespace detail {
class PlanCompiler;

/// What a thread does around a wait for the library's realize lock (the one lock evaluations,
/// compiled calls and some op builders take) when another thread holds it: a host language's
/// binding releases its interpreter lock there (the Python module: the GIL, if this thread holds
/// it), so that the holder can take the interpreter lock if it needs it (a compiled function's
/// trace runs Python under the realize lock). `release` returns what `reacquire` is given back.
/// Set it before threads use the library; {nullptr, nullptr} (the default): nothing.
struct LockWaitHook {
  void* (*release)();
  void (*reacquire)(void*);
};
void set_lock_wait_hook(LockWaitHook hook);

/// Whether a compile() trace runs on this thread.
bool tracing();
/// Whether a compile() trace runs on this thread and `t` is an argument or a captured tensor
/// (its node existed before the trace, or the trace assigned it), whose update the plan must
/// repeat (assign), not a value fn built.
/// Inside a trace, Python's in-place operators assign these and rebind other Arrays (outside
/// one, they always assign).
bool traced_input(const Tensor& t);

/// The type-erased part of a compiled function (src/frontend/compile.cpp).
class CompiledCore {
 public:
  CompiledCore();
  /// Replays the plan of `args`' signature, or calls `trace` (which calls the user's function
  /// on `args`) and plans what it returns.
  std::vector<Tensor> call(const std::vector<Tensor>& args,
                           const std::function<std::vector<Tensor>()>& trace) const;
  /// Input signatures traced so far and kept.
  std::size_t signatures() const;
  /// Bytes of the arena (intermediate buffers) the plan for `args`' signature uses; -1 when
  /// there is no plan for it (not traced yet, or run eagerly).
  int64_t arena_bytes(const std::vector<Tensor>& args) const;

 private:
  std::shared_ptr<PlanCompiler> impl_;
};
}  // namespace detail

/// A compiled function: call it like `fn`. Copies share the plans.
template <class F>
class CompiledFunction {
 public:
  explicit CompiledFunction(F fn) : fn_(std::make_shared<F>(std::move(fn))) {}

  template <class... Args>
  auto operator()(const Args&... args) const {
    static_assert((std::is_same_v<Args, Tensor> && ...),
                  "cgrad::compile: the function's arguments must be Tensors");
    using R = std::decay_t<std::invoke_result_t<F&, std::conditional_t<true, Tensor&, Args>...>>;
    static_assert(std::is_same_v<R, Tensor> || std::is_same_v<R, std::vector<Tensor>>,
                  "cgrad::compile: the function must return a Tensor or a std::vector<Tensor>");
    std::vector<Tensor> in{args...};  // handle copies: assigns inside fn reach the caller's tensors
    auto outs = core_.call(
        in, [&]() -> std::vector<Tensor> { return invoke(in, std::index_sequence_for<Args...>{}); });
    if constexpr (std::is_same_v<R, Tensor>) {
      return outs.at(0);
    } else {
      return outs;
    }
  }

  /// Input signatures traced and kept (each is one plan).
  std::size_t signatures() const { return core_.signatures(); }
  /// Arena bytes of the plan for these arguments' signature (-1: none yet). Known before it runs.
  template <class... Args>
  int64_t arena_bytes(const Args&... args) const {
    return core_.arena_bytes({args...});
  }

 private:
  template <std::size_t... I>
  std::vector<Tensor> invoke(std::vector<Tensor>& in, std::index_sequence<I...>) const {
    if constexpr (std::is_same_v<std::decay_t<decltype((*fn_)(in[I]...))>, Tensor>) {
      return {(*fn_)(in[I]...)};
    } else {
      return (*fn_)(in[I]...);
    }
  }
  std::shared_ptr<F> fn_;
  detail::CompiledCore core_;
};

/// Traces `fn` (a function of Tensors returning a Tensor or std::vector<Tensor>) into a plan on
/// its first call and replays it on later calls with inputs of the same signature.
template <class F>
CompiledFunction<std::decay_t<F>> compile(F&& fn) {
  return CompiledFunction<std::decay_t<F>>(std::forward<F>(fn));
}

}  // namespace cgrad
