/*
 * absent.c
 *		The CUDA backend's API in a build made without nvcc: no GPU, ever.
 */
#include <string.h>

#include "../src/api/mp_api.h"

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

void
mp_gpu_trim(size_t keep_bytes)
{
}

void
mp_gpu_release(void)
{
}

void
mp_gpu_set_device(int ordinal)
{
	(void) ordinal;
}

mp_status
mp_gpu_describe(mp_gpu_device *dev)
{
	memset(dev, 0, sizeof(*dev));
	return MP_NO_DEVICE;
}

mp_status
mp_gpu_probe(mp_gpu_device *dev)
{
	memset(dev, 0, sizeof(*dev));
	return MP_NO_DEVICE;
}

mp_status
mp_gpu_array(mp_array_call *call, bool check_sorted, mp_poll_fn poll, mp_gpu_timing *timing)
{
	(void) check_sorted, (void) poll;
	call->nout = 0;
	memset(timing, 0, sizeof(*timing));
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

mp_status
mp_gpu_search(mp_search kind, mp_type type, const void *hay, int64_t nh, const void *needles,
			  int64_t nn, int32_t *out, bool check_sorted, mp_poll_fn poll,
			  mp_gpu_timing *timing)
{
	(void) kind, (void) type, (void) hay, (void) nh, (void) needles, (void) nn, (void) out;
	(void) check_sorted, (void) poll;
	memset(timing, 0, sizeof(*timing));
	return MP_NO_DEVICE;
}

mp_status
mp_gpu_semijoin(bool anti, mp_type type, const void *a, int64_t na, const void *b, int64_t nb,
				void *out, int64_t *nout, bool check_sorted, mp_poll_fn poll,
				mp_gpu_timing *timing)
{
	(void) anti, (void) type, (void) a, (void) na, (void) b, (void) nb, (void) out;
	(void) check_sorted, (void) poll;
	*nout = 0;
	memset(timing, 0, sizeof(*timing));
	return MP_NO_DEVICE;
}

mp_status
mp_gpu_join(mp_type type, const void *a, int64_t na, const void *b, int64_t nb,
			int64_t max_pairs, int64_t *npairs, bool check_sorted, mp_poll_fn poll,
			mp_gpu_timing *timing)
{
	(void) type, (void) a, (void) na, (void) b, (void) nb, (void) max_pairs;
	(void) check_sorted, (void) poll;
	*npairs = 0;
	memset(timing, 0, sizeof(*timing));
	return MP_NO_DEVICE;
}

mp_status
mp_gpu_join_fetch(int64_t first, int64_t count, int32_t *a_pos, int32_t *b_pos,
				  mp_poll_fn poll, mp_gpu_timing *timing)
{
	(void) first, (void) count, (void) a_pos, (void) b_pos, (void) poll, (void) timing;
	return MP_NO_DEVICE;
}

mp_status
mp_gpu_sort(mp_type type, const void *in, int64_t n, void *out, mp_poll_fn poll,
			mp_gpu_timing *timing)
{
	(void) type, (void) in, (void) n, (void) out, (void) poll;
	memset(timing, 0, sizeof(*timing));
	return MP_NO_DEVICE;
}

mp_status
mp_gpu_unique(mp_type type, const void *x, int64_t n, void *out, int64_t *nout,
			  bool check_sorted, mp_poll_fn poll, mp_gpu_timing *timing)
{
	(void) type, (void) x, (void) n, (void) out, (void) check_sorted, (void) poll;
	*nout = 0;
	memset(timing, 0, sizeof(*timing));
	return MP_NO_DEVICE;
}

mp_status
mp_gpu_batch(mp_batch_call *call, bool check_sorted, mp_poll_fn poll, mp_gpu_timing *timing)
{
	(void) check_sorted, (void) poll;
	call->bad_pair = -1;
	memset(timing, 0, sizeof(*timing));
	return MP_NO_DEVICE;
}

mp_status
mp_gpu_sort_rows(const mp_row_keys *keys, int64_t n, uint32_t *perm, mp_poll_fn poll,
				 mp_gpu_timing *timing)
{
	(void) keys, (void) n, (void) perm, (void) poll;
	memset(timing, 0, sizeof(*timing));
	return MP_NO_DEVICE;
}

const char *
mp_gpu_last_error(void)
{
	return no_cuda;
}

mp_status
mp_gpu_merge_runs(mp_type type, const void *in, const int64_t *bounds, int64_t k, void *out,
				  mp_poll_fn poll, mp_gpu_timing *timing)
{
	(void) type, (void) in, (void) bounds, (void) k, (void) out, (void) poll;
	memset(timing, 0, sizeof(*timing));
	return MP_NO_DEVICE;
}

mp_status
mp_gpu_merge_key_runs(int word_bytes, const void *keys, const int64_t *bounds, int64_t k,
					  uint32_t *perm, mp_poll_fn poll, mp_gpu_timing *timing)
{
	(void) word_bytes, (void) keys, (void) bounds, (void) k, (void) perm, (void) poll;
	memset(timing, 0, sizeof(*timing));
	return MP_NO_DEVICE;
}

mp_status
mp_gpu_store_create(int nwords, int word_bytes, const int *bits, size_t max_bytes,
					mp_gpu_store **store)
{
	(void) nwords, (void) word_bytes, (void) bits, (void) max_bytes;
	*store = NULL;
	return MP_NO_DEVICE;
}

mp_status
mp_gpu_store_reserve(mp_gpu_store *store, int64_t rows, size_t bytes)
{
	(void) store, (void) rows, (void) bytes;
	return MP_NO_DEVICE;
}

mp_status
mp_gpu_store_append(mp_gpu_store *store, const void *tuples, size_t bytes,
					const uint64_t *offsets, const void *keys, int64_t key_stride, int64_t rows,
					mp_poll_fn poll, mp_gpu_timing *timing)
{
	(void) store, (void) tuples, (void) bytes, (void) offsets, (void) keys;
	(void) key_stride, (void) rows, (void) poll, (void) timing;
	return MP_NO_DEVICE;
}

mp_status
mp_gpu_store_sort(mp_gpu_store *store, mp_poll_fn poll, mp_gpu_timing *timing)
{
	(void) store, (void) poll, (void) timing;
	return MP_NO_DEVICE;
}

mp_status
mp_gpu_store_fetch(mp_gpu_store *store, int64_t first, int64_t max_rows, size_t max_bytes,
				   void *host, int64_t *rows, size_t *bytes, mp_poll_fn poll,
				   mp_gpu_timing *timing)
{
	(void) store, (void) first, (void) max_rows, (void) max_bytes, (void) host;
	(void) poll, (void) timing;
	*rows = 0;
	*bytes = 0;
	return MP_NO_DEVICE;
}

int64_t
mp_gpu_store_rows(const mp_gpu_store *store)
{
	(void) store;
	return 0;
}

size_t
mp_gpu_store_device_bytes(const mp_gpu_store *store)
{
	(void) store;
	return 0;
}

void
mp_gpu_store_free(mp_gpu_store *store)
{
	(void) store;
}
