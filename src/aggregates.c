/*
 * aggregates.c
 *		gpu_sort_agg(x): the sorted array of a column's non-NULL values;
 *		gpu_sort_agg(value, key): the values in the stable order of their keys;
 *		gpu_merge_agg(a): all elements of sorted arrays, merged.
 *
 * Each keeps its state in buffers of elements in the aggregate's memory
 * context, grown geometrically, so that a row costs an append and nothing
 * is copied per row; gpu_sort_agg(value, key) keeps each key beside its
 * value as mp_order.h's unsigned key.  gpu_merge_agg checks each array as
 * it copies it in.  The final function sorts on the chosen backend,
 * stably: for gpu_merge_agg that is the merge of the arrays, with ties in
 * the order the arrays came; for the two-argument form, the keys' row
 * permutation (the sort node's), by which the values are gathered.
 * Partial states are concatenated by the combine function and travel
 * between parallel workers as bytea, so PostgreSQL's parallel aggregation
 * can use every aggregate.
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/array.h"
#include "utils/memutils.h"

#include "mp_glue.h"
#include "mp_nodes.h"

/*
 * The three aggregates' state: gpu_sort_agg(x), gpu_merge_agg(a) and
 * gpu_sort_agg(value, key).  Each column is a buffer of elements grown
 * geometrically.
 */
typedef enum agg_kind
{
	AGG_SORT,
	AGG_MERGE,
	AGG_SORT_BY_KEY
} agg_kind;

typedef struct agg_column
{
	int64		n;				/* elements held */
	int64		room;			/* elements the buffer has room for */
	char	   *data;			/* in the aggregate's memory context */
} agg_column;

typedef struct mp_agg_state
{
	agg_kind	kind;
	Oid			elemtype;		/* the values' (result's) element type */
	mp_type		type;
	mp_type		keytype;		/* AGG_SORT_BY_KEY: the keys' type */
	agg_column	values;			/* the elements (the values) */
	agg_column	keys;			/* AGG_SORT_BY_KEY: a key a value, as the sort node's
								 * unsigned keys */
	agg_column	unkeyed;		/* AGG_SORT_BY_KEY: the values of NULL keys, in
								 * the order they came */
} mp_agg_state;

/* The serialized form's header; the columns follow, values first. */
typedef struct mp_agg_wire
{
	Oid			elemtype;
	int32		kind;
	int32		keytype;
	int64		nvalues;
	int64		nunkeyed;
} mp_agg_wire;

static const char *
agg_name(const mp_agg_state *state)
{
	return state->kind == AGG_MERGE ? "gpu_merge_agg" : "gpu_sort_agg";
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
agg_state_new(MemoryContext aggcontext, agg_kind kind, Oid elemtype, mp_type keytype)
{
	mp_agg_state *state = MemoryContextAllocZero(aggcontext, sizeof(mp_agg_state));

	state->kind = kind;
	state->elemtype = elemtype;
	state->type = mp_type_of(elemtype);
	state->keytype = keytype;
	return state;
}

/*
 * Room for `more` elements of elsize bytes after those a column holds: the
 * buffer doubles, and stops at the largest array PostgreSQL can return,
 * beyond which the aggregate refuses (54000) rather than collect a result it
 * could not give.
 */
static void *
agg_reserve(const mp_agg_state *state, agg_column *col, size_t elsize,
			MemoryContext aggcontext, int64 more)
{
	int64		want = col->n + more;

	if (want > col->room)
	{
		int64		room = Max(col->room * 2, 1024);

		if (!mp_result_fits(mp_type_size(state->type), want))
			mp_refuse_result(agg_name(state), want);
		room = Max(room, want);
		while (!mp_result_fits(mp_type_size(state->type), room))
			room = want + (room - want) / 2;
		col->data = col->data == NULL
			? MemoryContextAllocHuge(aggcontext, (Size) room * elsize)
			: repalloc_huge(col->data, (Size) room * elsize);
		col->room = room;
	}
	return col->data + (Size) col->n * elsize;
}

/* A value's slot at the end of a column, with room made for it. */
static inline void *
agg_slot(const mp_agg_state *state, agg_column *col, size_t elsize, MemoryContext aggcontext)
{
	return col->n < col->room ? col->data + (Size) col->n * elsize
		: agg_reserve(state, col, elsize, aggcontext, 1);
}

/* A Datum of an element type, stored as its array element. */
static inline void
store_element(mp_type type, Datum d, void *slot)
{
	switch (type)
	{
		case MP_INT4:
			*(int32 *) slot = DatumGetInt32(d);
			break;
		case MP_INT8:
			*(int64 *) slot = DatumGetInt64(d);
			break;
		case MP_FLOAT4:
			*(float4 *) slot = DatumGetFloat4(d);
			break;
		case MP_FLOAT8:
			*(float8 *) slot = DatumGetFloat8(d);
			break;
	}
}

/* A key as its unsigned key (the nodes' folding), the width of its type. */
static inline void
store_key(mp_type type, Datum d, void *slot)
{
	static const mp_key_kind kinds[] = {
		[MP_INT4] = MP_KEY_INT4, [MP_INT8] = MP_KEY_INT8,
		[MP_FLOAT4] = MP_KEY_FLOAT4, [MP_FLOAT8] = MP_KEY_FLOAT8
	};
	uint64		key = mp_fold_key(kinds[type], d);

	if (mp_type_size(type) == 4)
		*(uint32 *) slot = (uint32) key;
	else
		*(uint64 *) slot = key;
}

PG_FUNCTION_INFO_V1(mergepath_sort_agg_transfn);
Datum
mergepath_sort_agg_transfn(PG_FUNCTION_ARGS)
{
	MemoryContext aggcontext = agg_context(fcinfo, "gpu_sort_agg");
	mp_agg_state *state = PG_ARGISNULL(0) ? NULL : (mp_agg_state *) PG_GETARG_POINTER(0);

	if (PG_ARGISNULL(1))
	{
		if (state == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(state);
	}
	if (state == NULL)
		state = agg_state_new(aggcontext, AGG_SORT, get_fn_expr_argtype(fcinfo->flinfo, 1),
							  MP_INT4);
	store_element(state->type, PG_GETARG_DATUM(1),
				  agg_slot(state, &state->values, mp_type_size(state->type), aggcontext));
	state->values.n++;
	PG_RETURN_POINTER(state);
}

/*
 * gpu_sort_agg(value, key): a row with a NULL value is left out, as the
 * one-argument form leaves out NULLs; the values of NULL keys go last, in
 * the order they came, as ORDER BY key puts them.
 */
PG_FUNCTION_INFO_V1(mergepath_sort_by_key_agg_transfn);
Datum
mergepath_sort_by_key_agg_transfn(PG_FUNCTION_ARGS)
{
	MemoryContext aggcontext = agg_context(fcinfo, "gpu_sort_agg");
	mp_agg_state *state = PG_ARGISNULL(0) ? NULL : (mp_agg_state *) PG_GETARG_POINTER(0);
	size_t		elsize;

	if (PG_ARGISNULL(1))
	{
		if (state == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(state);
	}
	if (state == NULL)
		state = agg_state_new(aggcontext, AGG_SORT_BY_KEY,
							  get_fn_expr_argtype(fcinfo->flinfo, 1),
							  mp_type_of(get_fn_expr_argtype(fcinfo->flinfo, 2)));
	elsize = mp_type_size(state->type);
	if (PG_ARGISNULL(2))
	{
		store_element(state->type, PG_GETARG_DATUM(1),
					  agg_slot(state, &state->unkeyed, elsize, aggcontext));
		state->unkeyed.n++;
		PG_RETURN_POINTER(state);
	}
	/* (the two columns grow alike: they hold as many) */
	store_element(state->type, PG_GETARG_DATUM(1),
				  agg_slot(state, &state->values, elsize, aggcontext));
	store_key(state->keytype, PG_GETARG_DATUM(2),
			  agg_slot(state, &state->keys, mp_type_size(state->keytype), aggcontext));
	state->values.n++;
	state->keys.n++;
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
		state = agg_state_new(aggcontext, AGG_MERGE, a.elemtype, MP_INT4);

	slot = agg_reserve(state, &state->values, mp_type_size(a.type), aggcontext, a.n);
	if (mp_check_sorted)
	{
		if (mp_copy_checked(a.type, a.data, a.n, slot) >= 0)
			mp_report_unsorted("gpu_merge_agg", &a, NULL);
	}
	else if (a.n > 0)
		memcpy(slot, a.data, (Size) a.n * mp_type_size(a.type));
	state->values.n += a.n;
	PG_RETURN_POINTER(state);
}

/* gpu_sort_agg(value, key)'s sort as mp_run's work: the keys' permutation. */
typedef struct by_key_run
{
	mp_row_keys keys;
	int64		n;
	uint32	   *perm;
} by_key_run;

static mp_status
by_key_on_cpu(void *ctx, mp_poll_fn poll)
{
	by_key_run *run = ctx;
	void	   *scratch = palloc_extended(mp_cpu_sort_rows_scratch(run->n), MCXT_ALLOC_HUGE);
	mp_status	st = mp_cpu_sort_rows(&run->keys, run->n, run->perm, scratch, poll);

	pfree(scratch);
	return st;
}

static mp_status
by_key_on_gpu(void *ctx, mp_poll_fn poll, mp_gpu_timing *timing)
{
	by_key_run *run = ctx;

	return mp_gpu_sort_rows(&run->keys, run->n, run->perm, poll, timing);
}

/*
 * The values in the stable order of their keys, then those of NULL keys:
 * the keys' permutation from the chosen backend, the values gathered by it.
 */
static ArrayType *
sorted_by_key(const mp_agg_state *state)
{
	int64		n = state->values.n;
	size_t		elsize = mp_type_size(state->type);
	int			bits = (int) mp_type_size(state->keytype) * 8;
	by_key_run	run = {{1, (int) mp_type_size(state->keytype), &bits, state->keys.data}, n};
	ArrayType  *result = mp_new_result(state->elemtype, n + state->unkeyed.n, "gpu_sort_agg");
	char	   *out = ARR_DATA_PTR(result);

	if (n > 0)
	{
		run.perm = palloc_extended((Size) n * sizeof(uint32), MCXT_ALLOC_HUGE);
		(void) mp_run("gpu_sort_agg", MP_OP_SORT_BY_KEY_AGG, n, &run, by_key_on_cpu, by_key_on_gpu, NULL);
		if (elsize == 4)
			for (int64 k = 0; k < n; k++)
				((uint32 *) out)[k] = ((const uint32 *) state->values.data)[run.perm[k]];
		else
			for (int64 k = 0; k < n; k++)
				((uint64 *) out)[k] = ((const uint64 *) state->values.data)[run.perm[k]];
		pfree(run.perm);
	}
	if (state->unkeyed.n > 0)
		memcpy(out + (Size) n * elsize, state->unkeyed.data, (Size) state->unkeyed.n * elsize);
	return result;
}

/* Every aggregate: the elements held, sorted (NULL when nothing came). */
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
	if (state->kind == AGG_SORT_BY_KEY)
		PG_RETURN_ARRAYTYPE_P(sorted_by_key(state));

	all.name = "state";
	all.elemtype = state->elemtype;
	all.type = state->type;
	all.data = state->values.data;
	all.n = state->values.n;
	all.lbound = 1;
	PG_RETURN_ARRAYTYPE_P(mp_sorted_array(agg_name(state),
										state->kind == AGG_MERGE ? MP_OP_MERGE_AGG : MP_OP_SORT_AGG,
										&all));
}

/* The columns of a state, each with its element's size. */
static int
agg_columns(mp_agg_state *state, agg_column **cols, size_t *sizes)
{
	cols[0] = &state->values;
	sizes[0] = mp_type_size(state->type);
	if (state->kind != AGG_SORT_BY_KEY)
		return 1;
	cols[1] = &state->keys;
	sizes[1] = mp_type_size(state->keytype);
	cols[2] = &state->unkeyed;
	sizes[2] = sizes[0];
	return 3;
}

/* Two partial states: each column of the second appended to the first's. */
PG_FUNCTION_INFO_V1(mergepath_agg_combine);
Datum
mergepath_agg_combine(PG_FUNCTION_ARGS)
{
	MemoryContext aggcontext = agg_context(fcinfo, "mergepath_agg_combine");
	mp_agg_state *s1 = PG_ARGISNULL(0) ? NULL : (mp_agg_state *) PG_GETARG_POINTER(0);
	mp_agg_state *s2 = PG_ARGISNULL(1) ? NULL : (mp_agg_state *) PG_GETARG_POINTER(1);
	agg_column *c1[3],
			   *c2[3];
	size_t		sizes[3];
	int			ncols;

	if (s2 == NULL)
	{
		if (s1 == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(s1);
	}
	if (s1 == NULL)
		s1 = agg_state_new(aggcontext, s2->kind, s2->elemtype, s2->keytype);
	ncols = agg_columns(s1, c1, sizes);
	(void) agg_columns(s2, c2, sizes);
	for (int c = 0; c < ncols; c++)
	{
		if (c2[c]->n == 0)
			continue;
		memcpy(agg_reserve(s1, c1[c], sizes[c], aggcontext, c2[c]->n), c2[c]->data,
			   (Size) c2[c]->n * sizes[c]);
		c1[c]->n += c2[c]->n;
	}
	PG_RETURN_POINTER(s1);
}

PG_FUNCTION_INFO_V1(mergepath_agg_serialize);
Datum
mergepath_agg_serialize(PG_FUNCTION_ARGS)
{
	mp_agg_state *state = (mp_agg_state *) PG_GETARG_POINTER(0);
	agg_column *cols[3];
	size_t		sizes[3];
	int			ncols = agg_columns(state, cols, sizes);
	Size		nbytes = sizeof(mp_agg_wire);
	bytea	   *wire;
	mp_agg_wire head;
	char	   *at;

	(void) agg_context(fcinfo, "mergepath_agg_serialize");
	for (int c = 0; c < ncols; c++)
		nbytes += (Size) cols[c]->n * sizes[c];
	if (VARHDRSZ + nbytes > MaxAllocSize)
		mp_refuse_result(agg_name(state), state->values.n + state->unkeyed.n);
	wire = (bytea *) palloc(VARHDRSZ + nbytes);
	SET_VARSIZE(wire, VARHDRSZ + nbytes);
	memset(&head, 0, sizeof(head));
	head.elemtype = state->elemtype;
	head.kind = state->kind;
	head.keytype = state->keytype;
	head.nvalues = state->values.n;
	head.nunkeyed = state->unkeyed.n;
	memcpy(VARDATA(wire), &head, sizeof(head));
	at = VARDATA(wire) + sizeof(head);
	for (int c = 0; c < ncols; c++)
	{
		if (cols[c]->n > 0)
			memcpy(at, cols[c]->data, (Size) cols[c]->n * sizes[c]);
		at += (Size) cols[c]->n * sizes[c];
	}
	PG_RETURN_BYTEA_P(wire);
}

PG_FUNCTION_INFO_V1(mergepath_agg_deserialize);
Datum
mergepath_agg_deserialize(PG_FUNCTION_ARGS)
{
	bytea	   *wire = PG_GETARG_BYTEA_PP(0);
	mp_agg_wire head;
	mp_agg_state *state;
	agg_column *cols[3];
	size_t		sizes[3];
	int			ncols;
	Size		nbytes = sizeof(head);
	const char *at;

	(void) agg_context(fcinfo, "mergepath_agg_deserialize");
	if (VARSIZE_ANY_EXHDR(wire) < sizeof(head))
		elog(ERROR, "mergepath: malformed aggregate state");
	memcpy(&head, VARDATA_ANY(wire), sizeof(head));
	if (head.kind < AGG_SORT || head.kind > AGG_SORT_BY_KEY ||
		head.keytype < MP_INT4 || head.keytype > MP_FLOAT8 ||
		head.nvalues < 0 || head.nunkeyed < 0 || head.nvalues > MaxAllocSize ||
		head.nunkeyed > MaxAllocSize)
		elog(ERROR, "mergepath: malformed aggregate state");
	state = agg_state_new(CurrentMemoryContext, head.kind, head.elemtype, head.keytype);
	ncols = agg_columns(state, cols, sizes);
	cols[0]->n = head.nvalues;
	if (ncols > 1)
	{
		cols[1]->n = head.nvalues;
		cols[2]->n = head.nunkeyed;
	}
	for (int c = 0; c < ncols; c++)
		nbytes += (Size) cols[c]->n * sizes[c];
	if (VARSIZE_ANY_EXHDR(wire) != nbytes)
		elog(ERROR, "mergepath: malformed aggregate state");
	at = VARDATA_ANY(wire) + sizeof(head);
	for (int c = 0; c < ncols; c++)
	{
		Size		len = (Size) cols[c]->n * sizes[c];

		cols[c]->room = cols[c]->n;
		if (len > 0)
		{
			cols[c]->data = palloc(len);
			memcpy(cols[c]->data, at, len);
		}
		at += len;
	}
	PG_RETURN_POINTER(state);
}
