//===- NestingLimit.cpp - Refuse inputs nested too deeply -----------------===//

#include "sdfg/Support/NestingLimit.h"

#include "llvm/ADT/Twine.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace llvm;

bool mlir::sdfg::checkNestingDepth(SourceMgr &sourceMgr, unsigned bufferId,
                                   unsigned maxDepth) {
  StringRef text = sourceMgr.getMemoryBuffer(bufferId)->getBuffer();
  unsigned depth = 0;
  for (size_t i = 0, e = text.size(); i < e; ++i) {
    char c = text[i];
    if (c == '"') {
      // A string literal: braces in it are not nesting.
      for (++i; i < e && text[i] != '"'; ++i)
        if (text[i] == '\\')
          ++i;
      continue;
    }
    if (c == '/' && i + 1 < e && text[i + 1] == '/') {
      i = text.find('\n', i);
      if (i == StringRef::npos)
        break;
      continue;
    }
    // `->` (function types, affine maps) and `>=`, `<=` (integer sets) are
    // not brackets.
    bool comparison = (c == '<' || c == '>') && i + 1 < e && text[i + 1] == '=';
    if (c == '-' && i + 1 < e && text[i + 1] == '>') {
      ++i;
      continue;
    }
    if (comparison)
      continue;
    if (c == '}' || c == ')' || c == ']' || c == '>') {
      if (depth > 0)
        --depth;
      continue;
    }
    if (c != '{' && c != '(' && c != '[' && c != '<')
      continue;
    if (++depth > maxDepth) {
      sourceMgr.PrintMessage(
          SMLoc::getFromPointer(text.data() + i), SourceMgr::DK_Error,
          "nesting deeper than " + Twine(maxDepth) +
              " levels (regions, lists, types) is not supported: the "
              "compiler's recursive walks would exhaust their stack");
      return false;
    }
  }
  return true;
}
