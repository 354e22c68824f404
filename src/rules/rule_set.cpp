// Loading rule files: parse every file, register constants and templates, check the
// templates, then compile each rule to an egraph::PatternRewrite.

#include "skeleshare/rules/rule_set.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "clauses.h"
#include "lower.h"
#include "parser.h"
#include "skeleshare/egraph/template.h"

namespace skeleshare::rules {

namespace detail {
struct LoadedFiles {
  std::vector<SourceFile> files;
  FileAst ast;
  Registry reg;
  std::shared_ptr<DomainCache> cache = std::make_shared<DomainCache>();
};
}  // namespace detail

using detail::LowerError;
using detail::Lowerer;

RuleSet::RuleSet() = default;
RuleSet::~RuleSet() = default;
RuleSet::RuleSet(RuleSet&&) noexcept = default;
RuleSet& RuleSet::operator=(RuleSet&&) noexcept = default;

const Rule* RuleSet::find(std::string_view name) const {
  for (const Rule& r : rules_)
    if (r.name == name) return &r;
  return nullptr;
}

std::vector<const egraph::Rewrite*> RuleSet::rewrites() const {
  std::vector<const egraph::Rewrite*> out;
  for (const Rule& r : rules_) out.push_back(r.rewrite.get());
  return out;
}

std::vector<std::string> RuleSet::groups() const {
  std::set<std::string> s;
  for (const Rule& r : rules_) s.insert(r.groups.begin(), r.groups.end());
  return {s.begin(), s.end()};
}

std::vector<std::string> RuleSet::templateNames() const {
  std::vector<std::string> out;
  if (files_)
    for (const auto& [name, t] : files_->reg.templates) out.push_back(name);
  return out;
}

namespace {

/// Lowers template `t` with every parameter bound to a concrete value.
egraph::Pattern lowerTemplate(const detail::Registry& reg, const detail::TemplateAst& t,
                              std::span<const TemplateArg> args) {
  Lowerer lw(reg, t.file);
  lw.allowVars(false);
  for (size_t i = 0; i < t.params.size(); ++i) {
    if (t.params[i].isType) lw.bindScalar(t.params[i].name, egraph::TypePattern::of(std::get<const ir::Type*>(args[i])));
    else lw.bindInt(t.params[i].name, egraph::IntExpr(std::get<int64_t>(args[i])));
  }
  return lw.term(t.body);
}

/// A template must type-check for at least one of a few sample parameter values (all
/// integers 4, 6 or 8, or 3, 4, 5, ...; scalars i8): otherwise it is ill typed.
std::optional<std::string> checkTemplate(const detail::Registry& reg, const detail::TemplateAst& t) {
  ir::Context ctx;
  std::optional<std::string> firstError;
  for (int sample = 0; sample < 4; ++sample) {
    std::vector<TemplateArg> args;
    for (size_t i = 0; i < t.params.size(); ++i) {
      if (t.params[i].isType) args.emplace_back(ctx.intType(8));
      else args.emplace_back(sample < 3 ? int64_t{4 + 2 * sample} : static_cast<int64_t>(3 + i));
    }
    egraph::Pattern p = lowerTemplate(reg, t, args);  // LowerErrors propagate
    egraph::EGraph g(ctx);
    try {
      egraph::VarTable vars;
      egraph::CompiledTemplate ct(p, vars);
      if (ct.instantiate(g, egraph::Subst(vars.size())) != egraph::kNoClass) return std::nullopt;
    } catch (const egraph::EGraphError& e) {
      if (!firstError) firstError = e.what();
    }
  }
  return firstError;
}

}  // namespace

namespace detail {
class Loader {
 public:
  Loader(DiagnosticEngine& diags) : diags_(diags) {}

  std::optional<RuleSet> load(std::vector<SourceFile> files) {
    auto lf = std::make_unique<detail::LoadedFiles>();
    lf->files = std::move(files);
    bool ok = true;
    try {
      for (size_t i = 0; i < lf->files.size(); ++i)
        ok = detail::parseRuleFile(lf->files[i], i, lf->ast, diags_) && ok;
      ok = registerNames(*lf) && ok;
      if (!ok) return std::nullopt;
      RuleSet rs;
      for (const auto& t : lf->ast.templates) {
        try {
          if (auto err = checkTemplate(lf->reg, t))
            error(*lf, t.file, t.loc, fmt::format("template '{}' is ill typed: {}", t.name, *err));
        } catch (const LowerError& e) {
          error(*lf, e.file, e.loc, e.message);
        }
      }
      std::set<std::string> names;
      for (const auto& r : lf->ast.rules) {
        if (!names.insert(r.name).second) {
          error(*lf, r.file, r.loc, fmt::format("duplicate rule name '{}'", r.name));
          continue;
        }
        try {
          rs.rules_.push_back(compileRule(*lf, r));
        } catch (const LowerError& e) {
          error(*lf, e.file, e.loc, e.message);
        }
      }
      for (const auto& c : lf->ast.consts) rs.constants_[c.name] = c.value;
      if (failed_) return std::nullopt;
      rs.files_ = std::move(lf);
      return rs;
    } catch (const TooManyErrors&) {
      return std::nullopt;
    }
  }

 private:
  void error(const detail::LoadedFiles& lf, size_t file, SourceLoc loc, std::string msg) {
    failed_ = true;
    diags_.error(lf.files[file], loc, std::move(msg));
  }

  bool registerNames(detail::LoadedFiles& lf) {
    bool ok = true;
    for (const auto& c : lf.ast.consts) {
      if (!lf.reg.consts.emplace(c.name, &c).second) {
        error(lf, c.file, c.loc, fmt::format("duplicate constant '{}'", c.name));
        ok = false;
      }
    }
    for (const auto& t : lf.ast.templates) {
      if (ir::opByName(t.name)) {
        error(lf, t.file, t.loc, fmt::format("template '{}' has the name of an operator", t.name));
        ok = false;
      } else if (!lf.reg.templates.emplace(t.name, &t).second) {
        error(lf, t.file, t.loc, fmt::format("duplicate template '{}'", t.name));
        ok = false;
      }
      std::set<std::string> params;
      for (const auto& p : t.params) {
        if (!params.insert(p.name).second) {
          error(lf, t.file, p.loc, fmt::format("duplicate parameter '{}' of template '{}'", p.name, t.name));
          ok = false;
        }
      }
    }
    return ok;
  }

  Rule compileRule(detail::LoadedFiles& lf, const detail::RuleAst& r) {
    Lowerer lw(lf.reg, r.file);
    if (r.lhs.kind != detail::TermAst::Kind::Op)
      lw.fail(r.lhs.loc, "the left-hand side must be an operator application, not a variable or a lambda");
    egraph::Pattern lhs = lw.term(r.lhs);
    std::map<std::string, detail::VarInfo> lhsVars = lw.vars();
    egraph::Pattern rhs = lw.term(r.rhs);
    std::set<std::string> forVars;
    for (const auto& c : r.clauses)
      if (c.kind == detail::Clause::Kind::For) forVars.insert(c.var);
    for (const auto& [name, info] : lw.vars()) {
      if (lhsVars.count(name)) continue;
      if (forVars.count(name) && info.kind == egraph::VarKind::Int) continue;
      lw.fail(info.loc, fmt::format("unbound variable '{}' on the right-hand side (bind it in the left-hand "
                                    "side{})", name, info.kind == egraph::VarKind::Int ? " or with 'for'" : ""));
    }
    Rule rule;
    rule.name = r.name;
    rule.groups = r.groups;
    rule.file = lf.files[r.file].path();
    rule.loc = r.loc;
    rule.lhsOp = lhs.op();
    if (!rhs.isVar()) rule.rhsOp = rhs.op();
    try {
      rule.rewrite = std::make_unique<egraph::PatternRewrite>(r.name, lhs, rhs, r.groups);
    } catch (const egraph::EGraphError& e) {
      lw.fail(r.loc, fmt::format("rule '{}' is malformed: {}", r.name, e.what()));
    }
    auto prog = std::make_shared<detail::ClauseProgram>(r.clauses, lhsVars, rule.rewrite->vars(), lw, lf.cache);
    rule.forVars = prog->forVars();
    if (prog->hasFor()) {
      rule.rewrite->expand([prog](const egraph::EGraph& g, const egraph::Subst& s, std::vector<egraph::Subst>& out) {
        prog->expand(g, s, out);
      });
    } else if (!r.clauses.empty()) {
      rule.rewrite->when([prog](const egraph::EGraph& g, const egraph::Subst& s) { return prog->check(g, s); });
    }
    return rule;
  }

  DiagnosticEngine& diags_;
  bool failed_ = false;
};
}  // namespace detail

std::optional<egraph::Pattern> RuleSet::instantiateTemplate(std::string_view name, std::span<const TemplateArg> args,
                                                            std::string& error) const {
  if (!files_) {
    error = "no rules loaded";
    return std::nullopt;
  }
  auto it = files_->reg.templates.find(std::string(name));
  if (it == files_->reg.templates.end()) {
    error = fmt::format("unknown template '{}'", name);
    return std::nullopt;
  }
  const detail::TemplateAst& t = *it->second;
  if (args.size() != t.params.size()) {
    error = fmt::format("template '{}' expects {} argument(s), got {}", name, t.params.size(), args.size());
    return std::nullopt;
  }
  for (size_t i = 0; i < args.size(); ++i) {
    bool isType = std::holds_alternative<const ir::Type*>(args[i]);
    if (isType != t.params[i].isType) {
      error = fmt::format("argument {} of template '{}' must be {}", i + 1, name, t.params[i].isType ? "a type" : "an integer");
      return std::nullopt;
    }
  }
  try {
    return lowerTemplate(files_->reg, t, args);
  } catch (const LowerError& e) {
    error = e.message;
    return std::nullopt;
  }
}

std::optional<RuleSet> loadRuleTexts(std::span<const SourceFile> files, DiagnosticEngine& diags) {
  return detail::Loader(diags).load(std::vector<SourceFile>(files.begin(), files.end()));
}

std::optional<RuleSet> loadRuleFiles(std::span<const std::string> paths, DiagnosticEngine& diags) {
  std::vector<SourceFile> files;
  bool ok = true;
  for (const std::string& p : paths) {
    std::string err;
    auto f = SourceFile::read(p, err);
    if (!f) {
      diags.error(p, err.empty() ? "cannot read the rule file" : err);
      ok = false;
      continue;
    }
    files.push_back(std::move(*f));
  }
  if (!ok) return std::nullopt;
  return detail::Loader(diags).load(std::move(files));
}

std::optional<RuleSet> loadRuleDir(const std::string& dir, DiagnosticEngine& diags) {
  std::error_code ec;
  std::vector<std::string> paths;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec))
    if (e.is_regular_file() && e.path().extension() == ".rules") paths.push_back(e.path().string());
  if (ec) {
    diags.error(dir, "cannot read the rule directory: " + ec.message());
    return std::nullopt;
  }
  if (paths.empty()) {
    diags.error(dir, "no *.rules files in the rule directory");
    return std::nullopt;
  }
  std::sort(paths.begin(), paths.end());
  return loadRuleFiles(paths, diags);
}

}  // namespace skeleshare::rules
