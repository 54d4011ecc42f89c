/*
 * gpu_merge.cu
 *		mp_gpu_merge: host arrays in, merged host array out.
 */
#include "gpu_context.cuh"
#include "../kernels/merge_kernels.cuh"

using namespace mp;

namespace
{

template <typename T>
mp_status
merge_as(const void *a, int64_t na, const void *b, int64_t nb, void *out,
		 bool check_sorted, mp_poll_fn poll, mp_gpu_timing *timing)
{
	cudaStream_t stream = gpu_stream();
	int			*flag_host = (int *) gpu_pinned_scratch();
	pool_carver carve;
	size_t		at_a = carve.take<T>(na);
	size_t		at_b = carve.take<T>(nb);
	size_t		at_out = carve.take<T>(na + nb);
	size_t		at_parts = carve.take<char>(merge_any_parts_bytes<T>(na, nb));
	size_t		at_flag = carve.take<int>(1);
	char	   *pool;

	if (mp_status st = gpu_pool(carve.offset, (void **) &pool))
		return st;

	T		   *d_a = (T *) (pool + at_a);
	T		   *d_b = (T *) (pool + at_b);
	T		   *d_out = (T *) (pool + at_out);
	int			*d_flag = (int *) (pool + at_flag);

	if (mp_status st = upload_pair(pool, at_a, (const T *) a, na, at_b, (const T *) b, nb, poll,
								   timing))
		return st;

	cudaError_t err = run_kernels([&] {
		return merge_any_on_device(d_a, na, d_b, nb, d_out, (int64_t *) (pool + at_parts),
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
	MP_BY_TYPE(merge_as, type, a, na, b, nb, out, check_sorted, poll, timing);
	return MP_DEVICE_ERROR;
}
