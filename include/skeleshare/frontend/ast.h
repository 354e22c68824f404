#pragma once
// The abstract syntax tree of the array DSL (docs/dsl.md).
//
// The parser builds it with source locations; sema (sema.h) fills in the resolved
// fields (types, referenced statements, De Bruijn indices, static parameters). Every
// later stage (translation, summary, evaluator) reads only checked programs.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "skeleshare/frontend/builtins.h"
#include "skeleshare/support/source.h"

namespace skeleshare::frontend {

/// The type of a DSL value: a signed integer of `bits` bits, or a static array of them
/// (`shape` outermost first; empty for a scalar).
/// Deepest expression nesting the parser accepts.
inline constexpr int kMaxNesting = 256;
/// Deepest operator nesting of a statement counting through the lets it uses: the depth
/// of its IR term, bounded so that recursive passes over IR terms cannot overflow.
inline constexpr int kMaxTermDepth = 4096;
/// Largest rank of any DSL value.
inline constexpr int kMaxRank = 16;

struct ValueType {
  int bits = 32;
  std::vector<int64_t> shape;

  size_t rank() const { return shape.size(); }
  bool isScalar() const { return shape.empty(); }
  /// "i8[32][32][3]"
  std::string str() const;
  /// The type of one element along the outermost dimension (rank must be >= 1).
  ValueType elem() const;
  bool operator==(const ValueType&) const = default;
};

enum class ExprKind {
  IntLit,    // 42, -128
  TypeName,  // i8, i16, i32 (only as the second argument of cast)
  Name,      // a reference to a declaration, a let or a lambda parameter
  Call,      // op(args...), including infix operators (desugared by the parser)
  Lambda,    // \a b. body
};

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

/// `name = value` arguments (only pad's `fill` today).
struct NamedArg {
  std::string name;
  SourceLoc loc;
  ExprPtr value;
};

struct Expr {
  ExprKind kind = ExprKind::IntLit;
  SourceLoc loc;

  int64_t intValue = 0;              // IntLit: the value; TypeName: the width in bits
  std::string name;                  // Name: identifier; Call: operator as written
  std::vector<ExprPtr> args;         // Call: positional arguments
  std::vector<NamedArg> namedArgs;   // Call: named arguments
  bool infix = false;                // Call: written as `a + b` (for messages)
  std::vector<std::string> params;   // Lambda: parameter names, outermost first
  std::vector<SourceLoc> paramLocs;  // Lambda
  ExprPtr body;                      // Lambda
  /// Nodes on the longest path down to a leaf; the parser keeps it <= kMaxNesting so
  /// that every recursive pass over the tree has a bounded depth.
  int height = 1;

  // ---- filled in by sema --------------------------------------------------------
  ValueType type;                    // every value expression (not Lambda/TypeName)
  Builtin builtin = Builtin::Conv;   // Call
  std::vector<int64_t> statics;      // Call: static parameters, see builtins.h
  /// Call of an element-wise binary operator with one literal operand: the index (0 or
  /// 1) of the literal, which is broadcast over the other operand; -1 otherwise.
  int broadcastLiteral = -1;
  /// Name: the statement it refers to, or -1 for a lambda parameter.
  int stmt = -1;
  /// Name of a lambda parameter: its De Bruijn index (0 = innermost binder).
  int varIndex = -1;
  std::vector<ValueType> paramTypes;  // Lambda: one per parameter
};

enum class StmtKind { Input, Weight, Let, Output };

struct Stmt {
  StmtKind kind = StmtKind::Let;
  std::string name;
  SourceLoc loc;      // of the keyword
  SourceLoc nameLoc;  // of the name
  ValueType declType;                 // Input, Weight: the declared type
  std::vector<SourceLoc> dimLocs;     // Input, Weight: location of each dimension
  ExprPtr value;                      // Let, Output
  /// The statement did not parse; sema skips it and stays silent about its uses.
  bool broken = false;
  // filled in by sema
  ValueType type;  // the statement's value type
  int depth = 1;  // nesting depth including the lets it uses (<= kMaxTermDepth)
  bool used = false;
  bool live = false;  // an output, or used (transitively) by one
};

struct Program {
  std::string file;  // the source path, for messages and summaries
  std::vector<Stmt> stmts;  // in source order; names are defined before use

  /// Indices of the output statements, in source order.
  std::vector<size_t> outputs() const;
};

/// The text of a statement kind: "input", "weight", "let", "output".
const char* stmtKindName(StmtKind k);

}  // namespace skeleshare::frontend
