/*
 * gpu_merge.cu
 *		mp_gpu_merge: host arrays in, merged host array out.
 */
#include "gpu_job.cuh"
#include "../kernels/merge/launch.cuh"

using namespace mp;

namespace
{

template <typename T>
mp_status
merge_as(const void *a, int64_t na, const void *b, int64_t nb, void *out,
		 bool check_sorted, mp_poll_fn poll, mp_gpu_timing *timing)
{
	gpu_job<int> job(poll, timing);
	piece<T>	d_a = job.input((const T *) a, na);
	piece<T>	d_b = job.input((const T *) b, nb);
	piece<T>	d_out = job.room<T>(na + nb);
	piece<int64_t> parts = job.room<int64_t>(merge_any_parts_bytes<T>(na, nb) / sizeof(int64_t));

	if (mp_status st = job.open())
		return st;
	if (mp_status st = job.run("merge kernels", [&] {
		return merge_any_on_device(job[d_a], na, job[d_b], nb, job[d_out], job[parts],
								   check_sorted ? job.device_status() : nullptr, gpu_stream());
	}))
		return st;
	if (check_sorted && job.status())
		return MP_UNSORTED;
	return job.stage_out((T *) out, job[d_out], na + nb);
}

}								/* namespace */

extern "C" mp_status
mp_gpu_merge(mp_type type, const void *a, int64_t na, const void *b, int64_t nb,
			 void *out, bool check_sorted, mp_poll_fn poll, mp_gpu_timing *timing)
{
	if (mp_status st = gpu_call_begin(timing))
		return st;
	MP_BY_TYPE(merge_as, type, a, na, b, nb, out, check_sorted, poll, timing);
	return MP_DEVICE_ERROR;
}
