/*
 * mp_nodes.h
 *		Shared by the executor node files of src/: the MergepathSort node,
 *		where the planner hook puts it (sort_plan.c) and how it runs
 *		(sort_node.c).
 */
#ifndef MP_NODES_H
#define MP_NODES_H

#include "postgres.h"

#include "access/htup_details.h"
#include "nodes/extensible.h"

#include "mergepath.h"

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

/*
 * Bytes the node holds for a row besides the row itself: its pointer, its
 * place in the permutation, its keys (key_bits, NULL bits included) and the
 * CPU sort's scratch.  The planner's estimate and the node's own count use
 * the same figure.
 */
static inline Size
mp_sort_row_overhead(int key_bits)
{
	Size		key_bytes = key_bits <= 32 ? 4 : (Size) ((key_bits + 63) / 64) * 8;

	return sizeof(MinimalTuple) + sizeof(uint32) + key_bytes + mp_cpu_sort_rows_scratch(1);
}

/* What the node holds for n rows of the planner's width. */
static inline double
mp_sort_bytes(double rows, int width, int key_bits)
{
	return rows * (MAXALIGN(width) + MAXALIGN(SizeofMinimalTupleHeader) +
				   mp_sort_row_overhead(key_bits));
}

extern const CustomScanMethods mp_sort_scan_methods;

/* sort_plan.c: the planner hook that puts the node in plans */
extern void mp_sort_node_init(void);

#endif							/* MP_NODES_H */
