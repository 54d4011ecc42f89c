/*
 * launch.cuh (k-way merge)
 *		The k-way merge from the host: the plan of the rounds' tiles, and the
 *		rounds launched.
 */
#ifndef MP_KWAY_LAUNCH_CUH
#define MP_KWAY_LAUNCH_CUH

#include "tile.cuh"

namespace mp
{

/*
 * Tiles of the pairs of every round, for the host: tables gets each round's
 * (npairs + 1)-entry first-tile table one after another, and the function
 * returns the rounds (ceil(log2 k)) and the most tiles of any round.
 */
template <typename T>
inline int
kway_plan(const int64_t *bounds, int64_t k, int64_t *tables, int64_t *max_tiles)
{
	int			rounds = 0;

	*max_tiles = 0;
	for (int64_t width = 1; width < k; width *= 2, rounds++)
	{
		int64_t		npairs = (k + 2 * width - 1) / (2 * width);
		int64_t		tiles = 0;

		for (int64_t p = 0; p < npairs; p++)
		{
			int64_t		left = 2 * p * width,
						end = left + 2 * width < k ? left + 2 * width : k;

			tables[p] = tiles;
			tiles += (bounds[end] - bounds[left] + kway_shape<T>::NV - 1) / kway_shape<T>::NV;
		}
		tables[npairs] = tiles;
		tables += npairs + 1;
		*max_tiles = tiles > *max_tiles ? tiles : *max_tiles;
	}
	return rounds;
}

/*
 * The rounds, ping-ponging between buf and alt (and idx, idx_alt with IDX):
 * *result (and *result_idx) get the buffer that holds the merge.  d_tables
 * is kway_plan's tables on the device; parts has room for max_tiles.
 */
template <typename T, bool IDX>
inline cudaError_t
kway_merge_on_device(T *buf, T *alt, uint32_t *idx, uint32_t *idx_alt,
					 const int64_t *d_bounds, int64_t k, const int64_t *h_tables,
					 const int64_t *d_tables, int rounds, int64_t *parts, T **result,
					 uint32_t **result_idx, cudaStream_t stream)
{
	int64_t		width = 1;
	int64_t		offset = 0;
	const uint32_t *from_idx = nullptr;

	for (int round = 0; round < rounds; round++, width *= 2)
	{
		int64_t		npairs = (k + 2 * width - 1) / (2 * width);
		kway_round	r = {d_bounds, k, width, d_tables + offset, npairs, h_tables[offset + npairs]};

		offset += npairs + 1;
		if (r.ntiles > 0)
		{
			kway_partition<T><<<(unsigned) ((r.ntiles + 127) / 128), 128, 0, stream>>>
				(buf, r, parts);
			kway_merge_tile<T, IDX><<<(unsigned) r.ntiles, kway_shape<T>::NT, 0, stream>>>
				(buf, from_idx, alt, idx, r, parts);
			if (cudaError_t err = cudaGetLastError())
				return err;
		}
		T		   *t = buf;

		buf = alt;
		alt = t;
		if (IDX)
		{
			uint32_t   *u = idx;

			from_idx = idx;
			idx = idx_alt;
			idx_alt = u;
		}
	}
	*result = buf;
	*result_idx = IDX ? (uint32_t *) from_idx : nullptr;
	return cudaSuccess;
}

}								/* namespace mp */

#endif							/* MP_KWAY_LAUNCH_CUH */
