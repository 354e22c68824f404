#pragma once
// Outlining (paper Section III-C): the chosen nodes and sharing decisions become one
// let-bound skeleton program. Every shared class is a `let` of its (closed) function,
// written App(\T. body, value); every use is the bound variable. Lets are ordered so that a
// unit's value may use the units bound outside it (e.g. a shared convolution over a shared
// Mv). Only closed classes are ever shared, so no free variable needs abstracting.

#include <cstdint>
#include <string>
#include <vector>

#include "skeleshare/extract/selection.h"
#include "skeleshare/ir/context.h"

namespace skeleshare::extract {

struct SharedUnit {
  uint32_t cls = 0;              // dense class index
  egraph::ClassId eclass = 0;
  std::string skeleton;          // first skeleton under the lambdas, e.g. "Conv", "Mv"
  std::string type;              // the unit's function type
  int64_t dsps = 0;              // DSPs of the unit (paid once)
  int64_t convUnits = 0;
  int64_t time = 0;              // in-place time of one use
  int64_t cyclesPerUse = 0;      // what a use costs: time + the model's communication cost
  int64_t uses = 0;
  std::vector<std::string> usedBy;  // operators of the using nodes, with counts: "Conv x13"
};

struct OutlinedDesign {
  ir::Module module;
  /// In let order: outermost (bound first) to innermost.
  std::vector<SharedUnit> units;
  /// `//` comment lines describing the units, to put above the printed module.
  std::string header() const;
};

/// Builds the design. `source` supplies declarations and output names; the problem's
/// root must be the class of source.root(ctx). Throws std::runtime_error if the selection
/// is not valid or the result does not verify (a bug).
OutlinedDesign outline(const Problem& p, const Selection& sel, const Evaluation& eval,
                       const ir::Module& source);

}  // namespace skeleshare::extract
