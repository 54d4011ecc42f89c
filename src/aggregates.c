/*
 * aggregates.c
 *		gpu_sort_agg(x): the sorted array of a column's non-NULL values;
 *		gpu_merge_agg(a): all elements of sorted arrays, merged.
 *
 * Both keep their state in one buffer of elements in the aggregate's memory
 * context, grown geometrically, so that a row costs an append and nothing
 * is copied per row.  gpu_merge_agg checks each array as it copies it in.
 * The final function sorts the buffer on the chosen backend, stably: for
 * gpu_merge_agg that is the merge of the arrays, with ties in the order the
 * arrays came.  Partial states are concatenated by the combine function and
 * travel between parallel workers as bytea, so PostgreSQL's parallel
 * aggregation can use both aggregates.
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/array.h"
#include "utils/memutils.h"

#include "mp_glue.h"

typedef struct mp_agg_state
{
	Oid			elemtype;
	mp_type		type;
	bool		merge;			/* gpu_merge_agg, rather than gpu_sort_agg */
	int64		n;				/* elements held */
	int64		room;			/* elements the buffer has room for */
	char	   *data;			/* in the aggregate's memory context */
} mp_agg_state;

/* The serialized form's header; the elements follow. */
typedef struct mp_agg_wire
{
	Oid			elemtype;
	int32		merge;
	int64		n;
} mp_agg_wire;

static const char *
agg_name(const mp_agg_state *state)
{
	return state->merge ? "gpu_merge_agg" : "gpu_sort_agg";
}

static MemoryContext
agg_context(FunctionCallInfo fcinfo, const char *fname)
{
	MemoryContext aggcontext;

	if (!AggCheckCallContext(fcinfo, &aggcontext))
		elog(ERROR, "%s called in a non-aggregate context", fname);
	return aggcontext;
}

static mp_agg_state *
agg_state_new(MemoryContext aggcontext, Oid elemtype, bool merge)
{
	mp_agg_state *state = MemoryContextAllocZero(aggcontext, sizeof(mp_agg_state));

	state->elemtype = elemtype;
	state->type = mp_type_of(elemtype);
	state->merge = merge;
	return state;
}

/*
 * Room for `more` elements after those held: the buffer doubles, and stops
 * at the largest array PostgreSQL can return, beyond which the aggregate
 * refuses (54000) rather than collect a result it could not give.
 */
static void *
agg_reserve(mp_agg_state *state, MemoryContext aggcontext, int64 more)
{
	size_t		elsize = mp_type_size(state->type);
	int64		want = state->n + more;

	if (want > state->room)
	{
		int64		room = Max(state->room * 2, 1024);

		if (!mp_result_fits(elsize, want))
			mp_refuse_result(agg_name(state), want);
		room = Max(room, want);
		while (!mp_result_fits(elsize, room))
			room = want + (room - want) / 2;
		state->data = state->data == NULL
			? MemoryContextAlloc(aggcontext, (Size) room * elsize)
			: repalloc(state->data, (Size) room * elsize);
		state->room = room;
	}
	return state->data + (Size) state->n * elsize;
}

PG_FUNCTION_INFO_V1(mergepath_sort_agg_transfn);
Datum
mergepath_sort_agg_transfn(PG_FUNCTION_ARGS)
{
	MemoryContext aggcontext = agg_context(fcinfo, "gpu_sort_agg");
	mp_agg_state *state = PG_ARGISNULL(0) ? NULL : (mp_agg_state *) PG_GETARG_POINTER(0);
	void	   *slot;

	if (PG_ARGISNULL(1))
	{
		if (state == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(state);
	}
	if (state == NULL)
		state = agg_state_new(aggcontext, get_fn_expr_argtype(fcinfo->flinfo, 1), false);

	slot = state->n < state->room ? state->data + (Size) state->n * mp_type_size(state->type)
		: agg_reserve(state, aggcontext, 1);
	switch (state->type)
	{
		case MP_INT4:
			*(int32 *) slot = PG_GETARG_INT32(1);
			break;
		case MP_INT8:
			*(int64 *) slot = PG_GETARG_INT64(1);
			break;
		case MP_FLOAT4:
			*(float4 *) slot = PG_GETARG_FLOAT4(1);
			break;
		case MP_FLOAT8:
			*(float8 *) slot = PG_GETARG_FLOAT8(1);
			break;
	}
	state->n++;
	PG_RETURN_POINTER(state);
}

PG_FUNCTION_INFO_V1(mergepath_merge_agg_transfn);
Datum
mergepath_merge_agg_transfn(PG_FUNCTION_ARGS)
{
	MemoryContext aggcontext = agg_context(fcinfo, "gpu_merge_agg");
	mp_agg_state *state = PG_ARGISNULL(0) ? NULL : (mp_agg_state *) PG_GETARG_POINTER(0);
	mp_arg		a;
	void	   *slot;

	if (PG_ARGISNULL(1))
	{
		if (state == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(state);
	}
	mp_fetch_arg(fcinfo, 1, "a", &a);
	if (state == NULL)
		state = agg_state_new(aggcontext, a.elemtype, true);

	slot = agg_reserve(state, aggcontext, a.n);
	if (mp_check_sorted)
	{
		if (mp_copy_checked(a.type, a.data, a.n, slot) >= 0)
			mp_report_unsorted("gpu_merge_agg", &a, NULL);
	}
	else if (a.n > 0)
		memcpy(slot, a.data, (Size) a.n * mp_type_size(a.type));
	state->n += a.n;
	PG_RETURN_POINTER(state);
}

/* Both aggregates: the elements held, sorted (NULL when nothing came). */
PG_FUNCTION_INFO_V1(mergepath_agg_finalfn);
Datum
mergepath_agg_finalfn(PG_FUNCTION_ARGS)
{
	mp_agg_state *state;
	mp_arg		all;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	state = (mp_agg_state *) PG_GETARG_POINTER(0);
	(void) agg_context(fcinfo, agg_name(state));

	all.name = "state";
	all.elemtype = state->elemtype;
	all.type = state->type;
	all.data = state->data;
	all.n = state->n;
	all.lbound = 1;
	PG_RETURN_ARRAYTYPE_P(mp_sorted_array(agg_name(state), &all));
}

/* Two partial states: the second's elements appended to the first's. */
PG_FUNCTION_INFO_V1(mergepath_agg_combine);
Datum
mergepath_agg_combine(PG_FUNCTION_ARGS)
{
	MemoryContext aggcontext = agg_context(fcinfo, "mergepath_agg_combine");
	mp_agg_state *s1 = PG_ARGISNULL(0) ? NULL : (mp_agg_state *) PG_GETARG_POINTER(0);
	mp_agg_state *s2 = PG_ARGISNULL(1) ? NULL : (mp_agg_state *) PG_GETARG_POINTER(1);

	if (s2 == NULL)
	{
		if (s1 == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(s1);
	}
	if (s1 == NULL)
		s1 = agg_state_new(aggcontext, s2->elemtype, s2->merge);
	if (s2->n > 0)
	{
		void	   *slot = agg_reserve(s1, aggcontext, s2->n);

		memcpy(slot, s2->data, (Size) s2->n * mp_type_size(s2->type));
		s1->n += s2->n;
	}
	PG_RETURN_POINTER(s1);
}

PG_FUNCTION_INFO_V1(mergepath_agg_serialize);
Datum
mergepath_agg_serialize(PG_FUNCTION_ARGS)
{
	mp_agg_state *state = (mp_agg_state *) PG_GETARG_POINTER(0);
	Size		nbytes = (Size) state->n * mp_type_size(state->type);
	bytea	   *wire;
	mp_agg_wire head;

	(void) agg_context(fcinfo, "mergepath_agg_serialize");
	if (VARHDRSZ + sizeof(head) + nbytes > MaxAllocSize)
		mp_refuse_result(agg_name(state), state->n);
	wire = (bytea *) palloc(VARHDRSZ + sizeof(head) + nbytes);
	SET_VARSIZE(wire, VARHDRSZ + sizeof(head) + nbytes);
	head.elemtype = state->elemtype;
	head.merge = state->merge;
	head.n = state->n;
	memcpy(VARDATA(wire), &head, sizeof(head));
	if (nbytes > 0)
		memcpy(VARDATA(wire) + sizeof(head), state->data, nbytes);
	PG_RETURN_BYTEA_P(wire);
}

PG_FUNCTION_INFO_V1(mergepath_agg_deserialize);
Datum
mergepath_agg_deserialize(PG_FUNCTION_ARGS)
{
	bytea	   *wire = PG_GETARG_BYTEA_PP(0);
	mp_agg_wire head;
	mp_agg_state *state;
	Size		nbytes;

	(void) agg_context(fcinfo, "mergepath_agg_deserialize");
	if (VARSIZE_ANY_EXHDR(wire) < sizeof(head))
		elog(ERROR, "mergepath: malformed aggregate state");
	memcpy(&head, VARDATA_ANY(wire), sizeof(head));
	state = agg_state_new(CurrentMemoryContext, head.elemtype, head.merge != 0);
	nbytes = (Size) head.n * mp_type_size(state->type);
	if (head.n < 0 || VARSIZE_ANY_EXHDR(wire) != sizeof(head) + nbytes)
		elog(ERROR, "mergepath: malformed aggregate state");
	if (head.n > 0)
	{
		state->data = palloc(nbytes);
		memcpy(state->data, VARDATA_ANY(wire) + sizeof(head), nbytes);
		state->n = state->room = head.n;
	}
	PG_RETURN_POINTER(state);
}
