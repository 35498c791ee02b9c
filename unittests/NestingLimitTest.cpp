//===- NestingLimitTest.cpp - The tools' nesting check --------------------===//

#include "sdfg/Support/NestingLimit.h"

#include "llvm/Support/MemoryBuffer.h"
#include "gtest/gtest.h"

#include <string>

using namespace mlir::sdfg;

namespace {

/// Whether `text` passes the check at `maxDepth`, and the message if not.
bool passes(const std::string &text, unsigned maxDepth,
            std::string *message = nullptr) {
  llvm::SourceMgr sourceMgr;
  std::string diagnostics;
  sourceMgr.setDiagHandler(
      [](const llvm::SMDiagnostic &d, void *out) {
        *static_cast<std::string *>(out) += d.getMessage().str();
      },
      &diagnostics);
  unsigned id = sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(text, "input"), llvm::SMLoc());
  bool ok = checkNestingDepth(sourceMgr, id, maxDepth);
  if (message)
    *message = diagnostics;
  return ok;
}

TEST(NestingLimit, CountsEveryKindOfBracket) {
  EXPECT_TRUE(passes("a { b ( c [ d ] ) }", 3));
  EXPECT_FALSE(passes("a { b ( c [ d ] ) }", 2));
  EXPECT_FALSE(passes("memref<4x memref<2xf64>>", 1));
  std::string message;
  EXPECT_FALSE(
      passes(std::string(20, '{') + std::string(20, '}'), 10, &message));
  EXPECT_NE(message.find("nesting deeper than 10 levels"), std::string::npos);
}

TEST(NestingLimit, SkipsStringsCommentsArrowsAndComparisons) {
  // Braces in strings and comments do not nest; `->`, `>=` and `<=` are
  // not brackets (else a deep nest with arrows inside would slip through,
  // or a shallow one be refused).
  EXPECT_TRUE(passes(R"(x = "{{{{\"{{{{" // {{{{{{
{ y })",
                     1));
  EXPECT_TRUE(passes("(d0) -> (d0) { a >= b }", 1));
  EXPECT_FALSE(passes("{ (d0) -> (d0) { { } } }", 2));
}

} // namespace
