/*
 * launch.cuh (merge)
 *		The merge from the host: partition sizes and the launches of
 *		merge/tile.cuh's kernels in the shape for the merge's size.
 */
#ifndef MP_MERGE_LAUNCH_CUH
#define MP_MERGE_LAUNCH_CUH

#include "tile.cuh"

namespace mp
{

/* Tile boundaries from which the partition searches in two levels. */
#define MERGE_BRACKET_FROM 4096
/*
 * Tile boundaries up to which each has a warp of its own in the partition:
 * at 1M a side (700-1100 boundaries) that took the partition from
 * 0.011-0.012 ms to 0.008-0.009 on the H200; at 4000 (10M int32) it was
 * slower than a lane each (0.018 against 0.012-0.013).
 */
#define MERGE_WIDE_UPTO 2048

template <typename T, int NT = merge_shape<T>::NT, int VT = merge_shape<T>::VT>
inline int64_t
merge_num_tiles(int64_t na, int64_t nb)
{
	return (na + nb + NT * VT - 1) / (NT * VT);
}

/* Bytes of partition array that merge_on_device needs. */
template <typename T, int NT = merge_shape<T>::NT, int VT = merge_shape<T>::VT>
inline size_t
merge_parts_bytes(int64_t na, int64_t nb)
{
	return (size_t) (merge_num_tiles<T, NT, VT>(na, nb) + 1) * sizeof(int64_t);
}

/* Phase 1 alone: the split of every tile boundary into parts. */
template <typename T, int NT = merge_shape<T>::NT, int VT = merge_shape<T>::VT>
inline cudaError_t
merge_partition_on_device(const T *a, int64_t na, const T *b, int64_t nb, int64_t *parts,
						  cudaStream_t stream)
{
	int64_t		num_parts = merge_num_tiles<T, NT, VT>(na, nb) + 1;

	if (num_parts <= MERGE_WIDE_UPTO)
		merge_partition_wide<T, NT, VT><<<(unsigned) ((num_parts * 32 + 127) / 128), 128, 0, stream>>>
			(a, na, b, nb, parts, num_parts);
	else
		merge_partition<T, NT, VT><<<(unsigned) ((num_parts + 127) / 128), 128, 0, stream>>>
			(a, na, b, nb, parts, num_parts, num_parts > MERGE_BRACKET_FROM);
	return cudaGetLastError();
}

/*
 * out[0..na+nb) = stable merge of a and b.  unsorted may be null (no check);
 * otherwise *unsorted must be zero on entry and is set to 1 when an input is
 * not ascending.  With own_splits, the tiles search their own boundaries
 * (merge_tile_self) and parts is not used.
 */
template <typename T, int NT = merge_shape<T>::NT, int VT = merge_shape<T>::VT,
		  int MINB = merge_shape<T>::MINB>
inline cudaError_t
merge_on_device(const T *a, int64_t na, const T *b, int64_t nb, T *out,
				int64_t *parts, int *unsorted, cudaStream_t stream, bool own_splits = false)
{
	int64_t		tiles = merge_num_tiles<T, NT, VT>(na, nb);

	if (tiles == 0)
		return cudaSuccess;
	if (own_splits)
	{
		merge_tile_self<T, NT, VT, MINB><<<(unsigned) tiles, NT, 0, stream>>>(a, na, b, nb, out,
																			 unsorted);
		return cudaGetLastError();
	}
	if (cudaError_t err = merge_partition_on_device<T, NT, VT>(a, na, b, nb, parts, stream))
		return err;
	return launch_after_partition(merge_tile<T, NT, VT, MINB>, tiles, NT, 0, stream,
								  a, na, b, nb, (const int64_t *) parts, out, unsorted);
}


/* Bytes of partition array that merge_any_on_device needs (none for small merges). */
template <typename T>
inline size_t
merge_any_parts_bytes(int64_t na, int64_t nb)
{
	return na + nb <= MERGE_SMALL_UPTO ? 0 : merge_parts_bytes<T>(na, nb);
}

/*
 * merge_on_device in the shape for its size (see merge_small_shape); merges
 * that small search their tiles' boundaries in the tiles.  On the H200 at
 * 1M a side that is 0.012-0.016 ms against 0.014-0.018 with the partition
 * kernel; from 3M a side (tiles of 128 x 39) the two are level for 4-byte
 * keys, and at 10M the partition kernel is faster (test/bench/NOTES.md,
 * "Small merges without a partition kernel").
 */
template <typename T>
inline cudaError_t
merge_any_on_device(const T *a, int64_t na, const T *b, int64_t nb, T *out,
					int64_t *parts, int *unsorted, cudaStream_t stream)
{
	typedef merge_small_shape<T> S;

	if (na + nb <= MERGE_SMALL_UPTO)
		return merge_on_device<T, S::NT, S::VT, S::MINB>(a, na, b, nb, out, parts, unsorted, stream,
														 true);
	return merge_on_device<T>(a, na, b, nb, out, parts, unsorted, stream);
}

}								/* namespace mp */

#endif							/* MP_MERGE_LAUNCH_CUH */
