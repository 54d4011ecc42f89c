/*
 * batchable.c
 *		The SQL functions that a batch can run, found by the C function
 *		behind a pg_proc entry, so that any schema and any overload of
 *		them is recognized.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/transam.h"
#include "catalog/pg_language.h"
#include "catalog/pg_proc.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/memutils.h"
#include "utils/syscache.h"

#include "mp_arrays.h"
#include "mp_batchable.h"

extern Datum mergepath_merge(PG_FUNCTION_ARGS);
extern Datum mergepath_intersect(PG_FUNCTION_ARGS);
extern Datum mergepath_union(PG_FUNCTION_ARGS);
extern Datum mergepath_except(PG_FUNCTION_ARGS);
extern Datum mergepath_symdiff(PG_FUNCTION_ARGS);
extern Datum mergepath_lower_bound(PG_FUNCTION_ARGS);
extern Datum mergepath_upper_bound(PG_FUNCTION_ARGS);
extern Datum mergepath_count(PG_FUNCTION_ARGS);
extern Datum mergepath_semijoin(PG_FUNCTION_ARGS);
extern Datum mergepath_antijoin(PG_FUNCTION_ARGS);
extern Datum mergepath_sort(PG_FUNCTION_ARGS);
extern Datum mergepath_unique(PG_FUNCTION_ARGS);

static const struct
{
	PGFunction	addr;
	const char *symbol;
	mp_batch_fn fn;
}			batchable[] = {
	{mergepath_merge, "mergepath_merge", {"gpu_merge", MP_ARRAY_MERGE, 0, MP_OP_MERGE, 2}},
	{mergepath_intersect, "mergepath_intersect", {"gpu_intersect", MP_ARRAY_SETOP, MP_INTERSECT, MP_OP_SETOP, 2}},
	{mergepath_union, "mergepath_union", {"gpu_union", MP_ARRAY_SETOP, MP_UNION, MP_OP_SETOP, 2}},
	{mergepath_except, "mergepath_except", {"gpu_except", MP_ARRAY_SETOP, MP_EXCEPT, MP_OP_SETOP, 2}},
	{mergepath_symdiff, "mergepath_symdiff", {"gpu_symdiff", MP_ARRAY_SETOP, MP_SYMDIFF, MP_OP_SETOP, 2}},
	{mergepath_lower_bound, "mergepath_lower_bound", {"gpu_lower_bound", MP_ARRAY_SEARCH, MP_LOWER_BOUND, MP_OP_SEARCH, 2}},
	{mergepath_upper_bound, "mergepath_upper_bound", {"gpu_upper_bound", MP_ARRAY_SEARCH, MP_UPPER_BOUND, MP_OP_SEARCH, 2}},
	{mergepath_count, "mergepath_count", {"gpu_count", MP_ARRAY_SEARCH, MP_COUNT, MP_OP_SEARCH, 2}},
	{mergepath_semijoin, "mergepath_semijoin", {"gpu_semijoin", MP_ARRAY_SEMIJOIN, 0, MP_OP_SEMIJOIN, 2}},
	{mergepath_antijoin, "mergepath_antijoin", {"gpu_antijoin", MP_ARRAY_SEMIJOIN, 1, MP_OP_SEMIJOIN, 2}},
	{mergepath_sort, "mergepath_sort", {"gpu_sort", MP_ARRAY_SORT, 0, MP_OP_SORT, 1}},
	{mergepath_unique, "mergepath_unique", {"gpu_unique", MP_ARRAY_UNIQUE, 0, MP_OP_UNIQUE, 1}},
};

/* funcid -> index in batchable, or -1; emptied when pg_proc changes */
typedef struct fn_entry
{
	Oid			funcid;
	int			index;
} fn_entry;

static HTAB *fn_cache;

static void
forget_functions(Datum arg, int cacheid, uint32 hashvalue)
{
	if (fn_cache != NULL)
	{
		hash_destroy(fn_cache);
		fn_cache = NULL;
	}
}

const mp_batch_fn *
mp_batch_fn_of(Oid funcid)
{
	static bool callback_set = false;
	fn_entry   *entry;
	bool		found;

	if (fn_cache == NULL)
	{
		HASHCTL		ctl;

		if (!callback_set)
		{
			CacheRegisterSyscacheCallback(PROCOID, forget_functions, (Datum) 0);
			callback_set = true;
		}
		ctl.keysize = sizeof(Oid);
		ctl.entrysize = sizeof(fn_entry);
		ctl.hcxt = CacheMemoryContext;
		fn_cache = hash_create("mergepath batchable functions", 64, &ctl,
							   HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	}
	entry = hash_search(fn_cache, &funcid, HASH_ENTER, &found);
	if (!found)
	{
		FmgrInfo	finfo;

		entry->index = -1;
		/*
		 * A C function whose symbol is one of ours, then the address it
		 * resolves to: only ours are looked up (a lookup loads the library).
		 */
		if (funcid >= FirstNormalObjectId)
		{
			HeapTuple	tuple = SearchSysCache1(PROCOID, ObjectIdGetDatum(funcid));
			int			named = -1;

			if (HeapTupleIsValid(tuple))
			{
				Form_pg_proc proc = (Form_pg_proc) GETSTRUCT(tuple);

				bool		isnull;
				Datum		src = SysCacheGetAttr(PROCOID, tuple, Anum_pg_proc_prosrc, &isnull);

				if (proc->prolang == ClanguageId && !isnull)
				{
					char	   *symbol = TextDatumGetCString(src);

					for (int i = 0; i < (int) lengthof(batchable); i++)
						if (strcmp(symbol, batchable[i].symbol) == 0)
							named = i;
				}
				ReleaseSysCache(tuple);
			}
			if (named >= 0)
			{
				fmgr_info_cxt(funcid, &finfo, CurrentMemoryContext);
				if (finfo.fn_addr == batchable[named].addr)
					entry->index = named;
			}
		}
	}
	return entry->index < 0 ? NULL : &batchable[entry->index].fn;
}

bool
mp_batch_arg_ok(ArrayType *array)
{
	return ARR_NDIM(array) <= 1 && !array_contains_nulls(array);
}

Size
mp_batch_result_size(size_t elsize, int64 room)
{
	return ARR_OVERHEAD_NONULLS(1) + (Size) room * elsize;
}

bool
mp_batch_result_finish(ArrayType *result, Oid result_elemtype, size_t elsize, int64 n)
{
	if (n == 0)
	{
		/* as construct_empty_array makes it */
		memset(result, 0, sizeof(ArrayType));
		SET_VARSIZE(result, sizeof(ArrayType));
		result->elemtype = result_elemtype;
		return true;
	}
	if (!mp_result_fits(elsize, n))
		return false;
	/* as mp_new_result lays it out, without its per-call lookups */
	memset(result, 0, ARR_OVERHEAD_NONULLS(1));
	SET_VARSIZE(result, ARR_OVERHEAD_NONULLS(1) + (Size) n * elsize);
	result->ndim = 1;
	result->elemtype = result_elemtype;
	ARR_DIMS(result)[0] = (int) n;
	ARR_LBOUND(result)[0] = 1;
	return true;
}
