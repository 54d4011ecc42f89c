/*
 * gpu_batch_int4.cu
 *		batch_as<int32_t> (gpu_batch_as.cuh).
 */
#include "gpu_batch_as.cuh"

namespace mp
{
MP_BATCH_AS(int32_t);
}
