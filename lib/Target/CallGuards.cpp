//===- CallGuards.cpp - Checked allocation and per-call records
//------------===//
//
// A compiled program allocates its transients and tapes with malloc. Left
// alone, a failed malloc (a tape larger than memory) is a null pointer that
// the program writes through: a segfault in the caller's process. Checking
// each result in the generated loops would not help either: the program
// cannot carry on without the memory, and structured control flow has no
// early exit. So the exported functions set up a guard (setjmp) on entry,
// allocations go through a checked malloc that longjmps back to it, and the
// caller reads the bytes that failed from a thread-local record.
//
// Allocations of the calling thread are kept on a thread-local list (a
// 16-byte header before each block) so that a failure frees everything the
// call allocated before it: a MemoryError must not leak the tapes that did
// fit. Allocations of other threads (OpenMP workers) are not listed; a
// failure there, or on the calling thread inside a parallel region, cannot
// unwind the team, so it prints the size and aborts (docs/Reliability.md).
//
//===----------------------------------------------------------------------===//

#include "sdfg/Target/CallGuards.h"

#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/Linker/Linker.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace {

/// The run-time half, in LLVM IR: linked into every program (hidden here,
/// internal once linked). Block layout:
/// {prev, next} header, then the caller's 16-byte aligned memory. `prev`
/// = 1 marks a block that is on no list.
constexpr const char *kRuntimeIR = R"IR(
@sdfg_alloc_error = thread_local global i64 0
@__sdfg_guard = hidden thread_local global ptr null
@__sdfg_live = hidden thread_local global ptr null
@__sdfg_oom_message = private unnamed_addr constant [92 x i8] c"sdfg: out of memory: a parallel region of a compiled program could not allocate %lld bytes\0A\00"

declare ptr @malloc(i64)
declare void @free(ptr)
declare i32 @omp_in_parallel()
declare void @longjmp(ptr, i32) noreturn
declare i32 @dprintf(i32, ptr, ...)
declare void @abort() noreturn

define hidden void @__sdfg_free_live() {
entry:
  %head = load ptr, ptr @__sdfg_live
  br label %loop
loop:
  %p = phi ptr [ %head, %entry ], [ %next, %body ]
  %done = icmp eq ptr %p, null
  br i1 %done, label %exit, label %body
body:
  %nextAddr = getelementptr inbounds i8, ptr %p, i64 8
  %next = load ptr, ptr %nextAddr
  call void @free(ptr %p)
  br label %loop
exit:
  store ptr null, ptr @__sdfg_live
  ret void
}

define hidden void @__sdfg_alloc_failed(i64 %bytes) noreturn cold noinline {
entry:
  store i64 %bytes, ptr @sdfg_alloc_error
  %guard = load ptr, ptr @__sdfg_guard
  %unguarded = icmp eq ptr %guard, null
  %inParallel = call i32 @omp_in_parallel()
  %parallel = icmp ne i32 %inParallel, 0
  %fatal = or i1 %unguarded, %parallel
  br i1 %fatal, label %abort, label %unwind
abort:
  %r = call i32 (i32, ptr, ...) @dprintf(i32 2, ptr @__sdfg_oom_message, i64 %bytes)
  call void @abort()
  unreachable
unwind:
  call void @__sdfg_free_live()
  call void @longjmp(ptr %guard, i32 1)
  unreachable
}

; Seen from the program as an allocator (noalias, allocsize), like malloc:
; not inlined, so that the list it keeps the block on is invisible to the
; program's alias analysis (a block stored to a global would count as
; escaped, and loops over it could lose their vectorisation).
define hidden noalias ptr @__sdfg_malloc(i64 %bytes) noinline allockind("alloc,uninitialized") allocsize(0) "alloc-family"="sdfg" {
entry:
  ; Past 2^62 bytes no allocation can succeed (and bytes + 16 could wrap).
  %huge = icmp ugt i64 %bytes, 4611686018427387904
  br i1 %huge, label %fail, label %try
try:
  %total = add i64 %bytes, 16
  %p = call ptr @malloc(i64 %total)
  %null = icmp eq ptr %p, null
  br i1 %null, label %fail, label %ok
fail:
  call void @__sdfg_alloc_failed(i64 %bytes)
  unreachable
ok:
  %nextAddr = getelementptr inbounds i8, ptr %p, i64 8
  %guard = load ptr, ptr @__sdfg_guard
  %guarded = icmp ne ptr %guard, null
  br i1 %guarded, label %link, label %unlisted
link:
  %head = load ptr, ptr @__sdfg_live
  store ptr null, ptr %p
  store ptr %head, ptr %nextAddr
  %hasHead = icmp ne ptr %head, null
  br i1 %hasHead, label %linkHead, label %linked
linkHead:
  store ptr %p, ptr %head
  br label %linked
linked:
  store ptr %p, ptr @__sdfg_live
  br label %user
unlisted:
  store ptr inttoptr (i64 1 to ptr), ptr %p
  br label %user
user:
  %mem = getelementptr inbounds i8, ptr %p, i64 16
  ret ptr %mem
}

define hidden void @__sdfg_free(ptr allocptr %mem) noinline allockind("free") "alloc-family"="sdfg" {
entry:
  %none = icmp eq ptr %mem, null
  br i1 %none, label %exit, label %some
some:
  %p = getelementptr inbounds i8, ptr %mem, i64 -16
  %nextAddr = getelementptr inbounds i8, ptr %p, i64 8
  %prev = load ptr, ptr %p
  %unlisted = icmp eq ptr %prev, inttoptr (i64 1 to ptr)
  br i1 %unlisted, label %release, label %unlink
unlink:
  %next = load ptr, ptr %nextAddr
  %first = icmp eq ptr %prev, null
  br i1 %first, label %setHead, label %setPrev
setHead:
  store ptr %next, ptr @__sdfg_live
  br label %fixNext
setPrev:
  %prevNext = getelementptr inbounds i8, ptr %prev, i64 8
  store ptr %next, ptr %prevNext
  br label %fixNext
fixNext:
  %hasNext = icmp ne ptr %next, null
  br i1 %hasNext, label %setNextPrev, label %release
setNextPrev:
  store ptr %prev, ptr %next
  br label %release
release:
  call void @free(ptr %p)
  br label %exit
exit:
  ret void
}

; Blocks a call leaves allocated (none today) outlive its guard: they are
; taken off the list, so that a later call's failure never frees them.
define hidden void @__sdfg_detach_live() {
entry:
  %head = load ptr, ptr @__sdfg_live
  br label %loop
loop:
  %p = phi ptr [ %head, %entry ], [ %next, %body ]
  %done = icmp eq ptr %p, null
  br i1 %done, label %exit, label %body
body:
  %nextAddr = getelementptr inbounds i8, ptr %p, i64 8
  %next = load ptr, ptr %nextAddr
  store ptr inttoptr (i64 1 to ptr), ptr %p
  br label %loop
exit:
  ret void
}
)IR";

/// The functions of the program proper that the guard wraps: defined here
/// and visible to the caller.
SmallVector<Function *> exportedFunctions(Module &module) {
  SmallVector<Function *> result;
  for (Function &f : module)
    if (!f.isDeclaration() && f.hasExternalLinkage() &&
        !f.getName().starts_with("__sdfg_"))
      result.push_back(&f);
  return result;
}

/// The program's calls of `callee` (before the runtime is linked in: the
/// runtime's own calls of malloc and free stay as they are).
SmallVector<CallInst *> callsOf(Module &module, StringRef callee) {
  SmallVector<CallInst *> calls;
  if (Function *f = module.getFunction(callee))
    for (User *user : f->users())
      if (auto *call = dyn_cast<CallInst>(user);
          call && call->getCalledOperand() == f)
        calls.push_back(call);
  return calls;
}

/// `name(args) { guard; if (setjmp(buf) == 0) body(args); unguard }`,
/// placed where `body` was (printed IR keeps its order).
void wrap(Module &module, Function *body) {
  LLVMContext &ctx = module.getContext();
  std::string name = body->getName().str();
  bool dsoLocal = body->isDSOLocal();
  body->setName(name + ".guarded");
  body->setLinkage(GlobalValue::InternalLinkage);
  body->addFnAttr(Attribute::NoInline);
  Function *wrapper = Function::Create(body->getFunctionType(),
                                       GlobalValue::ExternalLinkage, name);
  module.getFunctionList().insert(body->getIterator(), wrapper);
  wrapper->copyAttributesFrom(body);
  wrapper->removeFnAttr(Attribute::NoInline);
  wrapper->setLinkage(GlobalValue::ExternalLinkage);
  wrapper->setVisibility(body->getVisibility());
  wrapper->setDSOLocal(dsoLocal);
  body->setVisibility(GlobalValue::DefaultVisibility);
  for (auto [from, to] : llvm::zip(body->args(), wrapper->args()))
    to.setName(from.getName());

  Type *ptr = PointerType::getUnqual(ctx);
  Type *i32 = Type::getInt32Ty(ctx);
  GlobalVariable *guard = module.getNamedGlobal("__sdfg_guard");
  GlobalVariable *live = module.getNamedGlobal("__sdfg_live");
  FunctionCallee setjmp =
      module.getOrInsertFunction("_setjmp", FunctionType::get(i32, ptr, false));
  cast<Function>(setjmp.getCallee())->addFnAttr(Attribute::ReturnsTwice);
  Function *detach = module.getFunction("__sdfg_detach_live");

  BasicBlock *entry = BasicBlock::Create(ctx, "entry", wrapper);
  BasicBlock *run = BasicBlock::Create(ctx, "run", wrapper);
  BasicBlock *exit = BasicBlock::Create(ctx, "exit", wrapper);
  IRBuilder<> b(entry);
  // glibc's jmp_buf is 200 bytes on x86-64.
  AllocaInst *buf = b.CreateAlloca(ArrayType::get(b.getInt64Ty(), 32));
  buf->setAlignment(Align(16));
  Value *outerGuard = b.CreateLoad(ptr, guard);
  Value *outerLive = b.CreateLoad(ptr, live);
  b.CreateStore(ConstantPointerNull::get(cast<PointerType>(ptr)), live);
  b.CreateStore(buf, guard);
  CallInst *jumped = b.CreateCall(setjmp, {buf});
  jumped->addFnAttr(Attribute::ReturnsTwice);
  b.CreateCondBr(b.CreateICmpEQ(jumped, b.getInt32(0)), run, exit);
  b.SetInsertPoint(run);
  SmallVector<Value *> args;
  for (Argument &a : wrapper->args())
    args.push_back(&a);
  CallInst *call = b.CreateCall(body, args);
  b.CreateCall(detach);
  b.CreateBr(exit);
  b.SetInsertPoint(exit);
  b.CreateStore(outerGuard, guard);
  b.CreateStore(outerLive, live);
  if (wrapper->getReturnType()->isVoidTy()) {
    b.CreateRetVoid();
    return;
  }
  // Not the ABI's (its functions return void); a failed call returns 0.
  PHINode *result = PHINode::Create(wrapper->getReturnType(), 2, "result");
  result->insertInto(exit, exit->begin());
  result->addIncoming(call, run);
  result->addIncoming(Constant::getNullValue(wrapper->getReturnType()), entry);
  b.CreateRet(result);
}

} // namespace

bool mlir::sdfg::addCallGuards(Module &module, std::string &error) {
  SmallVector<Function *> exported = exportedFunctions(module);
  SmallVector<CallInst *> mallocs = callsOf(module, "malloc");
  SmallVector<CallInst *> frees = callsOf(module, "free");
  // The runtime, parsed into this module's context and linked in.
  SMDiagnostic diag;
  std::unique_ptr<Module> runtime =
      parseAssemblyString(kRuntimeIR, diag, module.getContext());
  if (!runtime) {
    raw_string_ostream os(error);
    diag.print("sdfg call guards", os);
    return false;
  }
  runtime->setDataLayout(module.getDataLayout());
  runtime->setTargetTriple(module.getTargetTriple());
  if (Linker::linkModules(module, std::move(runtime))) {
    error = "cannot link the call guards into the program";
    return false;
  }
  // Linked with external linkage (the linker drops unreferenced local
  // definitions), then made local: nothing outside the program sees them.
  for (GlobalValue &g : module.global_values())
    if (g.getName().starts_with("__sdfg_") && !g.isDeclaration()) {
      g.setLinkage(GlobalValue::InternalLinkage);
      g.setVisibility(GlobalValue::DefaultVisibility);
    }
  for (CallInst *call : mallocs)
    call->setCalledFunction(module.getFunction("__sdfg_malloc"));
  for (CallInst *call : frees)
    call->setCalledFunction(module.getFunction("__sdfg_free"));
  for (StringRef record : {"sdfg_index_error", "sdfg_linalg_error"})
    if (GlobalVariable *g = module.getNamedGlobal(record))
      g->setThreadLocal(true);
  for (Function *f : exported)
    wrap(module, f);
  return true;
}
