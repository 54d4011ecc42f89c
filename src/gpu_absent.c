/*
 * gpu_absent.c
 *		The CUDA backend's API in a build made without nvcc: no GPU, ever.
 */
#include <string.h>

#include "mergepath.h"

static const char no_cuda[] = "mergepath was built without CUDA (no nvcc was found)";

mp_status
mp_gpu_init(void)
{
	return MP_NO_DEVICE;
}

void
mp_gpu_shutdown(void)
{
}

mp_status
mp_gpu_describe(mp_gpu_device *dev)
{
	memset(dev, 0, sizeof(*dev));
	return MP_NO_DEVICE;
}

mp_status
mp_gpu_merge(mp_type type, const void *a, int64_t na, const void *b, int64_t nb,
			 void *out, bool check_sorted, mp_poll_fn poll, mp_gpu_timing *timing)
{
	(void) type, (void) a, (void) na, (void) b, (void) nb, (void) out;
	(void) check_sorted, (void) poll;
	memset(timing, 0, sizeof(*timing));
	return MP_NO_DEVICE;
}

mp_status
mp_gpu_setop(mp_setop op, mp_type type, const void *a, int64_t na, const void *b, int64_t nb,
			 void *out, int64_t *nout, bool check_sorted, mp_poll_fn poll,
			 mp_gpu_timing *timing)
{
	(void) op, (void) type, (void) a, (void) na, (void) b, (void) nb, (void) out;
	(void) check_sorted, (void) poll;
	*nout = 0;
	memset(timing, 0, sizeof(*timing));
	return MP_NO_DEVICE;
}

const char *
mp_gpu_last_error(void)
{
	return no_cuda;
}
