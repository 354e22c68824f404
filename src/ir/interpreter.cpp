// The evaluator: dispatch, binders and leaves, the one generic apply path, and the
// structural skeletons Map, ZipWith and Reduce.

#include <fmt/format.h>
#include <pthread.h>

#include <exception>
#include <functional>

#include "interpreter_impl.h"
#include "skeleshare/support/random.h"

namespace skeleshare::ir {

namespace {
struct DepthGuard {
  explicit DepthGuard(int& d) : d_(d) {
    if (++d_ > kMaxEvalDepth) {
      --d_;
      throw std::runtime_error(fmt::format("term nested deeper than {} levels", kMaxEvalDepth));
    }
  }
  ~DepthGuard() { --d_; }
  int& d_;
};
}  // namespace

Value Interpreter::Impl::eval(const Term* t, const Env& env) {
  DepthGuard guard(depth);
  // A closed term has one value per interpreter: memoise it. This makes shared
  // sub-terms (hash-consed DAGs, let-bound functions) cost one evaluation, and keeps
  // closures of closed lambdas free of captured environments.
  if (t->closed()) {
    auto it = closedCache.find(t);
    if (it != closedCache.end()) return it->second;
    Value v = evalUncached(t, nullptr);
    closedCache.emplace(t, v);
    return v;
  }
  return evalUncached(t, env);
}

Value Interpreter::Impl::apply(const Value& f, const Value& arg) {
  if (!f.isClosure()) throw std::runtime_error("applying " + f.describe() + ", which is not a function");
  ++stats.applications;
  const Closure& c = f.closure();
  return eval(c.lam->body(), extend(c.env, arg));
}

Value Interpreter::Impl::evalInput(const Term* t) {
  const std::string& name = ctx.symbolName(t->param(0));
  auto it = inputs.find(name);
  if (it == inputs.end())
    throw std::runtime_error(fmt::format("missing input '{}' of type {}", name, t->annot()->str()));
  checkTensorType(it->second, t->annot(), fmt::format("input '{}'", name));
  return Value(it->second);
}

Value Interpreter::Impl::evalUncached(const Term* t, const Env& env) {
  switch (t->op()) {
    case Op::Var: return lookup(env, t->varIndex());
    case Op::Lam: return Value::closure(t, env);
    case Op::App: {
      Value f = eval(t->child(0), env);
      return apply(f, eval(t->child(1), env));
    }
    case Op::Input: return evalInput(t);
    case Op::Const: {
      Tensor s(t->annot()->bits(), {});
      s[0] = static_cast<int32_t>(t->param(0));  // the type rule checked the range
      return Value(std::move(s));
    }
    default: break;
  }
  // Every other operator is strict in all its children.
  std::vector<Value> kids;
  kids.reserve(t->numChildren());
  for (const Term* c : t->children()) kids.push_back(eval(c, env));

  Value v = [&]() -> Value {
    if (t->op() == Op::Tuple) return Value::tuple(std::move(kids));
    if (options.fastPaths)
      if (auto fast = tryFast(t, kids)) {
        ++stats.fastPaths;
        return std::move(*fast);
      }
    switch (opInfo(t->op()).category) {
      case OpCategory::Core:
      case OpCategory::Partial: return evalCore(t, kids);
      case OpCategory::DataTransform: return evalTransform(t, kids);
      case OpCategory::Elementwise:
      case OpCategory::Reshape: return evalElementwise(t, kids);
      case OpCategory::Structural: return evalStructural(t, kids);
      default: evalError(t, "not an operator with a value");
    }
  }();
  checkValue(t, v, t->type());
  return v;
}

namespace {
/// Stores r as block i of `out`, seen as (out.size() / r.size()) blocks of r's size.
void placeBlock(const Term* t, Tensor& out, size_t i, const Tensor& r) {
  if ((i + 1) * r.size() > out.size()) evalError(t, "result " + r.describe() + " does not fit " + out.describe());
  std::copy(r.data(), r.data() + r.size(), out.data() + i * r.size());
}
}  // namespace

Value Interpreter::Impl::evalStructural(const Term* t, const std::vector<Value>& k) {
  switch (t->op()) {
    case Op::Map: {
      // out[i] = f(x[i])
      const Tensor& x = k[0].tensor();
      Tensor out = zeroTensor(t, t->type());
      for (int64_t i = 0; i < x.dim(0); ++i)
        placeBlock(t, out, static_cast<size_t>(i), apply(k[1], subTensor(x, i)).tensor());
      return out;
    }
    case Op::ZipWith: {
      // out[i] = f(x[i])(y[i])
      const Tensor &x = k[0].tensor(), &y = k[1].tensor();
      Tensor out = zeroTensor(t, t->type());
      for (int64_t i = 0; i < x.dim(0); ++i)
        placeBlock(t, out, static_cast<size_t>(i), apply2(k[2], subTensor(x, i), subTensor(y, i)).tensor());
      return out;
    }
    case Op::Reduce: {
      // f(...f(f(init)(x[0]))(x[1])...)(x[N-1])
      Value acc = k[0];
      const Tensor& x = k[1].tensor();
      for (int64_t i = 0; i < x.dim(0); ++i) acc = apply2(k[2], acc, subTensor(x, i));
      return acc;
    }
    default: evalError(t, "not a structural operator");
  }
}

// ---- public API ------------------------------------------------------------------------

namespace {
/// Runs `fn` on a thread with a large stack (committed lazily by the OS), so that deep
/// terms hit kMaxEvalDepth instead of overflowing the caller's stack. Exceptions are
/// carried back. If no such thread can be created, runs `fn` on the caller's thread.
Value onLargeStack(const std::function<Value()>& fn) {
  struct Job {
    const std::function<Value()>* fn;
    std::optional<Value> result;
    std::exception_ptr error;
  } job{&fn, std::nullopt, nullptr};
  auto trampoline = [](void* p) -> void* {
    auto* j = static_cast<Job*>(p);
    try {
      j->result = (*j->fn)();
    } catch (...) {
      j->error = std::current_exception();
    }
    return nullptr;
  };
  pthread_attr_t attr;
  pthread_t th;
  bool started = false;
  if (pthread_attr_init(&attr) == 0) {
    started = pthread_attr_setstacksize(&attr, kEvalStackBytes) == 0 &&
              pthread_create(&th, &attr, trampoline, &job) == 0;
    pthread_attr_destroy(&attr);
  }
  if (!started) return fn();
  pthread_join(th, nullptr);
  if (job.error) std::rethrow_exception(job.error);
  return std::move(*job.result);
}
}  // namespace

Interpreter::Interpreter(const Context& ctx, const std::map<std::string, Tensor>& inputs,
                         EvalOptions options)
    : impl_(std::make_unique<Impl>(ctx, inputs, options)) {}
Interpreter::~Interpreter() = default;

Value Interpreter::evaluate(const Term* term) {
  if (!term->closed())
    throw std::runtime_error(fmt::format("cannot evaluate a term with free variable %{} without an environment",
                                         term->freeBound() - 1));
  return onLargeStack([&] { return impl_->eval(term, nullptr); });
}
Value Interpreter::evaluate(const Term* term, const Env& env) {
  return onLargeStack([&] { return impl_->eval(term, env); });
}
Value Interpreter::apply(const Value& fn, const Value& arg) {
  return onLargeStack([&] { return impl_->apply(fn, arg); });
}
Value Interpreter::apply(const Value& fn, const Value& a, const Value& b) {
  return onLargeStack([&] { return impl_->apply2(fn, a, b); });
}
const EvalStats& Interpreter::stats() const { return impl_->stats; }

Value evaluate(const Term* term, const std::map<std::string, Tensor>& inputs, const Context& ctx,
               EvalOptions options) {
  Interpreter interp(ctx, inputs, options);
  return interp.evaluate(term);
}

std::map<std::string, Tensor> evaluateModule(const Module& module, Context& ctx,
                                             const std::map<std::string, Tensor>& inputs,
                                             EvalOptions options) {
  for (const Decl& d : module.decls) {
    auto it = inputs.find(d.name);
    if (it == inputs.end())
      throw std::runtime_error(fmt::format("missing input '{}' of type {}", d.name, d.type->str()));
    checkTensorType(it->second, d.type, fmt::format("input '{}'", d.name));
  }
  for (const auto& [name, tensor] : inputs)
    if (!module.findDecl(name))
      throw std::runtime_error(fmt::format("input '{}' is not declared by the module", name));

  Interpreter interp(ctx, inputs, options);
  std::map<std::string, Tensor> out;
  for (const Output& o : module.outputs) {
    Value v = interp.evaluate(o.term);
    if (!v.isTensor())
      throw std::runtime_error(fmt::format("output '{}' is {}, not a tensor", o.name, v.describe()));
    out[o.name] = v.tensor();
  }
  return out;
}

std::map<std::string, Tensor> randomInputs(const Module& module, uint64_t seed) {
  std::map<std::string, Tensor> out;
  for (const Decl& d : module.decls) {
    if (!d.type || !d.type->isIntTensor())
      throw std::runtime_error(fmt::format("declaration '{}' is not an integer tensor", d.name));
    auto role = d.kind == Decl::Kind::Weight ? rng::Role::Weight : rng::Role::Input;
    out[d.name] = rng::randomTensor(seed, d.name, d.type->scalar()->bits(), shapeOf(d.type), role);
  }
  return out;
}

}  // namespace skeleshare::ir
