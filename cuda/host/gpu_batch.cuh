/*
 * gpu_batch.cuh
 *		What mp_gpu_batch (gpu_batch.cu) shares with its runs of a batch
 *		whose pairs lie back to back, batch_as<T> (gpu_batch_as.cuh): one
 *		element type a translation unit (gpu_batch_int4.cu, _int8, _float4,
 *		_float8), so that the batch kernels' many instantiations compile side
 *		by side.
 */
#ifndef GPU_BATCH_CUH
#define GPU_BATCH_CUH

#include <cstdint>
#include <cstdlib>

#include "../../src/api/mp_api.h"

namespace mp
{

/* Offsets from 0 of a side that starts at off[0]: off itself when it does. */
struct rebased
{
	const int64_t *off;
	int64_t    *own = nullptr;

	rebased(const int64_t *from, int64_t npairs) : off(from)
	{
		if (from != nullptr && from[0] != 0)
		{
			own = (int64_t *) malloc((npairs + 1) * sizeof(int64_t));
			if (own != nullptr)
				for (int64_t p = 0; p <= npairs; p++)
					own[p] = from[p] - from[0];
			off = own;
		}
	}
	~rebased() { free(own); }
};

/*
 * A batch whose pairs lie back to back, its offsets from 0 (rebased):
 * the pairs up, one launch sequence, the results and their offsets down.
 */
template <typename T>
mp_status	batch_as(mp_batch_call *call, bool check_sorted, mp_poll_fn poll,
					 mp_gpu_timing *timing);

}								/* namespace mp */

#endif							/* GPU_BATCH_CUH */
