/*
 * gpu_setops.cu
 *		mp_gpu_setop: host arrays in, the result of a multiset operation out.
 *
 * The result's length is found on the device, in the same pass that writes
 * it; only that many elements come back.
 */
#include "gpu_job.cuh"
#include "../kernels/setops/launch.cuh"

using namespace mp;

namespace
{

/* What comes back besides the result: the flag and the length. */
struct setop_status
{
	int64_t		length;
	int			unsorted;
};

template <mp_setop OP, typename T>
mp_status
setop_typed(const T *a, int64_t na, const T *b, int64_t nb, T *out, int64_t *nout,
			bool check_sorted, mp_poll_fn poll, mp_gpu_timing *timing)
{
	int64_t		capacity = mp_setop_capacity(OP, na, nb);
	size_t		parts_bytes,
				state_bytes;

	if (na + nb > INT32_MAX)
		return gpu_cannot("the GPU set operations take at most 2^31 - 1 elements in all");
	setop_scratch_bytes<T>(na, nb, &parts_bytes, &state_bytes);

	gpu_job<setop_status> job(poll, timing);
	piece<T>	d_a = job.input(a, na);
	piece<T>	d_b = job.input(b, nb);
	piece<T>	d_out = job.room<T>(capacity);
	piece<char> parts = job.room<char>(parts_bytes);
	piece<char> chain = job.room<char>(state_bytes);

	if (mp_status st = job.open())
		return st;

	setop_status *d_status = job.device_status();

	if (mp_status st = job.run("set operation kernels", [&] {
		return setop_on_device<OP>(job[d_a], na, job[d_b], nb, job[d_out], capacity,
								   &d_status->length, (int64_t *) job[parts], job[chain],
								   state_bytes, check_sorted ? &d_status->unsorted : nullptr,
								   gpu_stream());
	}))
		return st;
	if (check_sorted && job.status().unsorted)
		return MP_UNSORTED;

	*nout = job.status().length;
	return job.stage_out(out, job[d_out], *nout);
}

template <typename T>
mp_status
setop_as(mp_setop op, const void *a, int64_t na, const void *b, int64_t nb, void *out,
		 int64_t *nout, bool check_sorted, mp_poll_fn poll, mp_gpu_timing *timing)
{
	const T    *ta = (const T *) a;
	const T    *tb = (const T *) b;
	T		   *tout = (T *) out;

	switch (op)
	{
		case MP_INTERSECT:
			return setop_typed<MP_INTERSECT>(ta, na, tb, nb, tout, nout, check_sorted, poll, timing);
		case MP_UNION:
			return setop_typed<MP_UNION>(ta, na, tb, nb, tout, nout, check_sorted, poll, timing);
		case MP_EXCEPT:
			return setop_typed<MP_EXCEPT>(ta, na, tb, nb, tout, nout, check_sorted, poll, timing);
		case MP_SYMDIFF:
			return setop_typed<MP_SYMDIFF>(ta, na, tb, nb, tout, nout, check_sorted, poll, timing);
	}
	return MP_DEVICE_ERROR;
}

}								/* namespace */

extern "C" mp_status
mp_gpu_setop(mp_setop op, mp_type type, const void *a, int64_t na, const void *b, int64_t nb,
			 void *out, int64_t *nout, bool check_sorted, mp_poll_fn poll,
			 mp_gpu_timing *timing)
{
	*nout = 0;
	if (mp_status st = gpu_call_begin(timing))
		return st;
	MP_BY_TYPE(setop_as, type, op, a, na, b, nb, out, nout, check_sorted, poll, timing);
	return MP_DEVICE_ERROR;
}
