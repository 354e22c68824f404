#pragma once
// Mechanical translation of a checked DSL program to the skeleton IR (paper III-A).

#include "skeleshare/frontend/ast.h"
#include "skeleshare/ir/context.h"

namespace skeleshare::frontend {

/// Translates a program accepted by parseAndCheck. `let`s are inlined (the IR is
/// hash-consed, so a let used twice is one shared term); inputs and weights become
/// Input terms and Module::decls, outputs Module::outputs, in source order. Each DSP
/// operator gets the maximally parallel canonical function of builders.h (e.g. conv ->
/// Conv(in, wgt, cMvF(OCH, KS*KS*ICH))). Throws ir::TypeError only on a frontend bug.
ir::Module translate(const Program& prog, ir::Context& ctx);

/// The IR type of a DSL value type.
const ir::Type* irType(ir::Context& ctx, const ValueType& t);

}  // namespace skeleshare::frontend
