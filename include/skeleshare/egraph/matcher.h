#pragma once
// Compiled patterns: e-matching as a small virtual machine (egg's design).
//
// A pattern compiles to a list of instructions over class registers (register 0 holds the
// candidate root class):
//   Bind r, op/arity/params/annot -> out..out+arity-1 : for each node of class r with that
//                                    operator (class nodes are sorted by operator, so this
//                                    is a binary search), check/bind its parameters and
//                                    annotation, load its children, continue (backtracking)
//   Compare r, s                   : a repeated class variable: same class
//   Check r, typePattern           : the class's type matches, binding shape variables
// Integer and type variables bind on first occurrence and compare afterwards; compound
// integer expressions are checked as soon as their variables are bound. Only classes in
// the e-graph's operator index for the root operator are visited.

#include <cstdint>
#include <vector>

#include "skeleshare/egraph/compiled.h"
#include "skeleshare/egraph/egraph.h"
#include "skeleshare/egraph/pattern.h"
#include "skeleshare/egraph/subst.h"

namespace skeleshare::egraph {

class CompiledPattern {
 public:
  /// Compiles `p`, declaring its variables after those already in `vars`. Throws
  /// PatternError for a malformed pattern.
  explicit CompiledPattern(const Pattern& p, VarTable vars = {});

  const Pattern& pattern() const { return pattern_; }
  /// The variables: those given to the constructor, then the pattern's.
  const VarTable& vars() const { return vars_; }

  /// Appends every match on a clean e-graph, in ascending order of root class and, within
  /// a class, in node order; identical substitutions of one root are reported once. Each
  /// Subst has max(substSlots, vars().size()) slots. Stops after `limit` matches.
  void search(const EGraph& g, std::vector<Match>& out, size_t substSlots = 0,
              size_t limit = SIZE_MAX) const;
  std::vector<Match> search(const EGraph& g) const;
  /// Appends the matches rooted at class `c`.
  void searchClass(const EGraph& g, ClassId c, std::vector<Match>& out, size_t substSlots = 0) const;

  /// The instruction listing, for tests and debugging.
  std::string listing() const;

 private:
  struct Instr {
    enum class Kind : uint8_t { Bind, Compare, Check } kind;
    uint32_t reg = 0;
    // Bind
    ir::Op op{};
    uint32_t arity = 0;
    uint32_t out = 0;
    uint32_t paramsBegin = 0, numParams = 0;
    uint32_t annot = ExprPool::kNone;
    // Compare
    uint32_t other = 0;
    // Check
    uint32_t type = ExprPool::kNone;
  };
  struct State;

  void compile(const Pattern& p, uint32_t reg, std::vector<std::pair<uint32_t, uint32_t>>& seen);
  void run(size_t pc, State& st) const;
  bool matchInt(uint32_t e, int64_t v, State& st) const;
  bool matchType(uint32_t t, const ir::Type* ty, State& st) const;
  void undo(State& st, size_t trailMark, size_t deferredMark) const;
  void yield(State& st) const;
  void searchRoot(ClassId c, State& st) const;
  /// The matcher state of one search (requires a rebuilt e-graph).
  State startSearch(const EGraph& g, std::vector<Match>& out, size_t substSlots, size_t limit) const;

  Pattern pattern_;
  VarTable vars_;
  ExprPool pool_;
  std::vector<Instr> code_;
  std::vector<uint32_t> paramExprs_;
  std::vector<std::pair<uint32_t, uint32_t>> classVarRegs_;  // (slot, register)
  uint32_t numRegs_ = 1;
  bool rootIsVar_ = false;
};

}  // namespace skeleshare::egraph
