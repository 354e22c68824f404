#include "skeleshare/egraph/dot.h"

#include <algorithm>

namespace skeleshare::egraph {

namespace {
bool isLeaf(ir::Op op) { return op == ir::Op::Var || op == ir::Op::Input || op == ir::Op::Const; }

std::string escape(const std::string& s) {
  std::string out;
  for (char ch : s) {
    if (ch == '"' || ch == '\\') out += '\\';
    out += ch;
  }
  return out;
}

std::string nodeLabel(const EGraph& g, const ENode& n) {
  std::string s(ir::opName(n.op()));
  if (n.op() == ir::Op::Input) return "Input " + g.context().symbolName(n.param(0));
  if (n.op() == ir::Op::Var) return "%" + std::to_string(n.param(0)) + " : " + n.annot()->str();
  if (n.op() == ir::Op::Lam) return "\\" + n.annot()->str();
  auto p = n.params();
  if (!p.empty()) {
    s += '[';
    for (size_t i = 0; i < p.size(); ++i) s += (i ? ", " : "") + std::to_string(p[i]);
    s += ']';
  }
  if (n.annot()) s += " : " + n.annot()->str();
  return s;
}
}  // namespace

std::vector<ClassId> sharingCandidates(const EGraph& g) {
  std::vector<ClassId> out;
  std::vector<ClassId> parents;
  for (ClassId c : g.classIds()) {
    const EClass& cls = g.eclass(c);
    bool allLeaves = std::all_of(cls.nodes.begin(), cls.nodes.end(),
                                 [&](NodeId id) { return isLeaf(g.node(id).op()); });
    if (allLeaves) continue;
    parents.clear();
    for (NodeId p : cls.parents) parents.push_back(g.find(p));
    std::sort(parents.begin(), parents.end());
    if (std::unique(parents.begin(), parents.end()) - parents.begin() >= 2) out.push_back(c);
  }
  return out;
}

std::string toDot(const EGraph& g, const DotOptions& options) {
  std::vector<ClassId> classes;
  if (options.roots.empty()) {
    classes = g.classIds();
  } else {
    std::vector<uint8_t> seen(g.idCount(), 0);
    std::vector<ClassId> stack;
    for (ClassId r : options.roots) stack.push_back(g.find(r));
    while (!stack.empty()) {
      ClassId c = stack.back();
      stack.pop_back();
      if (seen[c]) continue;
      seen[c] = 1;
      classes.push_back(c);
      for (NodeId id : g.eclass(c).nodes)
        for (ClassId k : g.node(id).children()) stack.push_back(g.find(k));
    }
    std::sort(classes.begin(), classes.end());
  }
  std::vector<ClassId> shared;
  if (options.highlightSharing) shared = sharingCandidates(g);

  std::string s = "digraph egraph {\n  compound=true;\n  newrank=true;\n  node [shape=box, fontname=\"Helvetica\"];\n";
  for (ClassId c : classes) {
    const EClass& cls = g.eclass(c);
    bool isShared = std::binary_search(shared.begin(), shared.end(), c);
    s += "  subgraph cluster_e" + std::to_string(c) + " {\n";
    s += "    label=\"e" + std::to_string(c) + " : " + escape(cls.type->str()) +
         (isShared ? " (shared)" : "") + "\";\n";
    s += isShared ? "    style=\"dotted,filled\"; color=blue; fillcolor=\"#dbe8ff\";\n"
                  : "    style=dotted;\n";
    for (NodeId id : cls.nodes) {
      s += "    n" + std::to_string(id) + " [label=\"" + escape(nodeLabel(g, g.node(id))) + "\"" +
           (isShared ? ", color=blue" : "") + "];\n";
    }
    s += "  }\n";
  }
  for (ClassId c : classes) {
    for (NodeId id : g.eclass(c).nodes) {
      const ENode& n = g.node(id);
      for (size_t i = 0; i < n.numChildren(); ++i) {
        ClassId k = g.find(n.child(i));
        NodeId target = g.eclass(k).nodes.front();
        s += "  n" + std::to_string(id) + " -> n" + std::to_string(target) + " [lhead=cluster_e" +
             std::to_string(k) + (n.numChildren() > 1 ? ", label=\"" + std::to_string(i) + "\"" : "") +
             "];\n";
      }
    }
  }
  s += "}\n";
  return s;
}

}  // namespace skeleshare::egraph
