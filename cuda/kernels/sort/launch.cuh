/*
 * launch.cuh (sort)
 *		Sort, unique and the row sort from the host: CUB's radix sort and
 *		select around sort/tile.cuh's kernels.
 */
#ifndef MP_SORT_LAUNCH_CUH
#define MP_SORT_LAUNCH_CUH

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_select.cuh>

#include "tile.cuh"

namespace mp
{

/* Device scratch the sort of n elements needs besides its two buffers. */
template <typename T>
inline cudaError_t
sort_temp_bytes(int n, size_t *bytes)
{
	size_t		radix = 0,
				select = 0;
	cudaError_t err;

	if constexpr (is_float_type<T>::value)
	{
		/* the first sort leaves its input alone, which costs CUB room for
		 * its own second buffer; the NaN path sorts between the two */
		size_t		again = 0;
		cub::DoubleBuffer<T> keys(nullptr, nullptr);

		err = cub::DeviceRadixSort::SortKeys(nullptr, radix, (const T *) nullptr, (T *) nullptr,
											 n);
		if (!err)
			err = cub::DeviceRadixSort::SortKeys(nullptr, again, keys, n);
		if (!err)
			err = cub::DeviceSelect::If(nullptr, select, (const T *) nullptr, (T *) nullptr,
										(int *) nullptr, n, not_nan<T>());
		select = again > select ? again : select;
	}
	else
	{
		cub::DoubleBuffer<T> keys(nullptr, nullptr);

		err = cub::DeviceRadixSort::SortKeys(nullptr, radix, keys, n);
	}
	*bytes = (radix > select ? radix : select) + 256;
	return err;
}

/*
 * Enqueues the sort of buf[0..n) in PostgreSQL's order, stable, using alt
 * (room for n) and temp (sort_temp_bytes); *result gets whichever of buf
 * and alt will hold the sorted values.  Integers are sorted in place
 * between buf and alt.  Floats are sorted from buf into alt, buf left as it
 * was; then the sorted values' ends say whether there are NaNs, 1 or 0 in
 * dev_flag and, by an asynchronous copy, in *host_flag (host-visible
 * memory).  The caller reads *host_flag once the stream is idle, and if it
 * is set sorts again with sort_with_nans.  So inputs without NaN (nearly
 * all) cost CUB's sort and a one-thread kernel, and no wait midway.
 */
template <typename T>
inline cudaError_t
sort_on_device(T *buf, T *alt, int n, T **result, void *temp, size_t temp_bytes, int *dev_flag,
			   int *host_flag, cudaStream_t stream)
{
	cudaError_t err;

	*result = buf;
	*host_flag = 0;
	if (n < 2)
		return cudaSuccess;
	if constexpr (is_float_type<T>::value)
	{
		if ((err = cub::DeviceRadixSort::SortKeys(temp, temp_bytes, (const T *) buf, alt, n, 0,
												  (int) sizeof(T) * 8, stream)))
			return err;
		nan_at_ends<T><<<1, 1, 0, stream>>>(alt, n, dev_flag);
		if ((err = cudaGetLastError()))
			return err;
		*result = alt;
		return cudaMemcpyAsync(host_flag, dev_flag, sizeof(int), cudaMemcpyDeviceToHost, stream);
	}
	else
	{
		cub::DoubleBuffer<T> keys(buf, alt);

		err = cub::DeviceRadixSort::SortKeys(temp, temp_bytes, keys, n, 0, (int) sizeof(T) * 8,
											 stream);
		*result = keys.Current();
		return err;
	}
}

/*
 * The sort of floats with NaNs, from buf as sort_on_device left it: the
 * non-NaN values selected into alt (stably) and sorted, the NaNs selected
 * after them in input order.  Waits on the stream once, for the count, which
 * goes through dev_count and host_count as the flag did.
 */
template <typename T>
inline cudaError_t
sort_with_nans(T *buf, T *alt, int n, T **result, void *temp, size_t temp_bytes, int *dev_count,
			   int *host_count, cudaStream_t stream)
{
	cudaError_t err;
	int			m;

	if ((err = cub::DeviceSelect::If(temp, temp_bytes, buf, alt, dev_count, n, not_nan<T>(),
									 stream)) ||
		(err = cudaMemcpyAsync(host_count, dev_count, sizeof(int), cudaMemcpyDeviceToHost,
							   stream)) ||
		(err = cudaStreamSynchronize(stream)))
		return err;
	m = *host_count;
	if ((err = cub::DeviceSelect::If(temp, temp_bytes, buf, alt + m, dev_count, n, is_nan<T>(),
									 stream)))
		return err;

	cub::DoubleBuffer<T> keys(alt, buf);

	if (m > 1 &&
		(err = cub::DeviceRadixSort::SortKeys(temp, temp_bytes, keys, m, 0, (int) sizeof(T) * 8,
											  stream)))
		return err;
	*result = keys.Current();
	if (keys.Current() == buf)
		return cudaMemcpyAsync(buf + m, alt + m, (n - m) * sizeof(T), cudaMemcpyDeviceToDevice,
							   stream);
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

/* Device scratch the row sort of n rows needs besides its buffers. */
template <typename K>
inline cudaError_t
sort_rows_temp_bytes(int n, size_t *bytes)
{
	cub::DoubleBuffer<K> keys(nullptr, nullptr);
	cub::DoubleBuffer<uint32_t> rows(nullptr, nullptr);

	return cub::DeviceRadixSort::SortPairs(nullptr, *bytes, keys, rows, n);
}

/*
 * Enqueues the row sort of n rows by words[0..nwords * n) (word w of row i
 * at w * n + i; the words are overwritten), with gathered (room for n when
 * nwords > 1), alt (room for n), rows and rows_alt (room for n each) and
 * temp; *result gets whichever of rows and rows_alt will hold the
 * permutation.
 */
template <typename K>
inline cudaError_t
sort_rows_on_device(K *words, int nwords, const int *bits, int n, K *gathered, K *alt,
					uint32_t *rows, uint32_t *rows_alt, uint32_t **result, void *temp,
					size_t temp_bytes, cudaStream_t stream)
{
	bool		first = true;

	*result = rows;
	row_numbers<uint32_t><<<pass_blocks(n), SCAN_THREADS, 0, stream>>>(rows, n);
	if (cudaError_t err = cudaGetLastError())
		return err;
	for (int w = 0; w < nwords; w++)
	{
		K		   *in = words + (size_t) w * n;

		if (bits[w] == 0)
			continue;
		if (!first)
		{
			gather_keys<K><<<pass_blocks(n), SCAN_THREADS, 0, stream>>>(in, *result, gathered,
																		n);
			if (cudaError_t err = cudaGetLastError())
				return err;
			in = gathered;
		}

		cub::DoubleBuffer<K> keys(in, alt);
		cub::DoubleBuffer<uint32_t> perm(*result, *result == rows ? rows_alt : rows);

		if (cudaError_t err = cub::DeviceRadixSort::SortPairs(temp, temp_bytes, keys, perm, n, 0,
															  bits[w], stream))
			return err;
		*result = perm.Current();
		first = false;
	}
	return cudaSuccess;
}

}								/* namespace mp */

#endif							/* MP_SORT_LAUNCH_CUH */
