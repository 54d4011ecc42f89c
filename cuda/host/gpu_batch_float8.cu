/*
 * gpu_batch_float8.cu
 *		batch_as<double> (gpu_batch_as.cuh).
 */
#include "gpu_batch_as.cuh"

namespace mp
{
MP_BATCH_AS(double);
}
