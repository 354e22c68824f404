// E-graph construction: add, merge, lookups and inspection. rebuild() is in rebuild.cpp.

#include "skeleshare/egraph/egraph.h"

#include <algorithm>
#include <unordered_map>

#include "skeleshare/ir/term.h"
#include "skeleshare/ir/type_rules.h"

namespace skeleshare::egraph {

EGraph::EGraph(ir::Context& ctx) : ctx_(&ctx), types_(ctx), byOp_(static_cast<size_t>(ir::opCount())) {}

void EGraph::canonicalise(ENode& node) {
  for (ClassId& c : node.children()) {
    if (c >= uf_.size())
      throw EGraphError("e-node " + node.str() + " refers to class e" + std::to_string(c) +
                        ", which does not exist");
    c = uf_.findMut(c);
  }
}

ClassId EGraph::add(ENode node) {
  canonicalise(node);
  std::string error;
  ClassId id = addCanonical(node, error);
  if (id == kNoClass) throw IllTypedNodeError("ill-typed e-node " + error);
  return id;
}

ClassId EGraph::tryAdd(ENode node, std::string& error) {
  canonicalise(node);
  return addCanonical(node, error);
}

// Adds a node with canonical children. The node is moved from only on success.
ClassId EGraph::addCanonical(ENode& node, std::string& error) {
  uint64_t h = node.hash();
  NodeId existing = memo_.find(node, h, nodes_);
  if (existing != kNoClass) return uf_.findMut(existing);

  // Type analysis (make): the same rule that types ir::Terms.
  const ir::Type* stackKids[8];
  std::vector<const ir::Type*> heapKids;
  std::span<const ir::Type* const> kids;
  auto children = node.children();
  if (children.size() <= std::size(stackKids)) {
    for (size_t i = 0; i < children.size(); ++i) stackKids[i] = classes_[children[i]].type;
    kids = std::span<const ir::Type* const>(stackKids, children.size());
  } else {
    for (ClassId c : children) heapKids.push_back(classes_[c].type);
    kids = heapKids;
  }
  std::string why;
  const ir::Type* type = types_.infer(node.op(), node.params(), node.annot(), kids, why);
  if (!type) {
    error = node.str() + ": " + why;
    return kNoClass;
  }

  NodeId id = uf_.makeSet();
  FreeVars free = makeFree(node);
  ir::Op op = node.op();
  nodes_.push_back(std::move(node));
  hashes_.push_back(h);
  dead_.push_back(0);
  memo_.insert(id, hashes_);

  classes_.emplace_back();
  EClass& cls = classes_.back();
  cls.id = id;
  cls.type = type;
  cls.free = free;
  cls.nodes.push_back(id);

  const ENode& n = nodes_.back();
  auto kidsOf = n.children();
  for (size_t i = 0; i < kidsOf.size(); ++i) {
    ClassId c = kidsOf[i];
    // A node is a parent of each distinct child once.
    if (std::find(kidsOf.begin(), kidsOf.begin() + static_cast<std::ptrdiff_t>(i), c) !=
        kidsOf.begin() + static_cast<std::ptrdiff_t>(i))
      continue;
    classes_[c].parents.push_back(id);
  }
  byOp_[static_cast<size_t>(op)].push_back(id);
  noteType(type);
  ++liveNodes_;
  ++classCount_;
  return id;
}

FreeVars EGraph::makeFree(const ENode& n) const {
  switch (n.op()) {
    case ir::Op::Var:
      return FreeVars::var(n.param(0));
    case ir::Op::Lam:
      return classes_[find(n.child(0))].free.underBinder();
    default: {
      FreeVars f;
      for (ClassId c : n.children()) f = f | classes_[find(c)].free;
      return f;
    }
  }
}

void EGraph::noteType(const ir::Type* t) {
  size_t tid = t->id();
  if (tid < typeSeen_.size() && typeSeen_[tid]) return;
  if (tid >= typeSeen_.size()) typeSeen_.resize(std::max<size_t>(tid + 1, typeSeen_.size() * 2), 0);
  typeSeen_[tid] = 1;
  std::vector<int64_t> found;
  collectDimensions(t, found);
  for (int64_t d : found) {
    auto it = std::lower_bound(dims_.begin(), dims_.end(), d);
    if (it == dims_.end() || *it != d) dims_.insert(it, d);
  }
}

bool EGraph::hasDimension(int64_t d) const {
  return std::binary_search(dims_.begin(), dims_.end(), d);
}

ClassId EGraph::addTerm(const ir::Term* term) {
  // Iterative post-order over the term DAG, memoised by term id.
  std::unordered_map<uint32_t, ClassId> done;
  std::vector<std::pair<const ir::Term*, bool>> stack{{term, false}};
  std::vector<ClassId> kids;
  while (!stack.empty()) {
    auto [t, expanded] = stack.back();
    if (done.count(t->id())) {
      stack.pop_back();
      continue;
    }
    if (!expanded) {
      stack.back().second = true;
      for (size_t i = t->numChildren(); i-- > 0;)
        if (!done.count(t->child(i)->id())) stack.push_back({t->child(i), false});
      continue;
    }
    stack.pop_back();
    kids.clear();
    for (const ir::Term* c : t->children()) kids.push_back(done.at(c->id()));
    done.emplace(t->id(), add(ENode(t->op(), t->params(), t->annot(), kids)));
  }
  return find(done.at(term->id()));
}

ClassId EGraph::lookup(ENode node) const {
  for (ClassId& c : node.children()) {
    if (c >= uf_.size()) return kNoClass;
    c = uf_.find(c);
  }
  NodeId id = memo_.find(node, node.hash(), nodes_);
  return id == kNoClass ? kNoClass : uf_.find(id);
}

ClassId EGraph::lookupTerm(const ir::Term* term) const {
  std::vector<ClassId> kids;
  for (const ir::Term* c : term->children()) {
    ClassId k = lookupTerm(c);
    if (k == kNoClass) return kNoClass;
    kids.push_back(k);
  }
  return lookup(ENode(term->op(), term->params(), term->annot(), kids));
}

bool EGraph::merge(ClassId a, ClassId b) {
  if (a >= uf_.size() || b >= uf_.size())
    throw EGraphError("merge of a class that does not exist: e" + std::to_string(a) + ", e" +
                      std::to_string(b));
  a = uf_.findMut(a);
  b = uf_.findMut(b);
  if (a == b) return false;
  if (classes_[a].type != classes_[b].type) {
    const EClass& ca = classes_[a];
    const EClass& cb = classes_[b];
    throw TypeMismatchError("merging e-classes of different types: e" + std::to_string(a) +
                            " : " + ca.type->str() + " (e.g. " + nodes_[ca.nodes.front()].str() +
                            ") and e" + std::to_string(b) + " : " + cb.type->str() + " (e.g. " +
                            nodes_[cb.nodes.front()].str() + ")");
  }
  ClassId root = uf_.unite(a, b);
  ClassId other = root == a ? b : a;
  EClass& r = classes_[root];
  EClass& o = classes_[other];

  // Nodes that use the absorbed class must be re-canonicalised and re-hashed.
  pending_.insert(pending_.end(), o.parents.begin(), o.parents.end());

  // Analysis merge: free indices are united; whichever side grew must tell its parents.
  FreeVars merged = r.free | o.free;
  if (merged != r.free) analysisPending_.insert(analysisPending_.end(), r.parents.begin(), r.parents.end());
  if (merged != o.free) analysisPending_.insert(analysisPending_.end(), o.parents.begin(), o.parents.end());
  r.free = merged;

  r.nodes.insert(r.nodes.end(), o.nodes.begin(), o.nodes.end());
  r.parents.insert(r.parents.end(), o.parents.begin(), o.parents.end());
  std::vector<NodeId>().swap(o.nodes);
  std::vector<NodeId>().swap(o.parents);
  o.type = nullptr;

  touched_.push_back(root);
  opIndexStale_ = true;
  --classCount_;
  ++unions_;
  return true;
}

std::vector<ClassId> EGraph::classIds() const {
  std::vector<ClassId> ids;
  ids.reserve(classCount_);
  for (ClassId i = 0; i < classes_.size(); ++i)
    if (uf_.find(i) == i) ids.push_back(i);
  return ids;
}

size_t EGraph::memoryBytes() const {
  size_t b = nodes_.capacity() * sizeof(ENode) + hashes_.capacity() * sizeof(uint64_t) +
             dead_.capacity() + classes_.capacity() * sizeof(EClass) + memo_.bytes() +
             uf_.size() * 2 * sizeof(uint32_t) + dims_.capacity() * sizeof(int64_t);
  for (const ENode& n : nodes_)
    if (n.params().size() + (n.numChildren() + 1) / 2 > 4)
      b += (n.params().size() + (n.numChildren() + 1) / 2) * sizeof(uint64_t);
  for (const EClass& c : classes_)
    b += (c.nodes.capacity() + c.parents.capacity()) * sizeof(NodeId);
  for (const auto& v : byOp_) b += v.capacity() * sizeof(ClassId);
  return b;
}

}  // namespace skeleshare::egraph
