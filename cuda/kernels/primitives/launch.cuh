/*
 * launch.cuh
 *		Launching a tile kernel after its partition kernel, with programmatic
 *		dependent launch where the device takes it.
 */
#ifndef MP_PRIMITIVES_LAUNCH_CUH
#define MP_PRIMITIVES_LAUNCH_CUH

#include <cuda_runtime.h>

namespace mp
{

/*
 * Programmatic dependent launch, on sm_90 and up: a tile kernel started with
 * launch_after_partition is scheduled while the partition kernel before it
 * still runs (the partition lets it in at once) and waits in
 * grid_dependency_wait until the splits are written, so the second launch's
 * latency hides behind the first kernel.  Elsewhere the wait is a no-op and
 * the launch an ordinary one.
 */
__device__ __forceinline__ void
grid_dependency_wait()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
	asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

__device__ __forceinline__ void
grid_dependents_launch()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
	asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

/* Building with MP_DEPENDENT_LAUNCH=0 turns them off, for comparison. */
#ifndef MP_DEPENDENT_LAUNCH
#define MP_DEPENDENT_LAUNCH 1
#endif

/* Whether the current device takes programmatic dependent launches
 * (compute capability 9 and up). */
inline bool
dependent_launch_supported()
{
	static int	major = -1;

	if (major < 0)
	{
		int			dev = 0;

		if (cudaGetDevice(&dev) != cudaSuccess ||
			cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess)
		{
			(void) cudaGetLastError();
			major = 0;
		}
	}
	return MP_DEPENDENT_LAUNCH && major >= 9;
}

template <typename... Params, typename... Args>
inline cudaError_t
launch_after_partition(void (*kernel)(Params...), int64_t grid, int block, size_t smem,
					   cudaStream_t stream, Args... args)
{
	cudaLaunchConfig_t cfg = {};
	cudaLaunchAttribute attr = {};

	cfg.gridDim = dim3((unsigned) grid);
	cfg.blockDim = dim3((unsigned) block);
	cfg.dynamicSmemBytes = smem;
	cfg.stream = stream;
	attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
	attr.val.programmaticStreamSerializationAllowed = 1;
	if (dependent_launch_supported())
	{
		cfg.attrs = &attr;
		cfg.numAttrs = 1;
	}
	return cudaLaunchKernelEx(&cfg, kernel, args...);
}

/*
 * How many blocks of a pipelined kernel (threads a block, smem bytes of
 * dynamic shared memory, which it is allowed here) fit on the current
 * device at once, into *resident: 0 where the kernel was not built for
 * sm_90 or later (it then runs from older PTX, which leaves it empty).
 * On an error *resident is left as it was.
 */
template <typename... Params>
inline cudaError_t
pipelined_resident(void (*kernel)(Params...), int threads, size_t smem, int *resident)
{
	cudaFuncAttributes fa;
	int			per_sm = 0,
				sms = 0,
				dev = 0;
	cudaError_t err;

	if ((err = cudaFuncGetAttributes(&fa, kernel)) != cudaSuccess)
		return err;
	if (fa.ptxVersion < 90)
	{
		*resident = 0;
		return cudaSuccess;
	}
	if ((err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
									(int) smem)) != cudaSuccess ||
		(err = cudaGetDevice(&dev)) != cudaSuccess ||
		(err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev)) != cudaSuccess ||
		(err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads,
															 smem)) != cudaSuccess)
		return err;
	*resident = per_sm * sms;
	return cudaSuccess;
}

}								/* namespace mp */

#endif							/* MP_PRIMITIVES_LAUNCH_CUH */
