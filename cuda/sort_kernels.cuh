/*
 * sort_kernels.cuh
 *		Sorting and unique on the device.
 *
 * The sort is CUB's DeviceRadixSort over the values themselves.  Its own
 * bit twiddling is mp_order.h's key for integers (the sign bit flipped) and
 * for floats but two cases: it sorts -0 and +0 as equal already (and is
 * stable), but it puts NaNs with the sign bit set first and orders NaNs by
 * their payload bits, where PostgreSQL has every NaN equal and last.  So for
 * floats one read of the input first looks for NaNs; only when there are
 * some are the non-NaN values selected (stably) into one buffer and
 * sorted, and the NaNs selected after them in their input order.  Sorting
 * the values themselves rather than keys carried with them keeps the sort
 * to the bytes of one array: within a few percent of calling CUB directly.
 *
 * Unique flags each element that is greater than its predecessor (the
 * first of each run), checking the order on the way, and compacts with
 * CUB's DeviceSelect::Flagged.
 */
#ifndef SORT_KERNELS_CUH
#define SORT_KERNELS_CUH

#include <cstdint>
#include <cuda_runtime.h>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_select.cuh>

#include "order.cuh"

namespace mp
{

template <typename T>
struct is_float_type
{
	static constexpr bool value = (T) 0.5 != (T) 0;
};

template <typename T>
struct not_nan
{
	__host__ __device__ __forceinline__ bool operator()(T x) const { return x == x; }
};

template <typename T>
struct is_nan
{
	__host__ __device__ __forceinline__ bool operator()(T x) const { return x != x; }
};

constexpr int SCAN_THREADS = 256;

/* Grid for a grid-stride pass over n elements. */
inline int
pass_blocks(int64_t n)
{
	int64_t		blocks = (n + SCAN_THREADS * 8 - 1) / (SCAN_THREADS * 8);

	return (int) (blocks < 1 ? 1 : blocks > 8192 ? 8192 : blocks);
}

/* *found = 1 when x[0..n) holds a NaN. */
template <typename T>
__global__ void __launch_bounds__(SCAN_THREADS)
find_nan(const T *__restrict__ x, int64_t n, int *found)
{
	bool		any = false;

	for (int64_t i = blockIdx.x * (int64_t) SCAN_THREADS + threadIdx.x; i < n;
		 i += (int64_t) gridDim.x * SCAN_THREADS)
		any |= x[i] != x[i];
	if (__syncthreads_or(any) && threadIdx.x == 0)
		*found = 1;
}

/* flags[i] = x[i] starts a run of equal keys; *unsorted = 1 on a descent. */
template <typename T>
__global__ void __launch_bounds__(SCAN_THREADS)
unique_flags(const T *__restrict__ x, int64_t n, uint8_t *__restrict__ flags, int *unsorted)
{
	bool		bad = false;

	for (int64_t i = blockIdx.x * (int64_t) SCAN_THREADS + threadIdx.x; i < n;
		 i += (int64_t) gridDim.x * SCAN_THREADS)
	{
		T			cur = x[i];
		bool		first = true;

		if (i > 0)
		{
			T			prev = x[i - 1];

			first = order<T>::lt(prev, cur);
			bad |= order<T>::lt(cur, prev);
		}
		flags[i] = first;
	}
	if (unsorted && __syncthreads_or(bad) && threadIdx.x == 0)
		*unsorted = 1;
}

/* Device scratch the sort of n elements needs besides its two buffers. */
template <typename T>
inline cudaError_t
sort_temp_bytes(int n, size_t *bytes)
{
	cub::DoubleBuffer<T> keys(nullptr, nullptr);
	size_t		radix = 0,
				select = 0;
	cudaError_t err = cub::DeviceRadixSort::SortKeys(nullptr, radix, keys, n);

	if (!err && is_float_type<T>::value)
		err = cub::DeviceSelect::If(nullptr, select, (const T *) nullptr, (T *) nullptr,
									(int *) nullptr, n, not_nan<T>());
	*bytes = (radix > select ? radix : select) + 256;
	return err;
}

/*
 * Sorts buf[0..n) in PostgreSQL's order, stable, using alt (room for n) and
 * temp (sort_temp_bytes).  *result gets whichever of buf and alt holds the
 * sorted values.  For floats it waits on the stream midway to learn whether
 * there are NaNs, through `pinned`: host-visible memory for two ints, and
 * dev_flag, device memory for two ints.
 */
template <typename T>
inline cudaError_t
sort_on_device(T *buf, T *alt, int n, T **result, void *temp, size_t temp_bytes,
			   int *dev_flag, int *pinned, cudaStream_t stream)
{
	cub::DoubleBuffer<T> keys(buf, alt);
	cudaError_t err;
	int			sorted_n = n;

	*result = buf;
	if (n < 2)
		return cudaSuccess;
	if constexpr (is_float_type<T>::value)
	{
		if ((err = cudaMemsetAsync(dev_flag, 0, 2 * sizeof(int), stream)))
			return err;
		find_nan<T><<<pass_blocks(n), SCAN_THREADS, 0, stream>>>(buf, n, dev_flag);
		if ((err = cudaGetLastError()) ||
			(err = cudaMemcpyAsync(pinned, dev_flag, sizeof(int), cudaMemcpyDeviceToHost,
								   stream)) ||
			(err = cudaStreamSynchronize(stream)))
			return err;
		if (pinned[0])
		{
			/* the non-NaN values into alt (their count into dev_flag[1]),
			 * the NaNs after them, both in input order; then sort the
			 * former, in alt and buf */
			if ((err = cub::DeviceSelect::If(temp, temp_bytes, buf, alt, dev_flag + 1, n,
											 not_nan<T>(), stream)) ||
				(err = cudaMemcpyAsync(pinned + 1, dev_flag + 1, sizeof(int),
									   cudaMemcpyDeviceToHost, stream)) ||
				(err = cudaStreamSynchronize(stream)))
				return err;
			sorted_n = pinned[1];
			if ((err = cub::DeviceSelect::If(temp, temp_bytes, buf, alt + sorted_n,
											 dev_flag + 1, n, is_nan<T>(), stream)))
				return err;
			keys = cub::DoubleBuffer<T>(alt, buf);
		}
	}
	if (sorted_n > 1 &&
		(err = cub::DeviceRadixSort::SortKeys(temp, temp_bytes, keys, sorted_n, 0,
											  (int) sizeof(T) * 8, stream)))
		return err;
	*result = keys.Current();
	if (sorted_n < n && keys.Current() == buf)
		return cudaMemcpyAsync(buf + sorted_n, alt + sorted_n, (n - sorted_n) * sizeof(T),
							   cudaMemcpyDeviceToDevice, stream);
	return cudaSuccess;
}

/* Device scratch unique of n elements needs besides flags and out. */
template <typename T>
inline cudaError_t
unique_temp_bytes(int n, size_t *bytes)
{
	return cub::DeviceSelect::Flagged(nullptr, *bytes, (const T *) nullptr,
									  (const uint8_t *) nullptr, (T *) nullptr,
									  (int64_t *) nullptr, n);
}

/* The first of each run of x[0..n) into out, their number into *count. */
template <typename T>
inline cudaError_t
unique_on_device(const T *x, int n, uint8_t *flags, T *out, int64_t *count, int *unsorted,
				 void *temp, size_t temp_bytes, cudaStream_t stream)
{
	if (n == 0)
		return cudaSuccess;
	unique_flags<T><<<pass_blocks(n), SCAN_THREADS, 0, stream>>>(x, n, flags, unsorted);
	if (cudaError_t err = cudaGetLastError())
		return err;
	return cub::DeviceSelect::Flagged(temp, temp_bytes, x, flags, out, count, n, stream);
}

}								/* namespace mp */

#endif							/* SORT_KERNELS_CUH */
