/*
 * gpu_context.cuh
 *		The CUDA backend's per-process state, shared by its operations.
 *
 * One stream, a device memory pool that only grows, and a ring of pinned host
 * buffers through which every transfer is staged: the host copies a chunk
 * into one slot while the DMA engine moves the previous one.  All of it is
 * created at the first GPU call of the process and kept until
 * mp_gpu_shutdown.  Every function here leaves the stream idle when it
 * returns an error, so a failed call strands nothing.
 */
#ifndef GPU_CONTEXT_CUH
#define GPU_CONTEXT_CUH

#include <cuda_runtime.h>

#include "../../src/api/mp_api.h"
#include "../../src/api/mp_measured.h"

namespace mp
{

/* Pinned staging: ring slots and chunk size. */
constexpr int STAGE_SLOTS = 2;
constexpr size_t STAGE_CHUNK = (size_t) 4 << 20;

/* Records a failure of `what` and maps it to a status; after an error that
 * may have broken the context, everything is torn down so that the next call
 * starts afresh. */
mp_status cuda_failure(cudaError_t err, const char *what);

/* A call this backend cannot take (say, too large): records why and returns
 * MP_DEVICE_ERROR, leaving the context as it is. */
mp_status	gpu_cannot(const char *why);

cudaStream_t gpu_stream();

/* Two events for timing the kernels of a call. */
cudaEvent_t gpu_kernel_start();
cudaEvent_t gpu_kernel_stop();

/* A pinned scratch area of at least 64 bytes for small results (flags,
 * counts), apart from the staging ring. */
void	   *gpu_pinned_scratch();

/* Device memory for this call: at least `bytes`, contents undefined but for
 * the first `keep` bytes, which a call may ask to carry over when it grows
 * the pool midway.  Valid until the next call of gpu_pool. */
mp_status	gpu_pool(size_t bytes, void **ptr, size_t keep = 0);

/* A number that changes with every gpu_pool call and every teardown: what a
 * call left in the pool is still there while it is unchanged. */
uint64_t	gpu_pool_generation();

/* A number that stays the same while the context does, and is 0 while
 * there is none: device memory allocated under one epoch is valid while it
 * lasts, and no longer to be freed after. */
uint64_t	gpu_context_epoch();

struct host_to_device
{
	void	   *dev;
	const void *host;
	size_t		bytes;
};

/* Copies each host range to its device range through the staging ring,
 * polling between chunks.  Returns with the copies complete. */
mp_status	stage_in(const host_to_device *copies, int ncopies, mp_poll_fn poll,
					 mp_gpu_timing *timing);

/* Copies dev[0..bytes) to host through the staging ring, polling between
 * chunks.  Returns with the copy complete. */
mp_status	stage_out(void *host, const void *dev, size_t bytes, mp_poll_fn poll,
					  mp_gpu_timing *timing);

double		clock_ms();

}								/* namespace mp */

/* Calls fn<T>(args...) for the element type. */
#define MP_BY_TYPE(fn, type, ...) \
	switch (type) \
	{ \
		case MP_INT4: \
			return fn<int32_t>(__VA_ARGS__); \
		case MP_INT8: \
			return fn<int64_t>(__VA_ARGS__); \
		case MP_FLOAT4: \
			return fn<float>(__VA_ARGS__); \
		case MP_FLOAT8: \
			return fn<double>(__VA_ARGS__); \
	}

/* Checks a CUDA call inside a function returning mp_status. */
#define MP_CUDA(call) \
	do { \
		cudaError_t mp_err_ = (call); \
		if (mp_err_ != cudaSuccess) \
			return mp::cuda_failure(mp_err_, #call); \
	} while (0)

#endif							/* GPU_CONTEXT_CUH */
