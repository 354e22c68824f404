#pragma once
// Exceptions of the e-graph engine. All derive from EGraphError.

#include <stdexcept>
#include <string>

namespace skeleshare::egraph {

class EGraphError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// add() of a node whose operator's type rule rejects it.
class IllTypedNodeError : public EGraphError {
 public:
  using EGraphError::EGraphError;
};

/// merge() of two classes of different types: always a bug in the rule that asked for it.
class TypeMismatchError : public EGraphError {
 public:
  using EGraphError::EGraphError;
};

/// A malformed pattern or template (found when it is compiled).
class PatternError : public EGraphError {
 public:
  using EGraphError::EGraphError;
};

/// Instantiating a template failed hard: an unbound variable or an ill-typed node.
class TemplateError : public EGraphError {
 public:
  using EGraphError::EGraphError;
};

/// The runner's wrapper around any EGraphError raised while applying a rule: the message
/// starts with the rule's name.
class RewriteError : public EGraphError {
 public:
  RewriteError(std::string rule, const std::string& cause)
      : EGraphError("rule " + rule + ": " + cause), rule_(std::move(rule)) {}
  const std::string& rule() const { return rule_; }

 private:
  std::string rule_;
};

}  // namespace skeleshare::egraph
