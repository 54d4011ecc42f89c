/*
 * gpu_sort.cu
 *		mp_gpu_sort and mp_gpu_unique: host arrays in, results out.
 */
#include "gpu_job.cuh"
#include "../kernels/sort/launch.cuh"

using namespace mp;

namespace
{

struct sort_status
{
	int64_t		count;
	int			flags[2];
};

mp_status
refuse_large(int64_t n)
{
	if (n > INT32_MAX)
		return gpu_cannot("the GPU sort takes arrays of at most 2^31 - 1 elements");
	return MP_OK;
}

template <typename T>
mp_status
sort_typed(const T *in, int64_t n, T *out, mp_poll_fn poll, mp_gpu_timing *timing)
{
	size_t		temp_bytes = 0;

	if (mp_status st = refuse_large(n))
		return st;
	MP_CUDA(sort_temp_bytes<T>((int) n, &temp_bytes));

	gpu_job<sort_status> job(poll, timing);
	piece<T>	d_buf = job.input(in, n);
	piece<T>	d_alt = job.room<T>(n);
	piece<char> temp = job.room<char>(temp_bytes);

	if (mp_status st = job.open())
		return st;

	T		   *sorted = nullptr;
	int		   *d_flags = job.device_status()->flags;
	int		   *host_flags = (int *) gpu_pinned_scratch() + 8;

	if (mp_status st = job.run("sort kernels", [&] {
		return sort_on_device<T>(job[d_buf], job[d_alt], (int) n, &sorted, job[temp], temp_bytes,
								 d_flags, host_flags, gpu_stream());
	}))
		return st;
	if (host_flags[0])
		if (mp_status st = job.run("sort kernels", [&] {
			return sort_with_nans<T>(job[d_buf], job[d_alt], (int) n, &sorted, job[temp],
									 temp_bytes, d_flags + 1, host_flags + 1, gpu_stream());
		}))
			return st;
	return job.stage_out(out, sorted, n);
}

template <typename T>
mp_status
unique_typed(const T *x, int64_t n, T *out, int64_t *nout, bool check_sorted, mp_poll_fn poll,
			 mp_gpu_timing *timing)
{
	size_t		temp_bytes = 0;

	if (mp_status st = refuse_large(n))
		return st;
	MP_CUDA(unique_temp_bytes<T>((int) n, &temp_bytes));

	gpu_job<sort_status> job(poll, timing);
	piece<T>	d_x = job.input(x, n);
	piece<uint8_t> flags = job.room<uint8_t>(n);
	piece<T>	d_out = job.room<T>(n);
	piece<char> temp = job.room<char>(temp_bytes);

	if (mp_status st = job.open())
		return st;

	sort_status *d_status = job.device_status();

	if (mp_status st = job.run("unique kernels", [&] {
		return unique_on_device<T>(job[d_x], (int) n, job[flags], job[d_out], &d_status->count,
								   check_sorted ? &d_status->flags[0] : nullptr, job[temp],
								   temp_bytes, gpu_stream());
	}))
		return st;
	if (check_sorted && job.status().flags[0])
		return MP_UNSORTED;
	*nout = job.status().count;
	return job.stage_out(out, job[d_out], *nout);
}

template <typename T>
mp_status
sort_as(const void *in, int64_t n, void *out, mp_poll_fn poll, mp_gpu_timing *timing)
{
	return sort_typed((const T *) in, n, (T *) out, poll, timing);
}

template <typename T>
mp_status
unique_as(const void *x, int64_t n, void *out, int64_t *nout, bool check_sorted,
		  mp_poll_fn poll, mp_gpu_timing *timing)
{
	return unique_typed((const T *) x, n, (T *) out, nout, check_sorted, poll, timing);
}

}								/* namespace */

extern "C" mp_status
mp_gpu_sort(mp_type type, const void *in, int64_t n, void *out, mp_poll_fn poll,
			mp_gpu_timing *timing)
{
	if (mp_status st = gpu_call_begin(timing))
		return st;
	MP_BY_TYPE(sort_as, type, in, n, out, poll, timing);
	return MP_DEVICE_ERROR;
}

extern "C" mp_status
mp_gpu_unique(mp_type type, const void *x, int64_t n, void *out, int64_t *nout,
			  bool check_sorted, mp_poll_fn poll, mp_gpu_timing *timing)
{
	*nout = 0;
	if (mp_status st = gpu_call_begin(timing))
		return st;
	MP_BY_TYPE(unique_as, type, x, n, out, nout, check_sorted, poll, timing);
	return MP_DEVICE_ERROR;
}
