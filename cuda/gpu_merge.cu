/*
 * gpu_merge.cu
 *		mp_gpu_merge: host arrays in, merged host array out.
 */
#include "gpu_context.cuh"
#include "merge_kernels.cuh"

using namespace mp;

namespace
{

template <typename T>
mp_status
merge_typed(const T *a, int64_t na, const T *b, int64_t nb, T *out,
			bool check_sorted, mp_poll_fn poll, mp_gpu_timing *timing)
{
	cudaStream_t stream = gpu_stream();
	int			*flag_host = (int *) gpu_pinned_scratch();
	pool_carver carve;
	size_t		at_a = carve.take<T>(na);
	size_t		at_b = carve.take<T>(nb);
	size_t		at_out = carve.take<T>(na + nb);
	size_t		at_parts = carve.take<char>(merge_parts_bytes<T>(na, nb));
	size_t		at_flag = carve.take<int>(1);
	char	   *pool;

	if (mp_status st = gpu_pool(carve.offset, (void **) &pool))
		return st;

	T		   *d_a = (T *) (pool + at_a);
	T		   *d_b = (T *) (pool + at_b);
	T		   *d_out = (T *) (pool + at_out);
	int			*d_flag = (int *) (pool + at_flag);
	host_to_device in[2] = {{d_a, a, na * sizeof(T)}, {d_b, b, nb * sizeof(T)}};

	if (mp_status st = stage_in(in, 2, poll, timing))
		return st;

	cudaError_t err = run_kernels([&] {
		return merge_on_device(d_a, na, d_b, nb, d_out, (int64_t *) (pool + at_parts),
							   check_sorted ? d_flag : nullptr, stream);
	}, d_flag, sizeof(int), timing);

	if (err)
		return cuda_failure(err, "merge kernels");
	if (check_sorted && *flag_host)
		return MP_UNSORTED;

	return stage_out(out, d_out, (na + nb) * sizeof(T), poll, timing);
}

}								/* namespace */

extern "C" mp_status
mp_gpu_merge(mp_type type, const void *a, int64_t na, const void *b, int64_t nb,
			 void *out, bool check_sorted, mp_poll_fn poll, mp_gpu_timing *timing)
{
	*timing = mp_gpu_timing();
	if (mp_status st = mp_gpu_init())
		return st;
	switch (type)
	{
		case MP_INT4:
			return merge_typed((const int32_t *) a, na, (const int32_t *) b, nb,
							   (int32_t *) out, check_sorted, poll, timing);
		case MP_INT8:
			return merge_typed((const int64_t *) a, na, (const int64_t *) b, nb,
							   (int64_t *) out, check_sorted, poll, timing);
		case MP_FLOAT4:
			return merge_typed((const float *) a, na, (const float *) b, nb,
							   (float *) out, check_sorted, poll, timing);
		case MP_FLOAT8:
			return merge_typed((const double *) a, na, (const double *) b, nb,
							   (double *) out, check_sorted, poll, timing);
	}
	return MP_DEVICE_ERROR;
}
