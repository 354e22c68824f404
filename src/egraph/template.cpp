#include "skeleshare/egraph/template.h"

#include "skeleshare/egraph/errors.h"

namespace skeleshare::egraph {

CompiledTemplate::CompiledTemplate(const Pattern& t, VarTable& vars) : pattern_(t) {
  compile(t, vars);
  for (uint32_t i = 0; i < vars.size(); ++i) slotNames_.push_back(vars.name(i));
}

uint32_t CompiledTemplate::compile(const Pattern& p, VarTable& vars) {
  TNode n;
  n.text = p.str();
  if (p.type()) n.type = pool_.addType(*p.type(), vars);
  if (p.isVar()) {
    n.isVar = true;
    n.slot = vars.declare(p.name(), VarKind::Class);
  } else {
    n.op = p.op();
    std::vector<uint32_t> kids;
    for (const Pattern& c : p.children()) kids.push_back(compile(c, vars));
    n.kidsBegin = static_cast<uint32_t>(kids_.size());
    n.numKids = static_cast<uint32_t>(kids.size());
    kids_.insert(kids_.end(), kids.begin(), kids.end());
    n.paramsBegin = static_cast<uint32_t>(params_.size());
    n.numParams = static_cast<uint32_t>(p.params().size());
    for (const IntExpr& e : p.params()) params_.push_back(pool_.addInt(e, vars));
    if (p.annot()) n.annot = pool_.addType(*p.annot(), vars);
    bool needsAnnot = p.op() == ir::Op::Var || p.op() == ir::Op::Lam ||
                      p.op() == ir::Op::Input || p.op() == ir::Op::Const;
    if (needsAnnot && !p.annot())
      throw PatternError("template " + pattern_.str() + ": " + n.text +
                         " needs a type annotation to be built");
  }
  nodes_.push_back(std::move(n));
  return static_cast<uint32_t>(nodes_.size() - 1);
}

void CompiledTemplate::fail(const TNode& n, const std::string& why) const {
  std::string where = n.text == pattern_.str() ? "" : " at " + n.text;
  throw TemplateError("template " + pattern_.str() + where + ": " + why);
}

std::string CompiledTemplate::unboundIn(const TNode& n, const Subst& s) const {
  std::vector<uint32_t> slots;
  for (uint32_t k = 0; k < n.numParams; ++k) pool_.varsOfInt(params_[n.paramsBegin + k], slots);
  if (n.annot != ExprPool::kNone) pool_.varsOfType(n.annot, slots);
  if (n.type != ExprPool::kNone) pool_.varsOfType(n.type, slots);
  for (uint32_t sl : slots)
    if (sl >= s.size() || !s.bound(sl)) return "variable " + slotNames_[sl];
  return "an anonymous type pattern (only named type variables can be built)";
}

ClassId CompiledTemplate::instantiate(EGraph& g, const Subst& s) const {
  ir::Context& ctx = g.context();
  ClassId stackVals[32];
  std::vector<ClassId> heapVals;
  ClassId* vals = stackVals;
  if (nodes_.size() > std::size(stackVals)) {
    heapVals.resize(nodes_.size());
    vals = heapVals.data();
  }
  int64_t stackParams[8];
  std::vector<int64_t> heapParams;
  ClassId stackKids[8];
  std::vector<ClassId> heapKids;

  for (size_t i = 0; i < nodes_.size(); ++i) {
    const TNode& n = nodes_[i];
    ClassId id;
    if (n.isVar) {
      if (n.slot >= s.size() || !s.bound(n.slot)) fail(n, "class variable " + n.text + " is unbound");
      id = s.cls(n.slot);
    } else {
      int64_t* params = stackParams;
      if (n.numParams > std::size(stackParams)) {
        heapParams.resize(n.numParams);
        params = heapParams.data();
      }
      for (uint32_t k = 0; k < n.numParams; ++k) {
        switch (pool_.eval(params_[n.paramsBegin + k], s, params[k])) {
          case EvalStatus::Ok: break;
          case EvalStatus::Undefined: return kNoClass;
          case EvalStatus::Unbound: fail(n, unboundIn(n, s) + " is unbound");
        }
      }
      const ir::Type* annot = nullptr;
      if (n.annot != ExprPool::kNone) {
        switch (pool_.build(n.annot, s, ctx, annot)) {
          case EvalStatus::Ok: break;
          case EvalStatus::Undefined: return kNoClass;
          case EvalStatus::Unbound: fail(n, unboundIn(n, s) + " is unbound");
        }
      }
      ClassId* kids = stackKids;
      if (n.numKids > std::size(stackKids)) {
        heapKids.resize(n.numKids);
        kids = heapKids.data();
      }
      for (uint32_t k = 0; k < n.numKids; ++k) kids[k] = vals[kids_[n.kidsBegin + k]];
      ENode node(n.op, std::span<const int64_t>(params, n.numParams), annot,
                 std::span<const ClassId>(kids, n.numKids));
      std::string error;
      id = g.tryAdd(std::move(node), error);
      if (id == kNoClass) fail(n, "builds the ill-typed node " + error);
    }
    if (n.type != ExprPool::kNone) {
      const ir::Type* want = nullptr;
      switch (pool_.build(n.type, s, ctx, want)) {
        case EvalStatus::Ok: break;
        case EvalStatus::Undefined: return kNoClass;
        case EvalStatus::Unbound: fail(n, unboundIn(n, s) + " is unbound");
      }
      if (g.typeOf(id) != want)
        fail(n, "builds a class of type " + g.typeOf(id)->str() + ", expected " + want->str());
    }
    vals[i] = id;
  }
  return g.find(vals[nodes_.size() - 1]);
}

}  // namespace skeleshare::egraph
