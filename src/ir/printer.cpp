// The printer of the IR text form. Layout rule (deterministic): a node is printed on
// one line when that fits within PrintOptions::width columns from where it starts;
// otherwise an operator puts each argument on its own line, two spaces deeper than the
// line it starts on, and a lambda keeps `\T. ` on the current line and lays out its
// body the same way. Closing parentheses follow the last argument, Lisp style.

#include "skeleshare/ir/printer.h"

#include <limits>
#include <stdexcept>
#include <unordered_map>

#include "lexer.h"

namespace skeleshare::ir {

namespace {

std::string typeStr(const Type* t) { return t ? t->str() : "<none>"; }

class Printer {
 public:
  Printer(const Context& ctx, const PrintOptions& opts) : ctx_(ctx), opts_(opts) {}

  /// Module printing: inputs whose type matches their declaration print bare.
  void setDecls(const Module& m) {
    haveDecls_ = true;
    for (const Decl& d : m.decls) declTypes_.emplace(d.name, d.type);
  }

  std::string& out() { return out_; }

  /// Lays out `t` starting at the current end of the output.
  void block(const Term* t, size_t indent) {
    size_t col = column();
    size_t room = col < static_cast<size_t>(opts_.width) ? static_cast<size_t>(opts_.width) - col : 0;
    std::string one;
    if (flat(t, one, room) || t->numChildren() == 0) {
      if (one.size() > room) {  // a leaf that is too long anyway: print it whole
        one.clear();
        flat(t, one, std::numeric_limits<size_t>::max());
      }
      out_ += one;
      return;
    }
    if (t->op() == Op::Lam) {
      out_ += "\\" + typeStr(t->annot()) + ". ";
      binders_.push_back(t->annot());
      block(t->body(), indent);
      binders_.pop_back();
      return;
    }
    head(t, out_);
    out_ += '(';
    for (size_t i = 0; i < t->numChildren(); ++i) {
      out_ += '\n';
      out_.append(indent + 2, ' ');
      block(t->child(i), indent + 2);
      if (i + 1 < t->numChildren()) out_ += ',';
    }
    out_ += ')';
  }

 private:
  size_t column() const {
    size_t nl = out_.rfind('\n');
    return nl == std::string::npos ? out_.size() : out_.size() - nl - 1;
  }

  std::string inputName(const Term* t) const {
    try {
      return ctx_.symbolName(t->param(0));
    } catch (const std::out_of_range&) {
      // Only a hand-made, broken Input gets here; the verifier reports it.
      return "<unknown symbol " + std::to_string(t->param(0)) + ">";
    }
  }

  bool annotateInput(const Term* t, const std::string& name) const {
    if (!haveDecls_) return opts_.annotateInputs;
    auto it = declTypes_.find(name);
    return it == declTypes_.end() || it->second != t->annot();
  }

  /// `Name[p, q]`: an operator and its static parameters.
  static void head(const Term* t, std::string& s) {
    s += opName(t->op());
    if (t->params().empty()) return;
    s += '[';
    for (size_t i = 0; i < t->params().size(); ++i) {
      if (i) s += ", ";
      s += std::to_string(t->param(i));
    }
    s += ']';
  }

  /// Appends the one-line form of `t`; stops and returns false once `s` grows past
  /// `cap` characters, so that measuring a huge term costs O(cap), not O(size).
  bool flat(const Term* t, std::string& s, size_t cap) {
    if (s.size() > cap) return false;
    switch (t->op()) {
      case Op::Var: {
        s += '%' + std::to_string(t->varIndex());
        size_t i = static_cast<size_t>(t->varIndex());
        // The annotation is implied by the binder; spell it out when it is free or differs.
        if (i >= binders_.size() || binders_[binders_.size() - 1 - i] != t->annot())
          s += ':' + typeStr(t->annot());
        return s.size() <= cap;
      }
      case Op::Const:
        s += std::to_string(t->param(0)) + ':' + typeStr(t->annot());
        return s.size() <= cap;
      case Op::Input: {
        std::string name = inputName(t);
        s += '@' + text::quoteName(name);
        if (annotateInput(t, name)) s += ':' + typeStr(t->annot());
        return s.size() <= cap;
      }
      case Op::Lam: {
        s += "\\" + typeStr(t->annot()) + ". ";
        binders_.push_back(t->annot());
        bool ok = flat(t->body(), s, cap);
        binders_.pop_back();
        return ok;
      }
      default:
        break;
    }
    head(t, s);
    s += '(';
    for (size_t i = 0; i < t->numChildren(); ++i) {
      if (i) s += ", ";
      if (!flat(t->child(i), s, cap)) return false;
    }
    s += ')';
    return s.size() <= cap;
  }

  const Context& ctx_;
  const PrintOptions& opts_;
  bool haveDecls_ = false;
  std::unordered_map<std::string, const Type*> declTypes_;
  std::vector<const Type*> binders_;  // innermost last
  std::string out_;
};

}  // namespace

std::string printTerm(const Context& ctx, const Term* term, const PrintOptions& opts) {
  Printer p(ctx, opts);
  p.block(term, 0);
  return std::move(p.out());
}

std::string printModule(const Context& ctx, const Module& module, const PrintOptions& opts) {
  Printer p(ctx, opts);
  p.setDecls(module);
  std::string& out = p.out();
  for (const Decl& d : module.decls) {
    out += d.kind == Decl::Kind::Input ? "input " : "weight ";
    out += text::quoteName(d.name) + " : " + typeStr(d.type) + ";\n";
  }
  for (const Output& o : module.outputs) {
    out += "output " + text::quoteName(o.name) + " = ";
    if (o.term) p.block(o.term, 0);
    else out += "<null>";
    out += ";\n";
  }
  return std::move(out);
}

}  // namespace skeleshare::ir
