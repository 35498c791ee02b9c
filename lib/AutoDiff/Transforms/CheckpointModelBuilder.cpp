//===- CheckpointModelBuilder.cpp - Memory model of a gradient ------------===//
//
// The store-all gradient program, with an anchor state where each
// candidate's recomputation would run, is measured top-level op by
// top-level op; recomputing a candidate changes its own live range (the
// forward container dies after its last forward use, a fresh one lives
// from the first recomputation to the last backward read), removes its
// tapes, adds scratch copies at the recomputation, and may keep the
// writers' transient inputs alive until then.
//
//===----------------------------------------------------------------------===//

#include "sdfg/AutoDiff/Transforms/CheckpointModelBuilder.h"
#include "sdfg/Dialect/SDFG/Analysis/Factorisation.h"
#include "sdfg/Dialect/SDFG/IR/IndexUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::sdfg;

namespace {

/// Top-level ops of a gradient program and, for each transient, the first
/// and last of them that use it: code generation allocates a transient
/// before its first top-level use and frees it after the last.
struct Timeline {
  SmallVector<Operation *> steps;
  llvm::DenseMap<Operation *, unsigned> stepOf;
  llvm::MapVector<Value, std::pair<unsigned, unsigned>> live;
};

Timeline buildTimeline(SDFGOp op) {
  Timeline t;
  Block &body = op.getBody().front();
  for (Operation &top : body) {
    // Neither allocates (a variant's snapshots of an argument read its
    // extents with sdfg.dim ops of their own).
    if (isa<AllocOp, DimOp>(top))
      continue;
    unsigned i = t.steps.size();
    t.steps.push_back(&top);
    t.stepOf[&top] = i;
    top.walk([&](Operation *inner) {
      for (Value v : inner->getOperands()) {
        if (!v.getDefiningOp<AllocOp>() || v.getParentBlock() != &body)
          continue;
        auto [it, fresh] = t.live.insert({v, {i, i}});
        if (!fresh)
          it->second.second = i;
      }
    });
  }
  return t;
}

/// The top-level op of `op`'s program that contains it.
Operation *topLevel(Operation *op) {
  while (!isa<SDFGOp>(op->getParentOp()))
    op = op->getParentOp();
  return op;
}

/// Bytes of a container of static shape (representable: the verifiers
/// reject larger ones).
int64_t staticBytes(Value v) {
  return checkedByteSize(cast<MemRefType>(v.getType())).value_or(0);
}

/// Interprets index `v` of program `op` in a value domain: the index
/// arguments and the extents of arguments (`NAME.AXIS`) are its leaves,
/// static extents and integer constants its constants, and the index
/// arithmetic of tasklets in the program's body (a tape's trip count, a
/// slice's length) its operations. One walk for every domain (the
/// checkpoint model's ranges, the report's formulas), so what one
/// understands the other does. `Domain` provides `Result`,
/// `std::optional<Result> leaf(StringRef)`, `Result constant(int64_t)` and
/// `std::optional<Result> binary(Operation &, const Result &, const
/// Result &)`.
template <typename Domain>
static std::optional<typename Domain::Result> interpretSize(SDFGOp op, Value v,
                                                            Domain &domain) {
  using Result = typename Domain::Result;
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    if (arg.getOwner()->getParentOp() != op)
      return std::nullopt;
    return domain.leaf(op.getArgName(arg.getArgNumber()));
  }
  Operation *def = v.getDefiningOp();
  if (!def || def->getParentOp() != op)
    return std::nullopt;
  if (auto dim = dyn_cast<DimOp>(def)) {
    auto type = cast<MemRefType>(dim.getContainer().getType());
    int64_t axis = dim.getAxis();
    if (axis < 0 || axis >= type.getRank())
      return std::nullopt;
    if (!type.isDynamicDim(axis))
      return domain.constant(type.getDimSize(axis));
    auto arg = dyn_cast<BlockArgument>(dim.getContainer());
    if (!arg || arg.getOwner()->getParentOp() != op)
      return std::nullopt;
    return domain.leaf(
        (op.getArgName(arg.getArgNumber()) + "." + Twine(axis)).str());
  }
  auto tasklet = dyn_cast<TaskletOp>(def);
  if (!tasklet)
    return std::nullopt;
  Block &body = tasklet.getBody().front();
  llvm::DenseMap<Value, Result> env;
  for (auto [arg, in] : llvm::zip(body.getArguments(), tasklet.getInputs())) {
    std::optional<Result> x = interpretSize(op, in, domain);
    if (!x)
      return std::nullopt;
    env[arg] = *x;
  }
  for (Operation &inner : body) {
    if (auto yield = dyn_cast<YieldOp>(inner)) {
      auto it = env.find(yield.getOperand(cast<OpResult>(v).getResultNumber()));
      if (it == env.end())
        return std::nullopt;
      return it->second;
    }
    if (auto c = dyn_cast<arith::ConstantOp>(inner)) {
      auto attr = dyn_cast<IntegerAttr>(c.getValue());
      if (!attr || attr.getValue().getSignificantBits() > 64)
        return std::nullopt;
      env[c.getResult()] = domain.constant(attr.getValue().getSExtValue());
      continue;
    }
    if (auto cast = dyn_cast<arith::IndexCastOp>(inner)) {
      auto it = env.find(cast.getIn());
      if (it == env.end())
        return std::nullopt;
      env[cast.getResult()] = it->second;
      continue;
    }
    if (inner.getNumOperands() != 2 || inner.getNumResults() != 1)
      return std::nullopt;
    auto a = env.find(inner.getOperand(0)), b = env.find(inner.getOperand(1));
    if (a == env.end() || b == env.end())
      return std::nullopt;
    std::optional<Result> r = domain.binary(inner, a->second, b->second);
    if (!r)
      return std::nullopt;
    env[inner.getResult(0)] = *r;
  }
  return std::nullopt;
}

namespace {
/// The values an index may take for the sizes given: [lo, hi].
struct SizeRange {
  int64_t lo, hi;
};

/// interpretSize's domain for the model: the values an index may take
/// for the sizes given (`sizes=`), by interval arithmetic. A leaf not
/// given is recorded in `missing` for the diagnostic.
struct RangeDomain {
  using Result = SizeRange;
  const llvm::StringMap<int64_t> &symbols;
  std::string &missing;

  /// What `symbols` says of size `name`: its value, or with
  /// `sizes=NAME=..MAX` (stored as NAME#max) any value from 0 to MAX.
  std::optional<SizeRange> leaf(StringRef name) {
    auto it = symbols.find(name);
    if (it == symbols.end()) {
      missing = name.str();
      return std::nullopt;
    }
    if (symbols.count((name + "#max").str()))
      return SizeRange{0, it->second};
    return SizeRange{it->second, it->second};
  }

  SizeRange constant(int64_t k) { return {k, k}; }

  std::optional<SizeRange> binary(Operation &inner, const SizeRange &x,
                                  const SizeRange &y) {
    SizeRange r{0, 0};
    bool overflow = false;
    if (isa<arith::AddIOp>(inner)) {
      overflow = llvm::AddOverflow(x.lo, y.lo, r.lo) |
                 llvm::AddOverflow(x.hi, y.hi, r.hi);
    } else if (isa<arith::SubIOp>(inner)) {
      overflow = llvm::SubOverflow(x.lo, y.hi, r.lo) |
                 llvm::SubOverflow(x.hi, y.lo, r.hi);
    } else if (isa<arith::MulIOp>(inner)) {
      int64_t p[4];
      overflow = llvm::MulOverflow(x.lo, y.lo, p[0]) |
                 llvm::MulOverflow(x.lo, y.hi, p[1]) |
                 llvm::MulOverflow(x.hi, y.lo, p[2]) |
                 llvm::MulOverflow(x.hi, y.hi, p[3]);
      r = {*std::min_element(p, p + 4), *std::max_element(p, p + 4)};
    } else if (isa<arith::MaxSIOp>(inner)) {
      r = {std::max(x.lo, y.lo), std::max(x.hi, y.hi)};
    } else if (isa<arith::MinSIOp>(inner)) {
      r = {std::min(x.lo, y.lo), std::min(x.hi, y.hi)};
    } else if (isa<arith::CeilDivSIOp, arith::FloorDivSIOp, arith::DivSIOp>(
                   inner)) {
      // By a positive constant (a step, a block size): monotone.
      if (y.lo != y.hi || y.lo <= 0)
        return std::nullopt;
      auto div = [&](int64_t n) {
        return isa<arith::CeilDivSIOp>(inner) ? llvm::divideCeilSigned(n, y.lo)
               : isa<arith::FloorDivSIOp>(inner)
                   ? llvm::divideFloorSigned(n, y.lo)
                   : n / y.lo;
      };
      r = {div(x.lo), div(x.hi)};
    } else {
      return std::nullopt;
    }
    if (overflow)
      return std::nullopt;
    return r;
  }
};

/// A size as text, with how tightly it binds: an atom (a name, a number,
/// a call) needs no parentheses, a product none as a factor, a sum or
/// difference some everywhere but at the top.
struct SizeText {
  enum Kind { Atom, Product, Sum } kind;
  std::string text;
  std::optional<int64_t> constant;
};

} // namespace

static std::string factor(const SizeText &t) {
  return t.kind == SizeText::Sum ? "(" + t.text + ")" : t.text;
}

namespace {
/// interpretSize's domain for the report: a size as a formula in the
/// names of index arguments and argument extents (`NAME.AXIS`).
struct TextDomain {
  using Result = SizeText;

  std::optional<SizeText> leaf(StringRef name) {
    return SizeText{SizeText::Atom, name.str(), std::nullopt};
  }

  SizeText constant(int64_t k) {
    return {SizeText::Atom, std::to_string(k), k};
  }

  std::optional<SizeText> binary(Operation &inner, const SizeText &x,
                                 const SizeText &y) {
    // The identities the frontend's and the taping's index arithmetic
    // leave (`n - 0`, ceildiv(n, 1)), so that the formula reads as a size.
    auto is = [](const SizeText &t, int64_t k) {
      return t.constant && *t.constant == k;
    };
    // A sum reads with its constant last (`u.0 - 2`, not `-2 + u.0`).
    if (isa<arith::AddIOp>(inner) && x.constant && !y.constant)
      return binary(inner, y, x);
    if ((isa<arith::AddIOp, arith::SubIOp>(inner) && is(y, 0)) ||
        (isa<arith::MulIOp, arith::CeilDivSIOp, arith::FloorDivSIOp,
             arith::DivSIOp>(inner) &&
         is(y, 1)))
      return x;
    if (isa<arith::AddIOp, arith::MulIOp>(inner) &&
        is(x, isa<arith::AddIOp>(inner) ? 0 : 1))
      return y;
    if (isa<arith::AddIOp>(inner) && y.constant && *y.constant < 0)
      return SizeText{SizeText::Sum,
                      x.text + " - " + std::to_string(-*y.constant),
                      std::nullopt};
    if (isa<arith::AddIOp>(inner))
      return SizeText{SizeText::Sum, x.text + " + " + y.text, std::nullopt};
    if (isa<arith::SubIOp>(inner))
      return SizeText{SizeText::Sum, x.text + " - " + factor(y), std::nullopt};
    if (isa<arith::MulIOp>(inner))
      return SizeText{SizeText::Product, factor(x) + "*" + factor(y),
                      std::nullopt};
    auto call = [](StringRef f, const SizeText &a, const SizeText &b) {
      return SizeText{SizeText::Atom,
                      (f + "(" + a.text + ", " + b.text + ")").str(),
                      std::nullopt};
    };
    if (isa<arith::MaxSIOp>(inner))
      return call("max", x, y);
    if (isa<arith::MinSIOp>(inner))
      return call("min", x, y);
    if (isa<arith::CeilDivSIOp>(inner))
      return call("ceildiv", x, y);
    if (isa<arith::FloorDivSIOp, arith::DivSIOp>(inner))
      return call("floordiv", x, y);
    return std::nullopt;
  }
};
} // namespace

/// The values index `v` may take for the sizes given (interpretSize in
/// RangeDomain); sets `missing` to the name of a size not given.
static std::optional<SizeRange>
sizeRange(SDFGOp op, Value v, const llvm::StringMap<int64_t> &symbols,
          std::string &missing) {
  RangeDomain domain{symbols, missing};
  return interpretSize(op, v, domain);
}

/// Index `v` as a formula in the names of index arguments and argument
/// extents (interpretSize in TextDomain).
static std::optional<SizeText> sizeText(SDFGOp op, Value v) {
  TextDomain domain;
  return interpretSize(op, v, domain);
}

/// The bytes of a container of dynamic size as a constant times a
/// product of size formulas (`8`, `*n*max(x.0 - 2, 0)`).
static std::optional<std::pair<int64_t, std::string>> bytesTerm(Value v) {
  auto alloc = v.getDefiningOp<AllocOp>();
  if (!alloc || alloc.getDynamicSizes().empty())
    return std::nullopt;
  auto op = dyn_cast<SDFGOp>(alloc->getParentOp());
  if (!op)
    return std::nullopt;
  MemRefType type = alloc.getType();
  int64_t bytes = elementBytes(type.getElementType());
  std::string out;
  unsigned dyn = 0;
  for (int64_t d : type.getShape()) {
    if (!ShapedType::isDynamic(d)) {
      if (llvm::MulOverflow(bytes, d, bytes))
        return std::nullopt;
      continue;
    }
    std::optional<SizeText> size = sizeText(op, alloc.getDynamicSizes()[dyn++]);
    if (!size)
      return std::nullopt;
    out += "*" + factor(*size);
  }
  return std::make_pair(bytes, out);
}

static std::optional<std::string> bytesFormula(Value v) {
  std::optional<std::pair<int64_t, std::string>> term = bytesTerm(v);
  if (!term)
    return std::nullopt;
  return std::to_string(term->first) + term->second;
}

/// Bytes of a transient; dynamic sizes from the index arguments and
/// argument extents named in `sizes=` (sizeValue).
FailureOr<int64_t> containerBytes(SDFGOp op, Value v,
                                  const llvm::StringMap<int64_t> &symbols) {
  auto alloc = v.getDefiningOp<AllocOp>();
  MemRefType type = alloc.getType();
  int64_t bytes = elementBytes(type.getElementType());
  unsigned dyn = 0;
  // Sizes past 2^62 bytes (a fuzzed sizes= entry) would overflow the
  // model's sums: rejected.
  auto scaled = [&](int64_t factor) -> LogicalResult {
    if (llvm::MulOverflow(bytes, factor, bytes) || bytes > (int64_t(1) << 62))
      return alloc.emitOpError()
             << "sdfg-checkpoint: this container's size overflows (more "
                "than 2^62 bytes)";
    return success();
  };
  for (int64_t d : type.getShape()) {
    if (!ShapedType::isDynamic(d)) {
      if (failed(scaled(d)))
        return failure();
      continue;
    }
    Value size = alloc.getDynamicSizes()[dyn++];
    std::string missing;
    std::optional<SizeRange> range = sizeRange(op, size, symbols, missing);
    // The largest size the values given allow: a bound for every call
    // whose sizes are within them.
    std::optional<int64_t> n;
    if (range)
      n = range->hi;
    if (!n)
      return alloc.emitOpError()
             << "sdfg-checkpoint needs the size of this container: give its "
                "dynamic size "
             << (missing.empty()
                     ? std::string("(an index argument, or an argument's "
                                   "extent NAME.AXIS)")
                     : "'" + missing + "'")
             << " a value with sizes=NAME=VALUE";
    if (*n < 0)
      return alloc.emitOpError()
             << "sdfg-checkpoint: the sizes given make this container's "
                "size negative ("
             << *n << ")";
    if (failed(scaled(*n)))
      return failure();
  }
  return bytes;
}

/// Per step, the bytes of the factorisation caches the lowering keeps for
/// the solves, determinants and eigendecompositions (factorisedMatrices).
std::vector<int64_t> factorisationBytes(SDFGOp op, const Timeline &t) {
  std::vector<int64_t> bytes(t.steps.size());
  for (const FactorisedMatrix &m : factorisedMatrices(op)) {
    int64_t b =
        factorisationCacheBytes(cast<MemRefType>(m.matrix.getType()), m.kind);
    for (unsigned i = t.stepOf.lookup(m.first), e = t.stepOf.lookup(m.last);
         i <= e; ++i)
      bytes[i] = b > std::numeric_limits<int64_t>::max() - bytes[i]
                     ? std::numeric_limits<int64_t>::max()
                     : bytes[i] + b;
  }
  return bytes;
}

} // namespace

FailureOr<CheckpointProblem>
mlir::sdfg::buildCheckpointModel(const DifferentiateResult &storeAll,
                                 const llvm::StringMap<int64_t> &symbols) {
  SDFGOp ref = storeAll.grad;
  Timeline tl = buildTimeline(ref);
  unsigned numSteps = tl.steps.size();
  unsigned fwdEnd = tl.stepOf.lookup(storeAll.forwardEnd);

  CheckpointProblem problem;
  llvm::DenseMap<Value, int64_t> &bytesOf = problem.bytes;
  for (auto &[v, range] : tl.live) {
    FailureOr<int64_t> b = containerBytes(ref, v, symbols);
    if (failed(b))
      return failure();
    bytesOf[v] = *b;
    if (std::optional<std::string> f = bytesFormula(v))
      problem.formulas[v] = *f;
  }

  // Candidates of the model: the forwarded transients that can be
  // recomputed. Their containers and tapes leave the base.
  CheckpointModel &model = problem.model;
  SmallVector<unsigned> &modelIndex = problem.candidateIndex;
  llvm::DenseMap<Value, unsigned> candidateOf;
  llvm::DenseSet<Value> variable;
  for (auto [k, c] : llvm::enumerate(storeAll.candidates)) {
    if (!c.eligible || !tl.live.count(c.container))
      continue;
    candidateOf[c.container] = model.candidates.size();
    modelIndex.push_back(k);
    model.candidates.push_back(
        {c.name, bytesOf.lookup(c.container), std::max(c.cost, 1.0)});
    variable.insert(c.container);
    variable.insert(c.tapes.begin(), c.tapes.end());
  }
  std::vector<TimelinePoint> points(numSteps);
  for (auto &[v, range] : tl.live)
    if (!variable.contains(v))
      for (unsigned i = range.first; i <= range.second; ++i)
        points[i].baseBytes += bytesOf.lookup(v);
  for (auto [i, bytes] : llvm::enumerate(factorisationBytes(ref, tl)))
    points[i].baseBytes += bytes;
  for (auto [m, k] : llvm::enumerate(modelIndex)) {
    const RecomputeCandidate &c = storeAll.candidates[k];
    unsigned idx = m;
    std::vector<int64_t> stored(numSteps), recomputed(numSteps);
    auto add = [&](std::vector<int64_t> &into, unsigned from, unsigned to,
                   int64_t bytes) {
      for (unsigned i = from; i <= to && i < numSteps; ++i)
        into[i] += bytes;
    };
    Value x = c.container;
    auto [first, last] = tl.live.lookup(x);
    int64_t xb = bytesOf.lookup(x);
    add(stored, first, last, xb);
    for (Value t : c.tapes)
      if (tl.live.count(t)) {
        auto [tf, tlast] = tl.live.lookup(t);
        add(stored, tf, tlast, bytesOf.lookup(t));
      }
    // Recomputed: the forward container lives through its forward uses; the
    // fresh one from the first recomputation to the last backward read.
    unsigned lastFwd = first, firstAnchor = numSteps, lastAnchor = 0;
    unsigned lastRead = 0;
    bool readBack = false;
    for (unsigned i = first; i <= last; ++i) {
      bool uses = false;
      llvm::SetVector<Value> reads;
      tl.steps[i]->walk([&](Operation *inner) {
        uses |= llvm::is_contained(inner->getOperands(), x);
      });
      collectContainerReads(tl.steps[i], reads);
      if (uses && i <= fwdEnd)
        lastFwd = i;
      if (i > fwdEnd && reads.contains(x)) {
        lastRead = i;
        readBack = true;
      }
    }
    for (auto [a, w] : llvm::zip(c.anchors, c.anchorWriters)) {
      unsigned s = tl.stepOf.lookup(topLevel(a));
      firstAnchor = std::min(firstAnchor, s);
      lastAnchor = std::max(lastAnchor, s);
      // Scratch copies of what the writer also writes live during the
      // recomputation only.
      for (Value z : c.scratch[w]) {
        FailureOr<int64_t> zb = z.getDefiningOp<AllocOp>()
                                    ? containerBytes(ref, z, symbols)
                                    : FailureOr<int64_t>(staticBytes(z));
        if (failed(zb))
          return failure();
        add(recomputed, s, s, *zb);
      }
    }
    add(recomputed, first, lastFwd, xb);
    if (readBack && firstAnchor < numSteps)
      add(recomputed, std::min(firstAnchor, lastRead), lastRead, xb);
    // The writers' transient inputs must live until the last
    // recomputation. (An input that is a candidate is then stored: the
    // pair is exclusive, so its store-all range is the one extended.)
    for (Value y : c.inputs) {
      if (!tl.live.count(y))
        continue;
      unsigned yLast = tl.live.lookup(y).second;
      if (firstAnchor < numSteps && yLast < lastAnchor)
        add(recomputed, yLast + 1, lastAnchor, bytesOf.lookup(y));
    }
    for (unsigned i = 0; i < numSteps; ++i) {
      if (stored[i])
        points[i].liveIfStored.push_back({idx, stored[i]});
      if (recomputed[i])
        points[i].liveIfRecomputed.push_back({idx, recomputed[i]});
    }
    for (Value y : c.inputs)
      if (auto it = candidateOf.find(y); it != candidateOf.end())
        model.exclusive.push_back({idx, it->second});
  }
  model.timelines.push_back(std::move(points));
  return problem;
}

FailureOr<std::vector<int64_t>>
mlir::sdfg::transientUsage(SDFGOp grad,
                           const llvm::StringMap<int64_t> &symbols) {
  Timeline t = buildTimeline(grad);
  std::vector<int64_t> usage = factorisationBytes(grad, t);
  for (auto &[v, range] : t.live) {
    FailureOr<int64_t> b = containerBytes(grad, v, symbols);
    if (failed(b))
      return failure();
    for (unsigned i = range.first; i <= range.second; ++i)
      usage[i] += *b;
  }
  return usage;
}

/// Bytes of container `v` (a transient or an argument of `op`) for the
/// sizes given: each dynamic extent at the largest value they allow (an
/// alloc's size operands, or an argument's extent NAME.AXIS). None where
/// a size is not given (its name in `missing`), negative or too large.
static std::optional<int64_t>
boundBytes(SDFGOp op, Value v, const llvm::StringMap<int64_t> &symbols,
           std::string &missing) {
  auto type = cast<MemRefType>(v.getType());
  auto alloc = v.getDefiningOp<AllocOp>();
  auto arg = dyn_cast<BlockArgument>(v);
  if (!type.hasStaticShape() && !alloc && !arg)
    return std::nullopt;
  RangeDomain domain{symbols, missing};
  int64_t bytes = elementBytes(type.getElementType());
  unsigned dyn = 0;
  for (auto [axis, d] : llvm::enumerate(type.getShape())) {
    int64_t n = d;
    if (ShapedType::isDynamic(d)) {
      std::optional<SizeRange> range =
          alloc
              ? sizeRange(op, alloc.getDynamicSizes()[dyn++], symbols, missing)
              : domain.leaf(op.getArgName(arg.getArgNumber()) + "." +
                            std::to_string(axis));
      if (!range || range->hi < 0)
        return std::nullopt;
      n = range->hi;
    }
    if (llvm::MulOverflow(bytes, n, bytes) || bytes > (int64_t(1) << 62))
      return std::nullopt;
  }
  return bytes;
}

void mlir::sdfg::measureSnapshots(DifferentiateResult &r,
                                  const llvm::StringMap<int64_t> &symbols) {
  for (LoopCandidate &l : r.loops) {
    if (!l.dynamicState)
      continue;
    int64_t total = 0;
    for (Value v : l.state) {
      std::string missing;
      std::optional<int64_t> bytes = boundBytes(r.grad, v, symbols, missing);
      if (!bytes || llvm::AddOverflow(total, *bytes, total)) {
        // Not a candidate of the model then; an explicit checkpoints=
        // schedule still builds, and its snapshots' size is asked for
        // where the program is measured.
        l.eligible = l.binomialEligible = false;
        l.reason = "its state '" + containerName(r.grad, v) + "' has " +
                   (missing.empty() ? std::string("a size too large")
                                    : "a size not given ('" + missing +
                                          "': sizes=NAME=VALUE)");
        total = 0;
        break;
      }
    }
    l.snapshotBytes = total;
  }
}

std::optional<std::string>
mlir::sdfg::peakBytesFormula(SDFGOp grad,
                             const llvm::StringMap<int64_t> &symbols) {
  Timeline t = buildTimeline(grad);
  std::vector<int64_t> usage = factorisationBytes(grad, t);
  SmallVector<std::pair<Value, int64_t>> sized;
  for (auto &[v, range] : t.live) {
    FailureOr<int64_t> b = containerBytes(grad, v, symbols);
    if (failed(b))
      return std::nullopt;
    sized.push_back({v, *b});
    for (unsigned i = range.first; i <= range.second; ++i)
      usage[i] += *b;
  }
  if (usage.empty())
    return std::nullopt;
  unsigned at = std::max_element(usage.begin(), usage.end()) - usage.begin();
  // The containers live there: the static ones (and the factorisation
  // caches) as one number, the dynamic ones by their formulas.
  // Containers of the same sizes are one term (`16*n`, not `8*n + 8*n`),
  // in the order they were allocated.
  int64_t constant = usage[at];
  SmallVector<std::pair<std::string, int64_t>> terms;
  llvm::StringMap<unsigned> termOf;
  for (auto [v, b] : sized) {
    auto [first, last] = t.live.lookup(v);
    if (at < first || at > last)
      continue;
    std::optional<std::pair<int64_t, std::string>> term = bytesTerm(v);
    if (!term)
      continue;
    constant -= b;
    auto [it, fresh] = termOf.insert({term->second, terms.size()});
    if (fresh)
      terms.push_back({term->second, 0});
    int64_t &coefficient = terms[it->second].second;
    if (llvm::AddOverflow(coefficient, term->first, coefficient))
      return std::nullopt;
  }
  if (terms.empty())
    return std::nullopt;
  std::string text = constant ? std::to_string(constant) : "";
  for (auto &[product, coefficient] : terms)
    text += (text.empty() ? "" : " + ") + std::to_string(coefficient) + product;
  return text;
}

FailureOr<int64_t>
mlir::sdfg::transientPeakBytes(SDFGOp grad,
                               const llvm::StringMap<int64_t> &symbols) {
  FailureOr<std::vector<int64_t>> usage = transientUsage(grad, symbols);
  if (failed(usage))
    return failure();
  int64_t peak = 0;
  for (int64_t u : *usage)
    peak = std::max(peak, u);
  return peak;
}
