//===- GPURuntime.cpp - The sdfg GPU runtime on the CUDA driver API -------===//
//
// What GPU programs lowered by sdfg-lower-to-gpu call: the mgpu* functions
// that MLIR's gpu-to-llvm conversion and gpu.binary embedding emit (module
// load, launch, streams, unified memory), the cuBLAS-backed sdfg_gpu_cblas_*
// functions (CBLAS signatures, row-major), and a status API for callers.
//
// Errors never abort the process: the first one is recorded, later work is
// skipped (allocations fall back to host memory so that host code stays
// safe), and the caller reads sdfg_gpu_error() after the program returns.
//
//===----------------------------------------------------------------------===//

#include "sdfg/Runtime/GPURuntime.h"
#include "sdfg/Runtime/RowMajorBLAS.h"

#include <cublas_v2.h>
#include <cuda.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

namespace {
std::mutex errorMutex;
std::string firstError;

void recordError(const char *what, const char *detail) {
  std::lock_guard<std::mutex> lock(errorMutex);
  if (!firstError.empty())
    return;
  firstError = std::string(what) + ": " + detail;
}

bool failed() {
  std::lock_guard<std::mutex> lock(errorMutex);
  return !firstError.empty();
}

/// Records a failed driver call; true if `r` is an error.
bool check(CUresult r, const char *what) {
  if (r == CUDA_SUCCESS)
    return false;
  const char *name = nullptr;
  if (cuGetErrorName(r, &name) != CUDA_SUCCESS || !name)
    name = "unknown CUDA error";
  recordError(what, name);
  return true;
}

bool checkBlas(cublasStatus_t s, const char *what) {
  if (s == CUBLAS_STATUS_SUCCESS)
    return false;
  recordError(what, cublasGetStatusString(s));
  return true;
}

CUcontext context = nullptr;
std::once_flag initOnce;
std::string initError;
/// Device memory free once the context existed, and what this runtime
/// holds now (managed and device allocations).
size_t freeAtStart = 0;
std::atomic<size_t> liveBytes{0};

void initialise() {
  CUresult r = cuInit(0);
  const char *name = nullptr;
  auto fail = [&](const char *what) {
    if (cuGetErrorName(r, &name) != CUDA_SUCCESS || !name)
      name = "unknown CUDA error";
    initError = std::string(what) + ": " + name;
  };
  if (r != CUDA_SUCCESS)
    return fail("cuInit");
  int count = 0;
  r = cuDeviceGetCount(&count);
  if (r != CUDA_SUCCESS)
    return fail("cuDeviceGetCount");
  if (count == 0) {
    initError = "no CUDA device";
    return;
  }
  CUdevice device;
  if ((r = cuDeviceGet(&device, 0)) != CUDA_SUCCESS)
    return fail("cuDeviceGet");
  // The primary context: the one cuBLAS (through the runtime API) uses too.
  if ((r = cuDevicePrimaryCtxRetain(&context, device)) != CUDA_SUCCESS)
    return fail("cuDevicePrimaryCtxRetain");
  size_t total = 0;
  if ((r = cuCtxSetCurrent(context)) != CUDA_SUCCESS)
    return fail("cuCtxSetCurrent");
  if ((r = cuMemGetInfo(&freeAtStart, &total)) != CUDA_SUCCESS)
    return fail("cuMemGetInfo");
}

/// Makes the device's context current on this thread; false (with the
/// error recorded) when there is no usable GPU.
bool ready() {
  std::call_once(initOnce, initialise);
  if (!initError.empty()) {
    recordError("GPU unavailable", initError.c_str());
    return false;
  }
  return !check(cuCtxSetCurrent(context), "cuCtxSetCurrent");
}

cublasHandle_t blasHandle() {
  static cublasHandle_t handle = nullptr;
  static std::once_flag once;
  std::call_once(once, [] {
    if (checkBlas(cublasCreate(&handle), "cublasCreate"))
      handle = nullptr;
  });
  return handle;
}

/// Records a failed cuBLAS call, or waits for a successful one: cuBLAS
/// runs asynchronously and host code reads the result right after.
void finishBlas(cublasStatus_t s, const char *what) {
  if (!checkBlas(s, what))
    check(cuCtxSynchronize(), "cuCtxSynchronize");
}

constexpr int kCblasNoTrans = 111;

bool transposed(int cblasTrans) { return cblasTrans != kCblasNoTrans; }
cublasOperation_t op(bool trans) { return trans ? CUBLAS_OP_T : CUBLAS_OP_N; }
} // namespace

extern "C" {

int sdfg_gpu_available(char *message, int length) {
  std::call_once(initOnce, initialise);
  if (message && length > 0)
    std::snprintf(message, length, "%s", initError.c_str());
  return initError.empty();
}

const char *sdfg_gpu_error(void) {
  std::lock_guard<std::mutex> lock(errorMutex);
  return firstError.empty() ? nullptr : firstError.c_str();
}

void sdfg_gpu_clear_error(void) {
  std::lock_guard<std::mutex> lock(errorMutex);
  firstError.clear();
}

//===----------------------------------------------------------------------===//
// Called by MLIR's GPU lowering (signatures fixed by gpu-to-llvm)
//===----------------------------------------------------------------------===//

void *mgpuModuleLoad(void *data, int64_t /*size*/) {
  if (!ready())
    return nullptr;
  CUmodule module = nullptr;
  if (check(cuModuleLoadData(&module, data), "cuModuleLoadData"))
    return nullptr;
  return module;
}

void mgpuModuleUnload(void *module) {
  if (module && ready())
    check(cuModuleUnload(static_cast<CUmodule>(module)), "cuModuleUnload");
}

void *mgpuModuleGetFunction(void *module, const char *name) {
  if (!module || !ready())
    return nullptr;
  CUfunction fn = nullptr;
  if (check(cuModuleGetFunction(&fn, static_cast<CUmodule>(module), name),
            "cuModuleGetFunction"))
    return nullptr;
  return fn;
}

void mgpuLaunchKernel(void *function, int64_t gridX, int64_t gridY,
                      int64_t gridZ, int64_t blockX, int64_t blockY,
                      int64_t blockZ, int32_t sharedBytes, void *stream,
                      void **params, void **extra, int64_t /*paramsCount*/) {
  if (!function || failed() || !ready())
    return;
  check(cuLaunchKernel(static_cast<CUfunction>(function), gridX, gridY, gridZ,
                       blockX, blockY, blockZ, sharedBytes,
                       static_cast<CUstream>(stream), params, extra),
        "cuLaunchKernel");
}

/// MLIR's lowering creates a stream for every launch, allocation and copy,
/// waits on it at once and destroys it. One stream per host thread, kept,
/// serves them all in the same order without a create and destroy per op.
void *mgpuStreamCreate() {
  if (!ready())
    return nullptr;
  thread_local CUstream stream = nullptr;
  if (!stream &&
      check(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate"))
    stream = nullptr;
  return stream;
}

void mgpuStreamSynchronize(void *stream) {
  if (stream && ready())
    check(cuStreamSynchronize(static_cast<CUstream>(stream)),
          "cuStreamSynchronize");
}

/// The thread's stream is kept for the next op (see mgpuStreamCreate).
void mgpuStreamDestroy(void * /*stream*/) {}

/// Host-shared (unified) memory: the program's containers, usable by
/// kernels and by host code alike. Device-only memory when not shared.
/// Without a GPU (or out of memory) the error is recorded and host memory
/// returned, so that the host code of the program still runs safely.
void *mgpuMemAlloc(uint64_t bytes, void *stream, bool hostShared) {
  size_t size = bytes ? bytes : 1;
  if (!failed() && ready()) {
    // Managed memory can be asked for beyond what the device holds, and
    // the driver then pages it in and out; on some systems that stalls the
    // whole GPU. Untouched managed memory does not show in cuMemGetInfo,
    // so what this process holds is counted here, against what was free
    // when it started: a program that does not fit is an error instead.
    size_t live = liveBytes.load();
    if (live + size > freeAtStart) {
      std::string detail = std::to_string(size) + " bytes asked, " +
                           std::to_string(live) + " held, " +
                           std::to_string(freeAtStart) +
                           " free when the runtime started";
      recordError("out of GPU memory", detail.c_str());
    }
  }
  if (!failed() && ready()) {
    CUdeviceptr ptr = 0;
    CUresult r = hostShared
                     ? cuMemAllocManaged(&ptr, size, CU_MEM_ATTACH_GLOBAL)
                     : cuMemAlloc(&ptr, size);
    if (!check(r, hostShared ? "cuMemAllocManaged" : "cuMemAlloc")) {
      // Counted as the driver sizes it, as mgpuMemFree will.
      CUdeviceptr base = 0;
      size_t held = size;
      cuMemGetAddressRange(&base, &held, ptr);
      liveBytes += held;
      return reinterpret_cast<void *>(ptr);
    }
  }
  // Marked so that mgpuMemFree knows to free() it: a 64-byte header.
  // aligned_alloc wants a multiple of the alignment.
  size_t total = (64 + size + 63) / 64 * 64;
  char *block = static_cast<char *>(std::aligned_alloc(64, total));
  if (!block)
    return nullptr;
  std::memcpy(block, "sdfg-host-fallback", 19);
  return block + 64;
}

/// Copies between host and device memory (the arguments of programs whose
/// containers live in device memory). Host pointers are pageable memory,
/// for which the driver's copy returns once the data is safe.
void mgpuMemcpy(void *dst, void *src, size_t sizeBytes, void *stream) {
  if (failed() || !ready())
    return;
  check(cuMemcpyAsync(reinterpret_cast<CUdeviceptr>(dst),
                      reinterpret_cast<CUdeviceptr>(src), sizeBytes,
                      static_cast<CUstream>(stream)),
        "cuMemcpyAsync");
}

void mgpuMemFree(void *ptr, void * /*stream*/) {
  if (!ptr)
    return;
  CUdeviceptr base = 0;
  size_t size = 0;
  // Unified memory the driver knows; anything else is a host fallback.
  if (context && cuCtxSetCurrent(context) == CUDA_SUCCESS &&
      cuMemGetAddressRange(&base, &size, reinterpret_cast<CUdeviceptr>(ptr)) ==
          CUDA_SUCCESS) {
    if (!check(cuMemFree(reinterpret_cast<CUdeviceptr>(ptr)), "cuMemFree"))
      liveBytes -= std::min(size, liveBytes.load());
    return;
  }
  char *block = static_cast<char *>(ptr) - 64;
  if (std::memcmp(block, "sdfg-host-fallback", 19) == 0)
    std::free(block);
}

//===----------------------------------------------------------------------===//
// CBLAS (row-major) on cuBLAS (column-major): see RowMajorBLAS.h.
//===----------------------------------------------------------------------===//

#define SDFG_GEMM(NAME, T, CUBLAS)                                             \
  void NAME(int /*order*/, int transA, int transB, int m, int n, int k,        \
            T alpha, const T *a, int lda, const T *b, int ldb, T beta, T *c,   \
            int ldc) {                                                         \
    if (failed() || !ready() || !blasHandle())                                 \
      return;                                                                  \
    sdfg::runtime::ColumnMajorGemm g = sdfg::runtime::rowMajorGemm(            \
        transposed(transA), transposed(transB), m, n, k);                      \
    const T *first = g.firstIsB ? b : a, *second = g.firstIsB ? a : b;         \
    int ldFirst = g.firstIsB ? ldb : lda, ldSecond = g.firstIsB ? lda : ldb;   \
    finishBlas(CUBLAS(blasHandle(), op(g.transFirst), op(g.transSecond), g.m,  \
                      g.n, g.k, &alpha, first, ldFirst, second, ldSecond,      \
                      &beta, c, ldc),                                          \
               #CUBLAS);                                                       \
  }
SDFG_GEMM(sdfg_gpu_cblas_dgemm, double, cublasDgemm)
SDFG_GEMM(sdfg_gpu_cblas_sgemm, float, cublasSgemm)
#undef SDFG_GEMM

#define SDFG_GEMV(NAME, T, CUBLAS)                                             \
  void NAME(int /*order*/, int trans, int m, int n, T alpha, const T *a,       \
            int lda, const T *x, int incx, T beta, T *y, int incy) {           \
    if (failed() || !ready() || !blasHandle())                                 \
      return;                                                                  \
    sdfg::runtime::ColumnMajorGemv g =                                         \
        sdfg::runtime::rowMajorGemv(transposed(trans), m, n);                  \
    finishBlas(CUBLAS(blasHandle(), op(g.trans), g.rows, g.cols, &alpha, a,    \
                      lda, x, incx, &beta, y, incy),                           \
               #CUBLAS);                                                       \
  }
SDFG_GEMV(sdfg_gpu_cblas_dgemv, double, cublasDgemv)
SDFG_GEMV(sdfg_gpu_cblas_sgemv, float, cublasSgemv)
#undef SDFG_GEMV

#define SDFG_GER(NAME, T, CUBLAS)                                              \
  void NAME(int /*order*/, int m, int n, T alpha, const T *x, int incx,        \
            const T *y, int incy, T *a, int lda) {                             \
    if (failed() || !ready() || !blasHandle())                                 \
      return;                                                                  \
    sdfg::runtime::ColumnMajorGer g = sdfg::runtime::rowMajorGer(m, n);        \
    const T *first = g.firstIsY ? y : x, *second = g.firstIsY ? x : y;         \
    int incFirst = g.firstIsY ? incy : incx,                                   \
        incSecond = g.firstIsY ? incx : incy;                                  \
    finishBlas(CUBLAS(blasHandle(), g.rows, g.cols, &alpha, first, incFirst,   \
                      second, incSecond, a, lda),                              \
               #CUBLAS);                                                       \
  }
SDFG_GER(sdfg_gpu_cblas_dger, double, cublasDger)
SDFG_GER(sdfg_gpu_cblas_sger, float, cublasSger)
#undef SDFG_GER

#define SDFG_DOT(NAME, T, CUBLAS)                                              \
  T NAME(int n, const T *x, int incx, const T *y, int incy) {                  \
    T result = 0;                                                              \
    if (failed() || !ready() || !blasHandle())                                 \
      return result;                                                           \
    finishBlas(CUBLAS(blasHandle(), n, x, incx, y, incy, &result), #CUBLAS);   \
    return result;                                                             \
  }
SDFG_DOT(sdfg_gpu_cblas_ddot, double, cublasDdot)
SDFG_DOT(sdfg_gpu_cblas_sdot, float, cublasSdot)
#undef SDFG_DOT

} // extern "C"
