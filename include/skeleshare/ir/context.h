#pragma once
// ir::Context owns and hash-conses every type, symbol and term of a compilation.

#include <deque>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "skeleshare/ir/term.h"
#include "skeleshare/ir/type.h"
#include "skeleshare/ir/type_rules.h"

namespace skeleshare::ir {

/// Thrown by Context::make when a term violates its operator's type rule.
class TypeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Context {
 public:
  Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  // ---- types -------------------------------------------------------------------
  const Type* intType(int bits);  // 8, 16 or 32
  const Type* arrayType(int64_t length, const Type* elem);
  /// elem[shape[0]][shape[1]]...: the outermost dimension first.
  const Type* tensorType(std::span<const int64_t> shape, const Type* scalar);
  const Type* funType(const Type* param, const Type* result);
  /// a -> b -> r (curried).
  const Type* funType2(const Type* a, const Type* b, const Type* r);
  const Type* tupleType(std::span<const Type* const> elems);
  size_t typeCount() const { return types_.size(); }
  const Type* typeById(uint32_t id) const { return types_[id].get(); }

  // ---- symbols (names of inputs and weights) -----------------------------------
  int64_t symbol(std::string_view name);
  const std::string& symbolName(int64_t id) const { return symbols_.at(static_cast<size_t>(id)); }

  // ---- terms -------------------------------------------------------------------
  /// The unique term for (op, params, annot, children); throws TypeError when the
  /// operator's type rule rejects it.
  const Term* make(Op op, std::span<const int64_t> params, const Type* annot,
                   std::span<const Term* const> children);
  /// Like make, but returns the type error instead of throwing.
  const Term* tryMake(Op op, std::span<const int64_t> params, const Type* annot,
                      std::span<const Term* const> children, std::string& error);

  const Term* var(int64_t index, const Type* type);
  const Term* lam(const Type* paramType, const Term* body);
  /// \a. \b. body
  const Term* lam2(const Type* a, const Type* b, const Term* body);
  const Term* app(const Term* fn, const Term* arg);
  const Term* input(std::string_view name, const Type* type);
  const Term* constant(int64_t value, const Type* intType);
  const Term* op(Op op, std::initializer_list<const Term*> children,
                 std::initializer_list<int64_t> params = {});
  const Term* op(Op op, std::span<const Term* const> children,
                 std::span<const int64_t> params = {});

  size_t termCount() const { return terms_.size(); }

 private:
  /// Structural key of a type: its kind and fields, with sub-types by id.
  struct TypeKey {
    TypeKind kind;
    int64_t a;  // bits, length or parameter id
    int64_t b;  // element or result id
    std::vector<uint32_t> elems;
    bool operator==(const TypeKey&) const = default;
  };
  struct TypeKeyHash {
    size_t operator()(const TypeKey& k) const;
  };
  const Type* internType(Type t);

  std::vector<std::unique_ptr<Type>> types_;
  std::unordered_map<TypeKey, const Type*, TypeKeyHash> typeIndex_;
  std::vector<std::string> symbols_;
  std::unordered_map<std::string, int64_t> symbolIndex_;
  std::deque<Term> terms_;
  std::unordered_multimap<size_t, const Term*> termIndex_;
};

/// A module: the declarations of a program and its named outputs.
struct Decl {
  enum class Kind { Input, Weight };
  std::string name;
  Kind kind = Kind::Input;
  const Type* type = nullptr;
};

struct Output {
  std::string name;
  const Term* term = nullptr;
};

struct Module {
  std::vector<Decl> decls;
  std::vector<Output> outputs;

  const Decl* findDecl(std::string_view name) const;
  /// All outputs combined into one term: the output itself when there is one, a Tuple
  /// otherwise. This is the root that saturation and extraction work on.
  const Term* root(Context& ctx) const;
};

}  // namespace skeleshare::ir
