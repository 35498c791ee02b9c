//===- GPURuntime.h - The sdfg GPU runtime's C interface --------*- C++ -*-===//
//
// Plain C, so that programs (and the Python frontend, through ctypes) can
// call it. Programs lowered by sdfg-lower-to-gpu also call the mgpu*
// functions MLIR's gpu-to-llvm conversion emits; those are defined by the
// runtime library too, with the signatures that conversion fixes.
//
//===----------------------------------------------------------------------===//

#ifndef SDFG_RUNTIME_GPURUNTIME_H
#define SDFG_RUNTIME_GPURUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// 1 if a CUDA device and driver are usable; else 0, with the reason
/// (e.g. "cuInit: CUDA_ERROR_NO_DEVICE") written to `message`.
int sdfg_gpu_available(char *message, int length);

/// The first error since the last clear (a failed launch, out of memory,
/// no device), or null. A program that hit one ran no further kernels: its
/// results are not valid.
const char *sdfg_gpu_error(void);

void sdfg_gpu_clear_error(void);

void *mgpuModuleLoad(void *data, int64_t size);
void mgpuModuleUnload(void *module);
void *mgpuModuleGetFunction(void *module, const char *name);
void mgpuLaunchKernel(void *function, int64_t gridX, int64_t gridY,
                      int64_t gridZ, int64_t blockX, int64_t blockY,
                      int64_t blockZ, int32_t sharedBytes, void *stream,
                      void **params, void **extra, int64_t paramsCount);
void *mgpuStreamCreate(void);
void mgpuStreamSynchronize(void *stream);
void mgpuStreamDestroy(void *stream);
void *mgpuMemAlloc(uint64_t bytes, void *stream, bool hostShared);
void mgpuMemFree(void *ptr, void *stream);
void mgpuMemcpy(void *dst, void *src, size_t sizeBytes, void *stream);

/// CBLAS signatures (row-major only), computed by cuBLAS.
void sdfg_gpu_cblas_dgemm(int order, int transA, int transB, int m, int n,
                          int k, double alpha, const double *a, int lda,
                          const double *b, int ldb, double beta, double *c,
                          int ldc);
void sdfg_gpu_cblas_sgemm(int order, int transA, int transB, int m, int n,
                          int k, float alpha, const float *a, int lda,
                          const float *b, int ldb, float beta, float *c,
                          int ldc);
void sdfg_gpu_cblas_dgemv(int order, int trans, int m, int n, double alpha,
                          const double *a, int lda, const double *x, int incx,
                          double beta, double *y, int incy);
void sdfg_gpu_cblas_sgemv(int order, int trans, int m, int n, float alpha,
                          const float *a, int lda, const float *x, int incx,
                          float beta, float *y, int incy);
void sdfg_gpu_cblas_dger(int order, int m, int n, double alpha, const double *x,
                         int incx, const double *y, int incy, double *a,
                         int lda);
void sdfg_gpu_cblas_sger(int order, int m, int n, float alpha, const float *x,
                         int incx, const float *y, int incy, float *a, int lda);
double sdfg_gpu_cblas_ddot(int n, const double *x, int incx, const double *y,
                           int incy);
float sdfg_gpu_cblas_sdot(int n, const float *x, int incx, const float *y,
                          int incy);

#ifdef __cplusplus
}
#endif

#endif // SDFG_RUNTIME_GPURUNTIME_H
