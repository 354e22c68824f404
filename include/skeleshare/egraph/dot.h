#pragma once
// Graphviz export of an e-graph: one cluster per e-class (labelled with its id and type),
// one box per e-node (operator, parameters, annotation), an edge from each node to each
// child class. Classes that are sharing candidates (see sharingCandidates) are drawn in
// blue, as in the paper's Fig. 3. The output depends only on the e-graph's contents.

#include <string>
#include <vector>

#include "skeleshare/egraph/egraph.h"

namespace skeleshare::egraph {

struct DotOptions {
  /// Only the classes reachable from these (all classes when empty).
  std::vector<ClassId> roots;
  bool highlightSharing = true;
};

/// Classes used in more than one place: their live parent nodes lie in at least two
/// different classes. Classes made only of leaves (Var, Input, Const) are left out: reusing
/// a variable or an input is not hardware sharing. Ascending ids; `g` must be clean.
std::vector<ClassId> sharingCandidates(const EGraph& g);

std::string toDot(const EGraph& g, const DotOptions& options = {});

}  // namespace skeleshare::egraph
