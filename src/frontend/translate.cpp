// DSL -> skeleton IR. Each DSL operator becomes the IR operator of the same meaning;
// the DSP operators get the canonical, maximally parallel functions of builders.h, the
// same terms the rewrite rules produce, so hash-consing shares them.

#include "skeleshare/frontend/translate.h"

#include <fmt/format.h>

#include "skeleshare/ir/builders.h"

namespace skeleshare::frontend {

using ir::Op;
using ir::Term;
using ir::Type;

const Type* irType(ir::Context& ctx, const ValueType& t) {
  return ctx.tensorType(t.shape, ctx.intType(t.bits));
}

namespace {

class Translator {
 public:
  Translator(const Program& p, ir::Context& c) : prog_(p), ctx_(c), terms_(p.stmts.size(), nullptr) {}

  ir::Module run() {
    ir::Module mod;
    for (size_t i = 0; i < prog_.stmts.size(); ++i) {
      const Stmt& s = prog_.stmts[i];
      switch (s.kind) {
        case StmtKind::Input:
        case StmtKind::Weight: {
          const Type* t = irType(ctx_, s.type);
          mod.decls.push_back({s.name, s.kind == StmtKind::Input ? ir::Decl::Kind::Input : ir::Decl::Kind::Weight, t});
          terms_[i] = ctx_.input(s.name, t);
          break;
        }
        case StmtKind::Let:
          if (s.live) terms_[i] = expr(*s.value);  // dead lets produce no hardware
          break;
        case StmtKind::Output:
          terms_[i] = expr(*s.value);
          mod.outputs.push_back({s.name, terms_[i]});
          break;
      }
    }
    return mod;
  }

 private:
  const Type* scalar(int bits) { return ctx_.intType(bits); }
  const Type* elemScalar(const Expr& e) { return scalar(e.type.bits); }

  const Term* expr(const Expr& e) {
    switch (e.kind) {
      case ExprKind::IntLit: return ctx_.constant(e.intValue, scalar(e.type.bits));
      case ExprKind::Name:
        if (e.stmt >= 0) return terms_[static_cast<size_t>(e.stmt)];
        return ctx_.var(e.varIndex, irType(ctx_, e.type));
      case ExprKind::Call: return call(e);
      case ExprKind::TypeName:
      case ExprKind::Lambda: break;
    }
    throw ir::TypeError(fmt::format("frontend bug: untranslatable expression at {}:{}", e.loc.line, e.loc.col));
  }

  /// \p1 p2 ... . body  ->  Lam(T1, Lam(T2, ... body))
  const Term* lambda(const Expr& lam) {
    const Term* body = expr(*lam.body);
    for (size_t i = lam.paramTypes.size(); i-- > 0;) body = ctx_.lam(irType(ctx_, lam.paramTypes[i]), body);
    return body;
  }

  /// op(x, c) for an array x and a literal c: nested Maps down to the scalars of x.
  /// The literal is a closed term, so it needs no De Bruijn shifting under the binders.
  const Term* broadcast(Op op, const Term* x, const Term* lit, bool litFirst) {
    if (x->type()->isInt()) return litFirst ? ctx_.op(op, {lit, x}) : ctx_.op(op, {x, lit});
    const Type* elem = x->type()->elem();
    const Term* body = broadcast(op, ctx_.var(0, elem), lit, litFirst);
    return ctx_.op(Op::Map, {x, ctx_.lam(elem, body)});
  }

  const Term* call(const Expr& e) {
    auto arg = [&](size_t i) { return expr(*e.args[i]); };
    const auto& st = e.statics;
    switch (e.builtin) {
      case Builtin::Conv: {
        const auto& w = e.args[1]->type.shape;  // OCH x KS x KS x ICH
        return ctx_.op(Op::Conv, {arg(0), arg(1),
                                  ir::cMvF(ctx_, w[0], w[1] * w[2] * w[3], elemScalar(*e.args[1]), elemScalar(*e.args[0]))});
      }
      case Builtin::Mv: {
        const auto& m = e.args[0]->type.shape;
        return ctx_.op(Op::Mv, {arg(0), arg(1),
                                ir::dotF(ctx_, m[0], m[1], elemScalar(*e.args[0]), elemScalar(*e.args[1]), m[0])});
      }
      case Builtin::Mm: {
        // Mm applies its function to (b, a[h]): the matrix parameter has b's element type.
        const auto& b = e.args[1]->type.shape;  // W x K
        return ctx_.op(Op::Mm, {arg(0), arg(1),
                                ir::cMvF(ctx_, b[0], b[1], elemScalar(*e.args[1]), elemScalar(*e.args[0]))});
      }
      case Builtin::Conv1DW:
      case Builtin::Conv1DH: {
        const auto& img = e.args[0]->type.shape;
        int64_t k = e.args[1]->type.shape[0];
        bool alongW = e.builtin == Builtin::Conv1DW;
        int64_t out = (alongW ? img[1] : img[0]) - k + 1;
        return ctx_.op(alongW ? Op::Conv1DW : Op::Conv1DH,
                       {arg(0), arg(1), ir::cMvF(ctx_, out, k, elemScalar(*e.args[0]), elemScalar(*e.args[1]))});
      }
      case Builtin::Pad: return ctx_.op(Op::Pad, {arg(0)}, {st[0], st[1], st[2], st[3], st[4]});
      case Builtin::MaxPool: return ctx_.op(Op::MaxPool, {arg(0)}, {st[0], st[1]});
      case Builtin::Relu: return ctx_.op(Op::Relu, {arg(0)});
      case Builtin::LeakyRelu: return ctx_.op(Op::LeakyRelu, {arg(0)}, {st[0]});
      case Builtin::Requant: return ctx_.op(Op::Requant, {arg(0)}, {st[0]});
      case Builtin::RequantEven: return ctx_.op(Op::RequantEven, {arg(0)}, {st[0]});
      case Builtin::Shr: return ctx_.op(Op::ShiftRight, {arg(0)}, {st[0]});
      case Builtin::Cast: return ctx_.op(Op::Cast, {arg(0)}, {st[0]});
      case Builtin::Bias: return ctx_.op(Op::Bias, {arg(0), arg(1)});
      case Builtin::Flatten: return ctx_.op(Op::Flatten, {arg(0)});
      case Builtin::Transpose: return ctx_.op(Op::Transpose, {arg(0)});
      case Builtin::Add:
      case Builtin::Sub:
      case Builtin::Mul:
      case Builtin::Max:
      case Builtin::Min: {
        Op op = e.builtin == Builtin::Add   ? Op::Add
                : e.builtin == Builtin::Sub ? Op::Sub
                : e.builtin == Builtin::Mul ? Op::Mul
                : e.builtin == Builtin::Max ? Op::Max
                                            : Op::Min;
        if (e.broadcastLiteral == 0) return broadcast(op, arg(1), arg(0), true);
        if (e.broadcastLiteral == 1) return broadcast(op, arg(0), arg(1), false);
        return ctx_.op(op, {arg(0), arg(1)});
      }
      case Builtin::Map: return ctx_.op(Op::Map, {arg(0), lambda(*e.args[1])});
      case Builtin::Zip: return ctx_.op(Op::ZipWith, {arg(0), arg(1), lambda(*e.args[2])});
      case Builtin::Reduce:  // IR order: Reduce(init, x, f)
        return ctx_.op(Op::Reduce, {arg(1), arg(0), lambda(*e.args[2])});
    }
    throw ir::TypeError(fmt::format("frontend bug: unknown operator '{}'", e.name));
  }

  const Program& prog_;
  ir::Context& ctx_;
  std::vector<const Term*> terms_;
};

}  // namespace

ir::Module translate(const Program& prog, ir::Context& ctx) { return Translator(prog, ctx).run(); }

}  // namespace skeleshare::frontend
