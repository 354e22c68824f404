// The IR verifier. The walk is iterative (an explicit stack), so a term built by a
// transformation may be arbitrarily deep without overflowing the C++ stack, and it
// visits a shared sub-term once per distinct typing of its free variables: a closed
// sub-term is checked once however often it is shared.

#include "skeleshare/ir/verifier.h"

#include <algorithm>
#include <functional>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

#include "lexer.h"

namespace skeleshare::ir {

namespace {

std::string typeStr(const Type* t) { return t ? t->str() : "<none>"; }

std::optional<std::string> symbolOf(const Context& ctx, const Term* t) {
  try {
    return ctx.symbolName(t->param(0));
  } catch (const std::out_of_range&) {
    return std::nullopt;
  }
}

/// A short name for a node in a message: leaves whole, operators by their head.
std::string brief(const Context& ctx, const Term* t) {
  switch (t->op()) {
    case Op::Var: return "%" + std::to_string(t->varIndex()) + ":" + typeStr(t->annot());
    case Op::Const: return std::to_string(t->param(0)) + ":" + typeStr(t->annot());
    case Op::Input: {
      auto name = symbolOf(ctx, t);
      return name ? "@" + text::quoteName(*name) : "@<unknown symbol>";
    }
    case Op::Lam: return "\\" + typeStr(t->annot()) + ". ...";
    default: break;
  }
  std::string s(opName(t->op()));
  if (!t->params().empty()) {
    s += '[';
    for (size_t i = 0; i < t->params().size(); ++i) s += (i ? ", " : "") + std::to_string(t->param(i));
    s += ']';
  }
  return s + (t->numChildren() ? "(...)" : "()");
}

/// A node together with the types its free variables have where it is visited.
struct VisitKey {
  const Term* term;
  std::vector<const Type*> free;
  bool operator==(const VisitKey& o) const { return term == o.term && free == o.free; }
};
struct VisitKeyHash {
  size_t operator()(const VisitKey& k) const {
    size_t h = std::hash<const void*>()(k.term);
    for (const Type* t : k.free) h = h * 31 + std::hash<const void*>()(t);
    return h;
  }
};

class Verifier {
 public:
  Verifier(Context& ctx, const VerifyOptions& opts, std::vector<Problem>& out)
      : ctx_(ctx), opts_(opts), out_(out) {}

  /// Checks `root` (reached as `where`) with the given free-variable types.
  void run(const Term* root, const std::string& where, const std::vector<const Type*>& freeVarTypes);

  /// Every distinct Input node seen, with where it was first met.
  const std::vector<std::pair<const Term*, std::string>>& inputs() const { return inputs_; }

  bool full() const { return out_.size() >= opts_.maxProblems; }
  void report(const Term* t, std::string where, std::string msg) {
    if (!full()) out_.push_back(Problem{t, std::move(where), std::move(msg)});
  }

 private:
  struct Frame {
    const Term* term;
    size_t next = 0;
    size_t index;  // which child of the parent this is
  };

  std::string path() const {
    std::string s = where_;
    for (size_t i = 1; i < stack_.size(); ++i) s += "/" + std::to_string(stack_[i].index);
    return s;
  }
  bool enter(const Term* t);
  void checkLocal(const Term* t);
  void checkVar(const Term* t);
  uint64_t height(const Term* root);

  Context& ctx_;
  const VerifyOptions& opts_;
  std::vector<Problem>& out_;
  std::string where_;
  std::vector<const Type*> freeVarTypes_;
  std::vector<Frame> stack_;
  std::vector<const Type*> binders_;  // innermost last
  std::unordered_set<VisitKey, VisitKeyHash> visited_;
  std::unordered_set<const Term*> locallyChecked_;
  std::unordered_set<const Term*> inputSeen_;
  std::vector<std::pair<const Term*, std::string>> inputs_;
  std::unordered_map<const Term*, uint64_t> heights_;
};

/// The type of free variable `k` of the node being entered, or null when unknown.
const Type* typeOfFree(const std::vector<const Type*>& binders, const std::vector<const Type*>& env,
                       uint64_t k) {
  if (k < binders.size()) return binders[binders.size() - 1 - k];
  k -= binders.size();
  return k < env.size() ? env[k] : nullptr;
}

bool Verifier::enter(const Term* t) {
  VisitKey key{t, {}};
  for (uint32_t k = 0; k < t->freeBound(); ++k) key.free.push_back(typeOfFree(binders_, freeVarTypes_, k));
  if (!visited_.insert(std::move(key)).second) return false;
  if (locallyChecked_.insert(t).second) checkLocal(t);
  if (t->op() == Op::Var) checkVar(t);
  if (t->op() == Op::Input && inputSeen_.insert(t).second) inputs_.emplace_back(t, path());
  return t->numChildren() > 0;
}

void Verifier::checkLocal(const Term* t) {
  // Context::make typed the node when it was built; re-derive the type from the
  // children's stored types to catch anything that changed or bypassed that check.
  std::vector<const Type*> kids;
  for (const Term* c : t->children()) kids.push_back(c->type());
  TypeResult r = inferType(ctx_, t->op(), t->params(), t->annot(), kids);
  if (!r.ok())
    report(t, path(), brief(ctx_, t) + ": the type rule fails: " + r.error);
  else if (r.type != t->type())
    report(t, path(), brief(ctx_, t) + ": stored type " + typeStr(t->type()) + " but the type rule gives " +
                          typeStr(r.type) +
                          (typeStr(t->type()) == typeStr(r.type) ? " of this Context (is the term from another Context?)" : ""));
  if (t->op() == Op::App && !opts_.allowApp)
    report(t, path(), brief(ctx_, t) + ": application is only allowed after extraction (VerifyOptions::allowApp)");
  if (t->op() == Op::Input && !symbolOf(ctx_, t))
    report(t, path(), "Input refers to unknown symbol " + std::to_string(t->param(0)));
}

void Verifier::checkVar(const Term* t) {
  const uint64_t i = static_cast<uint64_t>(t->varIndex());
  const std::string v = "%" + std::to_string(i);
  if (i < binders_.size()) {
    const Type* want = binders_[binders_.size() - 1 - i];
    if (want != t->annot())
      report(t, path(), v + " is annotated " + typeStr(t->annot()) +
                            " but is bound by a lambda with parameter type " + typeStr(want));
    return;
  }
  const uint64_t k = i - binders_.size();
  if (k >= freeVarTypes_.size()) {
    report(t, path(), v + " is free (free variable " + std::to_string(k) + ") and the environment has no type for it");
  } else if (freeVarTypes_[k] != t->annot()) {
    report(t, path(), v + " is annotated " + typeStr(t->annot()) + " but the environment gives free variable " +
                          std::to_string(k) + " type " + typeStr(freeVarTypes_[k]));
  }
}

uint64_t Verifier::height(const Term* root) {
  // Post-order over the DAG, memoized: a leaf has height 1.
  std::vector<std::pair<const Term*, bool>> work{{root, false}};
  while (!work.empty()) {
    auto [t, expanded] = work.back();
    work.pop_back();
    if (heights_.count(t)) continue;
    if (!expanded) {
      work.emplace_back(t, true);
      for (const Term* c : t->children())
        if (!heights_.count(c)) work.emplace_back(c, false);
      continue;
    }
    uint64_t h = 0;
    for (const Term* c : t->children()) h = std::max(h, heights_.at(c));
    heights_[t] = h + 1;
  }
  return heights_.at(root);
}

void Verifier::run(const Term* root, const std::string& where, const std::vector<const Type*>& freeVarTypes) {
  where_ = where;
  if (!root) {
    report(nullptr, where, "null term");
    return;
  }
  if (opts_.maxTreeSize && root->treeSize() > opts_.maxTreeSize)
    report(root, where, "tree size " + std::to_string(root->treeSize()) + " exceeds the limit " +
                            std::to_string(opts_.maxTreeSize));
  if (opts_.maxDepth) {
    uint64_t h = height(root);
    if (h > opts_.maxDepth)
      report(root, where, "nesting depth " + std::to_string(h) + " exceeds the limit " + std::to_string(opts_.maxDepth));
  }
  freeVarTypes_ = freeVarTypes;
  binders_.clear();
  stack_.clear();
  if (enter(root)) stack_.push_back(Frame{root, 0, 0});
  if (root->op() == Op::Lam && !stack_.empty()) binders_.push_back(root->annot());
  while (!stack_.empty() && !full()) {
    Frame& f = stack_.back();
    if (f.next == f.term->numChildren()) {
      if (f.term->op() == Op::Lam) binders_.pop_back();
      stack_.pop_back();
      continue;
    }
    size_t index = f.next++;
    const Term* c = f.term->child(index);
    // The path of `c` must be visible to enter() for its reports.
    stack_.push_back(Frame{c, 0, index});
    if (!enter(c)) stack_.pop_back();
    else if (c->op() == Op::Lam) binders_.push_back(c->annot());
  }
}

}  // namespace

std::vector<Problem> verify(Context& ctx, const Term* term, const VerifyOptions& opts) {
  std::vector<Problem> out;
  Verifier v(ctx, opts, out);
  v.run(term, "term", opts.freeVarTypes);
  return out;
}

std::vector<Problem> verifyModule(Context& ctx, const Module& module, const VerifyOptions& opts) {
  std::vector<Problem> out;
  Verifier v(ctx, opts, out);
  std::unordered_map<std::string, const Type*> decls;
  for (const Decl& d : module.decls) {
    std::string where = "declaration '" + d.name + "'";
    if (d.name.empty()) v.report(nullptr, where, "empty name");
    if (!d.type) v.report(nullptr, where, "no type");
    else if (!d.type->isIntTensor())
      v.report(nullptr, where, "an input or weight must have an integer array type, got " + d.type->str());
    if (!decls.emplace(d.name, d.type).second) v.report(nullptr, where, "declared twice");
  }
  if (module.outputs.empty()) v.report(nullptr, "module", "no outputs");
  std::unordered_set<std::string> names;
  for (const Output& o : module.outputs) {
    std::string where = "output '" + o.name + "'";
    if (!names.insert(o.name).second) v.report(nullptr, where, "defined twice");
    if (o.term && !o.term->closed())
      v.report(o.term, where, "an output must be closed, but its term has free variables");
    v.run(o.term, where, {});
  }
  for (const auto& [t, where] : v.inputs()) {
    auto name = symbolOf(ctx, t);
    if (!name) continue;  // reported by the walk
    auto it = decls.find(*name);
    if (it == decls.end())
      v.report(t, where, "@" + text::quoteName(*name) + " is not declared");
    else if (it->second != t->annot())
      v.report(t, where, "@" + text::quoteName(*name) + " has type " + typeStr(t->annot()) +
                             " but is declared as " + typeStr(it->second));
  }
  return out;
}

std::string formatProblems(const std::vector<Problem>& problems) {
  std::string s;
  for (const Problem& p : problems) s += p.str() + "\n";
  return s;
}

}  // namespace skeleshare::ir
