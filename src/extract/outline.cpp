#include "skeleshare/extract/outline.h"

#include <fmt/format.h>

#include <map>
#include <stdexcept>
#include <tuple>

#include "skeleshare/ir/verifier.h"

namespace skeleshare::extract {

using namespace cost;

std::string OutlinedDesign::header() const {
  std::string h = fmt::format("// skeleshare design: {} shared unit{}\n", units.size(), units.size() == 1 ? "" : "s");
  if (!units.empty())
    h += "// Each unit is a let, App(\\T. body, unit), outermost first; inside the body it is the\n"
         "// variable bound by that lambda.\n";
  for (size_t i = 0; i < units.size(); ++i) {
    const SharedUnit& u = units[i];
    std::string users;
    for (const auto& s : u.usedBy) users += (users.empty() ? "" : ", ") + s;
    h += fmt::format("//   let {}: {} unit {} ({} DSPs, {} cycles per use), used {} times by {}\n", i + 1,
                     u.skeleton, u.type, u.dsps, u.cyclesPerUse, u.uses, users);
  }
  return h;
}

namespace {

struct Builder {
  const Problem& p;
  const Selection& sel;
  ir::Context& ctx;
  std::vector<uint32_t> lets;           // shared classes in let order
  std::vector<int32_t> letIndex;        // by class: position in lets, or -1
  std::map<std::tuple<uint32_t, uint32_t, uint32_t>, const ir::Term*> memo;

  /// The term of class c at `depth` lambdas below a scope of the first `scope` lets.
  const ir::Term* build(uint32_t c, uint32_t depth, uint32_t scope) {
    int32_t li = letIndex[c];
    if (li >= 0 && static_cast<uint32_t>(li) < scope)
      return ctx.var(static_cast<int64_t>(depth + (scope - 1 - static_cast<uint32_t>(li))), p.cls(c).type);
    auto key = std::make_tuple(c, depth, scope);
    auto it = memo.find(key);
    if (it != memo.end()) return it->second;
    int32_t n = sel.chosen[c];
    if (n < 0) throw std::runtime_error(fmt::format("outline: class e{} has no chosen node", p.cls(c).id));
    const PNode& pn = p.node(static_cast<uint32_t>(n));
    const egraph::ENode& en = p.egraph().node(pn.id);
    std::vector<const ir::Term*> kids;
    for (uint32_t k : pn.kids) kids.push_back(build(k, pn.op == ir::Op::Lam ? depth + 1 : depth, scope));
    std::string error;
    const ir::Term* t = ctx.tryMake(pn.op, en.params(), en.annot(), kids, error);
    if (!t) throw std::runtime_error("outline: " + error);
    memo.emplace(key, t);
    return t;
  }

  /// let-wraps `body` (built with all lets in scope) with the lets it may use.
  const ir::Term* wrap(const ir::Term* body) {
    const ir::Term* t = body;
    for (size_t j = lets.size(); j-- > 0;) {
      const ir::Term* value = build(lets[j], 0, static_cast<uint32_t>(j));
      t = ctx.app(ctx.lam(p.cls(lets[j]).type, t), value);
    }
    return t;
  }
};

std::string skeletonOf(const Problem& p, const Selection& sel, uint32_t c) {
  for (int depth = 0; depth < 16; ++depth) {
    int32_t n = sel.chosen[c];
    if (n < 0) break;
    const PNode& pn = p.node(static_cast<uint32_t>(n));
    if (pn.op != ir::Op::Lam) return std::string(ir::opName(pn.op));
    c = pn.kids[0];
  }
  return "?";
}

}  // namespace

OutlinedDesign outline(const Problem& p, const Selection& sel, const Evaluation& eval, const ir::Module& source) {
  if (!eval.valid) throw std::runtime_error("outline: invalid selection: " + eval.error);
  ir::Context& ctx = p.egraph().context();
  OutlinedDesign d;
  d.module.decls = source.decls;

  Builder b{p, sel, ctx, {}, std::vector<int32_t>(p.classes().size(), -1), {}};
  for (uint32_t c : eval.order) {
    if (!sel.shared[c]) continue;
    b.letIndex[c] = static_cast<int32_t>(b.lets.size());
    b.lets.push_back(c);
    SharedUnit u;
    u.cls = c;
    u.eclass = p.cls(c).id;
    u.skeleton = skeletonOf(p, sel, c);
    u.type = p.cls(c).type->str();
    u.dsps = eval.inplace[c][kDsp];
    u.convUnits = eval.inplace[c][kConvUnits];
    u.time = eval.inplace[c][kTime];
    u.cyclesPerUse = satAdd(u.time, p.model().communicationCost());
    u.uses = eval.uses[c];
    std::map<std::string, int64_t> users;
    for (uint32_t user : p.cls(c).parents) {
      uint32_t uc = p.node(user).cls;
      if (sel.chosen[uc] != static_cast<int32_t>(user)) continue;
      int64_t times = 0;
      for (uint32_t k : p.node(user).kids) times += k == c ? 1 : 0;
      users[std::string(ir::opName(p.node(user).op))] += times * eval.instances[uc];
    }
    for (const auto& [op, count] : users) u.usedBy.push_back(fmt::format("{} x{}", op, count));
    d.units.push_back(std::move(u));
  }
  const uint32_t all = static_cast<uint32_t>(b.lets.size());

  if (source.outputs.size() == 1) {
    d.module.outputs.push_back({source.outputs[0].name, b.wrap(b.build(p.root(), 0, all))});
  } else {
    int32_t rn = sel.chosen[p.root()];
    const PNode& top = p.node(static_cast<uint32_t>(rn));
    if (top.op != ir::Op::Tuple || top.kids.size() != source.outputs.size())
      throw std::runtime_error("outline: the root of a program with several outputs must stay a Tuple");
    for (size_t i = 0; i < source.outputs.size(); ++i)
      d.module.outputs.push_back({source.outputs[i].name, b.wrap(b.build(top.kids[i], 0, all))});
  }
  ir::VerifyOptions vo;
  vo.allowApp = true;
  auto problems = ir::verifyModule(ctx, d.module, vo);
  if (!problems.empty()) throw std::runtime_error("outline: the design does not verify:\n" + ir::formatProblems(problems));
  return d;
}

}  // namespace skeleshare::extract
