/*
 * gpu_array.cu
 *		mp_gpu_array: an mp_array_call run by the CUDA backend's entry point
 *		that its kind names.
 */
#include "gpu_context.cuh"

extern "C" mp_status
mp_gpu_array(mp_array_call *call, bool check_sorted, mp_poll_fn poll, mp_gpu_timing *timing)
{
	call->nout = 0;
	switch (call->kind)
	{
		case MP_ARRAY_MERGE:
			call->nout = call->na + call->nb;
			return mp_gpu_merge(call->type, call->a, call->na, call->b, call->nb, call->out,
								check_sorted, poll, timing);
		case MP_ARRAY_SETOP:
			return mp_gpu_setop((mp_setop) call->variant, call->type, call->a, call->na,
								call->b, call->nb, call->out, &call->nout, check_sorted, poll,
								timing);
		case MP_ARRAY_SEARCH:
			call->nout = call->nb;
			return mp_gpu_search((mp_search) call->variant, call->type, call->a, call->na,
								 call->b, call->nb, (int32_t *) call->out, check_sorted, poll,
								 timing);
		case MP_ARRAY_SEMIJOIN:
			return mp_gpu_semijoin(call->variant != 0, call->type, call->a, call->na, call->b,
								   call->nb, call->out, &call->nout, check_sorted, poll, timing);
		case MP_ARRAY_JOIN_COUNT:
			return mp_gpu_join(call->type, call->a, call->na, call->b, call->nb,
							   call->max_pairs, &call->nout, check_sorted, poll, timing);
		case MP_ARRAY_SORT:
			call->nout = call->na;
			return mp_gpu_sort(call->type, call->a, call->na, call->out, poll, timing);
		case MP_ARRAY_UNIQUE:
			return mp_gpu_unique(call->type, call->a, call->na, call->out, &call->nout,
								 check_sorted, poll, timing);
	}
	return mp::gpu_cannot("an array call of a kind this backend does not know");
}
