/*
 * launch.cuh (search)
 *		Sorted search and the join's expansion from the host: the dense or
 *		the sparse path, and the launches of search/tile.cuh's kernels.
 */
#ifndef MP_SEARCH_LAUNCH_CUH
#define MP_SEARCH_LAUNCH_CUH

#include "tile.cuh"
#include "../merge/launch.cuh"

namespace mp
{

/*
 * Whether a search of nn needles in nh takes the sparse path: only without
 * the check, which reads the whole haystack anyway, and then the merge does
 * that reading best.
 */
inline bool
search_is_sparse(int64_t nh, int64_t nn, bool checked)
{
	return !checked && nh / SEARCH_SPARSE_RATIO >= nn;
}

/* Bytes of partition array that search_on_device needs. */
template <typename T>
inline size_t
search_parts_bytes(int64_t nh, int64_t nn)
{
	return merge_parts_bytes<T, search_shape<T>::NT, search_shape<T>::VT>(nh, nn);
}

/*
 * For each needles[j], out[j] = its lower (UPPER false) or upper bound in
 * hay, or what OUT makes of it.  OUT_FOUND and OUT_MISSING take lower
 * bounds.  unsorted as in merge_on_device.  `sparse` picks the path
 * (search_is_sparse by default).
 */
template <typename T, bool UPPER, int OUT, int NT = search_shape<T>::NT,
		  int VT = search_shape<T>::VT, int MINB = search_shape<T>::MINB>
inline cudaError_t
search_on_device(const T *hay, int64_t nh, const T *needles, int64_t nn,
				 typename search_out_type<OUT>::type *out, const int32_t *base,
				 int64_t *parts, int *unsorted, cudaStream_t stream, int sparse = -1)
{
	static_assert(!UPPER || (OUT != OUT_FOUND && OUT != OUT_MISSING),
				  "membership comes from lower bounds");
	if (nn == 0 && (unsorted == nullptr || nh < 2))
		return cudaSuccess;
	if (sparse < 0)
		sparse = search_is_sparse(nh, nn, unsorted != nullptr);
	if (sparse)
	{
		int64_t		blocks = (nn + SPARSE_NT - 1) / SPARSE_NT;

		if (unsorted != nullptr && blocks < 1024)
			blocks = 1024;		/* enough threads to check the haystack */
		search_sparse<T, UPPER, OUT><<<(unsigned) blocks, SPARSE_NT, 0, stream>>>
			(hay, nh, needles, nn, out, base, unsorted);
		return cudaGetLastError();
	}

	/* lower bounds: A = needles; upper bounds: A = haystack */
	const T    *a = UPPER ? hay : needles;
	const T    *b = UPPER ? needles : hay;
	int64_t		na = UPPER ? nh : nn;
	int64_t		nb = UPPER ? nn : nh;
	int64_t		tiles = merge_num_tiles<T, NT, VT>(na, nb);

	if (cudaError_t err = merge_partition_on_device<T, NT, VT>(a, na, b, nb, parts, stream))
		return err;
	return launch_after_partition(search_tile<T, NT, VT, MINB, !UPPER, OUT>, tiles, NT, 0, stream,
								  a, na, b, nb, (const int64_t *) parts, out, base, unsorted);
}

template <int NT = 256, int VT = 8>
inline cudaError_t
join_expand_on_device(const int64_t *off, const int32_t *lb, int64_t na, int64_t first,
					  int64_t count, int32_t *a_pos, int32_t *b_pos, cudaStream_t stream)
{
	int64_t		blocks = (count + NT * VT - 1) / (NT * VT);

	if (count == 0)
		return cudaSuccess;
	join_expand<NT, VT><<<(unsigned) blocks, NT, 0, stream>>>(off, lb, na, first, count,
															  a_pos, b_pos);
	return cudaGetLastError();
}

}								/* namespace mp */

#endif							/* MP_SEARCH_LAUNCH_CUH */
