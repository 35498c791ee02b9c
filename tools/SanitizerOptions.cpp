//===- SanitizerOptions.cpp - Run-time options of sanitized tools ---------===//
//
// Linked into every executable of an SDFG_SANITIZE build (sdfg-opt,
// sdfg-translate, SDFGUnitTests): the sanitizer runtimes ask for these
// defaults before they read ASAN_OPTIONS/UBSAN_OPTIONS, so the tools are
// strict however they are started (lit, ctest, utils/fuzz.py, by hand), and
// options in the environment still override them one by one.
//
//  - abort_on_error=1: a report ends in SIGABRT. With the default exit
//    status 1, `not sdfg-opt ...` in a lit test would turn a report into a
//    pass; `not` (without --crash) fails on a signal.
//  - detect_leaks=1: the tools free what they allocate; MLIR's and LLVM's
//    globals stay reachable, which LeakSanitizer does not report, so every
//    leak report is a finding (no suppressions needed).
//  - halt_on_error/abort_on_error for UBSan: -fno-sanitize-recover=all
//    already stops at the first report; print_stacktrace gives its stack.
//
//===----------------------------------------------------------------------===//

#define SDFG_NO_SANITIZE __attribute__((no_sanitize("address", "undefined")))
#define SDFG_EXPORT __attribute__((used, visibility("default")))

extern "C" SDFG_EXPORT SDFG_NO_SANITIZE const char *__asan_default_options() {
  return "abort_on_error=1:detect_leaks=1:check_initialization_order=1:"
         "detect_stack_use_after_return=1:allocator_may_return_null=0:"
         "external_symbolizer_path=" SDFG_SYMBOLIZER_PATH;
}

extern "C" SDFG_EXPORT SDFG_NO_SANITIZE const char *__ubsan_default_options() {
  return "print_stacktrace=1:halt_on_error=1:abort_on_error=1:"
         "external_symbolizer_path=" SDFG_SYMBOLIZER_PATH;
}
