/*
 * gpu_batch_int8.cu
 *		batch_as<int64_t> (gpu_batch_as.cuh).
 */
#include "gpu_batch_as.cuh"

namespace mp
{
MP_BATCH_AS(int64_t);
}
