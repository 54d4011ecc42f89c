/*
 * node_memory.c
 *		The large arrays of the executor nodes, on huge pages.
 *
 * A node that sorts ten million rows holds arrays of hundreds of megabytes
 * and reads some of them at random (the permutation's gather).  With 4 kB
 * pages every such read misses the TLB, and every page costs a fault when
 * it is first written; on the GPU host the gather of 10M rows took 0.5 s
 * that way.  So arrays of MP_BIG_MIN bytes or more are mapped here, aligned
 * to 2 MB and marked for transparent huge pages (where the kernel offers
 * them; elsewhere they are ordinary pages).  A mapping ends at its array's
 * last page, not at a whole huge page: its tail past the last 2 MB boundary
 * stays on ordinary pages, so the memory an array takes is its size, as the
 * nodes count it (rounded up to 2 MB, each array took up to 2 MB more: four
 * columns sorted at work_mem 64MB held 71708kB).  Smaller ones come from the
 * memory context as usual.  Every mapping is released when the context is
 * reset or deleted, so an error or a cancel leaks none.
 *
 * The nodes keep their input rows as minimal tuples copied into large
 * blocks of such memory (mp_keep_tuple): no allocation a row.
 *
 * A mapping freed is kept as a spare until mp_big_trim, and the next array
 * that fits takes it: its pages are in memory already, where a new mapping
 * would have each of its pages cleared by the kernel on first touch (a
 * node's phases free arrays of the size the next phase asks for).
 */
#include "postgres.h"

#include <sys/mman.h>
#include <unistd.h>

#include "access/htup_details.h"
#include "executor/tuptable.h"
#include "utils/memutils.h"

#include "mp_nodes.h"

#define HUGE_PAGE ((Size) 2 << 20)

/* The system's page: what a mapping is rounded up to. */
static Size
page_size(void)
{
	static Size page;

	if (page == 0)
	{
		long		p = sysconf(_SC_PAGESIZE);

		page = p > 0 ? (Size) p : 4096;
	}
	return page;
}

static void
unmap_all(void *arg)
{
	mp_big_set *set = arg;

	for (int i = 0; i < set->nchunks; i++)
		if (set->chunks[i].len > 0)
			munmap(set->chunks[i].addr, set->chunks[i].len);
	/* the array itself goes with the context */
	set->chunks = NULL;
	set->nchunks = set->room = 0;
	set->mapped = set->spare = 0;
	set->armed = false;
}

void
mp_big_init(mp_big_set *set, MemoryContext cxt)
{
	memset(set, 0, sizeof(*set));
	set->cxt = cxt;
}

static void *
map_aligned(Size len)
{
	char	   *raw = mmap(NULL, len + HUGE_PAGE, PROT_READ | PROT_WRITE,
						   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char	   *at;
	Size		head;

	if (raw == MAP_FAILED)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory"),
				 errdetail("Failed to map %zu bytes for a sort.", len)));
	at = (char *) TYPEALIGN(HUGE_PAGE, raw);
	head = at - raw;
	if (head > 0)
		munmap(raw, head);
	if (HUGE_PAGE - head > 0)
		munmap(at + len, HUGE_PAGE - head);
#ifdef MADV_HUGEPAGE
	(void) madvise(at, len, MADV_HUGEPAGE);
#endif
	return at;
}

void *
mp_big_alloc(mp_big_set *set, Size bytes)
{
	Size		len = TYPEALIGN(page_size(), Max(bytes, 1));
	void	   *at;
	mp_big_chunk *best = NULL;

	if (bytes < MP_BIG_MIN)
		return MemoryContextAllocHuge(set->cxt, Max(bytes, 1));
	/* the smallest spare that fits */
	for (int i = 0; i < set->nchunks; i++)
	{
		mp_big_chunk *c = &set->chunks[i];

		if (c->spare && c->len >= len && (best == NULL || c->len < best->len))
			best = c;
	}
	if (best)
	{
		best->spare = false;
		set->spare -= best->len;
		return best->addr;
	}
	if (set->nchunks == set->room)
	{
		int			room = Max(set->room * 2, 16);

		set->chunks = set->chunks == NULL
			? MemoryContextAlloc(set->cxt, room * sizeof(mp_big_chunk))
			: repalloc(set->chunks, room * sizeof(mp_big_chunk));
		set->room = room;
	}
	if (!set->armed)
	{
		set->callback.func = unmap_all;
		set->callback.arg = set;
		MemoryContextRegisterResetCallback(set->cxt, &set->callback);
		set->armed = true;
	}
	at = map_aligned(len);
	set->chunks[set->nchunks].addr = at;
	set->chunks[set->nchunks].len = len;
	set->chunks[set->nchunks].spare = false;
	set->nchunks++;
	set->mapped += len;
	return at;
}

static mp_big_chunk *
find_chunk(mp_big_set *set, void *p)
{
	for (int i = 0; i < set->nchunks; i++)
		if (set->chunks[i].addr == p && set->chunks[i].len > 0 && !set->chunks[i].spare)
			return &set->chunks[i];
	return NULL;
}

/* p freed: a mapping is kept as a spare for the next array that fits. */
void
mp_big_free(mp_big_set *set, void *p)
{
	mp_big_chunk *chunk = p ? find_chunk(set, p) : NULL;

	if (chunk)
	{
		chunk->spare = true;
		set->spare += chunk->len;
	}
	else if (p)
		pfree(p);
}

/* The spare mappings given back to the kernel. */
void
mp_big_trim(mp_big_set *set)
{
	for (int i = 0; i < set->nchunks; i++)
	{
		mp_big_chunk *c = &set->chunks[i];

		if (c->spare && c->len > 0)
		{
			munmap(c->addr, c->len);
			set->mapped -= c->len;
			c->len = 0;
			c->spare = false;
		}
	}
	set->spare = 0;
}

/* p (old_bytes of it kept) grown to bytes. */
void *
mp_big_realloc(mp_big_set *set, void *p, Size old_bytes, Size bytes)
{
	void	   *grown;

	if (p == NULL)
		return mp_big_alloc(set, bytes);
	if (bytes < MP_BIG_MIN && find_chunk(set, p) == NULL)
		return repalloc_huge(p, bytes);
	grown = mp_big_alloc(set, bytes);
	memcpy(grown, p, Min(old_bytes, bytes));
	mp_big_free(set, p);
	return grown;
}

/* Room for len bytes in the blocks. */
static MinimalTuple
tuple_room(mp_big_set *set, mp_tuple_blocks *blocks, Size len)
{
	char	   *at;

	len = MAXALIGN(len);
	if (len > blocks->free)
	{
		Size		max = blocks->cap > 0 ? Min(blocks->cap, MP_MAX_BLOCK) : MP_MAX_BLOCK;
		Size		size = Min(Max(blocks->held / 4, (Size) 64 << 10), max);

		size = Max(size, len);
		blocks->block = mp_big_alloc(set, size);
		blocks->free = size;
		blocks->held += size;
	}
	at = blocks->block;
	blocks->block += len;
	blocks->free -= len;
	return (MinimalTuple) at;
}

/*
 * The slot's row formed once as a minimal tuple in the memory room(arg,
 * len) gives (len MAXALIGNed by the caller's room if it wants).
 */
MinimalTuple
mp_form_tuple(TupleTableSlot *slot, mp_tuple_room_fn room, void *arg)
{
	MinimalTuple row;

	if (TTS_IS_BUFFERTUPLE(slot) || TTS_IS_HEAPTUPLE(slot))
	{
		/* a heap tuple is a minimal tuple behind a longer header */
		HeapTuple	tuple = ExecFetchSlotHeapTuple(slot, false, NULL);
		Size		len = tuple->t_len - MINIMAL_TUPLE_OFFSET;

		row = room(arg, len);
		memcpy(row, (char *) tuple->t_data + MINIMAL_TUPLE_OFFSET, len);
		row->t_len = len;
	}
	else if (TTS_IS_VIRTUAL(slot))
	{
		/* a projection's values: formed straight into the room */
		TupleDesc	desc = slot->tts_tupleDescriptor;
		int			natts = desc->natts;
		bool		hasnull = false;
		Size		hoff = SizeofMinimalTupleHeader,
					data_len;

		slot_getallattrs(slot);
		for (int i = 0; i < natts; i++)
			hasnull |= slot->tts_isnull[i];
		if (hasnull)
			hoff += BITMAPLEN(natts);
		hoff = MAXALIGN(hoff);
		data_len = heap_compute_data_size(desc, slot->tts_values, slot->tts_isnull);
		row = room(arg, hoff + data_len);
		/*
		 * Zeroed whole, as heap_form_minimal_tuple's palloc0 does: a reader
		 * tells a varlena that starts after alignment padding by the padding
		 * bytes being zero, and reused memory holds old rows' bytes.
		 */
		memset(row, 0, hoff + data_len);
		row->t_len = hoff + data_len;
		HeapTupleHeaderSetNatts(row, natts);
		row->t_hoff = hoff + MINIMAL_TUPLE_OFFSET;
		heap_fill_tuple(desc, slot->tts_values, slot->tts_isnull, (char *) row + hoff, data_len,
						&row->t_infomask, hasnull ? row->t_bits : NULL);
	}
	else
	{
		bool		should_free;
		MinimalTuple tuple = ExecFetchSlotMinimalTuple(slot, &should_free);

		row = room(arg, tuple->t_len);
		memcpy(row, tuple, tuple->t_len);
		if (should_free)
			pfree(tuple);
	}
	return row;
}

typedef struct blocks_room
{
	mp_big_set *set;
	mp_tuple_blocks *blocks;
} blocks_room;

static void *
room_in_blocks(void *arg, Size len)
{
	blocks_room *r = arg;

	return tuple_room(r->set, r->blocks, len);
}

/* The slot's row, copied once into the blocks as a minimal tuple. */
MinimalTuple
mp_keep_tuple(mp_big_set *set, mp_tuple_blocks *blocks, TupleTableSlot *slot)
{
	blocks_room r = {set, blocks};

	return mp_form_tuple(slot, room_in_blocks, &r);
}
