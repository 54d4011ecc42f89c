/*
 * gpu_batch_float4.cu
 *		batch_as<float> (gpu_batch_as.cuh).
 */
#include "gpu_batch_as.cuh"

namespace mp
{
MP_BATCH_AS(float);
}
