/*
 * cpu_array.c
 *		mp_cpu_array: an mp_array_call run by the CPU backend's entry point
 *		that its kind names.
 */
#include <stdlib.h>
#include <unistd.h>
#include <sys/mman.h>

#include "../api/mp_api.h"

/*
 * Large allocations are fresh mappings, and the first write to each of their
 * pages traps into the kernel.  Asking the kernel to fault the pages in ahead
 * does the same work without a trap per page: about half the cost of
 * writing 80 MB of new memory.  Best effort (Linux 5.14 on).
 */
void
mp_prefault(void *p, size_t nbytes)
{
#ifdef MADV_POPULATE_WRITE
	uintptr_t	page,
				start,
				end;

	if (nbytes < ((size_t) 1 << 22))
		return;
	page = (uintptr_t) sysconf(_SC_PAGESIZE);
	start = ((uintptr_t) p + page - 1) & ~(page - 1);
	end = ((uintptr_t) p + nbytes) & ~(page - 1);
	if (end > start)
		(void) madvise((void *) start, end - start, MADV_POPULATE_WRITE);
#else
	(void) p;
	(void) nbytes;
#endif
}

/* The sort, with its scratch (the radix passes write all of it). */
static mp_status
sort_array(mp_array_call *call, mp_poll_fn poll)
{
	size_t		nbytes = (size_t) call->na * mp_type_size(call->type);
	void	   *scratch = malloc(nbytes > 0 ? nbytes : 1);
	mp_status	st;

	if (scratch == NULL)
		return MP_OUT_OF_MEMORY;
	mp_prefault(scratch, nbytes);
	st = mp_cpu_sort(call->type, call->a, call->na, call->out, scratch, poll);
	free(scratch);
	call->nout = call->na;
	return st;
}

mp_status
mp_cpu_array(mp_array_call *call, bool check_sorted, mp_poll_fn poll)
{
	call->nout = 0;
	switch (call->kind)
	{
		case MP_ARRAY_MERGE:
			call->nout = call->na + call->nb;
			return mp_cpu_merge(call->type, call->a, call->na, call->b, call->nb, call->out,
								check_sorted, poll);
		case MP_ARRAY_SETOP:
			return mp_cpu_setop((mp_setop) call->variant, call->type, call->a, call->na,
								call->b, call->nb, call->out, &call->nout, check_sorted, poll);
		case MP_ARRAY_SEARCH:
			call->nout = call->nb;
			return mp_cpu_search((mp_search) call->variant, call->type, call->a, call->na,
								 call->b, call->nb, call->out, check_sorted, poll);
		case MP_ARRAY_SEMIJOIN:
			return mp_cpu_semijoin(call->variant != 0, call->type, call->a, call->na, call->b,
								   call->nb, call->out, &call->nout, check_sorted, poll);
		case MP_ARRAY_JOIN_COUNT:
			return mp_cpu_join_count(call->type, call->a, call->na, call->b, call->nb,
									 &call->nout, check_sorted, poll);
		case MP_ARRAY_SORT:
			return sort_array(call, poll);
		case MP_ARRAY_UNIQUE:
			return mp_cpu_unique(call->type, call->a, call->na, call->out, &call->nout,
								 check_sorted, poll);
	}
	return MP_DEVICE_ERROR;
}
