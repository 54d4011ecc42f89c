/*
 * gpu_sort.cu
 *		mp_gpu_sort and mp_gpu_unique: host arrays in, results out.
 */
#include "gpu_context.cuh"
#include "../kernels/sort_kernels.cuh"

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

	pool_carver carve;
	size_t		at_buf = carve.take<T>(n);
	size_t		at_alt = carve.take<T>(n);
	size_t		at_temp = carve.take<char>(temp_bytes);
	size_t		at_status = carve.take<sort_status>(1);
	char	   *pool;

	if (mp_status st = gpu_pool(carve.offset, (void **) &pool))
		return st;
	host_to_device copy = {pool + at_buf, in, n * sizeof(T)};

	if (mp_status st = stage_in(&copy, 1, poll, timing))
		return st;

	sort_status *d_status = (sort_status *) (pool + at_status);
	T		   *buf = (T *) (pool + at_buf),
			   *alt = (T *) (pool + at_alt),
			   *sorted = nullptr;
	int		   *host_flags = (int *) gpu_pinned_scratch() + 8;
	cudaError_t err = run_kernels([&] {
		return sort_on_device<T>(buf, alt, (int) n, &sorted, pool + at_temp, temp_bytes,
								 d_status->flags, host_flags, gpu_stream());
	}, d_status, sizeof(sort_status), timing);

	if (!err && host_flags[0])
		err = run_kernels([&] {
			return sort_with_nans<T>(buf, alt, (int) n, &sorted, pool + at_temp, temp_bytes,
									 d_status->flags + 1, host_flags + 1, gpu_stream());
		}, d_status, sizeof(sort_status), timing);
	if (err)
		return cuda_failure(err, "sort kernels");
	return stage_out(out, sorted, n * sizeof(T), poll, timing);
}

template <typename T>
mp_status
unique_typed(const T *x, int64_t n, T *out, int64_t *nout, bool check_sorted, mp_poll_fn poll,
			 mp_gpu_timing *timing)
{
	sort_status *status_host = (sort_status *) gpu_pinned_scratch();
	size_t		temp_bytes = 0;

	if (mp_status st = refuse_large(n))
		return st;
	MP_CUDA(unique_temp_bytes<T>((int) n, &temp_bytes));

	pool_carver carve;
	size_t		at_x = carve.take<T>(n);
	size_t		at_flags = carve.take<uint8_t>(n);
	size_t		at_out = carve.take<T>(n);
	size_t		at_temp = carve.take<char>(temp_bytes);
	size_t		at_status = carve.take<sort_status>(1);
	char	   *pool;

	if (mp_status st = gpu_pool(carve.offset, (void **) &pool))
		return st;
	host_to_device copy = {pool + at_x, x, n * sizeof(T)};

	if (mp_status st = stage_in(&copy, 1, poll, timing))
		return st;

	sort_status *d_status = (sort_status *) (pool + at_status);
	cudaError_t err = run_kernels([&] {
		return unique_on_device<T>((const T *) (pool + at_x), (int) n,
								   (uint8_t *) (pool + at_flags), (T *) (pool + at_out),
								   &d_status->count,
								   check_sorted ? &d_status->flags[0] : nullptr,
								   pool + at_temp, temp_bytes, gpu_stream());
	}, d_status, sizeof(sort_status), timing);

	if (err)
		return cuda_failure(err, "unique kernels");
	if (check_sorted && status_host->flags[0])
		return MP_UNSORTED;
	*nout = status_host->count;
	return stage_out(out, pool + at_out, *nout * sizeof(T), poll, timing);
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
	*timing = mp_gpu_timing();
	if (mp_status st = mp_gpu_init())
		return st;
	MP_BY_TYPE(sort_as, type, in, n, out, poll, timing);
	return MP_DEVICE_ERROR;
}

extern "C" mp_status
mp_gpu_unique(mp_type type, const void *x, int64_t n, void *out, int64_t *nout,
			  bool check_sorted, mp_poll_fn poll, mp_gpu_timing *timing)
{
	*timing = mp_gpu_timing();
	*nout = 0;
	if (mp_status st = mp_gpu_init())
		return st;
	MP_BY_TYPE(unique_as, type, x, n, out, nout, check_sorted, poll, timing);
	return MP_DEVICE_ERROR;
}
