// The pass pipeline: the one place that says which passes run and in which order.
#include "passes/pipeline.h"

#include "core/env.hpp"

namespace cgrad::passes {

namespace {

struct Pass {
  const char* name;
  void (*run)(const PendingGraph& g);
};

// The order, and why:
//  1. fold_constants first: constants reached through broadcasts (a 0-d ones() times a
//     matrix is mul(x, expand(reshape(full)))) become plain Full nodes, which is what
//     simplify matches.
//  2. simplify: identities, some of which leave constants behind (integer x * 0, where of
//     a constant condition) ...
//  3. ... which fold_constants folds into their consumers.
//  4. eliminate_common_subexpressions last: merging needs identical inputs, and the passes
//     before make more inputs identical (exp(x * 1) and exp(x) only merge once x * 1 is x).
//     It walks the graph afresh, so nodes the passes before unlinked are not kept.
const std::vector<Pass>& pipeline() {
  static const std::vector<Pass> kPasses = {
      {"fold_constants", fold_constants},
      {"simplify", simplify},
      {"fold_constants", fold_constants},
      {"eliminate_common_subexpressions", eliminate_common_subexpressions},
  };
  return kPasses;
}

}  // namespace

void optimize(const std::vector<ir::NodePtr>& outputs, const AfterPass& after) {
  const core::Env& e = core::env();
  if (!e.optimize) return;
  // One walk for the whole pipeline: rewrites only point nodes at nodes before them.
  PendingGraph g(outputs);
  if (g.order.empty()) return;
  for (const Pass& p : pipeline()) {
    p.run(g);
    if (after) after(p.name, g);
  }
}

std::vector<std::string> pass_names() {
  std::vector<std::string> names;
  for (const Pass& p : pipeline()) names.emplace_back(p.name);
  return names;
}

}  // namespace cgrad::passes
