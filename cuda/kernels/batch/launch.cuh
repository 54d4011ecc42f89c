/*
 * launch.cuh (batch)
 *		Batches on device-resident data, stream-ordered and without
 *		allocation (the caller carves the scratch these say they need):
 *		what cuda/host/gpu_batch.cu runs between its upload and download,
 *		and what the benchmarks time beside CUB.
 */
#ifndef MP_BATCH_LAUNCH_CUH
#define MP_BATCH_LAUNCH_CUH

#include <type_traits>

#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_sort.cuh>

#include "setops.cuh"
#include "sort.cuh"
#include "tile.cuh"

namespace mp
{

template <typename T>
inline int64_t
batch_tiles(int64_t n)
{
	return (n + batch_shape<T>::NV - 1) / batch_shape<T>::NV;
}

/* The words of partition the batched merge of total outputs needs, in
 * tiles of NV. */
template <typename T, int NV = batch_shape<T>::NV>
inline int64_t
batch_merge_parts(int64_t total)
{
	return 2 * ((total + NV - 1) / NV + 1);
}

/*
 * The merge of every pair: out[a_off[p] + b_off[p] ..) is pair p's.  parts:
 * room for batch_merge_parts(total) words.  Tiles of NT threads of VT.
 */
template <typename T, int NT = batch_shape<T>::NT, int VT = batch_shape<T>::VT>
inline cudaError_t
batch_merge_on_device(const T *a, const int64_t *a_off, const T *b, const int64_t *b_off,
					  int64_t npairs, int64_t total, T *out, int64_t *parts, int *unsorted,
					  cudaStream_t stream)
{
	const int64_t tiles = (total + NT * VT - 1) / (NT * VT);

	if (total == 0)
		return cudaSuccess;
	batch_merge_partition<T, NT, VT><<<(unsigned) ((tiles + 1 + 127) / 128), 128, 0, stream>>>(
		a, a_off, b, b_off, npairs, parts, tiles + 1);
	if (cudaError_t err = cudaGetLastError())
		return err;
	batch_merge_tile<T, NT, VT><<<(unsigned) tiles, NT, 0, stream>>>(a, a_off, b, b_off, npairs,
																	  parts, out, unsorted);
	return cudaGetLastError();
}

/* The words of partition and of look-back chain (with the tiles' counter)
 * the batched set operations of npairs pairs over total inputs need, in
 * tiles of NT slots of VT places (batch_setop_tiles). */
template <typename T, int NT = batch_setop_shape<T>::NT, int VT = batch_setop_shape<T>::VT>
inline int64_t
batch_setop_parts(int64_t npairs, int64_t total)
{
	return BATCH_SETOP_PART * (batch_setop_tiles(npairs, total, NT, VT) + 1);
}

template <typename T, int NT = batch_setop_shape<T>::NT, int VT = batch_setop_shape<T>::VT>
inline int64_t
batch_setop_chain_words(int64_t npairs, int64_t total)
{
	return batch_setop_tiles(npairs, total, NT, VT) * setop_chain::STRIDE + 1;
}

/*
 * The set operation op of every pair, in one pass: the results into out
 * (capacity elements), pair p's from out_off[p] on, their number into
 * *length.  Raises *unsorted (if not null) on unsorted input.  total (both
 * sides' elements) stays below 2^31: the chain counts in ints.  parts and
 * chain: room for batch_setop_parts(npairs, total) and
 * batch_setop_chain_words(npairs, total) words.  Tiles of NT slots of VT
 * places (batch_setop_shape).
 */
template <typename T, mp_setop OP, int NT = batch_setop_shape<T>::NT,
		  int VT = batch_setop_shape<T>::VT, int STAGES = batch_setop_shape<T>::STAGES,
		  int BLOCKS = batch_setop_shape<T>::BLOCKS>
inline cudaError_t
batch_setop_on_device(const T *a, const int64_t *a_off, const T *b, const int64_t *b_off,
					  int64_t npairs, int64_t total, T *out, int64_t capacity,
					  int64_t *out_off, int64_t *length, int64_t *parts,
					  unsigned long long *chain, int *unsorted, cudaStream_t stream)
{
	const int64_t tiles = batch_setop_tiles(npairs, total, NT, VT);
	const setop_chain ch = {chain};
	cudaError_t err;

	if (total > INT32_MAX)
		return cudaErrorInvalidValue;
	if (tiles > 0)
	{
		int		   *next_tile = (int *) (chain + tiles * setop_chain::STRIDE);
		static int	resident = -1;

		batch_setop_partition<T, NT, VT><<<(unsigned) ((tiles + 1 + 127) / 128), 128, 0,
			stream>>>(a, a_off, b, b_off, npairs, parts, tiles + 1, ch, next_tile);
		if ((err = cudaGetLastError()))
			return err;

		/*
		 * The pipelined kernel where it was built for sm_90 or later, with
		 * as many blocks as fit at once (pipelined_resident); else (and
		 * with BLOCKS 0) a block a tile.
		 */
		if constexpr (BLOCKS > 0)
		{
			constexpr size_t smem = setop_pipelined_smem<T, NT, VT, STAGES>();
			auto		pipelined = batch_setop_pipelined<T, NT, VT, STAGES, BLOCKS, OP>;

			if (resident < 0 && (err = pipelined_resident(pipelined, NT + 32, smem, &resident)) !=
				cudaSuccess)
				return err;
			if (resident > 0 &&
				(err = launch_after_partition(pipelined, tiles < resident ? tiles : resident,
											  NT + 32, smem, stream, a, a_off, b, b_off, npairs,
											  (const int64_t *) parts, out, capacity, out_off, ch,
											  (int) tiles, length, unsorted)) != cudaSuccess)
				return err;
		}
		if (BLOCKS == 0 || resident <= 0)
		{
			batch_setop_tile<T, NT, VT, OP><<<(unsigned) tiles, NT, 0, stream>>>(
				a, a_off, b, b_off, npairs, parts, out, capacity, out_off, ch, next_tile, length,
				unsorted);
			if ((err = cudaGetLastError()))
				return err;
		}
	}
	else if ((err = cudaMemsetAsync(length, 0, sizeof(int64_t), stream)))
		return err;
	batch_setop_tail<NT, VT><<<(unsigned) ((npairs + 256) / 256 < 4096 ? (npairs + 256) / 256 :
											4096), 256, 0, stream>>>(a_off, b_off, npairs, ch,
																	 length, capacity, out_off);
	return cudaGetLastError();
}

/* Raises *unsorted when a pair's side x[x_off[p] ..) is not ascending. */
template <typename T>
inline cudaError_t
batch_check_on_device(const T *x, const int64_t *x_off, int64_t npairs, int64_t n,
					  int *unsorted, cudaStream_t stream)
{
	constexpr int NT = batch_shape<T>::NT,
				VT = batch_shape<T>::VT;

	if (n == 0)
		return cudaSuccess;
	batch_check<T, NT, VT><<<batch_tiles<T>(n), NT, 0, stream>>>(x, x_off, npairs, unsorted);
	return cudaGetLastError();
}

/* Scratch of a filter over n elements: the tiles' counts and bases, and
 * the scan's own. */
template <typename T>
inline cudaError_t
batch_filter_scratch(int64_t n, size_t *scan_bytes, int64_t *ntiles)
{
	*ntiles = batch_tiles<T>(n);
	*scan_bytes = 0;
	return cub::DeviceScan::ExclusiveSum(nullptr, *scan_bytes, (int64_t *) nullptr,
										 (int64_t *) nullptr, *ntiles + 1);
}

/*
 * Side x filtered by F against side y (nullptr for unique), pair by pair:
 * the kept elements into out, pair p's from out_off[p] on, and how many
 * in all into *kept.  counts and bases have room for ntiles + 1.
 */
template <typename T, batch_filter F>
inline cudaError_t
batch_filter_on_device(const T *x, const int64_t *x_off, const T *y, const int64_t *y_off,
					   int64_t npairs, int64_t n, T *out, int64_t *out_off, int64_t *kept,
					   int64_t *counts, int64_t *bases, void *scan, size_t scan_bytes,
					   cudaStream_t stream)
{
	constexpr int NT = batch_shape<T>::NT,
				VT = batch_shape<T>::VT;
	const int64_t ntiles = batch_tiles<T>(n);
	cudaError_t err;

	if ((err = cudaMemsetAsync(counts, 0, (ntiles + 1) * sizeof(int64_t), stream)))
		return err;
	if (ntiles > 0)
	{
		batch_filter_count<T, F, NT, VT><<<ntiles, NT, 0, stream>>>(x, x_off, y, y_off, npairs,
																	counts);
		if ((err = cudaGetLastError()))
			return err;
	}
	if ((err = cub::DeviceScan::ExclusiveSum(scan, scan_bytes, counts, bases, ntiles + 1,
											 stream)))
		return err;
	if (ntiles > 0)
	{
		batch_filter_write<T, F, NT, VT><<<ntiles, NT, 0, stream>>>(x, x_off, y, y_off, npairs,
																	bases, out, out_off);
		if ((err = cudaGetLastError()))
			return err;
	}
	batch_filter_tail<<<(unsigned) ((npairs + 256) / 256), 256, 0, stream>>>(x_off, npairs,
																			   bases + ntiles,
																			   out_off);
	if ((err = cudaGetLastError()))
		return err;
	return cudaMemcpyAsync(kept, bases + ntiles, sizeof(int64_t), cudaMemcpyDeviceToDevice,
						   stream);
}

/* The searches: out[e] for needle e (b), in its pair's haystack (a). */
template <typename T>
inline cudaError_t
batch_search_on_device(const T *hay, const int64_t *hay_off, const T *needles,
					   const int64_t *needle_off, int64_t npairs, int64_t nneedles,
					   mp_search kind, int32_t *out, cudaStream_t stream)
{
	constexpr int NT = batch_shape<T>::NT,
				VT = batch_shape<T>::VT;

	if (nneedles == 0)
		return cudaSuccess;
	batch_search_tile<T, NT, VT><<<batch_tiles<T>(nneedles), NT, 0, stream>>>(
		hay, hay_off, needles, needle_off, npairs, kind, out);
	return cudaGetLastError();
}

/* Class C's groups over its pairs: blocks enough to fill the device, or
 * one a pair's group. */
template <typename T, int C>
inline cudaError_t
batch_sort_class_on_device(const T *in, const int64_t *off, int64_t npairs,
						   const int64_t *lists, const unsigned long long *counters, T *out,
						   int sms, cudaStream_t stream)
{
	typedef batch_sort_shape<sizeof(T), C> S;
	const int64_t blocks = (npairs + S::NT / S::G - 1) / (S::NT / S::G),
				full = (int64_t) sms * (2048 / S::NT);

	batch_sort_groups<T, S::G, S::VT><<<(unsigned) (blocks < full ? blocks : full), S::NT, 0,
		stream>>>(in, off, lists, counters, C, out);
	return cudaGetLastError();
}

/* Whether some of the classes that a batch's pairs span (min_len ..
 * max_len elements) are left to CUB's segmented sort (batch_sort_shape),
 * and whether all of them are: then CUB sorts the pairs over the offsets
 * as they are, without the lists. */
template <typename T>
inline void
batch_sort_cub_classes(int64_t min_len, int64_t max_len, bool *some, bool *all)
{
	const int	lo = batch_sort_class(min_len),
				hi = batch_sort_class(max_len);

	*some = false;
	*all = true;
	for (int c = lo < 0 ? 0 : lo; c <= hi; c++)
	{
		*some |= batch_sort_by_cub<sizeof(T)>(c);
		*all &= batch_sort_by_cub<sizeof(T)>(c);
	}
	*all &= *some;
}

template <typename T>
inline bool
batch_sort_needs_cub(int64_t min_len, int64_t max_len)
{
	bool		some,
				all;

	batch_sort_cub_classes<T>(min_len, max_len, &some, &all);
	return some;
}

/*
 * The sort of every pair's a, stable (batch/sort.cuh): pairs of up to
 * BATCH_SORT_GROUP_MAX elements by groups of threads but for the classes
 * left to CUB, which sorts those and the longer ones by its segmented sort
 * over them alone (integers as they are; floats by their order's unsigned
 * keys, -0 and 0 equal, NaNs last, carrying the values).  min_len and
 * max_len: the shortest non-empty pair's length and the longest's, as the
 * host knows them (they choose the launches).  keys and sorted_keys: room
 * for n keys where batch_sort_needs_cub and T is a float.  temp ==
 * nullptr: *temp_bytes is set to the scratch the call needs.
 */
template <typename T>
inline cudaError_t
batch_sort_on_device(const T *in, const int64_t *off, int64_t npairs, int64_t n,
					 int64_t min_len, int64_t max_len, T *out,
					 typename order<T>::key_type *keys,
					 typename order<T>::key_type *sorted_keys, void *temp, size_t *temp_bytes,
					 cudaStream_t stream)
{
	bool		by_cub,
				only_cub;

	batch_sort_cub_classes<T>(min_len, max_len, &by_cub, &only_cub);

	const size_t lists_bytes = only_cub ? 0 :
		((BATCH_SORT_COUNTERS + npairs) * sizeof(int64_t) + 255) & ~(size_t) 255,
				ends_bytes = by_cub && !only_cub ? (npairs * sizeof(int64_t) + 255) & ~(size_t) 255 : 0;
	size_t		cub_bytes = 0;
	cudaError_t err;
	const int64_t *no_off = nullptr;

	if (by_cub)
	{
		if constexpr (std::is_floating_point<T>::value)
			err = cub::DeviceSegmentedSort::StableSortPairs(nullptr, cub_bytes, keys, sorted_keys,
															in, out, n, npairs, no_off, no_off,
															stream);
		else
			err = cub::DeviceSegmentedSort::StableSortKeys(nullptr, cub_bytes, in, out, n, npairs,
														   no_off, no_off, stream);
		if (err)
			return err;
	}
	if (temp == nullptr)
	{
		*temp_bytes = lists_bytes + ends_bytes + cub_bytes;
		return cudaSuccess;
	}
	if (n == 0)
		return cudaSuccess;

	unsigned long long *counters = (unsigned long long *) temp;
	int64_t    *lists = (int64_t *) temp + BATCH_SORT_COUNTERS,
			   *ends = by_cub && !only_cub ? (int64_t *) ((char *) temp + lists_bytes) : nullptr;
	void	   *cub_temp = (char *) temp + lists_bytes + ends_bytes;
	/* CUB's sort of its pairs, ending where ends says (the others empty) */
	const auto	sort_by_cub = [&](const int64_t *cub_ends) -> cudaError_t {
		if constexpr (std::is_floating_point<T>::value)
		{
			batch_fold_keys<T><<<(unsigned) ((n + 255) / 256 < 65536 ? (n + 255) / 256 : 65536),
				256, 0, stream>>>(in, n, keys);
			if (cudaError_t e = cudaGetLastError())
				return e;
			return cub::DeviceSegmentedSort::StableSortPairs(cub_temp, cub_bytes, keys,
															 sorted_keys, in, out, n, npairs,
															 off, cub_ends, stream);
		}
		else
			return cub::DeviceSegmentedSort::StableSortKeys(cub_temp, cub_bytes, in, out, n,
															npairs, off, cub_ends, stream);
	};

	if (only_cub)
		return sort_by_cub(off + 1);
	const unsigned list_blocks = (unsigned) ((npairs + 255) / 256 < 4096 ? (npairs + 255) / 256 : 4096);
	int			dev = 0,
				sms = 0;

	if ((err = cudaGetDevice(&dev)) ||
		(err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev)) ||
		(err = cudaMemsetAsync(counters, 0, BATCH_SORT_COUNTERS * sizeof(*counters), stream)))
		return err;
	batch_sort_list<sizeof(T), false><<<list_blocks, 256, 0, stream>>>(off, npairs, counters,
																		 nullptr, nullptr);
	if ((err = cudaGetLastError()))
		return err;
	batch_sort_list<sizeof(T), true><<<list_blocks, 256, 0, stream>>>(off, npairs, counters,
																		lists, ends);
	if ((err = cudaGetLastError()))
		return err;

	/* the classes the pairs' lengths span */
	const int	lo = batch_sort_class(min_len),
				hi = batch_sort_class(max_len);

	for (int c = lo < 0 ? 0 : lo; c <= hi && c < BATCH_SORT_CLASSES; c++)
	{
		if (batch_sort_by_cub<sizeof(T)>(c))
			continue;
		switch (c)
		{
#define MP_SORT_CLASS(C) 			case C: 				err = batch_sort_class_on_device<T, C>(in, off, npairs, lists, counters, out, sms, 													   stream); 				break
				MP_SORT_CLASS(0);
				MP_SORT_CLASS(1);
				MP_SORT_CLASS(2);
				MP_SORT_CLASS(3);
				MP_SORT_CLASS(4);
				MP_SORT_CLASS(5);
#undef MP_SORT_CLASS
		}
		if (err)
			return err;
	}
	return by_cub ? sort_by_cub(ends) : cudaSuccess;
}

}								/* namespace mp */

#endif							/* MP_BATCH_LAUNCH_CUH */
