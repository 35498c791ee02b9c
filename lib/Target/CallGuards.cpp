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
// 32-byte header before each block) so that a failure frees everything the
// call allocated before it: a MemoryError must not leak the tapes that did
// fit. Allocations of other threads (OpenMP workers) are not listed; a
// failure there, or on the calling thread inside a parallel region, cannot
// unwind the team, so it prints the size and aborts (docs/Reliability.md).
//
// Large blocks (64 KiB and up) are not given back to the system when freed
// but kept in a small cache for the next allocation of the same size, in
// this call or the next one. glibc serves such blocks with mmap and returns
// them with munmap, so every call of a program would otherwise fault in
// and zero its tapes and transients afresh: half the time of a time loop's
// gradient, and 7x a float32 softmax's forward (docs/design/c-abi.md,
// "Memory between calls"). A call frees, when it returns, the cached blocks
// it found on entry and did not reuse, so what a program keeps between
// calls is at most what its last call freed (its own peak), and
// `sdfg_release_memory()` gives it all back. SDFG_REUSE_MEMORY=0 in the
// environment turns the cache off.
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
/// {prev, next, bytes, unused} header, then the caller's 16-byte aligned
/// memory. `prev` = 1 marks a block that is on no list.
constexpr const char *kRuntimeIR = R"IR(
@sdfg_alloc_error = thread_local global i64 0
@__sdfg_guard = hidden thread_local global ptr null
@__sdfg_live = hidden thread_local global ptr null
@__sdfg_oom_message = private unnamed_addr constant [92 x i8] c"sdfg: out of memory: a parallel region of a compiled program could not allocate %lld bytes\0A\00"

@__sdfg_cache_blocks = hidden global [128 x ptr] zeroinitializer
@__sdfg_cache_bytes = hidden global [128 x i64] zeroinitializer
@__sdfg_cache_stamp = hidden global [128 x i64] zeroinitializer
@__sdfg_cache_lock = hidden global i32 0
@__sdfg_cache_on = hidden global i32 -1
@__sdfg_calls = hidden global i64 0
@__sdfg_reuse_variable = private unnamed_addr constant [18 x i8] c"SDFG_REUSE_MEMORY\00"

@sdfg_print_data = thread_local global ptr null
@sdfg_print_size = thread_local global i64 0
@__sdfg_print_cap = hidden thread_local global i64 0

declare ptr @malloc(i64)
declare ptr @realloc(ptr, i64)
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
declare void @free(ptr)
declare ptr @getenv(ptr)
declare i32 @sched_yield()
declare i32 @madvise(ptr, i64, i32)
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

; The block cache: 128 slots {block, bytes asked for, call count when
; cached} under one spin lock (allocations of this size are rare and slow).
define hidden i1 @__sdfg_cache_enabled() {
entry:
  %mode = load atomic i32, ptr @__sdfg_cache_on monotonic, align 4
  %known = icmp sge i32 %mode, 0
  br i1 %known, label %done, label %read
read:
  %v = call ptr @getenv(ptr @__sdfg_reuse_variable)
  %unset = icmp eq ptr %v, null
  br i1 %unset, label %store, label %look
look:
  %c = load i8, ptr %v
  %zero = icmp eq i8 %c, 48
  %on = select i1 %zero, i32 0, i32 1
  br label %store
store:
  %m = phi i32 [ 1, %read ], [ %on, %look ]
  store atomic i32 %m, ptr @__sdfg_cache_on monotonic, align 4
  br label %done
done:
  %mode2 = phi i32 [ %mode, %entry ], [ %m, %store ]
  %enabled = icmp eq i32 %mode2, 1
  ret i1 %enabled
}

define hidden void @__sdfg_cache_acquire() {
entry:
  br label %try
try:
  %old = atomicrmw xchg ptr @__sdfg_cache_lock, i32 1 acquire
  %got = icmp eq i32 %old, 0
  br i1 %got, label %done, label %wait
wait:
  %r = call i32 @sched_yield()
  br label %try
done:
  ret void
}

define hidden void @__sdfg_cache_release() {
entry:
  store atomic i32 0, ptr @__sdfg_cache_lock release, align 4
  ret void
}

; A cached block (header address) of exactly `bytes`, or null.
define hidden ptr @__sdfg_cache_take(i64 %bytes) {
entry:
  %small = icmp ult i64 %bytes, 65536
  br i1 %small, label %none, label %check
check:
  %on = call i1 @__sdfg_cache_enabled()
  br i1 %on, label %lock, label %none
lock:
  call void @__sdfg_cache_acquire()
  br label %loop
loop:
  %i = phi i64 [ 0, %lock ], [ %next, %skip ]
  %end = icmp eq i64 %i, 128
  br i1 %end, label %miss, label %body
body:
  %blockAddr = getelementptr inbounds [128 x ptr], ptr @__sdfg_cache_blocks, i64 0, i64 %i
  %block = load ptr, ptr %blockAddr
  %bytesAddr = getelementptr inbounds [128 x i64], ptr @__sdfg_cache_bytes, i64 0, i64 %i
  %size = load i64, ptr %bytesAddr
  %full = icmp ne ptr %block, null
  %same = icmp eq i64 %size, %bytes
  %fits = and i1 %full, %same
  br i1 %fits, label %hit, label %skip
skip:
  %next = add i64 %i, 1
  br label %loop
hit:
  store ptr null, ptr %blockAddr
  call void @__sdfg_cache_release()
  ret ptr %block
miss:
  call void @__sdfg_cache_release()
  br label %none
none:
  ret ptr null
}

; Keeps the block (header address) for a later allocation of `bytes`;
; false if it is too small or no slot is free.
define hidden i1 @__sdfg_cache_put(ptr %p, i64 %bytes) {
entry:
  %small = icmp ult i64 %bytes, 65536
  br i1 %small, label %no, label %check
check:
  %on = call i1 @__sdfg_cache_enabled()
  br i1 %on, label %lock, label %no
lock:
  %stamp = load atomic i64, ptr @__sdfg_calls monotonic, align 8
  call void @__sdfg_cache_acquire()
  br label %loop
loop:
  %i = phi i64 [ 0, %lock ], [ %next, %skip ]
  %end = icmp eq i64 %i, 128
  br i1 %end, label %full, label %body
body:
  %blockAddr = getelementptr inbounds [128 x ptr], ptr @__sdfg_cache_blocks, i64 0, i64 %i
  %block = load ptr, ptr %blockAddr
  %empty = icmp eq ptr %block, null
  br i1 %empty, label %keep, label %skip
skip:
  %next = add i64 %i, 1
  br label %loop
keep:
  store ptr %p, ptr %blockAddr
  %bytesAddr = getelementptr inbounds [128 x i64], ptr @__sdfg_cache_bytes, i64 0, i64 %i
  store i64 %bytes, ptr %bytesAddr
  %stampAddr = getelementptr inbounds [128 x i64], ptr @__sdfg_cache_stamp, i64 0, i64 %i
  store i64 %stamp, ptr %stampAddr
  call void @__sdfg_cache_release()
  ret i1 true
full:
  call void @__sdfg_cache_release()
  br label %no
no:
  ret i1 false
}

; Frees the cached blocks cached when the call count was at most `before`.
define hidden void @__sdfg_cache_trim(i64 %before) {
entry:
  call void @__sdfg_cache_acquire()
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %next, %skip ]
  %end = icmp eq i64 %i, 128
  br i1 %end, label %exit, label %body
body:
  %blockAddr = getelementptr inbounds [128 x ptr], ptr @__sdfg_cache_blocks, i64 0, i64 %i
  %block = load ptr, ptr %blockAddr
  %stampAddr = getelementptr inbounds [128 x i64], ptr @__sdfg_cache_stamp, i64 0, i64 %i
  %stamp = load i64, ptr %stampAddr
  %full = icmp ne ptr %block, null
  %old = icmp ule i64 %stamp, %before
  %stale = and i1 %full, %old
  br i1 %stale, label %drop, label %skip
drop:
  call void @free(ptr %block)
  store ptr null, ptr %blockAddr
  br label %skip
skip:
  %next = add i64 %i, 1
  br label %loop
exit:
  call void @__sdfg_cache_release()
  ret void
}

; A fresh block of `total` bytes (header included) from malloc, or null.
; From 4 MiB on it asks for transparent huge pages, as NumPy does for its
; arrays: where the system gives them only on request (THP "madvise",
; Debian's default), a 40 MB matrix in 4 KiB pages made a GEMM 5% and a
; matrix-vector product up to 30% slower through TLB misses than in
; NumPy's memory.
define hidden ptr @__sdfg_malloc_block(i64 %total) {
entry:
  %p = call ptr @malloc(i64 %total)
  %some = icmp ne ptr %p, null
  %large = icmp uge i64 %total, 4194304
  %huge = and i1 %some, %large
  br i1 %huge, label %advise, label %done
advise:
  %addr = ptrtoint ptr %p to i64
  %up = add i64 %addr, 4095
  %start = and i64 %up, -4096
  %end = add i64 %addr, %total
  %len = sub i64 %end, %start
  %startPtr = inttoptr i64 %start to ptr
  %r = call i32 @madvise(ptr %startPtr, i64 %len, i32 14)
  br label %done
done:
  ret ptr %p
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
  %cached = call ptr @__sdfg_cache_take(i64 %bytes)
  %miss = icmp eq ptr %cached, null
  br i1 %miss, label %fresh, label %ok
fresh:
  ; A large block the cache cannot give: what it holds goes back first, so
  ; that the cache never adds to the peak the memory model predicts (only
  ; exact sizes are reused; in a program's later calls, the same sizes).
  %large = icmp uge i64 %bytes, 65536
  br i1 %large, label %clear, label %allocate
clear:
  call void @__sdfg_cache_trim(i64 -1)
  br label %allocate
allocate:
  %total = add i64 %bytes, 32
  %new = call ptr @__sdfg_malloc_block(i64 %total)
  %null = icmp eq ptr %new, null
  br i1 %null, label %retry, label %ok
retry:
  ; The cache first gives back everything it holds.
  call void @__sdfg_cache_trim(i64 -1)
  %again = call ptr @__sdfg_malloc_block(i64 %total)
  %stillNull = icmp eq ptr %again, null
  br i1 %stillNull, label %fail, label %ok
fail:
  call void @__sdfg_alloc_failed(i64 %bytes)
  unreachable
ok:
  %p = phi ptr [ %cached, %try ], [ %new, %allocate ], [ %again, %retry ]
  %bytesAddr = getelementptr inbounds i8, ptr %p, i64 16
  store i64 %bytes, ptr %bytesAddr
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
  %mem = getelementptr inbounds i8, ptr %p, i64 32
  ret ptr %mem
}

define hidden void @__sdfg_free(ptr allocptr %mem) noinline allockind("free") "alloc-family"="sdfg" {
entry:
  %none = icmp eq ptr %mem, null
  br i1 %none, label %exit, label %some
some:
  %p = getelementptr inbounds i8, ptr %mem, i64 -32
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
  %bytesAddr = getelementptr inbounds i8, ptr %p, i64 16
  %bytes = load i64, ptr %bytesAddr
  %kept = call i1 @__sdfg_cache_put(ptr %p, i64 %bytes)
  br i1 %kept, label %exit, label %dispose
dispose:
  call void @free(ptr %p)
  br label %exit
exit:
  ret void
}

; Exported: gives back everything the cache holds. The Python runtime
; calls it for programs not called lately (sdfg/native.py), so that memory
; kept between calls stays bounded however many programs a process loads.
define void @sdfg_release_memory() {
entry:
  call void @__sdfg_cache_trim(i64 -1)
  ret void
}

; Exported: the memory of an array the caller hands back to its user (a
; result, a gradient), allocated before the call: a cached block of exactly
; `bytes` when there is one (an array of the last call its user dropped),
; else malloc; null if that fails. The block is on no list, and a miss does
; not empty the cache (the caller's arrays are not part of the program's
; memory model). Each such array freshly faulted in would cost the kernel
; zeroing it on every call: 40% of a gradient with a 40 MB matrix result.
define ptr @sdfg_alloc_result(i64 %bytes) {
entry:
  %huge = icmp ugt i64 %bytes, 4611686018427387904
  br i1 %huge, label %none, label %try
try:
  %cached = call ptr @__sdfg_cache_take(i64 %bytes)
  %miss = icmp eq ptr %cached, null
  br i1 %miss, label %fresh, label %ok
fresh:
  %total = add i64 %bytes, 32
  %new = call ptr @__sdfg_malloc_block(i64 %total)
  %null = icmp eq ptr %new, null
  br i1 %null, label %none, label %ok
ok:
  %p = phi ptr [ %cached, %try ], [ %new, %fresh ]
  store ptr inttoptr (i64 1 to ptr), ptr %p
  %bytesAddr = getelementptr inbounds i8, ptr %p, i64 16
  store i64 %bytes, ptr %bytesAddr
  %mem = getelementptr inbounds i8, ptr %p, i64 32
  ret ptr %mem
none:
  ret ptr null
}

; Exported: takes a block of sdfg_alloc_result back when its array dies,
; into the cache for the next call (or to the system).
define void @sdfg_free_result(ptr %mem) {
entry:
  call void @__sdfg_free(ptr %mem)
  ret void
}

; The print log of the calling thread (sdfg.print): records of {site,
; position, bytes} and the value's bytes, each padded to 8 bytes. The caller
; reads sdfg_print_data[0, sdfg_print_size) after a call and sets the size
; back to 0; the buffer stays for the thread's next call.
define hidden void @__sdfg_print(i64 %site, i64 %arg, ptr %data, i64 %bytes) {
entry:
  %size = load i64, ptr @sdfg_print_size
  %rounded = add i64 %bytes, 7
  %padded = and i64 %rounded, -8
  %record = add i64 %padded, 24
  %need = add i64 %size, %record
  %cap = load i64, ptr @__sdfg_print_cap
  %full = icmp ugt i64 %need, %cap
  br i1 %full, label %grow, label %append
grow:
  %twice = shl i64 %cap, 1
  %more = icmp ugt i64 %need, %twice
  %wanted = select i1 %more, i64 %need, i64 %twice
  %small = icmp ult i64 %wanted, 4096
  %newcap = select i1 %small, i64 4096, i64 %wanted
  %old = load ptr, ptr @sdfg_print_data
  %new = call ptr @realloc(ptr %old, i64 %newcap)
  %failed = icmp eq ptr %new, null
  br i1 %failed, label %oom, label %grown
oom:
  call void @__sdfg_alloc_failed(i64 %newcap)
  unreachable
grown:
  store ptr %new, ptr @sdfg_print_data
  store i64 %newcap, ptr @__sdfg_print_cap
  br label %append
append:
  %buf = load ptr, ptr @sdfg_print_data
  %head = getelementptr inbounds i8, ptr %buf, i64 %size
  store i64 %site, ptr %head
  %argAddr = getelementptr inbounds i8, ptr %head, i64 8
  store i64 %arg, ptr %argAddr
  %bytesAddr = getelementptr inbounds i8, ptr %head, i64 16
  store i64 %bytes, ptr %bytesAddr
  %dst = getelementptr inbounds i8, ptr %head, i64 24
  call void @llvm.memcpy.p0.p0.i64(ptr %dst, ptr %data, i64 %bytes, i1 false)
  store i64 %need, ptr @sdfg_print_size
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
  Function *trim = module.getFunction("__sdfg_cache_trim");
  GlobalVariable *calls = module.getNamedGlobal("__sdfg_calls");

  BasicBlock *entry = BasicBlock::Create(ctx, "entry", wrapper);
  BasicBlock *run = BasicBlock::Create(ctx, "run", wrapper);
  BasicBlock *exit = BasicBlock::Create(ctx, "exit", wrapper);
  IRBuilder<> b(entry);
  // glibc's jmp_buf is 200 bytes on x86-64.
  AllocaInst *buf = b.CreateAlloca(ArrayType::get(b.getInt64Ty(), 32));
  buf->setAlignment(Align(16));
  Value *outerGuard = b.CreateLoad(ptr, guard);
  Value *outerLive = b.CreateLoad(ptr, live);
  // Cached blocks stamped at most `before` were there when this call began.
  Value *before = b.CreateAtomicRMW(AtomicRMWInst::Add, calls, b.getInt64(1),
                                    MaybeAlign(8), AtomicOrdering::Monotonic);
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
  b.CreateCall(trim, {before});
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
