#pragma once
// The IR verifier: checks the invariants that Context::make cannot check locally, and
// re-checks the ones it can, so that a transformation that bypasses them (or a bug in
// a type rule's caching) is caught right after the transformation that caused it.
//
// Checked for every node reachable from the root:
//   - the type rule (inferType) re-derives exactly the stored type;
//   - a variable's annotation equals the type of its binder (the i-th enclosing lambda)
//     or, for a free variable, VerifyOptions::freeVarTypes;
//   - App appears only when VerifyOptions::allowApp (applications exist only after
//     extraction, paper Section III-A);
//   - an Input names a symbol of the Context;
//   - optional limits on the tree size and nesting depth.
// verifyModule adds: declarations are unique and integer-typed, every input is declared
// with the same type, outputs are uniquely named and closed.

#include <cstdint>
#include <string>
#include <vector>

#include "skeleshare/ir/context.h"

namespace skeleshare::ir {

struct VerifyOptions {
  bool allowApp = false;
  /// Types of the root's free variables, innermost first (%k outside every lambda has
  /// type freeVarTypes[k]). A free variable beyond the list is a problem.
  std::vector<const Type*> freeVarTypes;
  /// Largest treeSize() allowed; 0 = no limit.
  uint64_t maxTreeSize = 0;
  /// Deepest nesting allowed (a leaf has depth 1); 0 = no limit. The parser's
  /// ParseOptions::maxDepth counts written types as levels too, so leave a margin when
  /// using this to check that the printed term parses back.
  uint64_t maxDepth = 0;
  /// Stop after this many problems.
  size_t maxProblems = 100;
};

struct Problem {
  /// The offending node; null for problems of a module's declarations or outputs.
  const Term* term = nullptr;
  /// Where: "output c1", "term", followed by the child indices from the root, e.g.
  /// "term/2/0/0" is child 0 of child 0 of child 2 of the root.
  std::string where;
  std::string message;
  /// "where: message"
  std::string str() const { return where + ": " + message; }
};

/// Problems of one term (empty = ok). `ctx` is not const because re-deriving a type may
/// intern a type that no term uses yet; nothing else changes.
std::vector<Problem> verify(Context& ctx, const Term* term, const VerifyOptions& opts = {});

/// Problems of a whole module (empty = ok). opts.freeVarTypes is ignored: outputs must
/// be closed.
std::vector<Problem> verifyModule(Context& ctx, const Module& module, const VerifyOptions& opts = {});

/// One problem per line, for test failures and debug dumps.
std::string formatProblems(const std::vector<Problem>& problems);

}  // namespace skeleshare::ir
