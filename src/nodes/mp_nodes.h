/*
 * mp_nodes.h
 *		Shared by the executor node files of src/: the MergepathSort node,
 *		where the planner hook puts it (sort_plan.c), how it runs
 *		(sort_node.c over rowsort.c), and the memory of its large arrays
 *		(node_memory.c).
 */
#ifndef MP_NODES_H
#define MP_NODES_H

#include "postgres.h"
#include "../pg_compat.h"

#include "access/htup_details.h"
#include "executor/tuptable.h"
#include "nodes/extensible.h"
#include "nodes/plannodes.h"

#include "../api/mp_api.h"
#include "../api/mp_order.h"

/* mergepath.enable_sort and mergepath.sort_min_rows */
extern bool mp_enable_sort;
extern int	mp_sort_min_rows;

/* How a sort key's type folds into an order-preserving unsigned key. */
typedef enum mp_key_kind
{
	MP_KEY_NONE,				/* not a type the node sorts */
	MP_KEY_BOOL,
	MP_KEY_INT2,
	MP_KEY_INT4,				/* int4, date */
	MP_KEY_UINT4,				/* oid */
	MP_KEY_INT8,				/* int8, timestamp, timestamptz, time, money */
	MP_KEY_FLOAT4,
	MP_KEY_FLOAT8
} mp_key_kind;

extern mp_key_kind mp_key_kind_of(Oid type);
extern int	mp_key_kind_bits(mp_key_kind kind);

/* A key's value (not NULL) as its order-preserving unsigned key. */
static inline uint64
mp_fold_key(mp_key_kind kind, Datum d)
{
	switch (kind)
	{
		case MP_KEY_BOOL:
			return DatumGetBool(d);
		case MP_KEY_INT2:
			return mp_key_int2(DatumGetInt16(d));
		case MP_KEY_INT4:
			return mp_key_int4(DatumGetInt32(d));
		case MP_KEY_UINT4:
			return DatumGetObjectId(d);
		case MP_KEY_INT8:
			return mp_key_int8(DatumGetInt64(d));
		case MP_KEY_FLOAT4:
			return mp_key_float4(DatumGetFloat4(d));
		case MP_KEY_FLOAT8:
			return mp_key_float8(DatumGetFloat8(d));
		case MP_KEY_NONE:
			break;
	}
	return 0;
}

/*
 * Whether a kind's fold loses nothing, so that the key gives its value back
 * (an integer with its sign bit flipped, or bool's and oid's as they are):
 * not the floats', which make -0 of +0 and one NaN of all.
 */
static inline bool
mp_key_kind_invertible(mp_key_kind kind)
{
	return kind != MP_KEY_NONE && kind != MP_KEY_FLOAT4 && kind != MP_KEY_FLOAT8;
}

/* A minimal tuple as the HeapTuple that heap_getattr reads. */
static inline void
mp_row_as_heap(MinimalTuple row, HeapTuple tuple)
{
	tuple->t_len = row->t_len + MINIMAL_TUPLE_OFFSET;
	tuple->t_data = (HeapTupleHeader) ((char *) row - MINIMAL_TUPLE_OFFSET);
}

/*
 * node_memory.c: a node's large arrays, on huge pages where the kernel
 * offers them, all released when the memory context is reset or deleted.
 */
#define MP_BIG_MIN ((Size) 4 << 20)

typedef struct mp_big_chunk
{
	void	   *addr;
	Size		len;			/* 0 once unmapped */
	bool		spare;			/* freed, still mapped */
} mp_big_chunk;

typedef struct mp_big_set
{
	MemoryContext cxt;			/* smaller arrays come from it */
	mp_big_chunk *chunks;
	int			nchunks;
	int			room;
	Size		mapped;			/* bytes mapped now, spares included */
	Size		spare;			/* bytes of them freed */
	bool		armed;			/* the reset callback is registered */
	MemoryContextCallback callback;
} mp_big_set;

extern void mp_big_init(mp_big_set *set, MemoryContext cxt);
extern void *mp_big_alloc(mp_big_set *set, Size bytes);
extern void *mp_big_realloc(mp_big_set *set, void *p, Size old_bytes, Size bytes);
extern void mp_big_free(mp_big_set *set, void *p);
extern void mp_big_trim(mp_big_set *set);

/* Rows kept as minimal tuples in blocks of at most this size (a larger row
 * gets its own). */
#define MP_MAX_BLOCK ((Size) 32 << 20)

typedef struct mp_tuple_blocks
{
	char	   *block;			/* the free part of the newest block */
	Size		free;
	Size		held;			/* bytes of blocks in all */
	Size		cap;			/* the largest block, when below MP_MAX_BLOCK */
} mp_tuple_blocks;

extern MinimalTuple mp_keep_tuple(mp_big_set *set, mp_tuple_blocks *blocks,
								  TupleTableSlot *slot);

/* Memory for a tuple of len bytes, as mp_form_tuple asks for it. */
typedef void *(*mp_tuple_room_fn) (void *arg, Size len);
extern MinimalTuple mp_form_tuple(TupleTableSlot *slot, mp_tuple_room_fn room, void *arg);

extern const CustomScanMethods mp_sort_scan_methods;

/* sort_plan.c: the planner hook that puts the node in plans */
extern void mp_sort_node_init(void);
extern void mp_sort_finish_plan(PlannedStmt *stmt);

/* mergepath.enable_join */
extern bool mp_enable_join;

/*
 * Bytes the join node holds for a row of natts columns besides its tuple:
 * its values (twice while they are put in key order), its key (and the
 * key's copy in key order), its place in the permutation and the CPU
 * sort's scratch, its partners' range, a matched flag.
 */
static inline Size
mp_join_row_overhead(int natts)
{
	return 2 * (Size) natts * (sizeof(Datum) + sizeof(bool)) + 2 * sizeof(uint64) +
		2 * sizeof(uint32) + mp_cpu_sort_rows_scratch(1) + 2 * sizeof(int32) + 1;
}

extern const CustomScanMethods mp_join_scan_methods;

/* join_plan.c: the join path offered to the planner */
extern void mp_join_node_init(void);
extern void mp_join_finish_plan(Plan *plan);

/* mergepath.enable_batch and mergepath.batch_min_rows */
extern bool mp_enable_batch;
extern int	mp_batch_min_rows;

extern const CustomScanMethods mp_batch_scan_methods;

/* batch_plan.c: where the batch node goes; batch_node.c: how it runs */
extern void mp_batch_finish_plan(PlannedStmt *stmt, int cursor_options);
extern void mp_batch_node_init(void);

/* planner.c */
extern void mp_nodes_init(void);

#endif							/* MP_NODES_H */
