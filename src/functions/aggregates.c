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
 * it copies it in and notes where it ends: its state is a series of sorted
 * runs.  The final function puts the elements in order on the chosen
 * backend, stably: the sort of what came unsorted; the k-way merge of
 * sorted runs (or, where the benchmark finds it faster for that many runs,
 * the sort of their concatenation: mergepath.merge_runs), ties in the order
 * the runs came; for the two-argument form, the keys' row permutation (the
 * sort node's, or the k-way merge's), by which the values are gathered.
 *
 * The state is a bytea to SQL, held as an expanded object (a header and
 * the columns in a memory context of its own, under the aggregate's): the
 * transition functions add to it in place, and PostgreSQL hands it on
 * without copying.  Where it leaves the process (a parallel worker's
 * partial state on its way to the leader, a Citus worker's partial state on
 * its way to the coordinator) it is flattened into one bytea; a plain type
 * rather than internal is what lets Citus split the aggregates into partial
 * states, which it refuses for internal ones.  Where the leader's work would
 * run on the CPU, a partial state is flattened in order (sorted or merged
 * there, in the worker), so the leader's combined state is one sorted run a
 * worker and the final function merges them; where it would run on the GPU,
 * the states travel as they are and the leader sorts everything
 * (worker_orders).  States combined in one process are concatenated, runs
 * and all, and stay sorted only when both were.  A flat state that comes
 * from SQL is checked before it is used.
 */
#include "postgres.h"

#include "access/parallel.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "utils/array.h"
#include "utils/expandeddatum.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/syscache.h"

#include "mp_arrays.h"
#include "../api/mp_measured.h"
#include "../nodes/mp_nodes.h"

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
	MemoryContext cxt;			/* where its columns are */
	agg_kind	kind;
	Oid			elemtype;		/* the values' (result's) element type */
	mp_type		type;
	mp_type		keytype;		/* AGG_SORT_BY_KEY: the keys' type */
	bool		sorted;			/* the values (for AGG_SORT_BY_KEY, the keys) are
								 * the ascending runs that `runs` bounds */
	agg_column	values;			/* the elements (the values) */
	agg_column	keys;			/* AGG_SORT_BY_KEY: a key a value, as the sort node's
								 * unsigned keys */
	agg_column	unkeyed;		/* AGG_SORT_BY_KEY: the values of NULL keys, in
								 * the order they came */
	agg_column	runs;			/* while sorted: where each non-empty run ends, as
								 * int64 */
} mp_agg_state;

/*
 * The flat form's header; the columns follow, values first.  Where the
 * state leaves the process in order, its sorted column (the values; the
 * keys of gpu_sort_agg(value, key)) goes as the differences of successive
 * elements, zigzag varints (as protocol buffers write signed integers), when
 * that is shorter: a shard's sorted run of 625K int4 in a range of a
 * million takes a byte an element instead of four, and a Citus coordinator
 * receives it as hex text (two characters a byte) and decodes it alone.
 */
typedef struct mp_agg_wire
{
	Oid			elemtype;
	int32		kind;
	int32		keytype;
	int32		sorted;			/* WIRE_* */
	int64		nvalues;
	int64		nunkeyed;
} mp_agg_wire;

#define WIRE_UNSORTED 0
#define WIRE_SORTED 1			/* one sorted run, each column as it is */
#define WIRE_SORTED_DELTAS 2	/* one sorted run, its sorted column as varints */

static const char *
agg_name(const mp_agg_state *state)
{
	return state->kind == AGG_MERGE ? "gpu_merge_agg" : "gpu_sort_agg";
}

static mp_op
agg_op(const mp_agg_state *state)
{
	return state->kind == AGG_MERGE ? MP_OP_MERGE_AGG
		: state->kind == AGG_SORT ? MP_OP_SORT_AGG : MP_OP_SORT_BY_KEY_AGG;
}

/*
 * The aggregate's memory context.  The support functions take a bytea, so
 * SQL can call them directly: outside an aggregate they refuse.
 */
static MemoryContext
agg_context(FunctionCallInfo fcinfo)
{
	MemoryContext aggcontext;

	if (!AggCheckCallContext(fcinfo, &aggcontext))
	{
		char	   *fname = get_func_name(fcinfo->flinfo->fn_oid);

		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s is a support function of mergepath's aggregates, called only by them",
						fname ? fname : "this function")));
	}
	return aggcontext;
}

/*
 * A state as an expanded object: the header, the state, and its flat form's
 * body (after the varlena header) between PostgreSQL's asking for its size
 * and for the form itself: the size of a coded column is known only once
 * the column is in order.  The state only grows, so its counts tell whether
 * the body is still its own.
 */
typedef struct agg_flat
{
	char	   *body;			/* in the state's memory context, or NULL */
	Size		size;
	int64		nvalues;		/* the state's counts when it was made */
	int64		nunkeyed;
} agg_flat;

typedef struct agg_eoh
{
	ExpandedObjectHeader hdr;
	mp_agg_state state;
	agg_flat	flat;
} agg_eoh;

static Size agg_flat_size(ExpandedObjectHeader *eohptr);
static void agg_flatten(ExpandedObjectHeader *eohptr, void *result, Size allocated_size);

static const ExpandedObjectMethods agg_eoh_methods = {agg_flat_size, agg_flatten};

static void
agg_state_init(mp_agg_state *state, MemoryContext cxt, agg_kind kind, Oid elemtype,
			   mp_type keytype, bool sorted)
{
	memset(state, 0, sizeof(*state));
	state->cxt = cxt;
	state->kind = kind;
	state->elemtype = elemtype;
	state->type = mp_type_of(elemtype);
	state->keytype = keytype;
	state->sorted = sorted;
}

/*
 * A new state, in an expanded object whose memory context is a child of the
 * aggregate's: PostgreSQL (and Citus) keep such a transition value without
 * copying it.
 */
static mp_agg_state *
agg_state_new(MemoryContext aggcontext, agg_kind kind, Oid elemtype, mp_type keytype,
			  bool sorted)
{
	MemoryContext cxt = AllocSetContextCreate(aggcontext, "mergepath aggregate state",
											  ALLOCSET_DEFAULT_SIZES);
	agg_eoh    *eoh = MemoryContextAllocZero(cxt, sizeof(agg_eoh));

	EOH_init_header(&eoh->hdr, &agg_eoh_methods, cxt);
	agg_state_init(&eoh->state, cxt, kind, elemtype, keytype, sorted);
	return &eoh->state;
}

/* The state as the transition value: its expanded object, read-write. */
static Datum
agg_datum(mp_agg_state *state)
{
	agg_eoh    *eoh = (agg_eoh *) ((char *) state - offsetof(agg_eoh, state));

	return EOHPGetRWDatum(&eoh->hdr);
}

/*
 * Room for `more` elements of elsize bytes after those a column holds: the
 * buffer doubles, and stops at the largest array PostgreSQL can return,
 * beyond which the aggregate refuses (54000) rather than collect a result it
 * could not give.
 */
static void *
agg_reserve(const mp_agg_state *state, agg_column *col, size_t elsize, int64 more)
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
			? MemoryContextAllocHuge(state->cxt, (Size) room * elsize)
			: repalloc_huge(col->data, (Size) room * elsize);
		col->room = room;
	}
	return col->data + (Size) col->n * elsize;
}

/* A value's slot at the end of a column, with room made for it. */
static inline void *
agg_slot(const mp_agg_state *state, agg_column *col, size_t elsize)
{
	return col->n < col->room ? col->data + (Size) col->n * elsize
		: agg_reserve(state, col, elsize, 1);
}

/* A sorted run's end, noted. */
static void
append_run_end(mp_agg_state *state, int64 end)
{
	*(int64 *) agg_slot(state, &state->runs, sizeof(int64)) = end;
	state->runs.n++;
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

/* Which of agg_columns' columns is in order in a sorted state. */
static inline int
sorted_col(int ncols)
{
	return ncols > 1 ? 1 : 0;
}

/* The malformed state's error: one that came from SQL, not from mergepath. */
static void
malformed(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
			 errmsg("mergepath: malformed aggregate state")));
}

/*
 * The sorted column's deltas (WIRE_SORTED_DELTAS): each element's
 * difference from the one before (the first's from 0), in the element's
 * width with wrap-around, zigzag-coded and written 7 bits a byte, low bits
 * first, the high bit set on every byte but the last.  Exact for every bit
 * pattern, floats' too; short where successive elements are close.
 */
static inline uint64
delta_of(const char *col, size_t elsize, int64 i, uint64 *prev)
{
	uint64		cur;
	uint64		z;

	if (elsize == 4)
	{
		uint32		c;
		int32		d;

		memcpy(&c, col + (Size) i * 4, 4);
		d = (int32) (c - (uint32) *prev);
		z = (uint32) (((uint32) d << 1) ^ (uint32) (d >> 31));
		cur = c;
	}
	else
	{
		int64		d;

		memcpy(&cur, col + (Size) i * 8, 8);
		d = (int64) (cur - *prev);
		z = ((uint64) d << 1) ^ (uint64) (d >> 63);
	}
	*prev = cur;
	return z;
}

/*
 * n elements coded into out, or only counted where out is NULL; returns the
 * coded length.
 */
static Size
deltas_put(const char *col, size_t elsize, int64 n, char *out)
{
	uint64		prev = 0;
	Size		len = 0;

	for (int64 i = 0; i < n; i++)
	{
		uint64		z = delta_of(col, elsize, i, &prev);

		do
		{
			if (out)
				out[len] = (char) ((z & 0x7f) | (z >= 0x80 ? 0x80 : 0));
			len++;
			z >>= 7;
		} while (z != 0);
	}
	return len;
}

/*
 * n elements read back from exactly len coded bytes into col; false where
 * the bytes are not such a coding (too few or too many, a varint longer than
 * the element's width allows).
 */
static bool
deltas_get(const char *in, Size len, size_t elsize, int64 n, char *col)
{
	const uint8 *at = (const uint8 *) in;
	const uint8 *end = at + len;
	uint64		prev = 0;
	int			bits = (int) elsize * 8;

	for (int64 i = 0; i < n; i++)
	{
		uint64		z = 0;
		int			shift = 0;
		uint64		d;

		for (;;)
		{
			uint8		b;

			if (at == end || shift >= bits)
				return false;
			b = *at++;
			z |= (uint64) (b & 0x7f) << shift;
			shift += 7;
			if (!(b & 0x80))
				break;
		}
		if (bits == 32 && z > PG_UINT32_MAX)
			return false;
		d = (z >> 1) ^ (~(z & 1) + 1);
		prev += d;
		if (elsize == 4)
		{
			uint32		c = (uint32) prev;

			memcpy(col + (Size) i * 4, &c, 4);
		}
		else
			memcpy(col + (Size) i * 8, &prev, 8);
	}
	return at == end;
}

/*
 * A flat state's header, every field checked, since a bytea can come from
 * anywhere (each element takes a byte at least, so the counts are bounded
 * by the length).
 */
static void
wire_head(const bytea *wire, mp_agg_wire *head)
{
	Size		len = VARSIZE_ANY_EXHDR(wire);

	if (len < sizeof(*head))
		malformed();
	memcpy(head, VARDATA_ANY(wire), sizeof(*head));
	if (head->kind < AGG_SORT || head->kind > AGG_SORT_BY_KEY ||
		head->keytype < MP_INT4 || head->keytype > MP_FLOAT8 ||
		(head->elemtype != INT4OID && head->elemtype != INT8OID &&
		 head->elemtype != FLOAT4OID && head->elemtype != FLOAT8OID) ||
		head->nvalues < 0 || head->nunkeyed < 0 || (Size) head->nvalues > len ||
		(Size) head->nunkeyed > len || (head->kind != AGG_SORT_BY_KEY && head->nunkeyed != 0) ||
		head->sorted < WIRE_UNSORTED || head->sorted > WIRE_SORTED_DELTAS)
		malformed();
}

/*
 * Whether column c of a state (agg_columns' numbering), n elements from col,
 * is in order: the values in their type's order, or the folded keys of
 * gpu_sort_agg(value, key) as unsigned words.
 */
static bool
column_in_order(const mp_agg_state *state, int c, const char *col, int64 n)
{
	if (c == 0)
		return mp_first_unsorted(state->type, col, n) < 0;
	if (mp_type_size(state->keytype) == 4)
	{
		for (int64 i = 1; i < n; i++)
			if (((const uint32 *) col)[i] < ((const uint32 *) col)[i - 1])
				return false;
	}
	else
		for (int64 i = 1; i < n; i++)
			if (((const uint64 *) col)[i] < ((const uint64 *) col)[i - 1])
				return false;
	return true;
}

/*
 * A flat state's columns appended to a state of its kind and types, each
 * read straight into its place, and its run after the state's while both
 * are sorted (as the combine function does with two states).
 */
static void
agg_append_wire(mp_agg_state *state, const mp_agg_wire *head, const bytea *wire)
{
	agg_column *cols[3];
	size_t		sizes[3];
	int			ncols = agg_columns(state, cols, sizes);
	int64		counts[3] = {head->nvalues, head->nvalues, head->nunkeyed};
	int			coded = head->sorted == WIRE_SORTED_DELTAS ? sorted_col(ncols) : -1;
	Size		nbytes = sizeof(*head);
	int64		before = state->values.n;
	const char *at;

	/* the coded column takes what the others leave, a byte an element at least */
	for (int c = 0; c < ncols; c++)
		if (c != coded)
			nbytes += (Size) counts[c] * sizes[c];
	if (coded >= 0 ? VARSIZE_ANY_EXHDR(wire) < nbytes + (Size) counts[coded]
		: VARSIZE_ANY_EXHDR(wire) != nbytes)
		malformed();
	at = VARDATA_ANY(wire) + sizeof(*head);
	for (int c = 0; c < ncols; c++)
	{
		Size		len = (Size) counts[c] * sizes[c];
		Size		wire_len = c != coded ? len : VARSIZE_ANY_EXHDR(wire) - nbytes;

		if (counts[c] > 0)
		{
			void	   *slot = agg_reserve(state, cols[c], sizes[c], counts[c]);

			if (c != coded)
				memcpy(slot, at, len);
			else if (!deltas_get(at, wire_len, sizes[c], counts[c], slot))
				malformed();
			/* a state that says it is in order is, as an input would be checked */
			if (c == sorted_col(ncols) && head->sorted != WIRE_UNSORTED && mp_check_sorted &&
				!column_in_order(state, c, slot, counts[c]))
				malformed();
			cols[c]->n += counts[c];
		}
		at += wire_len;
	}
	if (head->nvalues == 0)
		return;
	state->sorted = (state->sorted || before == 0) && head->sorted != WIRE_UNSORTED;
	if (!state->sorted)
		state->runs.n = 0;
	else
		append_run_end(state, state->values.n);
}

/*
 * A flat state read back: a new expanded object in aggcontext, or, with
 * aggcontext NULL, a state to read in the current memory context.
 */
static mp_agg_state *
agg_decode(const bytea *wire, MemoryContext aggcontext)
{
	mp_agg_wire head;
	mp_agg_state *state;

	wire_head(wire, &head);
	if (aggcontext)
		state = agg_state_new(aggcontext, head.kind, head.elemtype, head.keytype,
							  head.sorted != WIRE_UNSORTED);
	else
	{
		state = palloc(sizeof(mp_agg_state));
		agg_state_init(state, CurrentMemoryContext, head.kind, head.elemtype, head.keytype,
					   head.sorted != WIRE_UNSORTED);
	}
	agg_append_wire(state, &head, wire);
	return state;
}

/* A writable copy of a state that is not this call's to change. */
static mp_agg_state *
agg_copy(const mp_agg_state *from, MemoryContext aggcontext)
{
	mp_agg_state *state = agg_state_new(aggcontext, from->kind, from->elemtype, from->keytype,
										from->sorted);
	agg_column *to_cols[3];
	agg_column *from_cols[4];
	size_t		sizes[4];
	int			ncols = agg_columns(state, to_cols, sizes);

	(void) agg_columns((mp_agg_state *) from, from_cols, sizes);
	to_cols[ncols] = &state->runs;
	from_cols[ncols] = (agg_column *) &from->runs;
	sizes[ncols] = sizeof(int64);
	for (int c = 0; c <= ncols; c++)
		if (from_cols[c]->n > 0)
		{
			memcpy(agg_reserve(state, to_cols[c], sizes[c], from_cols[c]->n), from_cols[c]->data,
				   (Size) from_cols[c]->n * sizes[c]);
			to_cols[c]->n = from_cols[c]->n;
		}
	return state;
}

/* Whether a Datum is one of our expanded objects. */
static bool
is_expanded_state(Datum d)
{
	return VARATT_IS_EXTERNAL_EXPANDED(DatumGetPointer(d)) &&
		DatumGetEOHP(d)->eoh_methods == &agg_eoh_methods;
}

/*
 * The state in argument argno, or NULL: one of ours (an expanded object) as
 * it is, unless writable is asked for and it is read-only (then a copy); a
 * flat one read back, into a new expanded object when writable.  Its kind
 * and types must be those the caller expects (kind -1: any).
 */
static mp_agg_state *
agg_arg(FunctionCallInfo fcinfo, int argno, MemoryContext aggcontext, bool writable)
{
	Datum		d;
	mp_agg_state *state;

	if (PG_ARGISNULL(argno))
		return NULL;
	d = PG_GETARG_DATUM(argno);
	if (is_expanded_state(d))
	{
		state = &((agg_eoh *) DatumGetEOHP(d))->state;
		if (writable && !VARATT_IS_EXTERNAL_EXPANDED_RW(DatumGetPointer(d)))
			state = agg_copy(state, aggcontext);
		return state;
	}
	return agg_decode(PG_GETARG_BYTEA_PP(argno), writable ? aggcontext : NULL);
}

/*
 * The argument types functions declare, for calls with no expression to
 * take them from: Citus's partial aggregates call the transition and final
 * functions through an FmgrInfo made afresh for each row, so fn_extra
 * keeps nothing from one row to the next, and a catalog lookup a row
 * showed in a shard query's profile beside the transition itself.  A few
 * functions' entries, kept until pg_proc changes.
 */
#define DECLARED_SLOTS 8
typedef struct declared_types
{
	Oid			fn;
	Oid			types[3];
} declared_types;
static declared_types declared[DECLARED_SLOTS];
static int	declared_next;
static bool declared_watched;

static void
declared_forget(Datum arg, int cacheid, uint32 hashvalue)
{
	memset(declared, 0, sizeof(declared));
}

static void
declared_types_of(Oid fn, Oid *types)
{
	HeapTuple	tp;
	Form_pg_proc proc;
	declared_types *slot;

	for (int i = 0; i < DECLARED_SLOTS; i++)
		if (declared[i].fn == fn)
		{
			memcpy(types, declared[i].types, sizeof(declared[i].types));
			return;
		}
	if (!declared_watched)
	{
		CacheRegisterSyscacheCallback(PROCOID, declared_forget, (Datum) 0);
		declared_watched = true;
	}
	tp = SearchSysCache1(PROCOID, ObjectIdGetDatum(fn));
	if (!HeapTupleIsValid(tp))
		elog(ERROR, "cache lookup failed for function %u", fn);
	proc = (Form_pg_proc) GETSTRUCT(tp);
	slot = &declared[declared_next];
	declared_next = (declared_next + 1) % DECLARED_SLOTS;
	memset(slot->types, 0, sizeof(slot->types));
	for (int i = 0; i < 3 && i < proc->pronargs; i++)
		slot->types[i] = proc->proargtypes.values[i];
	slot->fn = fn;
	ReleaseSysCache(tp);
	memcpy(types, slot->types, sizeof(slot->types));
}

/*
 * The type of argument argno: as the call's expression has it, or, where
 * there is none, as the function declares it.  Cached in fn_extra for the
 * calls that share the FmgrInfo.
 */
static Oid
arg_type(FunctionCallInfo fcinfo, int argno)
{
	Oid		   *types = fcinfo->flinfo->fn_extra;

	if (types == NULL)
	{
		types = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, 3 * sizeof(Oid));
		if (fcinfo->flinfo->fn_expr != NULL)
			for (int i = 0; i < 3 && i < fcinfo->nargs; i++)
				types[i] = get_fn_expr_argtype(fcinfo->flinfo, i);
		if (!OidIsValid(types[argno]))
			declared_types_of(fcinfo->flinfo->fn_oid, types);
		fcinfo->flinfo->fn_extra = types;
	}
	if (!OidIsValid(types[argno]) || IsPolymorphicType(types[argno]))
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("mergepath: could not determine the aggregate's input types")));
	return types[argno];
}

/* A state given to a function of the aggregate of this kind and these types. */
static void
agg_expect(const mp_agg_state *state, agg_kind kind, Oid elemtype, mp_type keytype)
{
	if (state->kind != kind || state->elemtype != elemtype ||
		(kind == AGG_SORT_BY_KEY && state->keytype != keytype))
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("mergepath: the aggregate state is of another aggregate or type")));
}

PG_FUNCTION_INFO_V1(mergepath_sort_agg_transfn);
Datum
mergepath_sort_agg_transfn(PG_FUNCTION_ARGS)
{
	MemoryContext aggcontext = agg_context(fcinfo);
	mp_agg_state *state = agg_arg(fcinfo, 0, aggcontext, true);
	Oid			elemtype = arg_type(fcinfo, 1);

	if (state == NULL)
	{
		if (PG_ARGISNULL(1))
			PG_RETURN_NULL();
		state = agg_state_new(aggcontext, AGG_SORT, elemtype, MP_INT4, false);
	}
	agg_expect(state, AGG_SORT, elemtype, MP_INT4);
	if (!PG_ARGISNULL(1))
	{
		store_element(state->type, PG_GETARG_DATUM(1),
					  agg_slot(state, &state->values, mp_type_size(state->type)));
		state->values.n++;
	}
	PG_RETURN_DATUM(agg_datum(state));
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
	MemoryContext aggcontext = agg_context(fcinfo);
	mp_agg_state *state = agg_arg(fcinfo, 0, aggcontext, true);
	Oid			elemtype = arg_type(fcinfo, 1);
	mp_type		keytype = mp_type_of(arg_type(fcinfo, 2));
	size_t		elsize;

	if (state == NULL)
	{
		if (PG_ARGISNULL(1))
			PG_RETURN_NULL();
		state = agg_state_new(aggcontext, AGG_SORT_BY_KEY, elemtype, keytype, false);
	}
	agg_expect(state, AGG_SORT_BY_KEY, elemtype, keytype);
	if (PG_ARGISNULL(1))
		PG_RETURN_DATUM(agg_datum(state));
	elsize = mp_type_size(state->type);
	if (PG_ARGISNULL(2))
	{
		store_element(state->type, PG_GETARG_DATUM(1),
					  agg_slot(state, &state->unkeyed, elsize));
		state->unkeyed.n++;
		PG_RETURN_DATUM(agg_datum(state));
	}
	/* (the two columns grow alike: they hold as many) */
	store_element(state->type, PG_GETARG_DATUM(1), agg_slot(state, &state->values, elsize));
	store_key(state->keytype, PG_GETARG_DATUM(2),
			  agg_slot(state, &state->keys, mp_type_size(state->keytype)));
	state->values.n++;
	state->keys.n++;
	PG_RETURN_DATUM(agg_datum(state));
}

PG_FUNCTION_INFO_V1(mergepath_merge_agg_transfn);
Datum
mergepath_merge_agg_transfn(PG_FUNCTION_ARGS)
{
	MemoryContext aggcontext = agg_context(fcinfo);
	mp_agg_state *state = agg_arg(fcinfo, 0, aggcontext, true);
	mp_arg		a;
	void	   *slot;

	if (PG_ARGISNULL(1))
	{
		if (state == NULL)
			PG_RETURN_NULL();
		PG_RETURN_DATUM(agg_datum(state));
	}
	mp_fetch_arg(fcinfo, 1, "gpu_merge_agg", "a", &a);
	if (state == NULL)
		state = agg_state_new(aggcontext, AGG_MERGE, a.elemtype, MP_INT4, true);
	agg_expect(state, AGG_MERGE, a.elemtype, MP_INT4);

	slot = agg_reserve(state, &state->values, mp_type_size(a.type), a.n);
	if (mp_check_sorted)
	{
		if (mp_copy_checked(a.type, a.data, a.n, slot) >= 0)
			mp_report_unsorted("gpu_merge_agg", &a, NULL);
	}
	else if (a.n > 0)
		memcpy(slot, a.data, (Size) a.n * mp_type_size(a.type));
	state->values.n += a.n;
	if (a.n > 0)
		append_run_end(state, state->values.n);
	PG_RETURN_DATUM(agg_datum(state));
}

/*
 * Whether the k-way merge of k sorted runs of elsize-byte elements beats
 * sorting their concatenation on a backend.  The merge costs log2(k) levels
 * (rounds on the GPU) an element, the radix sort a pass a byte of the key
 * whatever k is: the crossovers in k are measured (MP_RUNS_MERGE_MAX_*,
 * api/mp_measured.h).
 */
static bool
merge_beats_sort(bool gpu, size_t elsize, int64 k)
{
	if (mp_merge_runs != MP_RUNS_AUTO)
		return mp_merge_runs == MP_RUNS_MERGE;
	if (gpu)
		return k <= (elsize == 4 ? MP_RUNS_MERGE_MAX_GPU_4 : MP_RUNS_MERGE_MAX_GPU_8);
	return k <= (elsize == 4 ? MP_RUNS_MERGE_MAX_CPU_4 : MP_RUNS_MERGE_MAX_CPU_8);
}

/*
 * A state's elements in order, as mp_run's work: values into out; for
 * AGG_SORT_BY_KEY, the keys' permutation into perm.
 */
typedef struct agg_order
{
	const mp_agg_state *state;
	void	   *out;
	uint32	   *perm;
} agg_order;

/* The runs' bounds as the backends take them: 0, then each run's end. */
static int64 *
run_bounds(const mp_agg_state *state)
{
	int64		k = state->runs.n;
	int64	   *bounds = palloc((k + 1) * sizeof(int64));

	bounds[0] = 0;
	memcpy(bounds + 1, state->runs.data, k * sizeof(int64));
	return bounds;
}

/* A state's elements put in order on one backend. */
static mp_status
order_work(void *ctx, bool gpu, mp_poll_fn poll, mp_gpu_timing *timing)
{
	agg_order  *run = ctx;
	const mp_agg_state *state = run->state;
	int64		n = state->values.n;
	int64		k = state->runs.n;
	int			bits = (int) mp_type_size(state->keytype) * 8;
	mp_row_keys keys = {1, (int) mp_type_size(state->keytype), &bits, state->keys.data};
	void	   *scratch;
	mp_status	st;

	if (state->sorted && merge_beats_sort(gpu, mp_type_size(state->type), k))
	{
		int64	   *bounds = run_bounds(state);

		if (state->kind == AGG_SORT_BY_KEY)
			st = gpu ? mp_gpu_merge_key_runs(keys.word_bytes, keys.words, bounds, k, run->perm,
											 poll, timing)
				: mp_cpu_merge_key_runs(keys.word_bytes, keys.words, bounds, k, run->perm, poll);
		else
			st = gpu ? mp_gpu_merge_runs(state->type, state->values.data, bounds, k, run->out,
										 poll, timing)
				: mp_cpu_merge_runs(state->type, state->values.data, bounds, k, run->out, poll);
		pfree(bounds);
		return st;
	}
	if (state->kind == AGG_SORT_BY_KEY)
	{
		if (gpu)
			return mp_gpu_sort_rows(&keys, n, run->perm, poll, timing);
		scratch = palloc_extended(mp_cpu_sort_rows_scratch(n), MCXT_ALLOC_HUGE);
		st = mp_cpu_sort_rows(&keys, n, run->perm, scratch, poll);
	}
	else
	{
		if (gpu)
			return mp_gpu_sort(state->type, state->values.data, n, run->out, poll, timing);
		scratch = palloc_extended((Size) n * mp_type_size(state->type), MCXT_ALLOC_HUGE);
		st = mp_cpu_sort(state->type, state->values.data, n, run->out, scratch, poll);
	}
	pfree(scratch);
	return st;
}

/* A column gathered by a permutation. */
static void
gather(const void *in, size_t elsize, const uint32 *perm, int64 n, void *out)
{
	if (elsize == 4)
		for (int64 j = 0; j < n; j++)
			((uint32 *) out)[j] = ((const uint32 *) in)[perm[j]];
	else
		for (int64 j = 0; j < n; j++)
			((uint64 *) out)[j] = ((const uint64 *) in)[perm[j]];
}

/*
 * The state's values (those with keys, for AGG_SORT_BY_KEY) in order into
 * values_out, and for AGG_SORT_BY_KEY their keys into keys_out unless it is
 * NULL: copied when they are one sorted run already, else sorted or merged
 * on the chosen backend.
 */
static void
agg_put_in_order(const mp_agg_state *state, void *values_out, void *keys_out)
{
	int64		n = state->values.n;
	size_t		elsize = mp_type_size(state->type);
	size_t		keysize = mp_type_size(state->keytype);
	agg_order	run = {state, values_out, NULL};

	if (n == 0)
		return;
	if (state->sorted && state->runs.n <= 1)
	{
		memcpy(values_out, state->values.data, (Size) n * elsize);
		if (keys_out)
			memcpy(keys_out, state->keys.data, (Size) n * keysize);
		return;
	}
	if (state->kind == AGG_SORT_BY_KEY)
		run.perm = palloc_extended((Size) n * sizeof(uint32), MCXT_ALLOC_HUGE);
	(void) mp_run(agg_name(state), agg_op(state), n, &run, order_work, NULL);
	if (run.perm)
	{
		gather(state->values.data, elsize, run.perm, n, values_out);
		if (keys_out)
			gather(state->keys.data, keysize, run.perm, n, keys_out);
		pfree(run.perm);
	}
}

/*
 * Every aggregate: the elements held, in order (NULL when nothing came);
 * for gpu_sort_agg(value, key), then the values of NULL keys.  The state is
 * only read.
 */
PG_FUNCTION_INFO_V1(mergepath_agg_finalfn);
Datum
mergepath_agg_finalfn(PG_FUNCTION_ARGS)
{
	mp_agg_state *state;
	int64		n;
	ArrayType  *result;
	size_t		elsize;
	Oid			input,
				elemtype;

	(void) agg_context(fcinfo);
	state = agg_arg(fcinfo, 0, NULL, false);
	if (state == NULL)
		PG_RETURN_NULL();
	/*
	 * the aggregate's input: an array (gpu_merge_agg), or the values' type,
	 * and the keys' (a caller may pass more NULL arguments than the function
	 * declares, as Citus does: the state's kind says which to look at)
	 */
	input = arg_type(fcinfo, 1);
	elemtype = get_element_type(input);
	if (state->kind == AGG_SORT_BY_KEY)
		agg_expect(state, AGG_SORT_BY_KEY, input, mp_type_of(arg_type(fcinfo, 2)));
	else if (OidIsValid(elemtype))
		agg_expect(state, AGG_MERGE, elemtype, MP_INT4);
	else
		agg_expect(state, AGG_SORT, input, MP_INT4);
	n = state->values.n + state->unkeyed.n;
	if (n == 0)
		PG_RETURN_ARRAYTYPE_P(construct_empty_array(state->elemtype));
	elsize = mp_type_size(state->type);
	result = mp_new_result(state->elemtype, n, agg_name(state));
	agg_put_in_order(state, ARR_DATA_PTR(result), NULL);
	if (state->unkeyed.n > 0)
		memcpy(ARR_DATA_PTR(result) + (Size) state->values.n * elsize, state->unkeyed.data,
			   (Size) state->unkeyed.n * elsize);
	PG_RETURN_ARRAYTYPE_P(result);
}

/*
 * Two partial states: each column of the second appended to the first's,
 * and its runs after the first's while both are sorted.  A flat second
 * state (a parallel worker's, or a Citus worker's on the coordinator) is
 * read straight into the first.
 */
PG_FUNCTION_INFO_V1(mergepath_agg_combine);
Datum
mergepath_agg_combine(PG_FUNCTION_ARGS)
{
	MemoryContext aggcontext = agg_context(fcinfo);
	mp_agg_state *s1 = agg_arg(fcinfo, 0, aggcontext, true);
	mp_agg_state *s2;
	agg_column *c1[3],
			   *c2[3];
	size_t		sizes[3];
	int			ncols;
	int64		before;

	if (!PG_ARGISNULL(1) && !is_expanded_state(PG_GETARG_DATUM(1)))
	{
		const bytea *wire = PG_GETARG_BYTEA_PP(1);
		mp_agg_wire head;
		mp_agg_state as_sent;

		wire_head(wire, &head);
		agg_state_init(&as_sent, CurrentMemoryContext, head.kind, head.elemtype, head.keytype,
					   false);
		if (s1 == NULL)
			s1 = agg_state_new(aggcontext, head.kind, head.elemtype, head.keytype, true);
		agg_expect(&as_sent, s1->kind, s1->elemtype, s1->keytype);
		agg_append_wire(s1, &head, wire);
		PG_RETURN_DATUM(agg_datum(s1));
	}
	s2 = agg_arg(fcinfo, 1, aggcontext, false);
	if (s2 == NULL)
	{
		if (s1 == NULL)
			PG_RETURN_NULL();
		PG_RETURN_DATUM(agg_datum(s1));
	}
	if (s1 == NULL)
		s1 = agg_state_new(aggcontext, s2->kind, s2->elemtype, s2->keytype, true);
	agg_expect(s2, s1->kind, s1->elemtype, s1->keytype);
	before = s1->values.n;
	ncols = agg_columns(s1, c1, sizes);
	(void) agg_columns(s2, c2, sizes);
	for (int c = 0; c < ncols; c++)
	{
		if (c2[c]->n == 0)
			continue;
		memcpy(agg_reserve(s1, c1[c], sizes[c], c2[c]->n), c2[c]->data,
			   (Size) c2[c]->n * sizes[c]);
		c1[c]->n += c2[c]->n;
	}
	if (s2->values.n == 0)
		PG_RETURN_DATUM(agg_datum(s1));
	s1->sorted = (s1->sorted || before == 0) && s2->sorted;
	if (!s1->sorted)
		s1->runs.n = 0;
	else
		for (int64 r = 0; r < s2->runs.n; r++)
			append_run_end(s1, before + ((const int64 *) s2->runs.data)[r]);
	PG_RETURN_DATUM(agg_datum(s1));
}

/*
 * Whether a partial state is put in order before it leaves the process (a
 * parallel worker's, a Citus worker's).  That pays where the leader's work
 * runs on the CPU: the workers' sorts run side by side and the leader
 * merges a run a worker.  Where a parallel query's leader would run on the
 * GPU, sorting everything there is faster, since each parallel worker is a
 * new process that would first set up a GPU context of its own (sql_bench.sh
 * runs on the GPU host: 4 workers' gpu_sort_agg of 10M keys 954 ms ordered
 * in the workers, 290 ms sorted by the leader): a parallel worker that would
 * use the GPU for its own share expects the leader to.  Any other process
 * whose state leaves it (a Citus worker's shard query, on a connection the
 * coordinator keeps, on a server with a GPU of its own) orders its share
 * itself: the servers sort side by side, and the coordinator, which every
 * state passes through, only merges.
 */
static bool
worker_orders(const mp_agg_state *state)
{
	if (mp_merge_runs != MP_RUNS_AUTO)
		return mp_merge_runs == MP_RUNS_MERGE;
	if (!IsParallelWorker())
		return true;
	return !mp_gpu_chosen(agg_op(state), state->values.n, NULL, 0);
}

/*
 * The flat form's body (after the varlena header), made into the expanded
 * object's agg_flat: in order when worker_orders says so (sorted or merged
 * here, in the worker that collected it), the sorted column then coded
 * where that is shorter; else as it is.  Sorting, coding and the body
 * allocate in the state's memory context, never the caller's: flattening
 * runs wherever a tuple is formed, in a context that may not free a chunk
 * (a tuplesort's bump context from PostgreSQL 17 on).
 */
static void
agg_flat_make(agg_eoh *eoh)
{
	mp_agg_state *state = &eoh->state;
	agg_column *cols[3];
	size_t		sizes[3];
	int			ncols = agg_columns(state, cols, sizes);
	int			sc = sorted_col(ncols);
	mp_agg_wire head;
	Size		raw = sizeof(head);
	Size		coded_len = 0;
	char	   *ordered[3] = {NULL, NULL, NULL};
	char	   *at;
	MemoryContext work;
	MemoryContext old;

	for (int c = 0; c < ncols; c++)
		raw += (Size) cols[c]->n * sizes[c];
	if (VARHDRSZ + raw > MaxAllocSize)
		mp_refuse_result(agg_name(state), state->values.n + state->unkeyed.n);
	if (eoh->flat.body)
		pfree(eoh->flat.body);
	eoh->flat.body = NULL;

	work = AllocSetContextCreate(state->cxt, "mergepath aggregate flatten",
								 ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(work);
	memset(&head, 0, sizeof(head));
	head.elemtype = state->elemtype;
	head.kind = state->kind;
	head.keytype = state->keytype;
	head.sorted = (state->sorted && state->runs.n <= 1) || worker_orders(state)
		? WIRE_SORTED : WIRE_UNSORTED;
	head.nvalues = state->values.n;
	head.nunkeyed = state->unkeyed.n;
	for (int c = 0; c < ncols; c++)
		ordered[c] = cols[c]->data;
	if (head.sorted == WIRE_SORTED && state->values.n > 0)
	{
		if (!(state->sorted && state->runs.n <= 1))
		{
			ordered[0] = palloc_extended((Size) cols[0]->n * sizes[0], MCXT_ALLOC_HUGE);
			if (ncols > 1)
				ordered[1] = palloc_extended((Size) cols[1]->n * sizes[1], MCXT_ALLOC_HUGE);
			agg_put_in_order(state, ordered[0], ncols > 1 ? ordered[1] : NULL);
		}
		coded_len = deltas_put(ordered[sc], sizes[sc], cols[sc]->n, NULL);
		if (coded_len < (Size) cols[sc]->n * sizes[sc])
			head.sorted = WIRE_SORTED_DELTAS;
	}
	eoh->flat.size = head.sorted == WIRE_SORTED_DELTAS
		? raw - (Size) cols[sc]->n * sizes[sc] + coded_len : raw;
	eoh->flat.body = MemoryContextAllocHuge(state->cxt, eoh->flat.size);
	memcpy(eoh->flat.body, &head, sizeof(head));
	at = eoh->flat.body + sizeof(head);
	for (int c = 0; c < ncols; c++)
	{
		if (c == sc && head.sorted == WIRE_SORTED_DELTAS)
			at += deltas_put(ordered[c], sizes[c], cols[c]->n, at);
		else
		{
			if (cols[c]->n > 0)
				memcpy(at, ordered[c], (Size) cols[c]->n * sizes[c]);
			at += (Size) cols[c]->n * sizes[c];
		}
	}
	Assert(at == eoh->flat.body + eoh->flat.size);
	eoh->flat.nvalues = state->values.n;
	eoh->flat.nunkeyed = state->unkeyed.n;
	MemoryContextSwitchTo(old);
	MemoryContextDelete(work);
}

/* The expanded object's flat body, made unless it is made for the state as it is. */
static agg_flat *
agg_flat_of(agg_eoh *eoh)
{
	if (eoh->flat.body == NULL || eoh->flat.nvalues != eoh->state.values.n ||
		eoh->flat.nunkeyed != eoh->state.unkeyed.n)
		agg_flat_make(eoh);
	return &eoh->flat;
}

/* The flat form's size: the varlena header and the body. */
static Size
agg_flat_size(ExpandedObjectHeader *eohptr)
{
	return VARHDRSZ + agg_flat_of((agg_eoh *) eohptr)->size;
}

/*
 * The flat form: the body agg_flat_size made (made again only where the
 * state grew in between), which is then let go.
 */
static void
agg_flatten(ExpandedObjectHeader *eohptr, void *result, Size allocated_size)
{
	agg_eoh    *eoh = (agg_eoh *) eohptr;
	agg_flat   *flat = agg_flat_of(eoh);

	if (allocated_size != VARHDRSZ + flat->size)
		elog(ERROR, "mergepath: aggregate state of %zu bytes flattened into %zu",
			 VARHDRSZ + flat->size, allocated_size);
	SET_VARSIZE(result, allocated_size);
	memcpy(VARDATA(result), flat->body, flat->size);
	pfree(flat->body);
	flat->body = NULL;
}

/*
 * Versions before 0.5 declared a serialize and a deserialize function for
 * the internal state they had; their install and upgrade scripts still
 * create them on the way to the current version, which drops them.  Called
 * from a database left at such a version, they ask for the update.
 */
static void
old_state(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("mergepath's aggregates of this database need the extension updated"),
			 errhint("Run ALTER EXTENSION mergepath UPDATE.")));
}

PG_FUNCTION_INFO_V1(mergepath_agg_serialize);
Datum
mergepath_agg_serialize(PG_FUNCTION_ARGS)
{
	old_state();
	PG_RETURN_NULL();
}

PG_FUNCTION_INFO_V1(mergepath_agg_deserialize);
Datum
mergepath_agg_deserialize(PG_FUNCTION_ARGS)
{
	old_state();
	PG_RETURN_NULL();
}
