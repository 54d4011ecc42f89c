/*
 * launch.cuh (set operations)
 *		A set operation from the host: its scratch, and the launches of
 *		setops/tile.cuh's kernels (the pipelined kernel on sm_90).
 */
#ifndef MP_SETOPS_LAUNCH_CUH
#define MP_SETOPS_LAUNCH_CUH

#include "tile.cuh"
#include "../merge/launch.cuh"

namespace mp
{

template <typename T, int NT = setop_shape<T>::NT, int VT = setop_shape<T>::VT>
inline int64_t
setop_num_tiles(int64_t na, int64_t nb)
{
	return (na + nb + NT * VT - 1) / (NT * VT);
}

/* Device scratch the operation needs: partition array and tile chain. */
template <typename T, int NT = setop_shape<T>::NT, int VT = setop_shape<T>::VT>
inline void
setop_scratch_bytes(int64_t na, int64_t nb, size_t *parts_bytes, size_t *chain_bytes)
{
	int64_t		tiles = setop_num_tiles<T, NT, VT>(na, nb);

	*parts_bytes = (size_t) (tiles + 1) * sizeof(int64_t);
	*chain_bytes = (size_t) (tiles + 1) * setop_chain::STRIDE * sizeof(unsigned long long);
}

/*
 * out[0..*length) = op(a, b), *length on the device.  out has room for
 * capacity elements; unsorted as for merge_on_device.  Stream-ordered.
 */
template <mp_setop OP, typename T, int NT = setop_shape<T>::NT, int VT = setop_shape<T>::VT,
		  int MINB = setop_shape<T>::MINB, int STAGES = setop_shape<T>::STAGES,
		  int BLOCKS = setop_shape<T>::BLOCKS>
inline cudaError_t
setop_on_device(const T *a, int64_t na, const T *b, int64_t nb, T *out, int64_t capacity,
				int64_t *length, int64_t *parts, void *chain_storage, size_t chain_bytes,
				int *unsorted, cudaStream_t stream)
{
	int64_t		tiles = setop_num_tiles<T, NT, VT>(na, nb);
	int64_t		num_parts = tiles + 1;
	setop_chain chain = {(unsigned long long *) chain_storage};
	cudaError_t err;

	if (tiles == 0)
		return cudaMemsetAsync(length, 0, sizeof(int64_t), stream);
	if (na + nb > INT32_MAX ||
		chain_bytes < (size_t) (tiles + 1) * setop_chain::STRIDE * sizeof(unsigned long long))
		return cudaErrorInvalidValue;
	setop_partition<T, NT, VT><<<(unsigned) ((num_parts + 127) / 128), 128, 0, stream>>>
		(a, na, b, nb, parts, num_parts, num_parts > MERGE_BRACKET_FROM, chain);
	if ((err = cudaGetLastError()) != cudaSuccess)
		return err;
	/*
	 * The pipelined kernel where it was built for sm_90 or later (not
	 * where it runs from older PTX, which leaves it empty), and with as many
	 * blocks as fit at once.
	 */
	{
		constexpr size_t smem = setop_pipelined_smem<T, NT, VT, STAGES>();
		auto		kernel = setop_pipelined<T, NT, VT, STAGES, BLOCKS, OP>;
		static int	resident = -1;

		if (resident < 0 && (err = pipelined_resident(kernel, NT + 32, smem, &resident)) !=
			cudaSuccess)
			return err;
		if (resident > 0)
			return launch_after_partition(kernel, tiles < resident ? tiles : resident, NT + 32,
										  smem, stream, a, na, b, nb, (const int64_t *) parts, out,
										  capacity, chain, (int) tiles, length, unsorted);
	}
	return launch_after_partition(setop_tile<T, NT, VT, MINB, OP>, tiles, NT, 0, stream, a, na, b, nb,
								  (const int64_t *) parts, out, capacity, chain, length, unsorted);
}

}								/* namespace mp */

#endif							/* MP_SETOPS_LAUNCH_CUH */
