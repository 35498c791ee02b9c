//===- DotEmitter.cpp - sdfg programs as Graphviz graphs ------------------===//
//
// sdfg-translate --emit=dot: each sdfg.sdfg as the graph the DaCe papers
// draw. States are boxes (clusters) joined by bold edges in program
// order; loops, branches and while loops are clusters around their states;
// in a state, every container it touches is an access node (an ellipse:
// arguments bold, transients plain, and under a checkpoint plan green when
// stored, orange when recomputed), maps are clusters labelled with their
// ranges, tasklets octagons listing their operations, library ops boxes;
// memlets are edges labelled with the subset they move (`A[i, j - 1]`).
//
//===----------------------------------------------------------------------===//

#include "sdfg/Target/Dot.h"

#include "sdfg/Dialect/SDFG/IR/SDFGOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

using namespace mlir;
using namespace mlir::sdfg;

namespace {

/// Escapes a label for a double-quoted DOT string.
std::string escape(StringRef s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += '\\';
    out += c;
  }
  return out;
}

class DotWriter {
public:
  DotWriter(SDFGOp sdfg, raw_ostream &os, unsigned &counter)
      : sdfg(sdfg), os(os), counter(counter) {}
  void write();

private:
  std::string containerName(Value c);
  std::string indexName(Value v);
  std::string expr(AffineExpr e, ValueRange operands);
  std::string subset(AffineMap map, ValueRange operands);
  std::string newNode(StringRef attrs, int depth);
  /// Emits the ops of a control-flow region; returns the first and last
  /// state anchors it drew (empty when it drew none).
  std::pair<std::string, std::string> region(Block &block, int depth);
  std::pair<std::string, std::string> state(StateOp st, int depth);
  void dataflow(Block &block, int depth);
  std::string access(Value container, int depth = 0);
  std::string valueSource(Value v);
  void edge(StringRef from, StringRef to, StringRef attrs) {
    edges.push_back(
        (from + " -> " + to + (attrs.empty() ? "" : " [" + attrs + "]") + ";\n")
            .str());
  }
  void indent(int depth) { os.indent(2 * depth); }

  SDFGOp sdfg;
  raw_ostream &os;
  /// Node and cluster ids, unique over the module.
  unsigned &counter;
  llvm::DenseMap<Value, std::string> indexNames;
  unsigned mapDepth = 0, loopCount = 0;
  /// Access nodes of the state being drawn, and the nodes of its values.
  llvm::DenseMap<Value, std::string> accessNodes, valueNodes;
  llvm::StringSet<> stored, recomputed;
  /// The memlet edges of the state being drawn.
  std::vector<std::string> edges;
};

std::string DotWriter::newNode(StringRef attrs, int depth) {
  std::string id = "n" + std::to_string(counter++);
  indent(depth);
  os << id << " [" << attrs << "];\n";
  return id;
}

std::string DotWriter::containerName(Value c) {
  if (auto arg = dyn_cast<BlockArgument>(c))
    if (arg.getOwner()->getParentOp() == sdfg.getOperation())
      return sdfg.getArgName(arg.getArgNumber());
  if (auto alloc = c.getDefiningOp<AllocOp>())
    if (auto n = alloc.getName())
      return n->str();
  return "transient";
}

std::string DotWriter::indexName(Value v) {
  auto it = indexNames.find(v);
  if (it != indexNames.end())
    return it->second;
  return "?";
}

std::string DotWriter::expr(AffineExpr e, ValueRange operands) {
  switch (e.getKind()) {
  case AffineExprKind::Constant:
    return std::to_string(cast<AffineConstantExpr>(e).getValue());
  case AffineExprKind::DimId: {
    unsigned d = cast<AffineDimExpr>(e).getPosition();
    return d < operands.size() ? indexName(operands[d]) : "d?";
  }
  case AffineExprKind::SymbolId:
    return "s" + std::to_string(cast<AffineSymbolExpr>(e).getPosition());
  default:
    break;
  }
  auto bin = cast<AffineBinaryOpExpr>(e);
  std::string l = expr(bin.getLHS(), operands);
  std::string r = expr(bin.getRHS(), operands);
  switch (e.getKind()) {
  case AffineExprKind::Add:
    if (auto c = dyn_cast<AffineConstantExpr>(bin.getRHS()))
      if (c.getValue() < 0)
        return l + " - " + std::to_string(-c.getValue());
    return l + " + " + r;
  case AffineExprKind::Mul:
    return "(" + l + ")*(" + r + ")";
  case AffineExprKind::Mod:
    return "(" + l + ") mod " + r;
  case AffineExprKind::FloorDiv:
    return "(" + l + ") floordiv " + r;
  default:
    return "(" + l + ") ceildiv " + r;
  }
}

std::string DotWriter::subset(AffineMap map, ValueRange operands) {
  std::string s = "[";
  for (auto [k, e] : llvm::enumerate(map.getResults()))
    s += (k ? ", " : "") + expr(e, operands);
  return s + "]";
}

std::string DotWriter::access(Value container, int depth) {
  auto it = accessNodes.find(container);
  if (it != accessNodes.end())
    return it->second;
  std::string name = containerName(container);
  std::string attrs = "shape=ellipse, label=\"" + escape(name) + "\"";
  if (isa<BlockArgument>(container))
    attrs += ", penwidth=2";
  if (stored.contains(name))
    attrs += ", style=filled, fillcolor=palegreen";
  else if (recomputed.contains(name))
    attrs += ", style=filled, fillcolor=orange";
  std::string id = newNode(attrs, depth);
  accessNodes[container] = id;
  return id;
}

/// The node a value comes from: its tasklet, or the access node of the
/// container a load reads (the caller labels the edge with the memlet).
std::string DotWriter::valueSource(Value v) {
  auto it = valueNodes.find(v);
  if (it != valueNodes.end())
    return it->second;
  return "";
}

void DotWriter::dataflow(Block &block, int depth) {
  for (Operation &op : block) {
    if (auto load = dyn_cast<LoadOp>(op)) {
      // Drawn where it is used: the edge from the access node.
      valueNodes[load.getResult()] = access(load.getMemref());
      continue;
    }
    if (auto map = dyn_cast<MapOp>(op)) {
      std::string label = "map (";
      Block &body = map.getBody().front();
      unsigned outer = mapDepth;
      for (auto [k, p] : llvm::enumerate(body.getArguments())) {
        std::string n(1, "ijklmnopqr"[mapDepth % 10]);
        if (mapDepth >= 10)
          n += std::to_string(mapDepth);
        ++mapDepth;
        indexNames[p] = n;
        label += (k ? ", " : "") + n;
      }
      ValueRange operands = map->getOperands();
      auto bounds = [&](AffineMap m) {
        std::string b = subset(m, operands);
        return "(" + b.substr(1, b.size() - 2) + ")";
      };
      label += ") = " + bounds(map.getLowerBounds()) + " to " +
               bounds(map.getUpperBounds()) + " " +
               stringifyScheduleKind(map.getSchedule()).str();
      indent(depth);
      os << "subgraph cluster_" << counter++ << " {\n";
      indent(depth + 1);
      os << "label=\"" << escape(label) << "\"; style=dashed;\n";
      dataflow(body, depth + 1);
      mapDepth = outer;
      indent(depth);
      os << "}\n";
      continue;
    }
    if (auto t = dyn_cast<TaskletOp>(op)) {
      std::string ops;
      for (Operation &inner : t.getBody().front().without_terminator()) {
        if (isa<arith::ConstantOp>(inner))
          continue;
        StringRef n = inner.getName().getStringRef();
        n = n.substr(n.find('.') + 1);
        ops += (ops.empty() ? "" : ", ") + n.str();
      }
      std::string id = newNode("shape=octagon, label=\"" +
                                   escape(ops.empty() ? "const" : ops) + "\"",
                               depth);
      for (Value in : t.getInputs()) {
        std::string src = valueSource(in);
        if (src.empty())
          continue;
        std::string label;
        if (auto load = in.getDefiningOp<LoadOp>())
          label = containerName(load.getMemref()) +
                  subset(load.getMap(), load.getIndices());
        edge(src, id, "label=\"" + escape(label) + "\"");
      }
      for (Value r : t.getResults())
        valueNodes[r] = id;
      continue;
    }
    if (auto s = dyn_cast<StoreOp>(op)) {
      std::string src = valueSource(s.getValue());
      std::string label =
          containerName(s.getMemref()) + subset(s.getMap(), s.getIndices());
      if (auto w = s.getWcr())
        label += " (" + stringifyWCRKind(*w).str() + ")";
      if (auto load = s.getValue().getDefiningOp<LoadOp>())
        label = containerName(load.getMemref()) +
                subset(load.getMap(), load.getIndices()) + " -> " + label;
      std::string dst = access(s.getMemref());
      if (!src.empty())
        edge(src, dst, "label=\"" + escape(label) + "\"");
      continue;
    }
    if (auto c = dyn_cast<CopyOp>(op)) {
      std::string src = access(c.getSource());
      std::string dst = access(c.getTarget());
      edge(src, dst,
           "label=\"copy" +
               (c.getWcr() ? " (" + stringifyWCRKind(*c.getWcr()).str() + ")"
                           : std::string()) +
               "\"");
      continue;
    }
    if (auto lib = dyn_cast<LibraryOpInterface>(op)) {
      StringRef n = op.getName().getStringRef();
      std::string id = newNode("shape=box, style=rounded, label=\"" +
                                   escape(n.substr(n.find('.') + 1)) + "\"",
                               depth);
      for (Value in : lib.getInputContainers())
        edge(access(in), id, "");
      edge(id, access(lib.getOutputContainer()),
           lib.accumulatesIntoOutput() ? "label=\"(add)\"" : "");
      continue;
    }
  }
}

std::pair<std::string, std::string> DotWriter::state(StateOp st, int depth) {
  indent(depth);
  os << "subgraph cluster_" << counter++ << " {\n";
  indent(depth + 1);
  std::string label = "state";
  if (auto l = st.getLabel())
    if (!l->empty())
      label += " " + l->str();
  os << "label=\"" << escape(label) << "\"; style=rounded;\n";
  std::string anchor = newNode("shape=point, style=invis", depth + 1);
  accessNodes.clear();
  valueNodes.clear();
  // Access nodes belong to the state, not to the maps inside it (DOT puts
  // a node in the first cluster that names it).
  st.walk([&](Operation *op) {
    if (auto l = dyn_cast<LoadOp>(op))
      access(l.getMemref(), depth + 1);
    else if (auto s = dyn_cast<StoreOp>(op))
      access(s.getMemref(), depth + 1);
    else if (auto c = dyn_cast<CopyOp>(op)) {
      access(c.getSource(), depth + 1);
      access(c.getTarget(), depth + 1);
    } else if (auto lib = dyn_cast<LibraryOpInterface>(op)) {
      for (Value in : lib.getInputContainers())
        access(in, depth + 1);
      access(lib.getOutputContainer(), depth + 1);
    }
  });
  dataflow(st.getBody().front(), depth + 1);
  // Edges after the clusters: an edge written inside a map's cluster
  // would pull the access nodes it joins into it.
  for (const std::string &e : edges) {
    indent(depth + 1);
    os << e;
  }
  edges.clear();
  indent(depth);
  os << "}\n";
  return {anchor, anchor};
}

std::pair<std::string, std::string> DotWriter::region(Block &block, int depth) {
  std::string first, last;
  auto chain = [&](std::pair<std::string, std::string> part) {
    if (part.first.empty())
      return;
    if (!last.empty()) {
      indent(depth);
      os << last << " -> " << part.first << " [style=bold];\n";
    }
    if (first.empty())
      first = part.first;
    last = part.second;
  };
  // Loads and tasklets outside states (loop bounds, branch conditions)
  // belong to the control flow; they are not drawn.
  for (Operation &op : block) {
    if (auto st = dyn_cast<StateOp>(op)) {
      chain(state(st, depth));
    } else if (auto loop = dyn_cast<LoopOp>(op)) {
      Block &body = loop.getBody().front();
      std::string name = "t" + std::to_string(loopCount++);
      if (auto n = loop->getAttrOfType<StringAttr>("sdfg.name"))
        name = n.str();
      indexNames[body.getArgument(0)] = name;
      ValueRange operands = loop.getBoundOperands();
      AffineMap bounds = loop.getBounds();
      std::string label = "for " + name + " = " +
                          expr(bounds.getResult(0), operands) + " to " +
                          expr(bounds.getResult(1), operands) + " step " +
                          std::to_string(loop.getStepAttr().getInt());
      indent(depth);
      os << "subgraph cluster_" << counter++ << " {\n";
      indent(depth + 1);
      os << "label=\"" << escape(label) << "\"; style=dotted;\n";
      chain(region(body, depth + 1));
      indent(depth);
      os << "}\n";
    } else if (auto iff = dyn_cast<IfOp>(op)) {
      for (auto [k, r] : llvm::enumerate(iff.getBranches())) {
        indent(depth);
        os << "subgraph cluster_" << counter++ << " {\n";
        indent(depth + 1);
        os << "label=\""
           << (k == 0 ? "if"
                      : (k < iff.getConditions().size() ? "elif" : "else"))
           << "\"; style=dotted;\n";
        if (!r.empty())
          chain(region(r.front(), depth + 1));
        indent(depth);
        os << "}\n";
      }
    } else if (auto w = dyn_cast<WhileOp>(op)) {
      indent(depth);
      os << "subgraph cluster_" << counter++ << " {\n";
      indent(depth + 1);
      os << "label=\"while\"; style=dotted;\n";
      chain(region(w.getBody().front(), depth + 1));
      indent(depth);
      os << "}\n";
    }
  }
  return {first, last};
}

void DotWriter::write() {
  if (auto plan = sdfg->getAttrOfType<DictionaryAttr>("sdfg.checkpoint")) {
    if (auto r = plan.getAs<ArrayAttr>("recompute"))
      for (Attribute a : r)
        if (auto s = dyn_cast<StringAttr>(a))
          recomputed.insert(s.getValue());
    if (auto r = plan.getAs<ArrayAttr>("store"))
      for (Attribute a : r)
        if (auto s = dyn_cast<StringAttr>(a))
          stored.insert(s.getValue());
  }
  os << "subgraph cluster_" << counter++ << " {\n";
  os << "  label=\"sdfg @" << escape(sdfg.getSymName()) << "\";\n";
  region(sdfg.getBody().front(), 1);
  os << "}\n";
}

} // namespace

void mlir::sdfg::writeDot(ModuleOp module, raw_ostream &os) {
  os << "digraph sdfg {\n"
     << "compound=true;\n"
     << "node [fontname=\"Helvetica\", fontsize=11];\n"
     << "edge [fontname=\"Helvetica\", fontsize=9];\n";
  unsigned counter = 0;
  for (SDFGOp op : module.getOps<SDFGOp>())
    DotWriter(op, os, counter).write();
  os << "}\n";
}
