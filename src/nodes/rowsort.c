/*
 * rowsort.c
 *		The executor nodes' row sort: rows in, rows back in key order, in
 *		the node's memory or through sorted runs on disk.
 *
 * Rows are kept as minimal tuples copied into large blocks (no allocation a
 * row), or, where every column is passed by value, as their values, a
 * column an array; where every column is a key of a type whose fold gives
 * the value back (integers, dates, times, not floats) and the keys fit one
 * word, as that word alone (key rows), until some key is NULL.  Each row's
 * sort keys fold into one composite order-preserving unsigned key
 * (mp_order.h: DESC inverts a key's bits, a NULL bit above a nullable key
 * puts NULLs first or last, floats order NaNs last and -0 with +0): as the
 * row is read where the keys fit one word, else in a pass after.  The backend the settings choose computes the
 * stable permutation of the rows by those keys, and one gather on the CPU
 * backend's threads puts the rows in that order (large arrays are on huge
 * pages, node_memory.c).  Rows with equal keys come out in their input
 * order.
 *
 * Memory is the limit the caller gives (work_mem for the sort node),
 * counted as the rows and everything the sort of them will need: their
 * keys, the permutation, the CPU sort's scratch (not when the GPU sorts:
 * its scratch is on the device) and the gather's copy.  When the next row
 * would not fit, the rows held are sorted, written in key order to a run
 * on a logical tape set (logtape.c, as tuplesort does: temporary files in
 * temp_tablespaces, counted against temp_file_limit, removed at the end of
 * the transaction also on error or cancel), and forgotten; reading goes on.
 * A run's record is the row's composite key followed by the minimal tuple;
 * a run of rows of values that share one pattern of NULLs, by the values
 * alone, packed (pack_run); a run of key rows is its keys alone.  Rows
 * merged from packed or key-alone records are formed as tuples again.
 * Runs are written without NULL bits (the narrow layout) until some key is
 * NULL; from that run on, every key has its NULL bit (the wide layout), and
 * a merge that takes runs of both widens the narrow ones' keys as it reads
 * them, so that all composite keys compare.
 *
 * The runs are merged in batches by Merge Path's bound.  Each run being
 * merged has a window of its rows in memory.  The bound is the least last
 * key of the windows whose runs have rows left on disk (the first such run
 * on ties); every row of every window that orders before or at it, with
 * the run number breaking ties, can be merged now, because no row still on
 * disk orders before it.  Those rows, a prefix of each window, are merged
 * by the backend's k-way merge (mp_cpu_merge_row_runs, mp_gpu_merge_key_runs:
 * stable in run order; on the GPU, rows whose keys take more than one word
 * are sorted stably instead, which gives the same order), and returned, or
 * written out.  The
 * window that set the bound is always emptied, and refilled from its tape
 * before the next batch.  With more runs than the memory allows windows
 * for, earlier passes merge consecutive runs into longer ones (balanced,
 * so that the last pass merges no more than it must).  Where random access
 * is asked for, the final merge goes to one more tape, each row followed
 * by its length so that it is read backwards too, as tuplesort does.
 *
 * Where the GPU sorts the rows, the rows beyond the memory go to its memory
 * instead of to runs on disk, and are sorted there at once (device_spill
 * and what follows it, below).
 *
 * In a parallel sort whose leader merges every participant's runs
 * (mp_rowsort_share, for the node under a Gather Merge), a worker writes
 * each run to a file of the query's shared file set instead of a tape
 * (rs_sink), merges its runs into one when its input ends and lists that
 * run for the leader (mp_rowsort_hand_in); the leader reads such runs from
 * the shared files as it reads its own from its tapes.  Where the leader
 * sorts every row on the GPU instead (to_store), a worker sorts nothing:
 * the rows it cannot hold, and at the end the rest, go unsorted to its
 * shared file with their keys, as they would be shipped to a store
 * (write_chunks), and the leader appends them to its own store
 * (take_chunks), which it sorts with its own rows.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "commands/tablespace.h"
#include "miscadmin.h"
#include "storage/buffile.h"
#include "utils/guc.h"
#include "utils/logtape.h"
#include "utils/memutils.h"

#include "mp_nodes.h"
#include "rowsort.h"
#include "../api/mp_measured.h"

/* Rows between interrupt checks. */
#define ROW_CHUNK 65536

/* Rows put in key order between two interrupt checks. */
#define GATHER_CHUNK ((int64) 1 << 22)

/* Runs merged at once: at least, as tuplesort, and at most. */
#define MIN_ORDER 6
#define MAX_ORDER 1024

/* The least memory a run being merged gets: its tape's buffer and window. */
#define MIN_SHARE ((Size) 32 << 10)

/* Window bytes a row's key and pointer are reserved for. */
#define WINDOW_ROW_BYTES 32

/* A run's records read from its tape this many bytes at a time. */
#define READ_AHEAD ((Size) 2 << 10)

/*
 * What a run on disk holds of the sort's memory while it waits for the
 * merge (its tape's structures, block list and entry among the runs):
 * measured, about 240 bytes.  From a quarter of the memory's worth of runs
 * on, the runs merge as they come (cascade_runs).
 */
#define RUN_BYTES	256

typedef struct rs_keydef
{
	AttrNumber	attno;
	mp_key_kind kind;
	int			bits;			/* of the key's value */
	bool		desc;
	bool		nulls_first;
	bool		has_nulls;		/* the key has a NULL bit */
	int			lo;				/* the value's lowest bit in the composite key */
	int			narrow_lo;		/* and in the runs' layouts: without NULL bits */
	int			wide_lo;		/* and with every key's */
} rs_keydef;

/* A composite key's layout: its words (4-byte words: one) and their bits. */
typedef struct rs_layout
{
	int			bits;
	int			nwords;
	int			word_bytes;
} rs_layout;

/*
 * A column of a key row from its key's field: field ^ flip (flip undoes
 * DESC and the fold's sign bias at once), sign-extended from its bits (64 -
 * sext of them) for a signed type, as its Datum is; in the narrow layout
 * the field is (key >> shift) & mask.
 */
typedef struct rs_unfold
{
	int			shift;
	int			sext;
	uint64		mask;
	uint64		flip;
} rs_unfold;

/*
 * A run on disk: a tape of the sort's set, or, in a parallel sort whose
 * leader merges every participant's runs, a file of the query's shared set
 * (file_name: owner, the worker that wrote it, and seq).
 */
typedef struct rs_run
{
	LogicalTape *tape;
	int			owner;			/* a shared file's writer, or -1: a tape */
	int			seq;
	Size		bytes;			/* a shared file's */
	int64		rows;
	int			level;			/* written: 0; merged while loading: its inputs' + 1 */
	bool		wide;			/* its keys have every NULL bit */
	bool		keys_only;		/* its records are keys alone (key rows) */
	bool		values;			/* its records are keys and packed values (pack_run) */
	uint64		vnulls;			/* ... and the columns NULL in all its rows */
} rs_run;

/* A run being merged, with its window of rows in memory. */
typedef struct rs_input
{
	LogicalTape *tape;			/* where its records are read from: a tape */
	BufFile    *file;			/* or a shared file */
	int			owner;
	int			seq;
	Size		bytes;
	int64		left;			/* rows still on the tape */
	char	   *arena;			/* the window's tuples */
	Size		arena_size;
	bool		arena_own;		/* grown for a long row: an array of its own */
	Size		arena_used;
	void	   *keys;			/* the window's keys, nwords words a row */
	MinimalTuple *rows;
	int64		cap;			/* rows the window holds at most */
	int64		first;			/* the window's rows not merged yet: [first, n) */
	int64		n;
	int64		take;			/* rows the batch takes from the window */
	bool		widen;			/* the run's keys are narrow, the merge's wide */
	bool		keys_only;		/* the run's records are keys alone */
	bool		values;			/* the run's records are keys and packed values */
	uint32		vbytes;			/* ... of the values, */
	uint32		vlen;			/* the tuple they become: its t_len, */
	uint32	   *voff;			/* each value's offset in it, */
	char	   *vhead;			/* and its bytes before the values */
	bool		pending;		/* the next row's key and length are read */
	uint64	   *pending_key;	/* nwords words */
	uint32		pending_len;
	char	   *ahead;			/* the tape's bytes read ahead: [at, end) */
	Size		at,
				end;
} rs_input;

typedef enum rs_status
{
	RS_LOADING,					/* taking rows */
	RS_MEMORY,					/* sorted in memory */
	RS_STREAM,					/* the final merge returns rows as it merges */
	RS_TAPE,					/* the final merge is on the result tape */
	RS_DEVICE,					/* sorted on the GPU, fetched a chunk at a time */
	RS_HANDED					/* the runs handed to the leader: nothing returned */
} rs_status;

/* Where a run's records are written: a tape, or a shared file. */
typedef struct rs_sink
{
	LogicalTape *tape;
	BufFile    *file;
	int			seq;
	Size		bytes;
} rs_sink;

/* A run as a worker hands it to the leader, in its list (mp_rowsort_hand_in). */
typedef struct rs_run_entry
{
	int64		rows;
	uint64		vnulls;
	int32		seq;
	int32		spills;			/* rows for the GPU's store: the worker's spills */
	bool		wide;
	bool		keys_only;
	bool		values;
	bool		unsorted;		/* rows for the GPU's store (write_chunks), not a run */
} rs_run_entry;

/* A batch of rows for the leader's GPU store, as write_chunks writes it:
 * this header, the keys (word-major), the tuples. */
typedef struct rs_chunk_head
{
	int64		rows;
	uint64		bytes;			/* of the tuples */
} rs_chunk_head;

struct mp_rowsort
{
	const char *fname;
	TupleDesc	desc;
	int			natts;
	int			nkeys;
	rs_keydef  *keys;
	int			key_bits_max;	/* every key with its NULL bit */
	AttrNumber	last_key_att;
	bool		random_access;
	Size		limit;
	double		est_rows;
	int			est_width;
	bool		gpu_sorts;		/* the held rows' memory is counted for the GPU's sort */
	bool		ship_likely;	/* ... and for a shipment to the GPU's store */
	int64		fits;			/* rows the memory holds (count_room) */
	Size		fits_held;		/* the tuples' blocks it was counted with */
	rs_status	status;

	/*
	 * Where the keys without NULL bits fit one word, they are folded as the
	 * rows are read; the word is the composite key unless some key has NULLs.
	 */
	bool		fold_early;
	int			early_bits;
	void	   *early_keys;

	/*
	 * Key rows: every column is a key of an invertible kind and the keys fit
	 * one word, so a row held is its key folded while reading, and a row
	 * returned is its key unfolded (col_key: the key that gives column c),
	 * until a key is NULL (leave_key_rows); sorted: their keys in key order.
	 */
	bool		key_rows;
	int		   *col_key;
	rs_unfold  *unfold;			/* each column from a narrow key */
	void	   *sorted;
	Datum	   *kvalues;		/* a key row's values and NULLs, unfolded */
	bool	   *kisnull;

	MemoryContext cxt;			/* all of the sort */
	MemoryContext rows_cxt;		/* the rows held: reset after each run */
	mp_big_set	big;
	MemoryContext merge_cxt;	/* a merge's windows: reset after each */
	mp_big_set	mbig;

	/* the rows held, in input order: tuples, or values a column an array */
	bool		value_rows;
	MinimalTuple *rows;
	Datum	  **cols;
	bool	  **nulls;			/* of a column: NULL while no value is NULL */
	int64		nrows;
	int64		room;
	mp_tuple_blocks blocks;
	bool		any_nulls;		/* some tuple has a NULL */
	int16	   *att_len;		/* of rows of values: each column's length */
	char	   *att_align;		/* and alignment */
	uint32		vt_len;			/* a row of values without NULLs as a tuple: its t_len, */
	uint32	   *vt_off;			/* each value's offset in it, */
	char	   *vt_head;		/* and its bytes before the values (vt_len, zeroed) */
	char	   *vt_row;			/* the row returned last, as that tuple (store_values) */
	uint64		nt_nulls;		/* the same for one pattern of NULLs (bit c: column c
								 * NULL; 0: none laid out), as rows of a run have
								 * it (a subquery's unused columns are NULL in
								 * every row): */
	uint32		nt_len;
	uint32	   *nt_off;
	char	   *nt_head;		/* the header, its NULL bitmap, zeroed padding */

	/* sorted in memory: rows (or columns) in key order */
	int64		cur;			/* last returned: -1 before the first, nrows after the last */
	int64		mark;

	/* runs on disk */
	LogicalTapeSet *tapes;
	SharedFileSet *share;		/* a parallel sort's shared files (mp_rowsort_share) */
	int			participant;	/* the worker this is, or -1: the leader */
	bool		to_store;		/* a worker's rows go to the leader's GPU store */
	rs_sink		chunks;			/* ... through this shared file (write_chunks) */
	bool		chunks_open;
	int64		chunk_rows;
	int			next_seq;		/* the number of the next shared file */
	Size		shared_bytes;	/* written to shared files */
	Size		shared_live;	/* ... and not deleted yet */
	bool		spilled;		/* runs are written */
	bool		run_nulls;		/* a key had NULLs: runs from now on are wide */
	rs_layout	narrow;			/* the runs' layouts */
	rs_layout	wide;
	int			nwords;			/* of the run being written, or of the merge */
	int			word_bytes;
	int		   *wbits;			/* each word's bits (maxwords) */
	int			maxwords;		/* words of a composite key at most */
	uint64	   *acc;			/* a key being folded, or a bound (maxwords + 1) */
	uint64	   *key;			/* a key being written (maxwords) */
	uint64	   *rkey;			/* a narrow key being read (maxwords) */
	bool		merge_wide;		/* the merge's keys are wide: some run's are */
	rs_run	   *runs;
	int			nruns;
	int			runs_room;

	/* a merge */
	rs_input   *inputs;
	int			ninputs;
	void	   *bkeys;			/* the batch's keys, run after run */
	MinimalTuple *brows;
	int64	   *bounds;
	uint32	   *perm;
	MinimalTuple *out;			/* the batch merged */
	int64		nout;
	int64		outpos;
	int64		batch_cap;

	/* the rows kept on the GPU instead of in runs on disk */
	bool		dev_decided;	/* whether to keep them there, decided at the first spill */
	mp_gpu_store *dev;
	MemoryContextCallback dev_release;
	Size		dev_bytes;		/* of the tuples shipped */
	int64		dev_rows;
	int64		dev_kb;			/* device memory the store held at its sort */
	char	   *fetch_buf;		/* a chunk of rows in key order */
	Size		fetch_size;
	MinimalTuple *fetch_rows;
	int64		fetch_cap;
	int64		fetch_first;
	int64		fetch_n;

	/* the result tape of a random-access external sort */
	LogicalTape *result;
	int64		nresult;
	char	   *buf;			/* the row read from it */
	Size		buf_size;
	int64		mark_block;
	int			mark_offset;

	mp_rowsort_stats stats;
	Size		peak_bytes;
};

/* The layout of a composite key of bits bits. */
static rs_layout
layout_of(int bits)
{
	rs_layout	l = {bits, bits <= 32 ? 1 : (bits + 63) / 64, bits <= 32 ? 4 : 8};

	return l;
}

static mp_key_kind
kind_of_att(TupleDesc desc, AttrNumber attno)
{
	return mp_key_kind_of(TupleDescAttr(desc, attno - 1)->atttypid);
}

/*
 * The tuple a row of values with the NULLs of pattern nulls becomes
 * (value_tuple), as heap_form_minimal_tuple lays it out: the same for every
 * such row.  *off gets each value's offset (room for natts), *head the
 * tuple's bytes before and between the values, zeroed but for the header
 * and the NULL bitmap (room for the returned length).
 */
static uint32
lay_out_pattern(const mp_rowsort *rs, uint64 nulls, uint32 *off_of, char *head)
{
	Size		hoff = MAXALIGN(SizeofMinimalTupleHeader + (nulls ? BITMAPLEN(rs->natts) : 0));
	Size		off = hoff;

	for (int c = 0; c < rs->natts; c++)
	{
		if (nulls & ((uint64) 1 << c))
			continue;
		off = att_align_nominal(off, rs->att_align[c]);
		if (off_of)
			off_of[c] = (uint32) off;
		off += rs->att_len[c];
	}
	if (head)
	{
		MinimalTuple t = (MinimalTuple) head;

		memset(head, 0, off);
		t->t_len = (uint32) off;
		HeapTupleHeaderSetNatts(t, rs->natts);
		t->t_hoff = hoff + MINIMAL_TUPLE_OFFSET;
		if (nulls)
		{
			t->t_infomask = HEAP_HASNULL;
			for (int c = 0; c < rs->natts; c++)
				if (!(nulls & ((uint64) 1 << c)))
					t->t_bits[c >> 3] |= 1 << (c & 7);
		}
	}
	return (uint32) off;
}

/* The tuple every row of values without NULLs becomes. */
static void
lay_out_value_tuple(mp_rowsort *rs)
{
	rs->vt_off = MemoryContextAlloc(rs->cxt, Max(rs->natts, 1) * sizeof(uint32));
	rs->vt_len = lay_out_pattern(rs, 0, rs->vt_off, NULL);
	rs->vt_head = MemoryContextAlloc(rs->cxt, rs->vt_len);
	(void) lay_out_pattern(rs, 0, NULL, rs->vt_head);
	rs->vt_row = MemoryContextAlloc(rs->cxt, rs->vt_len);
	memcpy(rs->vt_row, rs->vt_head, rs->vt_len);
}

/* Whether the rows can be held as their keys (key rows), and how. */
static void
begin_key_rows(mp_rowsort *rs)
{
	int		   *col_key;

	if (!rs->fold_early || !rs->value_rows || rs->natts == 0)
		return;
	col_key = MemoryContextAlloc(rs->cxt, rs->natts * sizeof(int));
	for (int c = 0; c < rs->natts; c++)
		col_key[c] = -1;
	for (int k = 0; k < rs->nkeys; k++)
	{
		rs_keydef  *key = &rs->keys[k];

		if (mp_key_kind_invertible(key->kind) && col_key[key->attno - 1] < 0)
			col_key[key->attno - 1] = k;
	}
	for (int c = 0; c < rs->natts; c++)
		if (col_key[c] < 0)
		{
			pfree(col_key);
			return;
		}
	rs->key_rows = true;
	rs->col_key = col_key;
	rs->unfold = MemoryContextAlloc(rs->cxt, rs->natts * sizeof(rs_unfold));
	for (int c = 0; c < rs->natts; c++)
	{
		const rs_keydef *def = &rs->keys[col_key[c]];
		rs_unfold  *u = &rs->unfold[c];
		uint64		mask = def->bits >= 64 ? PG_UINT64_MAX : ((uint64) 1 << def->bits) - 1;
		bool		is_signed = def->kind != MP_KEY_BOOL && def->kind != MP_KEY_UINT4;

		u->shift = def->narrow_lo;
		u->mask = mask;
		/* the fold's bias is a signed value's top bit */
		u->flip = (def->desc ? mask : 0) ^ (is_signed ? (uint64) 1 << (def->bits - 1) : 0);
		u->sext = is_signed ? 64 - def->bits : 0;
	}
	rs->kvalues = MemoryContextAlloc(rs->cxt, rs->natts * sizeof(Datum));
	rs->kisnull = MemoryContextAlloc(rs->cxt, rs->natts * sizeof(bool));
}

/* A column of a key row from its key's field. */
static inline Datum
unfold_field(const rs_unfold *u, uint64 field)
{
	uint64		v = field ^ u->flip;

	return (Datum) (uint64) ((int64) (v << u->sext) >> u->sext);
}

/* Column c of a key row from its narrow key. */
static inline Datum
unfold_narrow(const mp_rowsort *rs, uint64 key, int c)
{
	const rs_unfold *u = &rs->unfold[c];

	return unfold_field(u, (key >> u->shift) & u->mask);
}

/* A value passed by value, of length len, at at (unaligned). */
static inline void
store_value(char *at, int16 len, Datum d)
{
	switch (len)
	{
		case 1:
			*at = DatumGetChar(d);
			break;
		case 2:
			{
				int16		v = DatumGetInt16(d);

				memcpy(at, &v, sizeof(v));
			}
			break;
		case 4:
			{
				int32		v = DatumGetInt32(d);

				memcpy(at, &v, sizeof(v));
			}
			break;
		default:
			memcpy(at, &d, sizeof(Datum));
			break;
	}
}

/*
 * The row of values in the slot's tts_values and tts_isnull into the slot.
 * Without NULLs it becomes the sort's own minimal tuple (vt_row, rewritten
 * row by row), its values left deformed: a parent that keeps the row (a
 * window's or a Material's store, a worker's queue to its Gather) copies
 * its bytes, as after PostgreSQL's Sort, instead of forming a tuple from
 * a virtual one, and a parent that reads it finds the values.
 */
static inline void
store_values(const mp_rowsort *rs, TupleTableSlot *slot)
{
	for (int c = 0; c < rs->natts; c++)
		if (slot->tts_isnull[c])
		{
			ExecStoreVirtualTuple(slot);
			return;
		}
	for (int c = 0; c < rs->natts; c++)
		store_value(rs->vt_row + rs->vt_off[c], rs->att_len[c], slot->tts_values[c]);
	ExecStoreMinimalTuple((MinimalTuple) rs->vt_row, slot, false);
	slot->tts_nvalid = rs->natts;
}

/*
 * A key row's values from its composite key: the narrow layout (no NULL
 * bits) or the wide one (every key's).
 */
static void
key_row_values(const mp_rowsort *rs, const uint64 *key, bool wide, Datum *values,
			   bool *isnull)
{
	if (!wide)
	{
		for (int c = 0; c < rs->natts; c++)
		{
			values[c] = unfold_narrow(rs, key[0], c);
			isnull[c] = false;
		}
		return;
	}
	for (int c = 0; c < rs->natts; c++)
	{
		const rs_keydef *def = &rs->keys[rs->col_key[c]];

		isnull[c] = mp_key_get(key, def->wide_lo + def->bits, 1) !=
			(uint64) mp_key_null_bit(false, def->nulls_first);
		values[c] = isnull[c] ? (Datum) 0
			: unfold_field(&rs->unfold[c], mp_key_get(key, def->wide_lo, def->bits));
	}
}

/*
 * A key row into the slot.  A narrow key has no NULLs: its columns go
 * straight into the sort's tuple and the slot's values (store_values).
 */
static void
store_key_row(const mp_rowsort *rs, const uint64 *key, bool wide, TupleTableSlot *slot)
{
	if (!wide)
	{
		ExecStoreMinimalTuple((MinimalTuple) rs->vt_row, slot, false);
		for (int c = 0; c < rs->natts; c++)
		{
			Datum		v = unfold_narrow(rs, key[0], c);

			slot->tts_values[c] = v;
			slot->tts_isnull[c] = false;
			store_value(rs->vt_row + rs->vt_off[c], rs->att_len[c], v);
		}
		slot->tts_nvalid = rs->natts;
		return;
	}
	ExecClearTuple(slot);
	key_row_values(rs, key, wide, slot->tts_values, slot->tts_isnull);
	store_values(rs, slot);
}

/*
 * The row a key-only record stands for in a merge: no tuple, its length the
 * mark (a tuple's is never this short); the row is formed from its key.
 */
static MinimalTupleData key_only_row = {.t_len = MINIMAL_TUPLE_DATA_OFFSET};

static inline bool
is_key_only(MinimalTuple row)
{
	return row->t_len == MINIMAL_TUPLE_DATA_OFFSET;
}

mp_rowsort *
mp_rowsort_begin(const char *fname, TupleDesc desc, int nkeys, const mp_rowsort_key *keys,
				 Size limit, bool random_access, double est_rows, int est_width)
{
	/*
	 * Small blocks: a chunk above 1kB (a tape's 8kB buffer) is then a block
	 * of its own size, where larger blocks would round it up and hold room
	 * unused that the memory counts.
	 */
	MemoryContext cxt = AllocSetContextCreate(CurrentMemoryContext, "mergepath row sort",
											  ALLOCSET_SMALL_SIZES);
	mp_rowsort *rs = MemoryContextAllocZero(cxt, sizeof(mp_rowsort));

	rs->cxt = cxt;
	rs->fname = fname;
	rs->desc = desc;
	rs->natts = desc->natts;
	rs->nkeys = nkeys;
	rs->limit = limit;
	rs->random_access = random_access;
	rs->est_rows = est_rows;
	rs->est_width = est_width;
	rs->keys = MemoryContextAllocZero(cxt, nkeys * sizeof(rs_keydef));
	for (int i = 0; i < nkeys; i++)
	{
		rs_keydef  *key = &rs->keys[i];

		key->attno = keys[i].attno;
		key->kind = kind_of_att(desc, key->attno);
		key->bits = mp_key_kind_bits(key->kind);
		key->desc = keys[i].desc;
		key->nulls_first = keys[i].nulls_first;
		if (key->kind == MP_KEY_NONE)
			elog(ERROR, "%s: column %d cannot be a key", fname, key->attno);
		rs->key_bits_max += key->bits + 1;
		rs->last_key_att = Max(rs->last_key_att, key->attno);
	}
	for (int i = nkeys - 1; i >= 0; i--)
	{
		rs->keys[i].lo = rs->keys[i].narrow_lo = rs->early_bits;
		rs->keys[i].wide_lo = rs->early_bits + (nkeys - 1 - i);
		rs->early_bits += rs->keys[i].bits;
	}
	rs->fold_early = rs->early_bits <= 64;
	rs->narrow = layout_of(rs->early_bits);
	rs->wide = layout_of(rs->key_bits_max);
	rs->maxwords = (rs->key_bits_max + 63) / 64;
	rs->wbits = MemoryContextAllocZero(cxt, rs->maxwords * sizeof(int));
	rs->acc = MemoryContextAllocZero(cxt, (rs->maxwords + 1) * sizeof(uint64));
	rs->key = MemoryContextAllocZero(cxt, rs->maxwords * sizeof(uint64));
	rs->rkey = MemoryContextAllocZero(cxt, rs->maxwords * sizeof(uint64));
	rs->value_rows = true;
	for (int i = 0; i < rs->natts; i++)
		rs->value_rows &= TupleDescAttr(desc, i)->attbyval;
	rs->att_len = MemoryContextAlloc(cxt, Max(rs->natts, 1) * sizeof(int16));
	rs->att_align = MemoryContextAlloc(cxt, Max(rs->natts, 1));
	for (int i = 0; i < rs->natts; i++)
	{
		rs->att_len[i] = TupleDescAttr(desc, i)->attlen;
		rs->att_align[i] = TupleDescAttr(desc, i)->attalign;
	}
	if (rs->value_rows)
		lay_out_value_tuple(rs);
	begin_key_rows(rs);
	rs->rows_cxt = AllocSetContextCreate(cxt, "mergepath rows", ALLOCSET_DEFAULT_SIZES);
	mp_big_init(&rs->big, rs->rows_cxt);
	rs->merge_cxt = AllocSetContextCreate(cxt, "mergepath merge", ALLOCSET_DEFAULT_SIZES);
	mp_big_init(&rs->mbig, rs->merge_cxt);
	/* blocks of tuples no larger than an eighth of the memory */
	rs->blocks.cap = Max(limit / 8, (Size) 8192);
	rs->status = RS_LOADING;
	return rs;
}

/* Memory held now, if more than before. */
static void
note_peak(mp_rowsort *rs)
{
	Size		held = MemoryContextMemAllocated(rs->cxt, true) + rs->big.mapped +
		rs->mbig.mapped;

	rs->peak_bytes = Max(rs->peak_bytes, held);
}

/* Bytes of the composite key a row, in the layout that keys of bits take. */
static Size
key_bytes(int bits)
{
	return bits <= 32 ? 4 : (Size) ((bits + 63) / 64) * 8;
}

static inline Size
early_bytes(mp_rowsort *rs)
{
	return rs->early_bits <= 32 ? 4 : 8;
}

/*
 * Whether the GPU would sort n rows, as mp_run will decide: not known
 * before this process has used the GPU once (until then, the memory is
 * counted for the CPU, which needs more).
 */
static bool
gpu_likely(int64 n)
{
	return mp_gpu_expected(MP_OP_NODES, n);
}

/* Bytes of the arrays that hold a row (a row of room): its pointer or its
 * values, and its key folded as it was read. */
static Size
array_bytes(mp_rowsort *rs)
{
	Size		held = rs->value_rows ? rs->natts * sizeof(Datum) : sizeof(MinimalTuple);

	if (rs->key_rows)
		return early_bytes(rs);
	if (rs->value_rows && rs->nulls)
		for (int c = 0; c < rs->natts; c++)
			held += rs->nulls[c] != NULL;
	return held + (rs->fold_early && !rs->run_nulls ? early_bytes(rs) : 0);
}

/*
 * Bytes that sorting the held rows will take a row: its key, its place in
 * the permutation, the CPU sort's scratch and the gather's copy (which
 * reuses the key's and the scratch's memory where they are large enough);
 * for key rows, the sorted keys and the scratch.
 */
static Size
sort_bytes(mp_rowsort *rs, bool on_gpu)
{
	/*
	 * the key with every NULL bit, the widest it gets; keys folded while
	 * reading (counted with the arrays) are the sort's keys, or are freed
	 * before those are folded (sort_held)
	 */
	Size		key = key_bytes(rs->key_bits_max);
	Size		scratch = on_gpu ? 0 : mp_cpu_sort_rows_scratch(1);
	Size		copy = rs->value_rows ? sizeof(Datum) : sizeof(MinimalTuple);

	/*
	 * key rows: the keys sorted (or, of 8-byte keys on the CPU, the passes'
	 * second array), and for 4-byte keys the CPU's permutation and scratch
	 */
	if (rs->key_rows)
		return early_bytes(rs) + (on_gpu || early_bytes(rs) == 8 ? 0
								  : sizeof(uint32) + mp_cpu_sort_rows_scratch(1));
	if (rs->fold_early && !rs->run_nulls)
		key -= Min(key, early_bytes(rs));
	return sizeof(uint32) + key + scratch + (copy > key + scratch ? copy : 0);
}

/* The buffer that runs are written through (stage_run). */
static Size
stage_room(mp_rowsort *rs)
{
	return Min(Max(rs->limit / 16, (Size) BLCKSZ), (Size) 8 << 20);
}

/* Rows of a chunk whose tuples a run or a shipment forms at a time. */
#define STAGE_ROWS 32768

/* The most words of a composite key that the GPU's row store takes. */
#define STORE_WORDS_MAX 16

/*
 * Whether the rows held may go to the GPU's store at a spill (device_spill):
 * their memory is counted for the shipment then, which takes each row's
 * wide key and, beside the stage's buffer, a chunk's sizes and offsets.
 */
static bool
may_ship(mp_rowsort *rs)
{
	return rs->dev != NULL || rs->to_store || (!rs->dev_decided && rs->ship_likely);
}

static int64
ship_chunk(mp_rowsort *rs)
{
	return Min(STAGE_ROWS, Max((int64) (stage_room(rs) / (4 * sizeof(Size))), 256));
}

/* Memory that does not grow with the rows held: the stage's buffer and a
 * shipment's arrays, where a spill needs them. */
static Size
spill_bytes(mp_rowsort *rs)
{
	bool		ship = may_ship(rs);

	return (rs->spilled || ship ? stage_room(rs) : 0) +
		(ship ? (2 * ship_chunk(rs) + 1) * sizeof(Size) : 0);
}

/* Bytes a held row takes beyond its arrays when the rows are sorted or
 * shipped. */
static Size
spill_row_bytes(mp_rowsort *rs)
{
	Size		per_row = sort_bytes(rs, rs->gpu_sorts);

	if (may_ship(rs))
		per_row = Max(per_row, (Size) rs->wide.nwords * rs->wide.word_bytes);
	return per_row;
}

/* Memory held whatever the count of rows: the spill's, the tuples' blocks
 * and the room's arrays. */
static Size
fixed_bytes(mp_rowsort *rs)
{
	return spill_bytes(rs) + rs->blocks.held + rs->room * array_bytes(rs);
}

/*
 * The rows the memory holds before the next is one too many, counted again
 * when what a row costs changes (its arrays grow, a column gets NULLs, the
 * sort spills): put then compares a count.
 */
static void
count_room(mp_rowsort *rs)
{
	Size		fixed = fixed_bytes(rs);

	rs->fits = fixed >= rs->limit ? 0 : (int64) ((rs->limit - fixed) / spill_row_bytes(rs));
	rs->fits = Min(rs->fits, (int64) UINT32_MAX - 2);
	rs->fits_held = rs->blocks.held;
}

/*
 * The most rows the memory would hold with arrays that long, beside the
 * tuples' blocks held: the room's next size is no larger, so that arrays
 * doubled do not take memory the rows never fill (rows of values of three
 * columns read 6015kB at 4MB; rows kept as tuples, whose room doubled near
 * the memory's end, 66080kB at 64MB).
 */
static int64
room_max(mp_rowsort *rs)
{
	Size		fixed = spill_bytes(rs) + rs->blocks.held;

	return fixed >= rs->limit ? 0 :
		(int64) ((rs->limit - fixed) / (array_bytes(rs) + spill_row_bytes(rs)));
}

static inline bool
over_limit(mp_rowsort *rs)
{
	if (rs->blocks.held != rs->fits_held)
		count_room(rs);
	return rs->nrows > rs->fits;
}

/*
 * The largest block of tuples that the memory still holds beside the rows
 * counted and one more (an eighth of the memory at most): a block is taken
 * whole, so one as large as the first ones, taken near the memory's end,
 * went past it before the count put the rows out as a run (16MB read
 * 17011kB).
 */
static Size
block_cap(mp_rowsort *rs)
{
	Size		used = fixed_bytes(rs) + (rs->nrows + 1) * spill_row_bytes(rs);
	Size		left = used < rs->limit ? rs->limit - used : 0;

	return Max(Min(left, rs->limit / 8), (Size) 8192);
}

static void
grow_rows(mp_rowsort *rs)
{
	int64		old = rs->room;
	double		tuple = rs->value_rows ? 0
		: MAXALIGN(rs->est_width) + MAXALIGN(SizeofMinimalTupleHeader);
	double		estimate;

	/*
	 * Whether the GPU will sort the rows held, decided once: it will where
	 * the memory holds as many rows as the GPU's threshold (counted without
	 * the CPU's scratch) and the input has them, so that the count does not
	 * change on the way and cut a run short.
	 */
	if (old == 0 && !rs->spilled)
	{
		rs->gpu_sorts = gpu_likely((int64) Min(rs->est_rows, (double) rs->limit /
											   (array_bytes(rs) + sort_bytes(rs, true) + tuple)));
		/* as device_spill will choose, short of the GPU's set-up failing */
		rs->ship_likely = mp_gpu_sort_mem_mb > 0 && rs->wide.nwords <= STORE_WORDS_MAX &&
			!mp_gpu_known_unusable() &&
			mp_gpu_chosen(MP_OP_NODE_SPILL, (int64) rs->est_rows, NULL, 0);
	}
	estimate = Min(rs->est_rows * 1.2,
				   (double) rs->limit / (array_bytes(rs) + sort_bytes(rs, rs->gpu_sorts) + tuple));

	/* large arrays are mapped: room that stays unused costs no memory */
	rs->room = old == 0 ? Max((int64) Min(estimate, (double) (1 << 26)), 1024)
		: Max(old + 1, Min(old * 2, room_max(rs)));
	if (rs->value_rows)
	{
		if (rs->cols == NULL)
		{
			rs->cols = MemoryContextAllocZero(rs->rows_cxt, Max(rs->natts, 1) * sizeof(Datum *));
			rs->nulls = MemoryContextAllocZero(rs->rows_cxt, Max(rs->natts, 1) * sizeof(bool *));
		}
		for (int c = 0; c < rs->natts && !rs->key_rows; c++)
		{
			rs->cols[c] = mp_big_realloc(&rs->big, rs->cols[c], old * sizeof(Datum),
										 rs->room * sizeof(Datum));
			if (rs->nulls[c])
				rs->nulls[c] = mp_big_realloc(&rs->big, rs->nulls[c], old, rs->room);
		}
	}
	else
		rs->rows = mp_big_realloc(&rs->big, rs->rows, old * sizeof(MinimalTuple),
								  rs->room * sizeof(MinimalTuple));
	if (rs->fold_early && !rs->run_nulls)
		rs->early_keys = mp_big_realloc(&rs->big, rs->early_keys, old * early_bytes(rs),
										rs->room * early_bytes(rs));
	/* the arrays outgrown are not kept as spares: the count has no room for them */
	mp_big_trim(&rs->big);
	count_room(rs);
}

/*
 * The slot's keys folded into one word, laid out as if no key had NULLs
 * (lay_out_keys then agrees unless one has); notes the keys that have, and
 * says whether one of the slot's is NULL.
 */
static inline bool
fold_early(mp_rowsort *rs, TupleTableSlot *slot)
{
	uint64		acc = 0;
	bool		any_null = false;

	slot_getsomeattrs(slot, rs->last_key_att);
	for (int k = 0; k < rs->nkeys; k++)
	{
		rs_keydef  *key = &rs->keys[k];
		bool		isnull = slot->tts_isnull[key->attno - 1];
		uint64		v = isnull ? 0 : mp_fold_key(key->kind, slot->tts_values[key->attno - 1]);

		acc |= mp_key_value(v, key->bits, key->desc, isnull) << key->lo;
		key->has_nulls |= isnull;
		any_null |= isnull;
	}
	if (early_bytes(rs) == 4)
		((uint32 *) rs->early_keys)[rs->nrows] = (uint32) acc;
	else
		((uint64 *) rs->early_keys)[rs->nrows] = acc;
	return any_null;
}

/* Held row i's early key (the narrow layout). */
static inline uint64
early_key(const mp_rowsort *rs, int64 i)
{
	return rs->early_bits <= 32 ? ((const uint32 *) rs->early_keys)[i]
		: ((const uint64 *) rs->early_keys)[i];
}

/* Column c of held row i: its value, or, of a key row, its key unfolded. */
static inline Datum
held_value(const mp_rowsort *rs, int64 i, int c)
{
	return rs->key_rows ? unfold_narrow(rs, early_key(rs, i), c) : rs->cols[c][i];
}

/*
 * A key is NULL: the rows held so far (none with a NULL key) become rows of
 * values, and the sort holds values from now on.
 */
static void
leave_key_rows(mp_rowsort *rs)
{
	for (int c = 0; c < rs->natts; c++)
	{
		rs->cols[c] = mp_big_alloc(&rs->big, rs->room * sizeof(Datum));
		for (int64 i = 0; i < rs->nrows; i++)
			rs->cols[c][i] = held_value(rs, i, c);
	}
	rs->key_rows = false;
	count_room(rs);
}

static void spill(mp_rowsort *rs);

/* The rows held out of the memory (a run, or shipped to the GPU), timed. */
static void
spill_held(mp_rowsort *rs)
{
	/* the tapes' buffers live in the sort's own context */
	MemoryContext old = MemoryContextSwitchTo(rs->cxt);
	double		t0 = mp_now_ms();

	spill(rs);
	rs->stats.spill_ms += mp_now_ms() - t0;
	MemoryContextSwitchTo(old);
}

void
mp_rowsort_put(mp_rowsort *rs, TupleTableSlot *slot)
{
	if (rs->nrows == rs->room)
	{
		/*
		 * Rows that fill the memory go out before more room is taken for
		 * the next one, which would put the room over the limit: where the
		 * count has no row left, or the room is as long as the memory lets
		 * it grow (the count's rounding may leave one row that only a
		 * room one row longer, all its arrays copied, would take).
		 */
		if (rs->nrows > 0 && !over_limit(rs) &&
			(rs->nrows == rs->fits || rs->room >= room_max(rs)))
			spill_held(rs);
		if (rs->nrows == rs->room)
			grow_rows(rs);
	}
	if (rs->fold_early && !rs->run_nulls && fold_early(rs, slot) && rs->key_rows)
		leave_key_rows(rs);
	if (rs->key_rows)
	{
		/* the key folded is the row */
	}
	else if (rs->value_rows)
	{
		slot_getallattrs(slot);
		for (int c = 0; c < rs->natts; c++)
		{
			rs->cols[c][rs->nrows] = slot->tts_values[c];
			if (slot->tts_isnull[c] && rs->nulls[c] == NULL)
			{
				/* the column's first NULL: the rows before had none */
				rs->nulls[c] = mp_big_alloc(&rs->big, rs->room);
				memset(rs->nulls[c], 0, rs->nrows);
				count_room(rs);
			}
			if (rs->nulls[c])
				rs->nulls[c][rs->nrows] = slot->tts_isnull[c];
		}
		if (!rs->fold_early)
			for (int k = 0; k < rs->nkeys; k++)
				rs->keys[k].has_nulls |= slot->tts_isnull[rs->keys[k].attno - 1];
	}
	else
	{
		MinimalTuple row;

		/* a block about to be full: the next no larger than the memory left */
		if (rs->blocks.free < BLCKSZ)
			rs->blocks.cap = block_cap(rs);
		row = mp_keep_tuple(&rs->big, &rs->blocks, slot);
		rs->any_nulls |= (row->t_infomask & HEAP_HASNULL) != 0;
		rs->rows[rs->nrows] = row;
	}
	rs->nrows++;
	if (over_limit(rs))
		spill_held(rs);
}

/* Held row i's values into values and isnull. */
static inline void
row_values(mp_rowsort *rs, int64 i, Datum *values, bool *isnull)
{
	for (int c = 0; c < rs->natts; c++)
	{
		values[c] = rs->cols[c][i];
		isnull[c] = rs->nulls[c] != NULL && rs->nulls[c][i];
	}
}

/* Held row i into the slot. */
static inline void
store_held(mp_rowsort *rs, int64 i, TupleTableSlot *slot)
{
	if (!rs->value_rows)
	{
		ExecStoreMinimalTuple(rs->rows[i], slot, false);
		return;
	}
	ExecClearTuple(slot);
	row_values(rs, i, slot->tts_values, slot->tts_isnull);
	store_values(rs, slot);
}

/* Forgets the rows held and all that was made of them. */
static void
forget_rows(mp_rowsort *rs)
{
	MemoryContextReset(rs->rows_cxt);
	rs->rows = NULL;
	rs->cols = NULL;
	rs->nulls = NULL;
	rs->early_keys = NULL;
	rs->nrows = rs->room = 0;
	rs->blocks.block = NULL;
	rs->blocks.free = rs->blocks.held = 0;
	rs->any_nulls = false;
	if (!rs->run_nulls)
		for (int k = 0; k < rs->nkeys; k++)
			rs->keys[k].has_nulls = false;
}

/*
 * Lays the keys out in the composite key, the last key in the lowest bits,
 * a NULL bit above each key that has NULLs; returns the bits in all.  A
 * run's keys have no NULL bit or every one: from the first run with a NULL
 * key on, every key has its NULL bit.
 */
static int
lay_out_keys(mp_rowsort *rs)
{
	int			lo = 0;

	if (!rs->run_nulls && !rs->value_rows && rs->any_nulls && !rs->fold_early)
	{
		for (int64 i = 0; i < rs->nrows; i++)
		{
			MinimalTuple row = rs->rows[i];

			if (!(row->t_infomask & HEAP_HASNULL))
				continue;
			for (int k = 0; k < rs->nkeys; k++)
				rs->keys[k].has_nulls |= att_isnull(rs->keys[k].attno - 1, row->t_bits);
		}
	}
	for (int k = 0; rs->spilled && k < rs->nkeys; k++)
		rs->run_nulls |= rs->keys[k].has_nulls;
	for (int k = 0; rs->run_nulls && k < rs->nkeys; k++)
		rs->keys[k].has_nulls = true;
	for (int k = rs->nkeys - 1; k >= 0; k--)
	{
		rs->keys[k].lo = lo;
		lo += rs->keys[k].bits + rs->keys[k].has_nulls;
	}
	return lo;
}

/* The held rows' composite keys, as mp_row_keys words (word-major). */
static void *
fold_keys(mp_rowsort *rs, int total_bits, int *nwords, int *word_bytes)
{
	int64		n = rs->nrows;
	void	   *words;
	uint64	   *acc = rs->acc;
	HeapTupleData tuple;

	*word_bytes = total_bits <= 32 ? 4 : 8;
	*nwords = total_bits <= 32 ? 1 : (total_bits + 63) / 64;
	Assert(*nwords <= rs->maxwords);
	words = mp_big_alloc(&rs->big, (Size) Max(n, 1) * *nwords * *word_bytes);
	for (int64 lo = 0; lo < n; lo += ROW_CHUNK)
	{
		int64		hi = Min(lo + ROW_CHUNK, n);

		CHECK_FOR_INTERRUPTS();
		for (int64 i = lo; i < hi; i++)
		{
			memset(acc, 0, (rs->maxwords + 1) * sizeof(uint64));
			if (!rs->value_rows)
				mp_row_as_heap(rs->rows[i], &tuple);
			for (int k = 0; k < rs->nkeys; k++)
			{
				rs_keydef  *key = &rs->keys[k];
				bool		isnull;
				Datum		d;
				uint64		v;

				if (rs->value_rows)
				{
					d = rs->cols[key->attno - 1][i];
					isnull = rs->nulls[key->attno - 1] && rs->nulls[key->attno - 1][i];
				}
				else
					d = heap_getattr(&tuple, key->attno, rs->desc, &isnull);
				v = isnull ? 0 : mp_fold_key(key->kind, d);
				mp_key_put(acc, key->lo, key->bits, mp_key_value(v, key->bits, key->desc, isnull));
				if (key->has_nulls)
					mp_key_put(acc, key->lo + key->bits, 1,
							   mp_key_null_bit(isnull, key->nulls_first));
			}
			if (*word_bytes == 4)
				((uint32 *) words)[i] = (uint32) acc[0];
			else
				for (int w = 0; w < *nwords; w++)
					((uint64 *) words)[(Size) w * n + i] = acc[w];
		}
	}
	return words;
}

/* Adds a backend run's report to the stats. */
static void
note_run(mp_rowsort *rs, const mp_run_report *report)
{
	if (report->used_gpu)
	{
		rs->stats.used_gpu = true;
		rs->stats.gpu.h2d_ms += report->gpu.h2d_ms;
		rs->stats.gpu.kernel_ms += report->gpu.kernel_ms;
		rs->stats.gpu.d2h_ms += report->gpu.d2h_ms;
	}
	else
	{
		rs->stats.used_cpu = true;
		strlcpy(rs->stats.note, report->note, sizeof(rs->stats.note));
	}
}

/* A row sort as mp_run's work. */
typedef struct sort_work
{
	mp_rowsort *rs;
	mp_big_set *big;
	mp_row_keys keys;
	int64		n;
	uint32	   *perm;
} sort_work;

static mp_status
sort_rows_work(void *ctx, bool gpu, mp_poll_fn poll, mp_gpu_timing *timing)
{
	sort_work  *w = ctx;
	void	   *scratch;
	mp_status	st;

	if (gpu)
		return mp_gpu_sort_rows(&w->keys, w->n, w->perm, poll, timing);
	scratch = mp_big_alloc(w->big, mp_cpu_sort_rows_scratch(Max(w->n, 1)));
	st = mp_cpu_sort_rows(&w->keys, w->n, w->perm, scratch, poll);
	note_peak(w->rs);
	mp_big_free(w->big, scratch);
	return st;
}

/*
 * The permutation that puts the held rows in key order; *keys gets their
 * composite keys (freed by the caller), laid out as lay_out_keys says.  A
 * run of an external sort is MP_OP_NODE_RUN's work: below
 * MP_COLD_GPU_MIN_ROWS rows (api/mp_measured.h) it stays on the CPU in a
 * process whose GPU is not set up, as setting it up costs about 0.2 s, more
 * than the GPU wins on such runs.
 */
static uint32 *
sort_held(mp_rowsort *rs, mp_row_keys *keys, int *bits)
{
	double		t0 = mp_now_ms(),
				t1;
	int			total = lay_out_keys(rs);
	sort_work	work = {rs, &rs->big};
	mp_run_report report;

	if (rs->fold_early && !rs->run_nulls && total == rs->early_bits)
	{
		/* no key has NULLs: the keys folded while reading are the keys */
		keys->words = rs->early_keys;
		keys->nwords = 1;
		keys->word_bytes = early_bytes(rs);
	}
	else
	{
		mp_big_free(&rs->big, rs->early_keys);
		mp_big_trim(&rs->big);
		keys->words = fold_keys(rs, total, &keys->nwords, &keys->word_bytes);
	}
	rs->early_keys = NULL;
	for (int w = 0; w < keys->nwords; w++)
		bits[w] = Min(total - 64 * w, keys->word_bytes * 8);
	keys->bits = bits;
	work.keys = *keys;
	work.n = rs->nrows;
	work.perm = mp_big_alloc(&rs->big, Max(rs->nrows, 1) * sizeof(uint32));
	t1 = mp_now_ms();
	rs->stats.keys_ms += t1 - t0;
	note_peak(rs);
	(void) mp_run(rs->fname, rs->spilled ? MP_OP_NODE_RUN : MP_OP_NODES, rs->nrows, &work,
				  sort_rows_work, &report);
	note_run(rs, &report);
	rs->stats.sort_ms += mp_now_ms() - t1;
	return work.perm;
}

/* The top bit of n keys of eb bytes flipped: unsigned order as signed. */
static void
flip_keys(void *keys, int64 n, Size eb)
{
	if (eb == 4)
		for (int64 i = 0; i < n; i++)
			((uint32 *) keys)[i] ^= UINT32_C(0x80000000);
	else
		for (int64 i = 0; i < n; i++)
			((uint64 *) keys)[i] ^= UINT64_C(0x8000000000000000);
}

/*
 * Key rows' sort as mp_run's work.  The GPU sorts the keys themselves, as
 * signed integers (their top bit flipped on the way in and out).  The CPU
 * sorts 8-byte keys as themselves too, by the row sort's passes
 * (mp_cpu_sort_keys; the array sort's byte digits took 331 ms for 10M rows
 * of two int4 keys on the 16-core GPU host, against 187 for the row sort's
 * permutation and a gather), and 4-byte keys by the row sort's permutation
 * and a gather.  The keys end in keys or in out: result.
 */
typedef struct key_sort_work
{
	mp_rowsort *rs;
	void	   *keys;
	void	   *out;
	int64		n;
	void	   *result;
} key_sort_work;

static mp_status
sort_keys_work(void *ctx, bool gpu, mp_poll_fn poll, mp_gpu_timing *timing)
{
	key_sort_work *w = ctx;
	mp_rowsort *rs = w->rs;
	Size		eb = early_bytes(rs);
	int			bits = rs->early_bits;
	mp_row_keys keys = {1, (int) eb, &bits, w->keys};
	uint32	   *perm;
	void	   *scratch;
	mp_status	st;

	w->result = w->out;
	if (gpu)
	{
		flip_keys(w->keys, w->n, eb);
		st = mp_gpu_sort(eb == 4 ? MP_INT4 : MP_INT8, w->keys, w->n, w->out, poll, timing);
		/* the keys as they were, for the CPU where the GPU failed */
		flip_keys(st == MP_OK ? w->out : w->keys, w->n, eb);
		return st;
	}
	if (eb == 8)
	{
		uint64	   *sorted;

		st = mp_cpu_sort_keys(w->keys, w->out, w->n, bits, &sorted, poll);
		w->result = sorted;
		return st;
	}
	perm = mp_big_alloc(&rs->big, Max(w->n, 1) * sizeof(uint32));
	scratch = mp_big_alloc(&rs->big, mp_cpu_sort_rows_scratch(Max(w->n, 1)));
	st = mp_cpu_sort_rows(&keys, w->n, perm, scratch, poll);
	note_peak(rs);
	mp_big_free(&rs->big, scratch);
	for (int64 lo = 0; st == MP_OK && lo < w->n; lo += GATHER_CHUNK)
		mp_cpu_gather((char *) w->out + lo * eb, w->keys, eb, perm + lo,
					  Min(GATHER_CHUNK, w->n - lo), mp_cpu_threads_now());
	mp_big_free(&rs->big, perm);
	return st;
}

/*
 * Key rows sorted: their keys (the narrow layout) in key order, as the work
 * of the row sort (sort_held's op); the early keys are freed.  Equal keys
 * are equal rows, so the order among them does not matter.
 */
static void *
sort_key_rows(mp_rowsort *rs)
{
	Size		eb = early_bytes(rs);
	key_sort_work work = {rs, rs->early_keys, NULL, rs->nrows, NULL};
	mp_run_report report;
	double		t0 = mp_now_ms();

	work.out = mp_big_alloc(&rs->big, Max(rs->nrows, 1) * eb);
	note_peak(rs);
	if (rs->nrows > 0)
	{
		(void) mp_run(rs->fname, rs->spilled ? MP_OP_NODE_RUN : MP_OP_NODES, rs->nrows,
					  &work, sort_keys_work, &report);
		note_run(rs, &report);
	}
	else
		work.result = work.out;
	/* the one of the two that does not hold the keys in order */
	mp_big_free(&rs->big, work.result == work.out ? rs->early_keys : work.out);
	rs->early_keys = NULL;
	rs->stats.sort_ms += mp_now_ms() - t0;
	return work.result;
}

/*
 * dst[i] = src[perm[i]], records of rec_bytes: a gather on the CPU backend's
 * threads, where the random reads are many in flight, in chunks with an
 * interrupt check between them.  src is freed (kept as a spare mapping that
 * the next gather of its size takes).
 */
static void *
gather(mp_rowsort *rs, const uint32 *perm, void *src, Size rec_bytes)
{
	int64		n = rs->nrows;
	char	   *dst = mp_big_alloc(&rs->big, Max(n, 1) * rec_bytes);

	for (int64 lo = 0; lo < n; lo += GATHER_CHUNK)
	{
		CHECK_FOR_INTERRUPTS();
		mp_cpu_gather(dst + lo * rec_bytes, src, rec_bytes, perm + lo,
					  Min(GATHER_CHUNK, n - lo), mp_cpu_threads_now());
	}
	note_peak(rs);
	mp_big_free(&rs->big, src);
	return dst;
}

/* All rows were held: one sort, and the rows put in its order. */
static void
sort_in_memory(mp_rowsort *rs)
{
	mp_row_keys keys;
	int		   *bits = rs->wbits;
	uint32	   *perm;
	double		t0;

	rs->peak_bytes = 0;
	if (rs->key_rows)
	{
		rs->sorted = sort_key_rows(rs);
		rs->stats.key_rows = true;
		rs->stats.method = MP_ROWSORT_MEMORY;
		rs->status = RS_MEMORY;
		rs->cur = -1;
		return;
	}
	perm = sort_held(rs, &keys, bits);
	t0 = mp_now_ms();
	mp_big_free(&rs->big, (void *) keys.words);
	if (rs->nrows > 0 && rs->value_rows)
	{
		/* a column at a time: the copy is one column's */
		for (int c = 0; c < rs->natts; c++)
		{
			rs->cols[c] = gather(rs, perm, rs->cols[c], sizeof(Datum));
			if (rs->nulls[c])
				rs->nulls[c] = gather(rs, perm, rs->nulls[c], sizeof(bool));
		}
	}
	else if (rs->nrows > 0)
		rs->rows = gather(rs, perm, rs->rows, sizeof(MinimalTuple));
	mp_big_free(&rs->big, perm);
	mp_big_trim(&rs->big);
	rs->stats.sort_ms += mp_now_ms() - t0;
	rs->stats.method = MP_ROWSORT_MEMORY;
	rs->status = RS_MEMORY;
	rs->cur = -1;
}

/* Word w of a key of nwords words at key (4-byte words: one). */
static inline uint64
key_word(const mp_rowsort *rs, const void *keys, int64 i, int w)
{
	if (rs->word_bytes == 4)
		return ((const uint32 *) keys)[i];
	return ((const uint64 *) keys)[i * rs->nwords + w];
}

static void
put_key_word(const mp_rowsort *rs, void *keys, int64 i, int w, uint64 v)
{
	if (rs->word_bytes == 4)
		((uint32 *) keys)[i] = (uint32) v;
	else
		((uint64 *) keys)[i * rs->nwords + w] = v;
}

/* A shared file's name: a worker's run (seq >= 0), or its list of runs. */
static void
file_name(char *name, Size size, int owner, int seq)
{
	if (seq < 0)
		snprintf(name, size, "mpsort.%d", owner);
	else
		snprintf(name, size, "mpsort.%d.%d", owner, seq);
}

/*
 * A new run's sink: a file of the shared set where this is a worker whose
 * leader merges the runs, else a tape of the sort's set.
 */
static void
open_sink(mp_rowsort *rs, rs_sink *out)
{
	memset(out, 0, sizeof(*out));
	if (rs->share != NULL && rs->participant >= 0)
	{
		char		name[MAXPGPATH];
		MemoryContext old = MemoryContextSwitchTo(rs->cxt);

		out->seq = rs->next_seq++;
		file_name(name, sizeof(name), rs->participant, out->seq);
		out->file = BufFileCreateFileSet(&rs->share->fs, name);
		MemoryContextSwitchTo(old);
	}
	else
		out->tape = LogicalTapeCreate(rs->tapes);
}

static inline void
sink_write(rs_sink *out, const void *ptr, Size size)
{
	if (out->tape)
		LogicalTapeWrite(out->tape, (void *) ptr, size);
	else
		BufFileWrite(out->file, (void *) ptr, size);
	out->bytes += size;
}

static void
write_key(mp_rowsort *rs, rs_sink *out, const uint64 *key)
{
	if (rs->word_bytes == 4)
	{
		uint32		k = (uint32) key[0];

		sink_write(out, &k, sizeof(k));
	}
	else
		sink_write(out, key, rs->nwords * sizeof(uint64));
}

static void
write_record(mp_rowsort *rs, rs_sink *out, const uint64 *key, MinimalTuple row)
{
	write_key(rs, out, key);
	/* the length, then the tuple from its first byte of data, as tuplesort */
	sink_write(out, &row->t_len, sizeof(uint32));
	sink_write(out, (char *) row + MINIMAL_TUPLE_DATA_OFFSET,
			   row->t_len - MINIMAL_TUPLE_DATA_OFFSET);
}

static void
push_run(mp_rowsort *rs, const rs_run *run)
{
	if (rs->nruns == rs->runs_room)
	{
		rs->runs_room = Max(rs->runs_room * 2, 16);
		rs->runs = rs->runs == NULL
			? MemoryContextAlloc(rs->cxt, rs->runs_room * sizeof(rs_run))
			: repalloc(rs->runs, rs->runs_room * sizeof(rs_run));
	}
	rs->runs[rs->nruns++] = *run;
}

/* The run written to out ends: a tape is rewound, a shared file closed. */
static rs_run
end_run(mp_rowsort *rs, rs_sink *out, int64 rows, bool wide, bool keys_only, bool values,
		uint64 vnulls)
{
	rs_run		run = {out->tape, -1, out->seq, out->bytes, rows, 0, wide, keys_only, values,
	vnulls};

	/* the write buffer goes; the read buffer comes at the first read */
	if (out->tape)
		LogicalTapeRewindForRead(out->tape, BLCKSZ);
	else
	{
		/*
		 * Closed (each open file would hold its buffer in the sort's memory);
		 * a closed file is no longer counted against temp_file_limit by
		 * PostgreSQL, so the sort counts the files it keeps.
		 */
		BufFileClose(out->file);
		run.owner = rs->participant;
		rs->shared_bytes += out->bytes;
		rs->shared_live += out->bytes;
		if (temp_file_limit >= 0 && rs->shared_live / 1024 > (Size) temp_file_limit)
			ereport(ERROR,
					(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
					 errmsg("temporary file size exceeds temp_file_limit (%dkB)",
							temp_file_limit)));
	}
	return run;
}

static void
add_run(mp_rowsort *rs, rs_sink *out, int64 rows, bool wide, bool keys_only,
		bool values, uint64 vnulls)
{
	rs_run		run = end_run(rs, out, rows, wide, keys_only, values, vnulls);

	push_run(rs, &run);
	rs->stats.runs++;
}

/*
 * The rows held go to their run through a staging buffer that the CPU
 * backend's threads fill, a chunk at a time: one pass takes each row's
 * record size (the rows are read in key order, at random, so the reads are
 * many in flight at once and leave the rows in the cache), the offsets are
 * summed up to what the buffer holds, and a second pass copies the
 * records (rows of values formed into tuples on the way), laid out as
 * write_record's.
 */
typedef struct stage_job
{
	const mp_rowsort *rs;
	const uint32 *perm;			/* the chunk's part of the permutation */
	const void *words;			/* the rows' keys (word-major) */
	int64		n;				/* rows of the run */
	Size	   *at;				/* a record's size, then its offset */
	int64		count;			/* the chunk's records */
	Size		end;			/* the end of their bytes */
	char	   *buf;
} stage_job;

static void
stage_sizes(void *ctx, int64_t lo, int64_t hi)
{
	stage_job  *job = ctx;
	Size		kb = job->rs->nwords * job->rs->word_bytes;

	for (int64_t j = lo; j < hi; j++)
		job->at[j] = kb + job->rs->rows[job->perm[j]]->t_len - MINIMAL_TUPLE_DATA_OFFSET +
			sizeof(uint32);
}

/* Row i's key words at to; returns the byte after them. */
static inline char *
stage_key(const stage_job *job, int64 i, char *to)
{
	const mp_rowsort *rs = job->rs;

	if (rs->word_bytes == 4)
	{
		memcpy(to, (const uint32 *) job->words + i, sizeof(uint32));
		return to + sizeof(uint32);
	}
	for (int w = 0; w < rs->nwords; w++)
	{
		memcpy(to, (const uint64 *) job->words + (Size) w * job->n + i, sizeof(uint64));
		to += sizeof(uint64);
	}
	return to;
}

static void
stage_copy(void *ctx, int64_t lo, int64_t hi)
{
	stage_job  *job = ctx;
	const mp_rowsort *rs = job->rs;

	for (int64_t j = lo; j < hi; j++)
	{
		int64		i = job->perm[j];
		MinimalTuple row = rs->rows[i];
		char	   *to = stage_key(job, i, job->buf + job->at[j]);

		memcpy(to, &row->t_len, sizeof(uint32));
		memcpy(to + sizeof(uint32), (char *) row + MINIMAL_TUPLE_DATA_OFFSET,
			   row->t_len - MINIMAL_TUPLE_DATA_OFFSET);
	}
}

/*
 * Held row i of values' NULLs as a pattern: bit c set where column c is
 * NULL.  With 64 columns or more, any NULL gives PG_UINT64_MAX, which no
 * laid-out pattern is.
 */
static inline uint64
row_nulls(const mp_rowsort *rs, int64 i)
{
	uint64		nulls = 0;

	for (int c = 0; c < rs->natts; c++)
		if (rs->nulls[c] != NULL && rs->nulls[c][i])
		{
			if (rs->natts >= 64)
				return PG_UINT64_MAX;
			nulls |= (uint64) 1 << c;
		}
	return nulls;
}

/*
 * A row of values as a minimal tuple, as heap_form_minimal_tuple lays it
 * out for columns passed by value: the header, a NULL bitmap where a value
 * is NULL, each value at its alignment.  Without to, only its t_len; with
 * it, the tuple from MINIMAL_TUPLE_DATA_OFFSET on goes to to (as a record
 * holds it), nothing outside PostgreSQL's macros called (the CPU backend's
 * threads run it).  nulls is the row's row_nulls.  A row without NULLs,
 * or with the NULLs lay_out_nulls laid out, is that tuple with its values
 * in place; another is laid out here, into memory the caller zeroed.
 */
static uint32
value_tuple(const mp_rowsort *rs, int64 i, uint64 nulls, char *to)
{
	Size		hoff,
				off;
	uint8		bits[(MaxTupleAttributeNumber + 7) / 8];

	if (nulls == 0 || nulls == rs->nt_nulls)
	{
		/* a laid-out pattern: its bytes, then the values in place */
		const char *head = nulls ? rs->nt_head : rs->vt_head;
		const uint32 *off_of = nulls ? rs->nt_off : rs->vt_off;
		uint32		len = nulls ? rs->nt_len : rs->vt_len;

		if (to)
		{
			memcpy(to, head + MINIMAL_TUPLE_DATA_OFFSET, len - MINIMAL_TUPLE_DATA_OFFSET);
			for (int c = 0; c < rs->natts; c++)
				if (!(nulls & ((uint64) 1 << c)))
					store_value(to + off_of[c] - MINIMAL_TUPLE_DATA_OFFSET, rs->att_len[c],
								held_value(rs, i, c));
		}
		return len;
	}
	hoff = MAXALIGN(SizeofMinimalTupleHeader + BITMAPLEN(rs->natts));
	off = hoff;
	memset(bits, 0, BITMAPLEN(rs->natts));
	for (int c = 0; c < rs->natts; c++)
	{
		if (rs->nulls[c] != NULL && rs->nulls[c][i])
			continue;
		bits[c >> 3] |= 1 << (c & 7);
		off = att_align_nominal(off, rs->att_align[c]);
		if (to)
			store_value(to + off - MINIMAL_TUPLE_DATA_OFFSET, rs->att_len[c], held_value(rs, i, c));
		off += rs->att_len[c];
	}
	if (to)
	{
		MinimalTupleData head;
		Size		fixed = offsetof(MinimalTupleData, t_bits) - MINIMAL_TUPLE_DATA_OFFSET;

		memset(&head, 0, sizeof(head));
		HeapTupleHeaderSetNatts(&head, rs->natts);
		head.t_infomask = HEAP_HASNULL;
		head.t_hoff = hoff + MINIMAL_TUPLE_OFFSET;
		memcpy(to, (char *) &head + MINIMAL_TUPLE_DATA_OFFSET, fixed);
		/* the bitmap; the padding up to the data stays zeroed */
		memcpy(to + fixed, bits, BITMAPLEN(rs->natts));
	}
	return (uint32) off;
}

/*
 * The rows of a run are read in key order, at random in the column arrays
 * (a run's arrays are a few MB, beyond the core's own cache): each staging
 * pass asks for the row STAGE_AHEAD places on while it forms this one.
 */
#define STAGE_AHEAD 12

static inline void
prefetch_held(const stage_job *job, int64 j, int64 hi, bool nulls, bool values)
{
	const mp_rowsort *rs = job->rs;
	int64		i;

	if (j + STAGE_AHEAD >= hi)
		return;
	i = job->perm[j + STAGE_AHEAD];
	for (int c = 0; c < rs->natts; c++)
	{
		if (nulls && rs->nulls[c] != NULL)
			__builtin_prefetch(&rs->nulls[c][i]);
		if (values)
			__builtin_prefetch(&rs->cols[c][i]);
	}
	__builtin_prefetch((const char *) job->words + i * (rs->word_bytes == 4 ? 4 : 8));
}

static void
stage_sizes_values(void *ctx, int64_t lo, int64_t hi)
{
	stage_job  *job = ctx;
	const mp_rowsort *rs = job->rs;
	Size		fixed = rs->nwords * rs->word_bytes + sizeof(uint32) - MINIMAL_TUPLE_DATA_OFFSET;

	for (int64_t j = lo; j < hi; j++)
	{
		prefetch_held(job, j, hi, true, false);
		job->at[j] = fixed + value_tuple(rs, job->perm[j], row_nulls(rs, job->perm[j]), NULL);
	}
}

static void
stage_copy_values(void *ctx, int64_t lo, int64_t hi)
{
	stage_job  *job = ctx;
	Size		kb = job->rs->nwords * job->rs->word_bytes;

	for (int64_t j = lo; j < hi; j++)
	{
		int64		i = job->perm[j];
		char	   *to;
		uint32		len;
		uint64		nulls;

		prefetch_held(job, j, hi, true, true);
		to = stage_key(job, i, job->buf + job->at[j]);
		len = (j + 1 < job->count ? job->at[j + 1] : job->end) - job->at[j] - kb -
			sizeof(uint32) + MINIMAL_TUPLE_DATA_OFFSET;
		nulls = row_nulls(job->rs, i);

		memcpy(to, &len, sizeof(uint32));
		/* alignment within the tuple is relative to its start */
		if (nulls != 0 && nulls != job->rs->nt_nulls)
			memset(to + sizeof(uint32), 0, len - MINIMAL_TUPLE_DATA_OFFSET);
		(void) value_tuple(job->rs, i, nulls, to + sizeof(uint32));
	}
}

/* Rows a thread takes at least. */
#define STAGE_PART 4096

/*
 * The pattern of NULLs value_tuple lays out at once beside "none": the first
 * row's of a run, where it has one (the rows of a run mostly share it).
 */
static void
lay_out_nulls(mp_rowsort *rs, uint64 nulls)
{
	if (nulls == 0 || nulls == rs->nt_nulls || nulls == PG_UINT64_MAX)
		return;
	if (rs->nt_off == NULL)
		rs->nt_off = MemoryContextAlloc(rs->cxt, Max(rs->natts, 1) * sizeof(uint32));
	if (rs->nt_head)
		pfree(rs->nt_head);
	rs->nt_len = lay_out_pattern(rs, nulls, rs->nt_off, NULL);
	rs->nt_head = MemoryContextAlloc(rs->cxt, rs->nt_len);
	(void) lay_out_pattern(rs, nulls, NULL, rs->nt_head);
	rs->nt_nulls = nulls;
}

/*
 * Rows of values whose run shares one pattern of NULLs (the columns NULL in
 * every row of it, as a subquery's unused columns are, and no other NULL)
 * are written as packed records: the key, then each other column's value
 * in its length, with no tuple header, alignment or length; a record is half
 * a tuple's record or less (the order query's rows of (NULL, int4, int8,
 * NULL): 16 bytes against 32).  The merge forms the tuple again as it reads
 * the record (load_window).  *vnulls gets the pattern.
 */
static bool
pack_run(const mp_rowsort *rs, uint64 *vnulls)
{
	uint64		pattern = 0;

	if (!rs->value_rows || rs->natts >= 64)
		return false;
	for (int c = 0; c < rs->natts; c++)
	{
		if (rs->nulls[c] == NULL || memchr(rs->nulls[c], true, rs->nrows) == NULL)
			continue;
		if (memchr(rs->nulls[c], false, rs->nrows) != NULL)
			return false;		/* NULL in some rows only */
		pattern |= (uint64) 1 << c;
	}
	*vnulls = pattern;
	return true;
}

/* The bytes of a packed record's values, of a run with NULL pattern vnulls. */
static uint32
packed_bytes(const mp_rowsort *rs, uint64 vnulls)
{
	uint32		bytes = 0;

	for (int c = 0; c < rs->natts; c++)
		if (!(vnulls & ((uint64) 1 << c)))
			bytes += rs->att_len[c];
	return bytes;
}

typedef struct pack_job
{
	stage_job	stage;
	uint64		vnulls;
	Size		rec;			/* a record's bytes */
} pack_job;

static void
stage_packed(void *ctx, int64_t lo, int64_t hi)
{
	pack_job   *job = ctx;
	const mp_rowsort *rs = job->stage.rs;

	for (int64_t j = lo; j < hi; j++)
	{
		int64		i = job->stage.perm[j];
		char	   *to;

		prefetch_held(&job->stage, j, hi, false, true);
		to = stage_key(&job->stage, i, job->stage.buf + j * job->rec);
		for (int c = 0; c < rs->natts; c++)
			if (!(job->vnulls & ((uint64) 1 << c)))
			{
				store_value(to, rs->att_len[c], rs->cols[c][i]);
				to += rs->att_len[c];
			}
	}
}

static void
stage_packed_run(mp_rowsort *rs, rs_sink *out, const uint32 *perm, const void *words,
				 uint64 vnulls)
{
	pack_job	job = {{rs, NULL, words, rs->nrows}, vnulls};
	Size		room;
	int64		per;

	job.rec = rs->nwords * rs->word_bytes + packed_bytes(rs, vnulls);
	per = Max((int64) (stage_room(rs) / job.rec), 1);
	room = per * job.rec;
	job.stage.buf = palloc(room);
	for (int64 j = 0; j < rs->nrows; j += per)
	{
		int64		c = Min(per, rs->nrows - j);

		CHECK_FOR_INTERRUPTS();
		job.stage.perm = perm + j;
		mp_cpu_parallel(mp_cpu_threads_now(), c, STAGE_PART, stage_packed, &job);
		sink_write(out, job.stage.buf, c * job.rec);
	}
	pfree(job.stage.buf);
}

static void
stage_run(mp_rowsort *rs, rs_sink *out, const uint32 *perm, const void *words)
{
	Size		room = stage_room(rs);
	stage_job	job = {rs, NULL, words, rs->nrows};
	Size	   *at = palloc((STAGE_ROWS + 1) * sizeof(Size));
	char	   *buf = palloc(room);
	int64		j = 0;
	double		record = rs->nwords * rs->word_bytes + sizeof(uint32) + 32;

	job.at = at;
	job.buf = buf;
	if (rs->value_rows && rs->nrows > 0)
		lay_out_nulls(rs, row_nulls(rs, perm[0]));
	while (j < rs->nrows)
	{
		/* about as many rows as the last chunk's records say fit */
		int64		c = Min(Min(STAGE_ROWS, rs->nrows - j), (int64) (room / record * 1.1) + 16);
		int64		m = 0;
		Size		used = 0;

		CHECK_FOR_INTERRUPTS();
		job.perm = perm + j;
		mp_cpu_parallel(mp_cpu_threads_now(), c, STAGE_PART,
						rs->value_rows ? stage_sizes_values : stage_sizes, &job);
		/* the records that fit, as offsets (one at least: a larger one grows
		 * the buffer) */
		while (m < c && (m == 0 || used + at[m] <= room))
		{
			Size		size = at[m];

			at[m++] = used;
			used += size;
		}
		if (used > room)
		{
			buf = repalloc_huge(buf, used);
			room = used;
			job.buf = buf;
		}
		job.count = m;
		job.end = used;
		mp_cpu_parallel(mp_cpu_threads_now(), m, STAGE_PART,
						rs->value_rows ? stage_copy_values : stage_copy, &job);
		sink_write(out, buf, used);
		j += m;
		record = (double) used / m;
	}
	pfree(at);
	pfree(buf);
}

/* The tape set runs are written to, at the first run. */
static void
open_tapes(mp_rowsort *rs)
{
	MemoryContext old;

	if (rs->spilled)
		return;
	old = MemoryContextSwitchTo(rs->cxt);
	PrepareTempTablespaces();
	/* a worker whose runs go to shared files has no tapes */
	if (rs->share == NULL || rs->participant < 0)
		rs->tapes = LogicalTapeSetCreate(false, NULL, -1);
	MemoryContextSwitchTo(old);
	rs->spilled = true;
}

/* Key rows held, sorted, become a run of their keys alone. */
static void
write_key_run(mp_rowsort *rs)
{
	Size		eb = early_bytes(rs);
	char	   *sorted = sort_key_rows(rs);
	rs_sink		out;
	double		t0 = mp_now_ms();
	int64		n = rs->nrows;

	rs->nwords = rs->narrow.nwords;
	rs->word_bytes = rs->narrow.word_bytes;
	Assert(rs->narrow.nwords == 1 && rs->narrow.word_bytes == eb);
	open_sink(rs, &out);
	for (int64 lo = 0; lo < n; lo += ROW_CHUNK)
	{
		CHECK_FOR_INTERRUPTS();
		sink_write(&out, sorted + lo * eb, Min(ROW_CHUNK, n - lo) * eb);
	}
	add_run(rs, &out, n, false, true, false, 0);
	note_peak(rs);
	forget_rows(rs);
	rs->stats.write_ms += mp_now_ms() - t0;
}

/* The rows held, sorted, become a run on disk; then they are forgotten. */
static void
write_run(mp_rowsort *rs)
{
	mp_row_keys keys;
	int		   *bits = rs->wbits;
	uint32	   *perm;
	rs_sink		out;
	double		t0;
	int64		n = rs->nrows;
	bool		packed;
	uint64		vnulls = 0;

	open_tapes(rs);
	if (rs->key_rows)
	{
		write_key_run(rs);
		return;
	}
	perm = sort_held(rs, &keys, bits);
	rs->nwords = keys.nwords;
	rs->word_bytes = keys.word_bytes;
	Assert(keys.nwords == (rs->run_nulls ? rs->wide : rs->narrow).nwords &&
		   keys.word_bytes == (rs->run_nulls ? rs->wide : rs->narrow).word_bytes);
	t0 = mp_now_ms();
	open_sink(rs, &out);
	packed = pack_run(rs, &vnulls);
	if (packed)
		stage_packed_run(rs, &out, perm, keys.words, vnulls);
	else
		stage_run(rs, &out, perm, keys.words);
	add_run(rs, &out, n, rs->run_nulls, false, packed, packed ? vnulls : 0);
	note_peak(rs);
	forget_rows(rs);
	rs->stats.write_ms += mp_now_ms() - t0;
}

/*
 * Rows kept on the GPU.  Where the GPU sorts the rows (the settings choose
 * it for the whole input, as for MP_OP_NODE_SPILL) and mergepath.gpu_sort_mem
 * allows, the rows the memory cannot hold are shipped to a row store in
 * device memory instead of being sorted into a run on disk: as minimal
 * tuples, each with its composite key in the wide layout (every key with its
 * NULL bit, so that all shipments' keys compare).  At the end one stable sort
 * on the device orders them all (equal keys in input order), and the rows
 * come back in that order a chunk at a time into a buffer of the node's
 * memory; any row is reached by its position, so backward fetches, mark and
 * restore and rescans need no result tape.  Where the store would outgrow
 * its limit or the GPU's free memory, it is drained into one run on disk
 * and the sort goes on as an external merge.  A failure of the GPU loses
 * the rows: the query ends with an error.
 */

/* The store freed with the sort's memory, on error too. */
static void
release_device(void *arg)
{
	mp_rowsort *rs = arg;

	if (rs->dev == NULL)
		return;
	mp_gpu_store_free(rs->dev);
	rs->dev = NULL;
	mp_gpu_end();
}

/* A store call's status (after its cancels were served): failures raised. */
static void
device_call(mp_rowsort *rs, mp_status st)
{
	if (st != MP_OK)
		mp_gpu_held_failed(rs->fname, st);
	rs->stats.used_gpu = true;
}

/*
 * Whether the rows held go to the GPU now: decided at the first spill, for
 * the rows the planner expected (or those held, if more), as the settings
 * choose for MP_OP_NODE_SPILL; the store is made then.
 */
static bool
device_spill(mp_rowsort *rs)
{
	int			bits[STORE_WORDS_MAX];
	int64		n = (int64) Max(rs->est_rows, (double) rs->nrows);
	char		note[sizeof(rs->stats.note)];
	mp_status	st;

	if (rs->dev)
		return true;
	/* in a shared sort, only the leader of one whose rows go to its store */
	if (rs->dev_decided || (rs->share && (!rs->to_store || rs->participant >= 0)))
		return false;
	rs->dev_decided = true;
	if (mp_gpu_sort_mem_mb <= 0 || rs->spilled || rs->wide.nwords > lengthof(bits))
		return false;
	/* (the leader's choice for all participants' rows was made before they
	 * started: mp_rowsort_store_chosen) */
	if ((!rs->to_store && !mp_gpu_chosen(MP_OP_NODE_SPILL, n, NULL, 0)) ||
		!mp_gpu_hold(rs->fname, note, sizeof(note)))
		return false;
	for (int w = 0; w < rs->wide.nwords; w++)
		bits[w] = Min(rs->key_bits_max - 64 * w, rs->wide.word_bytes * 8);
	st = mp_gpu_store_create(rs->wide.nwords, rs->wide.word_bytes, bits,
							 (size_t) mp_gpu_sort_mem_mb << 20, &rs->dev);
	if (st != MP_OK)
	{
		mp_gpu_end();
		mp_gpu_held_failed(rs->fname, st);
	}
	rs->dev_release.func = release_device;
	rs->dev_release.arg = rs;
	MemoryContextRegisterResetCallback(rs->cxt, &rs->dev_release);
	return true;
}

/*
 * The held rows' composite keys in the wide layout (word-major, as
 * fold_keys'): the keys folded while reading, widened, where no key had a
 * NULL; else folded again with every NULL bit.
 */
static void *
wide_keys(mp_rowsort *rs)
{
	int64		n = rs->nrows;
	int			nwords = rs->wide.nwords;
	int			wb = rs->wide.word_bytes;
	bool		narrow = rs->fold_early && !rs->run_nulls;
	void	   *words;

	for (int k = 0; k < rs->nkeys; k++)
		narrow &= !rs->keys[k].has_nulls;
	if (narrow)
	{
		uint64	   *acc = rs->acc;

		words = mp_big_alloc(&rs->big, (Size) Max(n, 1) * nwords * wb);
		for (int64 i = 0; i < n; i++)
		{
			uint64		early = early_bytes(rs) == 4 ? ((const uint32 *) rs->early_keys)[i]
				: ((const uint64 *) rs->early_keys)[i];

			memset(acc, 0, (rs->maxwords + 1) * sizeof(uint64));
			for (int k = 0; k < rs->nkeys; k++)
			{
				rs_keydef  *key = &rs->keys[k];

				mp_key_put(acc, key->wide_lo, key->bits, mp_key_get(&early, key->narrow_lo,
																	key->bits));
				mp_key_put(acc, key->wide_lo + key->bits, 1,
						   mp_key_null_bit(false, key->nulls_first));
			}
			if (wb == 4)
				((uint32 *) words)[i] = (uint32) acc[0];
			else
				for (int w = 0; w < nwords; w++)
					((uint64 *) words)[(Size) w * n + i] = acc[w];
		}
	}
	else
	{
		int			got_words,
					got_bytes;

		for (int k = 0; k < rs->nkeys; k++)
		{
			rs->keys[k].lo = rs->keys[k].wide_lo;
			rs->keys[k].has_nulls = true;
		}
		words = fold_keys(rs, rs->key_bits_max, &got_words, &got_bytes);
		Assert(got_words == nwords && got_bytes == wb);
		for (int k = 0; k < rs->nkeys; k++)
			rs->keys[k].lo = rs->keys[k].narrow_lo;
	}
	/* key rows' values are unfolded from them as they are shipped */
	if (rs->early_keys && !rs->key_rows)
	{
		mp_big_free(&rs->big, rs->early_keys);
		rs->early_keys = NULL;
	}
	return words;
}

/* A held row's bytes as a tuple in the store: its length, 8-byte aligned. */
static inline Size
ship_len(const mp_rowsort *rs, int64 i)
{
	return MAXALIGN(rs->value_rows ? value_tuple(rs, i, row_nulls(rs, i), NULL)
					: rs->rows[i]->t_len);
}

/* The tuples of a chunk of held rows, as stage_run's: sizes, then copies. */
typedef struct ship_job
{
	const mp_rowsort *rs;
	int64		first;			/* the chunk's first row */
	Size	   *at;				/* a tuple's size, then its offset */
	char	   *buf;
} ship_job;

static void
ship_sizes(void *ctx, int64_t lo, int64_t hi)
{
	ship_job   *job = ctx;

	for (int64_t j = lo; j < hi; j++)
		job->at[j] = ship_len(job->rs, job->first + j);
}

static void
ship_copy(void *ctx, int64_t lo, int64_t hi)
{
	ship_job   *job = ctx;
	const mp_rowsort *rs = job->rs;

	for (int64_t j = lo; j < hi; j++)
	{
		int64		i = job->first + j;
		char	   *to = job->buf + job->at[j];
		Size		room = job->at[j + 1] - job->at[j];

		if (!rs->value_rows)
		{
			MinimalTuple row = rs->rows[i];

			memcpy(to, row, row->t_len);
			memset(to + row->t_len, 0, room - row->t_len);
		}
		else
		{
			uint64		nulls = row_nulls(rs, i);
			uint32		len = value_tuple(rs, i, nulls, NULL);

			memset(to, 0, room);
			((MinimalTuple) to)->t_len = len;
			(void) value_tuple(rs, i, nulls, to + MINIMAL_TUPLE_DATA_OFFSET);
		}
	}
}

/* wide_keys, its time (from t0, ending at *t1) counted as the keys'. */
static void *
timed_wide_keys(mp_rowsort *rs, double t0, double *t1)
{
	void	   *words = wide_keys(rs);

	*t1 = mp_now_ms();
	rs->stats.keys_ms += *t1 - t0;
	note_peak(rs);
	return words;
}

/*
 * The tuples of held rows j .. j + c that fit the stage's buffer of *room
 * bytes (one at least: a longer one grows it), formed into it on the CPU
 * backend's threads: how many (m); job->at[0 .. m] their offsets and end.
 */
static int64
stage_tuples(ship_job *job, int64 j, int64 c, Size *room)
{
	Size	   *at = job->at;
	int64		m = 0;
	Size		used = 0;

	job->first = j;
	mp_cpu_parallel(mp_cpu_threads_now(), c, STAGE_PART, ship_sizes, job);
	while (m < c && (m == 0 || used + at[m] <= *room))
	{
		Size		size = at[m];

		at[m++] = used;
		used += size;
	}
	at[m] = used;
	if (used > *room)
	{
		job->buf = repalloc_huge(job->buf, used);
		*room = used;
	}
	mp_cpu_parallel(mp_cpu_threads_now(), m, STAGE_PART, ship_copy, job);
	return m;
}

/*
 * The rows held go to the store, and are forgotten; false, with nothing
 * shipped, where the store cannot take them (its limit, or the GPU's free
 * memory).
 */
static bool
ship_rows(mp_rowsort *rs)
{
	int64		n = rs->nrows;
	Size		room = stage_room(rs);
	int64		chunk = ship_chunk(rs);
	Size	   *at = palloc((chunk + 1) * sizeof(Size));
	uint64	   *off = palloc(chunk * sizeof(uint64));
	ship_job	job = {rs, 0, at, palloc(room)};
	int			wb = rs->wide.word_bytes;
	Size		total = 0;
	Size		base = rs->dev_bytes;
	double		t0 = mp_now_ms(),
				t1;
	void	   *words;
	mp_status	st;

	if (rs->value_rows && n > 0)
		lay_out_nulls(rs, row_nulls(rs, 0));
	for (int64 i = 0; i < n; i++)
		total += ship_len(rs, i);
	st = mp_gpu_store_reserve(rs->dev, n, total);
	if (st == MP_OUT_OF_MEMORY)
	{
		pfree(at);
		pfree(off);
		pfree(job.buf);
		return false;
	}
	device_call(rs, st);
	words = timed_wide_keys(rs, t0, &t1);
	for (int64 j = 0; j < n;)
	{
		int64		m;
		Size		used;

		CHECK_FOR_INTERRUPTS();
		m = stage_tuples(&job, j, Min(chunk, n - j), &room);
		used = at[m];
		for (int64 k = 0; k < m; k++)
			off[k] = base + at[k];
		while ((st = mp_gpu_store_append(rs->dev, job.buf, used, off,
										 (char *) words + (Size) j * wb, n, m, mp_poll,
										 &rs->stats.gpu)) == MP_CANCELLED)
			CHECK_FOR_INTERRUPTS();
		device_call(rs, st);
		base += used;
		j += m;
	}
	Assert(base == rs->dev_bytes + total);
	rs->dev_bytes = base;
	rs->dev_rows += n;
	rs->stats.runs++;
	mp_big_free(&rs->big, words);
	pfree(at);
	pfree(off);
	pfree(job.buf);
	note_peak(rs);
	forget_rows(rs);
	rs->stats.write_ms += mp_now_ms() - t1;
	return true;
}

/* The store's sort, and the buffer rows are fetched into: the memory that
 * held the rows, two thirds for tuples and a third for pointers to them. */
static void
device_sort(mp_rowsort *rs)
{
	double		t0 = mp_now_ms();
	mp_status	st;

	while ((st = mp_gpu_store_sort(rs->dev, mp_poll, &rs->stats.gpu)) == MP_CANCELLED)
		CHECK_FOR_INTERRUPTS();
	device_call(rs, st);
	rs->dev_kb = (int64) ((mp_gpu_store_device_bytes(rs->dev) + 1023) / 1024);
	rs->fetch_size = MAXALIGN(Max(rs->limit * 2 / 3, (Size) 65536));
	rs->fetch_cap = (int64) (rs->fetch_size / (3 * sizeof(MinimalTuple)));
	rs->fetch_buf = MemoryContextAllocHuge(rs->cxt, rs->fetch_size);
	rs->fetch_rows = MemoryContextAllocHuge(rs->cxt, rs->fetch_cap * sizeof(MinimalTuple));
	rs->fetch_first = rs->fetch_n = 0;
	rs->stats.sort_ms += mp_now_ms() - t0;
	note_peak(rs);
}

/* The chunk of rows in key order from first on. */
static void
fetch_at(mp_rowsort *rs, int64 first)
{
	double		t0 = mp_now_ms();
	int64		rows;
	size_t		bytes;
	char	   *p;
	mp_status	st;

	for (;;)
	{
		while ((st = mp_gpu_store_fetch(rs->dev, first, rs->fetch_cap, rs->fetch_size,
										rs->fetch_buf, &rows, &bytes, mp_poll,
										&rs->stats.gpu)) == MP_CANCELLED)
			CHECK_FOR_INTERRUPTS();
		device_call(rs, st);
		if (rows > 0)
			break;
		/* a row longer than the buffer: grow it */
		rs->fetch_buf = repalloc_huge(rs->fetch_buf, bytes);
		rs->fetch_size = bytes;
		note_peak(rs);
	}
	p = rs->fetch_buf;
	for (int64 j = 0; j < rows; j++)
	{
		rs->fetch_rows[j] = (MinimalTuple) p;
		p += MAXALIGN(((MinimalTuple) p)->t_len);
	}
	Assert(p == rs->fetch_buf + bytes);
	rs->fetch_first = first;
	rs->fetch_n = rows;
	rs->stats.merge_ms += mp_now_ms() - t0;
}

/* Row pos of the store's order, fetched if it is not: the chunk from it
 * on, going forward; the chunk that ends at it, going backward. */
static MinimalTuple
fetch_row(mp_rowsort *rs, int64 pos, bool forward)
{
	if (pos < rs->fetch_first || pos >= rs->fetch_first + rs->fetch_n)
	{
		fetch_at(rs, forward ? pos : Max(pos - Max(rs->fetch_n, 1) + 1, 0));
		if (pos >= rs->fetch_first + rs->fetch_n)
			fetch_at(rs, pos);
	}
	return rs->fetch_rows[pos - rs->fetch_first];
}

/* A fetched row's composite key in the wide layout, into key. */
static void
tuple_wide_key(mp_rowsort *rs, MinimalTuple row, uint64 *key)
{
	HeapTupleData tuple;

	memset(key, 0, rs->maxwords * sizeof(uint64));
	mp_row_as_heap(row, &tuple);
	for (int k = 0; k < rs->nkeys; k++)
	{
		rs_keydef  *def = &rs->keys[k];
		bool		isnull;
		Datum		d = heap_getattr(&tuple, def->attno, rs->desc, &isnull);
		uint64		v = isnull ? 0 : mp_fold_key(def->kind, d);

		mp_key_put(key, def->wide_lo, def->bits, mp_key_value(v, def->bits, def->desc, isnull));
		mp_key_put(key, def->wide_lo + def->bits, 1, mp_key_null_bit(isnull, def->nulls_first));
	}
}

/*
 * The store, sorted, becomes one run on disk (wide), and is freed: the
 * rows held after it go to runs on disk, as an external merge's.
 */
static void
drain_device(mp_rowsort *rs)
{
	rs_sink		out;
	double		t0;

	if (rs->dev_rows == 0)
	{
		/* the first rows did not fit: nothing to drain */
		release_device(rs);
		return;
	}
	open_tapes(rs);
	device_sort(rs);
	t0 = mp_now_ms();
	rs->nwords = rs->wide.nwords;
	rs->word_bytes = rs->wide.word_bytes;
	open_sink(rs, &out);
	for (int64 first = 0; first < rs->dev_rows; first += rs->fetch_n)
	{
		CHECK_FOR_INTERRUPTS();
		fetch_at(rs, first);
		for (int64 j = 0; j < rs->fetch_n; j++)
		{
			tuple_wide_key(rs, rs->fetch_rows[j], rs->key);
			write_record(rs, &out, rs->key, rs->fetch_rows[j]);
		}
	}
	add_run(rs, &out, rs->dev_rows, true, false, false, 0);
	rs->runs[rs->nruns - 1].level = INT_MAX;	/* never merged while loading */
	rs->stats.runs--;			/* counted as shipped */
	pfree(rs->fetch_buf);
	pfree(rs->fetch_rows);
	rs->fetch_buf = NULL;
	rs->fetch_rows = NULL;
	rs->fetch_n = 0;
	release_device(rs);
	rs->stats.write_ms += mp_now_ms() - t0;
}

/*
 * A worker's rows for the leader's GPU store (mp_rowsort_share's to_store):
 * the rows held, unsorted, as ship_rows would ship them, written to the
 * worker's shared file instead, in chunks of a header, the chunk's wide
 * keys (word-major) and its tuples (each at an 8-byte boundary).  The
 * leader appends each chunk to its store as it is (take_chunks).
 */
static void
write_chunks(mp_rowsort *rs)
{
	int64		n = rs->nrows;
	Size		room = stage_room(rs);
	int64		chunk = ship_chunk(rs);
	int			nwords = rs->wide.nwords;
	int			wb = rs->wide.word_bytes;
	Size	   *at;
	ship_job	job;
	double		t0 = mp_now_ms(),
				t1;
	void	   *words;

	if (n == 0)
		return;
	open_tapes(rs);
	if (!rs->chunks_open)
	{
		open_sink(rs, &rs->chunks);
		rs->chunks_open = true;
	}
	at = palloc((chunk + 1) * sizeof(Size));
	job = (ship_job) {rs, 0, at, palloc(room)};
	if (rs->value_rows)
		lay_out_nulls(rs, row_nulls(rs, 0));
	words = timed_wide_keys(rs, t0, &t1);
	for (int64 j = 0; j < n;)
	{
		rs_chunk_head head;

		CHECK_FOR_INTERRUPTS();
		head.rows = stage_tuples(&job, j, Min(chunk, n - j), &room);
		head.bytes = at[head.rows];
		sink_write(&rs->chunks, &head, sizeof(head));
		for (int w = 0; w < nwords; w++)
			sink_write(&rs->chunks, (char *) words + ((Size) w * n + j) * wb, head.rows * wb);
		sink_write(&rs->chunks, job.buf, head.bytes);
		j += head.rows;
	}
	rs->chunk_rows += n;
	rs->stats.runs++;
	mp_big_free(&rs->big, words);
	pfree(at);
	pfree(job.buf);
	note_peak(rs);
	forget_rows(rs);
	rs->stats.write_ms += mp_now_ms() - t1;
}

static void cascade_runs(mp_rowsort *rs);

/* The rows held go to the GPU's store, or to a run on disk. */
static void
spill(mp_rowsort *rs)
{
	if (rs->to_store && rs->participant >= 0)
	{
		write_chunks(rs);
		return;
	}
	if (device_spill(rs) && ship_rows(rs))
		return;
	if (rs->dev)
		drain_device(rs);
	write_run(rs);
	cascade_runs(rs);
}

/*
 * The memory a merge has: what the sort's own context does not hold already
 * (the tapes' set and its lists, the runs), at least half.
 */
static Size
merge_room(mp_rowsort *rs)
{
	return rs->limit - Min(MemoryContextMemAllocated(rs->cxt, false), rs->limit / 2);
}

/*
 * The merge's windows: each of the k runs gets an equal share of the
 * merge's memory (merge_room), its tape's buffer and its bytes read ahead
 * (run_read), and 5/12 of the rest for its tuples: a row of
 * WINDOW_ROW_BYTES also takes its key and pointer in the window and its
 * key, pointer, place in the permutation and merged pointer in the batch,
 * 2.4 times the tuple's bytes in all with 8-byte keys.
 */
static void
merge_begin(mp_rowsort *rs, rs_run *runs, int k)
{
	Size		share = merge_room(rs) / k;
	Size		arena;
	int64		cap;
	Size		kb = rs->nwords * rs->word_bytes;
	Size		keys_at,
				rows_at,
				ahead_at,
				pending_at,
				window;
	int64		batch_cap;
	Size		brows_at,
				perm_at,
				out_at;
	char	   *batch;

	share = Max(share, MIN_SHARE) - BLCKSZ - READ_AHEAD;
	arena = share * 5 / 12;
	cap = Max((int64) (arena / WINDOW_ROW_BYTES), 16);
	keys_at = MAXALIGN(arena);
	rows_at = keys_at + MAXALIGN(cap * kb);
	ahead_at = rows_at + MAXALIGN(cap * sizeof(MinimalTuple));
	pending_at = ahead_at + READ_AHEAD;
	window = pending_at + MAXALIGN(rs->nwords * sizeof(uint64));
	batch_cap = cap * k;
	brows_at = MAXALIGN(batch_cap * kb);
	perm_at = brows_at + MAXALIGN(batch_cap * sizeof(MinimalTuple));
	out_at = perm_at + MAXALIGN(batch_cap * sizeof(uint32));
	MemoryContextReset(rs->merge_cxt);
	rs->inputs = MemoryContextAllocZero(rs->merge_cxt, k * sizeof(rs_input));
	rs->ninputs = k;

	/*
	 * A window's arrays in one allocation, and the batch's in another: each
	 * a block of its own size (a context's small chunks would round each
	 * array up to a power of two, and its blocks hold room unused).
	 */
	for (int r = 0; r < k; r++)
	{
		rs_input   *in = &rs->inputs[r];
		char	   *at = mp_big_alloc(&rs->mbig, window);

		in->tape = runs[r].tape;
		in->owner = runs[r].owner;
		in->seq = runs[r].seq;
		in->bytes = runs[r].bytes;
		if (in->tape == NULL)
		{
			char		name[MAXPGPATH];
			MemoryContext old = MemoryContextSwitchTo(rs->cxt);

			file_name(name, sizeof(name), in->owner, in->seq);
			in->file = BufFileOpenFileSet(&rs->share->fs, name, O_RDONLY, false);
			MemoryContextSwitchTo(old);
		}
		in->left = runs[r].rows;
		in->widen = !runs[r].wide && rs->merge_wide;
		in->keys_only = runs[r].keys_only;
		in->values = runs[r].values;
		if (in->values)
		{
			in->vbytes = packed_bytes(rs, runs[r].vnulls);
			in->voff = MemoryContextAlloc(rs->merge_cxt, Max(rs->natts, 1) * sizeof(uint32));
			for (int c = 0; c < rs->natts; c++)
				in->voff[c] = UINT32_MAX;	/* NULL in every row */
			in->vlen = lay_out_pattern(rs, runs[r].vnulls, in->voff, NULL);
			in->vhead = MemoryContextAlloc(rs->merge_cxt, in->vlen);
			(void) lay_out_pattern(rs, runs[r].vnulls, NULL, in->vhead);
		}
		in->arena_size = arena;
		in->arena = at;
		in->cap = cap;
		in->keys = at + keys_at;
		in->rows = (MinimalTuple *) (at + rows_at);
		in->ahead = at + ahead_at;
		in->pending_key = (uint64 *) (at + pending_at);
	}
	rs->batch_cap = batch_cap;
	batch = mp_big_alloc(&rs->mbig, out_at + batch_cap * sizeof(MinimalTuple));
	rs->bkeys = batch;
	rs->brows = (MinimalTuple *) (batch + brows_at);
	rs->perm = (uint32 *) (batch + perm_at);
	rs->out = (MinimalTuple *) (batch + out_at);
	rs->bounds = MemoryContextAlloc(rs->merge_cxt, (k + 1) * sizeof(int64));
	rs->nout = rs->outpos = 0;
	note_peak(rs);
}

/* Exactly size bytes from the tape, or an error. */
static void
tape_read(LogicalTape *tape, void *ptr, size_t size)
{
	if (LogicalTapeRead(tape, ptr, size) != size)
		elog(ERROR, "mergepath row sort: unexpected end of a temporary file");
}

/*
 * Exactly size bytes of a run's records, or an error: from the bytes read
 * ahead, which are refilled from the tape READ_AHEAD bytes at a time (a
 * call of LogicalTapeRead for every key, length and tuple cost more than
 * the copies).  A run has its tape to itself, so reading ahead past its
 * last record reads nothing of another's.
 */
static inline void
run_read(rs_input *in, void *ptr, size_t size)
{
	char	   *to = ptr;

	while (size > in->end - in->at)
	{
		Size		part = in->end - in->at;

		memcpy(to, in->ahead + in->at, part);
		to += part;
		size -= part;
		in->at = 0;
		in->end = in->tape ? LogicalTapeRead(in->tape, in->ahead, READ_AHEAD)
			: BufFileRead(in->file, in->ahead, READ_AHEAD);
		if (in->end == 0)
			elog(ERROR, "mergepath row sort: unexpected end of a temporary file");
	}
	memcpy(to, in->ahead + in->at, size);
	in->at += size;
}

/*
 * A narrow record's key read, and widened into the merge's layout: each
 * key's value moved up past the NULL bits below it, its NULL bit that of a
 * value.
 */
static void
read_widened(mp_rowsort *rs, rs_input *in)
{
	uint64	   *narrow = rs->rkey;

	if (rs->narrow.word_bytes == 4)
	{
		uint32		k;

		run_read(in, &k, sizeof(k));
		narrow[0] = k;
	}
	else
		run_read(in, narrow, rs->narrow.nwords * sizeof(uint64));
	memset(in->pending_key, 0, rs->nwords * sizeof(uint64));
	for (int k = 0; k < rs->nkeys; k++)
	{
		rs_keydef  *key = &rs->keys[k];

		mp_key_put(in->pending_key, key->wide_lo, key->bits,
				   mp_key_get(narrow, key->narrow_lo, key->bits));
		mp_key_put(in->pending_key, key->wide_lo + key->bits, 1,
				   mp_key_null_bit(false, key->nulls_first));
	}
}

/*
 * A packed record's values (pack_run) read into the tuple they become at to:
 * the pattern's header, then each value at its offset.
 */
static void
read_packed(const mp_rowsort *rs, rs_input *in, char *to)
{
	char		part[64 * sizeof(Datum)];	/* a packed run has fewer than 64 columns */
	const char *from;

	memcpy(to, in->vhead, in->vlen);
	if (in->end - in->at >= in->vbytes)
	{
		/* mostly: the values are in the bytes read ahead */
		from = in->ahead + in->at;
		in->at += in->vbytes;
	}
	else
	{
		run_read(in, part, in->vbytes);
		from = part;
	}
	for (int c = 0; c < rs->natts; c++)
	{
		char	   *at = to + in->voff[c];

		if (in->voff[c] == UINT32_MAX)
			continue;
		/* a length the compiler knows: a move, not a call */
		switch (rs->att_len[c])
		{
			case 8:
				memcpy(at, from, 8);
				break;
			case 4:
				memcpy(at, from, 4);
				break;
			case 2:
				memcpy(at, from, 2);
				break;
			default:
				*at = *from;
				break;
		}
		from += rs->att_len[c];
	}
}

/* The window refilled from the tape: as many rows as fit (one at least). */
static void
load_window(mp_rowsort *rs, rs_input *in)
{
	Size		kb = rs->nwords * rs->word_bytes;

	in->first = in->n = 0;
	in->arena_used = 0;
	while (in->left > 0 && in->n < in->cap)
	{
		Size		need;
		MinimalTuple row;

		if (!in->pending)
		{
			if (in->widen)
				read_widened(rs, in);
			else if (rs->word_bytes == 4)
			{
				uint32		k;

				run_read(in, &k, sizeof(k));
				in->pending_key[0] = k;
			}
			else
				run_read(in, in->pending_key, kb);
			if (in->keys_only)
				in->pending_len = MINIMAL_TUPLE_DATA_OFFSET;
			else if (in->values)
				in->pending_len = in->vlen;
			else
				run_read(in, &in->pending_len, sizeof(uint32));
			in->pending = true;
		}
		if (in->keys_only)
		{
			/* a key row: no tuple */
			for (int w = 0; w < rs->nwords; w++)
				put_key_word(rs, in->keys, in->n, w, in->pending_key[w]);
			in->rows[in->n++] = &key_only_row;
			in->left--;
			in->pending = false;
			continue;
		}
		need = MAXALIGN(in->pending_len);
		if (in->arena_used + need > in->arena_size)
		{
			if (in->n > 0)
				break;
			/* a row larger than the window: the window grows to it */
			if (in->arena_own)
				mp_big_free(&rs->mbig, in->arena);
			in->arena_size = need;
			in->arena = mp_big_alloc(&rs->mbig, need);
			in->arena_own = true;
		}
		row = (MinimalTuple) (in->arena + in->arena_used);
		if (in->values)
			read_packed(rs, in, (char *) row);
		else
		{
			row->t_len = in->pending_len;
			run_read(in, (char *) row + MINIMAL_TUPLE_DATA_OFFSET,
					 in->pending_len - MINIMAL_TUPLE_DATA_OFFSET);
		}
		for (int w = 0; w < rs->nwords; w++)
			put_key_word(rs, in->keys, in->n, w, in->pending_key[w]);
		in->rows[in->n++] = row;
		in->arena_used += need;
		in->left--;
		in->pending = false;
	}
	note_peak(rs);
}

/* Row i of the window against the bound: <0, 0, >0. */
static inline int
cmp_bound(const mp_rowsort *rs, const rs_input *in, int64 i, const uint64 *bound)
{
	for (int w = rs->nwords - 1; w >= 0; w--)
	{
		uint64		v = key_word(rs, in->keys, i, w);

		if (v != bound[w])
			return v < bound[w] ? -1 : 1;
	}
	return 0;
}

/*
 * The end of the window's rows from first on that order before the bound
 * (take_equal: or at it).
 */
static int64
window_cut(const mp_rowsort *rs, const rs_input *in, const uint64 *bound, bool take_equal)
{
	int64		lo = in->first,
				hi = in->n;

	while (lo < hi)
	{
		int64		mid = lo + (hi - lo) / 2;
		int			c = cmp_bound(rs, in, mid, bound);

		if (c < 0 || (c == 0 && take_equal))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The batch's merge as mp_run's work, MP_OP_NODE_MERGE's: under
 * mergepath.device = auto a batch goes to the GPU from MP_MERGE_GPU_MIN_ROWS
 * rows on (api/mp_measured.h): below it a trip to the GPU lost to the CPU's
 * merge.
 */
typedef struct merge_work
{
	mp_rowsort *rs;
	int64		n;
} merge_work;

static mp_status
merge_runs_work(void *ctx, bool gpu, mp_poll_fn poll, mp_gpu_timing *timing)
{
	merge_work *w = ctx;
	mp_rowsort *rs = w->rs;
	mp_row_keys keys = {rs->nwords, rs->word_bytes, rs->wbits, rs->bkeys};

	if (!gpu)
		return mp_cpu_merge_row_runs(&keys, rs->bounds, rs->ninputs, rs->perm, poll);
	if (rs->nwords == 1)
		return mp_gpu_merge_key_runs(rs->word_bytes, rs->bkeys, rs->bounds, rs->ninputs,
									 rs->perm, poll, timing);
	return mp_gpu_sort_rows(&keys, w->n, rs->perm, poll, timing);
}

/*
 * The next batch of the merge into out[0 .. nout), and each run's window
 * advanced past it; false when the runs are done.
 */
static bool
merge_batch(mp_rowsort *rs)
{
	uint64	   *bound = rs->acc;
	int			br = -1;
	int64		total = 0;
	merge_work	work = {rs};
	mp_run_report report;
	double		t0 = mp_now_ms();

	/* the rows of the last batch are taken */
	for (int r = 0; r < rs->ninputs; r++)
		rs->inputs[r].first += rs->inputs[r].take;
	for (int r = 0; r < rs->ninputs; r++)
	{
		rs_input   *in = &rs->inputs[r];

		if (in->first == in->n && in->left > 0)
			load_window(rs, in);
	}
	/* the bound: the least last key of a window whose run goes on */
	for (int r = 0; r < rs->ninputs; r++)
	{
		rs_input   *in = &rs->inputs[r];

		if (in->left == 0 || in->first == in->n)
			continue;
		if (br < 0 || cmp_bound(rs, in, in->n - 1, bound) < 0)
		{
			for (int w = 0; w < rs->nwords; w++)
				bound[w] = key_word(rs, in->keys, in->n - 1, w);
			br = r;
		}
	}
	/* each window's rows up to it, runs before br taking equal keys too */
	rs->bounds[0] = 0;
	for (int r = 0; r < rs->ninputs; r++)
	{
		rs_input   *in = &rs->inputs[r];
		int64		end = br < 0 || r == br ? in->n : window_cut(rs, in, bound, r < br);

		in->take = end - in->first;
		rs->bounds[r + 1] = rs->bounds[r] + in->take;
	}
	total = rs->bounds[rs->ninputs];
	rs->nout = rs->outpos = 0;
	if (total == 0)
		return false;

	/* the keys and rows of the batch, run after run (keys word-major) */
	for (int r = 0; r < rs->ninputs; r++)
	{
		rs_input   *in = &rs->inputs[r];
		int64		at = rs->bounds[r];

		memcpy(rs->brows + at, in->rows + in->first, in->take * sizeof(MinimalTuple));
		if (rs->nwords == 1)
			memcpy((char *) rs->bkeys + at * rs->word_bytes,
				   (char *) in->keys + in->first * rs->word_bytes, in->take * rs->word_bytes);
		else
			for (int64 i = 0; i < in->take; i++)
				for (int w = 0; w < rs->nwords; w++)
					((uint64 *) rs->bkeys)[(Size) w * total + at + i] =
						key_word(rs, in->keys, in->first + i, w);
	}
	work.n = total;
	(void) mp_run(rs->fname, MP_OP_NODE_MERGE, total, &work, merge_runs_work, &report);
	note_run(rs, &report);
	for (int64 j = 0; j < total; j++)
		rs->out[j] = rs->brows[rs->perm[j]];
	rs->nout = total;
	rs->stats.merge_ms += mp_now_ms() - t0;
	return true;
}

/* The key of the batch's j-th merged row. */
static void
out_key(mp_rowsort *rs, int64 j, uint64 *key)
{
	int64		p = rs->perm[j];
	int64		total = rs->bounds[rs->ninputs];

	for (int w = 0; w < rs->nwords; w++)
		key[w] = rs->nwords == 1 ? key_word(rs, rs->bkeys, p, 0)
			: ((uint64 *) rs->bkeys)[(Size) w * total + p];
}

/* A merged run's tape closed, or its shared file closed and deleted. */
static void
close_input(mp_rowsort *rs, rs_input *in)
{
	if (in->tape)
		LogicalTapeClose(in->tape);
	else if (in->file)
	{
		char		name[MAXPGPATH];

		BufFileClose(in->file);
		file_name(name, sizeof(name), in->owner, in->seq);
		BufFileDeleteFileSet(&rs->share->fs, name, true);
		if (in->owner == rs->participant)
			rs->shared_live -= in->bytes;
	}
	in->tape = NULL;
	in->file = NULL;
}

/*
 * A merged row written packed (pack_run) into to: its key in the merge's
 * layout, then the values of its tuple, laid out as voff says.
 */
static void
pack_merged(const mp_rowsort *rs, const uint64 *key, MinimalTuple row, const uint32 *voff,
			char *to)
{
	if (rs->word_bytes == 4)
	{
		uint32		k = (uint32) key[0];

		memcpy(to, &k, sizeof(k));
		to += sizeof(k);
	}
	else
	{
		memcpy(to, key, rs->nwords * sizeof(uint64));
		to += rs->nwords * sizeof(uint64);
	}
	for (int c = 0; c < rs->natts; c++)
	{
		if (voff[c] == UINT32_MAX)
			continue;
		memcpy(to, (char *) row + voff[c], rs->att_len[c]);
		to += rs->att_len[c];
	}
}

/*
 * Runs [from, from + k) merged into one new run: packed where they all
 * are, with one pattern of NULLs; keys alone where they all are.
 */
static rs_run
merge_to_run(mp_rowsort *rs, int from, int k)
{
	rs_sink		out;
	int64		rows = 0;
	uint64	   *key = rs->key;
	bool		keys_only = true;
	bool		packed = true;
	uint64		vnulls = rs->runs[from].vnulls;
	char	   *stage = NULL;
	Size		rec = 0,
				room = 0,
				used = 0;

	open_sink(rs, &out);
	merge_begin(rs, rs->runs + from, k);
	for (int r = 0; r < k; r++)
	{
		keys_only &= rs->runs[from + r].keys_only;
		packed &= rs->runs[from + r].values && rs->runs[from + r].vnulls == vnulls;
	}
	if (packed)
	{
		rec = rs->nwords * rs->word_bytes + packed_bytes(rs, vnulls);
		room = Max((Size) 65536 / rec, 1) * rec;
		stage = MemoryContextAlloc(rs->merge_cxt, room);
	}
	while (merge_batch(rs))
	{
		double		t0 = mp_now_ms();

		CHECK_FOR_INTERRUPTS();
		for (int64 j = 0; j < rs->nout; j++)
		{
			out_key(rs, j, key);
			if (keys_only)
				write_key(rs, &out, key);
			else if (packed)
			{
				if (used + rec > room)
				{
					sink_write(&out, stage, used);
					used = 0;
				}
				pack_merged(rs, key, rs->out[j], rs->inputs[0].voff, stage + used);
				used += rec;
			}
			else
				write_record(rs, &out, key, rs->out[j]);
		}
		rows += rs->nout;
		rs->stats.write_ms += mp_now_ms() - t0;
	}
	if (used > 0)
		sink_write(&out, stage, used);
	for (int r = 0; r < k; r++)
		close_input(rs, &rs->inputs[r]);
	return end_run(rs, &out, rows, rs->merge_wide, keys_only, packed, packed ? vnulls : 0);
}

/* The merge's key layout: wide where some run's is. */
static void
merge_layout(mp_rowsort *rs)
{
	rs_layout	l;

	rs->merge_wide = false;
	for (int r = 0; r < rs->nruns; r++)
		rs->merge_wide |= rs->runs[r].wide;
	l = rs->merge_wide ? rs->wide : rs->narrow;
	rs->nwords = l.nwords;
	rs->word_bytes = l.word_bytes;
	for (int w = 0; w < l.nwords; w++)
		rs->wbits[w] = Min(l.bits - 64 * w, l.word_bytes * 8);
}

/* Runs merged at once, by the memory the merge has (merge_room). */
static int
merge_order(mp_rowsort *rs)
{
	Size		order = merge_room(rs) / MIN_SHARE;

	return (int) Max(Min(order, MAX_ORDER), MIN_ORDER);
}

/*
 * Passes that merge consecutive runs until no more are left than one merge
 * takes: each run that the last pass leaves as it is costs no I/O, so a
 * pass merges groups no larger than needed to come down to the order.
 */
static void
merge_passes(mp_rowsort *rs)
{
	while (rs->nruns > merge_order(rs))
	{
		int			order = merge_order(rs);
		rs_run	   *next = MemoryContextAlloc(rs->cxt, rs->nruns * sizeof(rs_run));
		int			nnext = 0;
		int			i = 0;

		while (i < rs->nruns)
		{
			int			rest = rs->nruns - i;
			int			excess = nnext + rest - order;
			int			g = Min(Min(order, excess + 1), rest);

			if (excess <= 0 || g <= 1)
			{
				memcpy(next + nnext, rs->runs + i, rest * sizeof(rs_run));
				nnext += rest;
				break;
			}
			next[nnext++] = merge_to_run(rs, i, g);
			i += g;
		}
		pfree(rs->runs);
		rs->runs = next;
		rs->nruns = nnext;
		rs->runs_room = nnext;
		rs->stats.passes++;
	}
}

/*
 * Runs merged while the input is still read, so that their structures stay
 * within a quarter of the memory: once there are that many runs (at least
 * two merges' worth), whenever the newest runs include a merge's worth of
 * one level, they become one run of the next level, as the digits of a
 * counter carry.  Every row is merged about once a level, as passes at the
 * end would merge it; the runs before the first such merge wait for the
 * end.  Only a sort of thousands of runs gets here (a quarter of 4MB is
 * some 4000 runs; at 64kB, 64).  The merge has the memory the rows had.
 */
static void
cascade_runs(mp_rowsort *rs)
{
	int			order = merge_order(rs);
	int			cap = (int) Max((Size) 2 * order, rs->limit / 4 / RUN_BYTES);

	if (rs->nruns < cap)
		return;
	for (;;)
	{
		int			n = rs->nruns,
					level;
		rs_run		run;

		if (n < order || rs->runs[n - order].level != rs->runs[n - 1].level ||
			rs->runs[n - 1].level == INT_MAX)
			break;
		level = rs->runs[n - 1].level;
		merge_layout(rs);
		run = merge_to_run(rs, n - order, order);
		run.level = level + 1;
		MemoryContextReset(rs->merge_cxt);
		rs->inputs = NULL;
		rs->ninputs = 0;
		rs->runs[n - order] = run;
		rs->nruns = n - order + 1;
		/* the rows merged most often went through one merge a level */
		rs->stats.passes = Max(rs->stats.passes, run.level);
	}
}

/* The final merge to the result tape, each row followed by its length. */
static void
merge_to_result(mp_rowsort *rs)
{
	uint32		end = 0;

	rs->result = LogicalTapeCreate(rs->tapes);
	rs->nresult = 0;
	while (merge_batch(rs))
	{
		double		t0 = mp_now_ms();

		CHECK_FOR_INTERRUPTS();
		for (int64 j = 0; j < rs->nout; j++)
		{
			MinimalTuple row = rs->out[j];
			bool		formed = is_key_only(row);

			if (formed)
			{
				out_key(rs, j, rs->key);
				key_row_values(rs, rs->key, rs->merge_wide, rs->kvalues, rs->kisnull);
				row = mp_form_minimal_tuple(rs->desc, rs->kvalues, rs->kisnull);
			}
			LogicalTapeWrite(rs->result, row, row->t_len);
			LogicalTapeWrite(rs->result, &row->t_len, sizeof(uint32));
			if (formed)
				pfree(row);
		}
		rs->nresult += rs->nout;
		rs->stats.write_ms += mp_now_ms() - t0;
	}
	/*
	 * A zero length ends the tape: reading it leaves the tape's last block
	 * in its buffer, from which backward reads start (past the end, the
	 * buffer would be empty and a backspace would skip that block).
	 */
	LogicalTapeWrite(rs->result, &end, sizeof(end));
	for (int r = 0; r < rs->ninputs; r++)
		close_input(rs, &rs->inputs[r]);
	MemoryContextReset(rs->merge_cxt);
	rs->inputs = NULL;
	rs->ninputs = 0;
	LogicalTapeFreeze(rs->result, NULL);
	rs->cur = -1;
}

/*
 * A parallel sort whose leader merges every participant's runs (the node
 * under a Gather Merge, sort_node.c): a worker's runs go to files of the
 * query's shared file set, participant being its number; the leader's (-1)
 * to its own tapes.  None keeps rows beyond its memory on the GPU: the
 * leader merges them all as runs.
 */
void
mp_rowsort_share(mp_rowsort *rs, SharedFileSet *fileset, int participant, bool to_store)
{
	rs->share = fileset;
	rs->participant = participant;
	rs->to_store = to_store;
}

/*
 * Whether the leader of a parallel sort of about rows rows in all takes
 * every participant's rows into its GPU store (to_store), decided before
 * the workers start: the settings send such a sort's rows to the GPU, and
 * the GPU can be had here (set up now if it was not; the store holds it
 * again when it is made).  Under mergepath.device = gpu a GPU that cannot
 * be had is an error, as it is for any call.
 */
bool
mp_rowsort_store_chosen(double rows)
{
	char		note[256];

	if (mp_gpu_sort_mem_mb <= 0 || mp_gpu_known_unusable() ||
		!mp_gpu_chosen(MP_OP_NODE_SPILL, (int64) rows, NULL, 0) ||
		!mp_gpu_hold("MergepathSort", note, sizeof(note)))
		return false;
	mp_gpu_end();
	return true;
}

/*
 * The rows held written as the last run, and the runs merged into one:
 * passes down to the merge order, then one merge of what is left.
 */
static void
merge_to_one(mp_rowsort *rs)
{
	if (rs->nrows > 0)
		write_run(rs);
	MemoryContextReset(rs->rows_cxt);
	if (rs->nruns <= 1)
		return;
	merge_layout(rs);
	merge_passes(rs);
	if (rs->nruns > 1)
	{
		rs_run		run = merge_to_run(rs, 0, rs->nruns);

		MemoryContextReset(rs->merge_cxt);
		rs->inputs = NULL;
		rs->ninputs = 0;
		rs->runs[0] = run;
		rs->nruns = 1;
		rs->stats.passes++;
	}
}

/*
 * A worker's input read, in a sort whose rows go to the leader's GPU store:
 * the rows still held are written after the others, the file is closed and
 * listed for the leader.  Every row is handed in, also where they all
 * stayed in memory; the leader has nothing to do here.
 */
static int
hand_in_rows(mp_rowsort *rs)
{
	char		name[MAXPGPATH];
	BufFile    *list;
	rs_run_entry e;
	rs_run		run;
	MemoryContext old;

	if (rs->participant < 0)
		return 0;
	old = MemoryContextSwitchTo(rs->cxt);
	if (rs->nrows > 0)
		write_chunks(rs);
	MemoryContextReset(rs->rows_cxt);
	rs->stats.method = MP_ROWSORT_HANDED;
	rs->status = RS_HANDED;
	if (!rs->chunks_open)
	{
		MemoryContextSwitchTo(old);
		return 0;
	}
	run = end_run(rs, &rs->chunks, rs->chunk_rows, true, false, false, 0);
	rs->chunks_open = false;
	memset(&e, 0, sizeof(e));
	e.rows = run.rows;
	e.seq = run.seq;
	e.spills = rs->stats.runs;
	e.unsorted = true;
	file_name(name, sizeof(name), rs->participant, -1);
	list = BufFileCreateFileSet(&rs->share->fs, name);
	BufFileWrite(list, &e, sizeof(e));
	BufFileClose(list);
	rs->stats.handed_runs = rs->stats.runs;
	MemoryContextSwitchTo(old);
	return 1;
}

/*
 * A participant's input read, where it wrote runs: they are merged into
 * one, each participant its own at the same time, so that the leader's
 * last merge takes one run of each.  A worker then hands its run to the
 * leader, listed in a shared file of its own, and returns nothing.  The
 * runs handed in, or -1 where every row stayed in memory (a worker's
 * mp_rowsort_perform then sorts them; the leader's merges them with the
 * runs it takes).
 */
int
mp_rowsort_hand_in(mp_rowsort *rs)
{
	char		name[MAXPGPATH];
	BufFile    *list;
	MemoryContext old;

	Assert(rs->share != NULL);
	if (rs->to_store)
		return hand_in_rows(rs);
	if (!rs->spilled)
		return -1;
	old = MemoryContextSwitchTo(rs->cxt);
	merge_to_one(rs);
	if (rs->participant < 0)
	{
		MemoryContextSwitchTo(old);
		return rs->nruns;
	}
	file_name(name, sizeof(name), rs->participant, -1);
	list = BufFileCreateFileSet(&rs->share->fs, name);
	for (int r = 0; r < rs->nruns; r++)
	{
		rs_run_entry e;

		memset(&e, 0, sizeof(e));
		e.rows = rs->runs[r].rows;
		e.vnulls = rs->runs[r].vnulls;
		e.seq = rs->runs[r].seq;
		e.wide = rs->runs[r].wide;
		e.keys_only = rs->runs[r].keys_only;
		e.values = rs->runs[r].values;
		BufFileWrite(list, &e, sizeof(e));
	}
	BufFileClose(list);
	rs->stats.method = MP_ROWSORT_EXTERNAL;
	rs->stats.key_rows = rs->key_rows;
	rs->stats.handed_runs = rs->nruns;
	rs->status = RS_HANDED;
	MemoryContextSwitchTo(old);
	return rs->nruns;
}

/* Exactly size bytes of a shared file, or an error. */
static void
file_read(mp_rowsort *rs, BufFile *file, void *ptr, size_t size)
{
	if (BufFileRead(file, ptr, size) != size)
		elog(ERROR, "%s: could not read a worker's rows from a temporary file", rs->fname);
}

/*
 * The rows a worker handed in for the leader's GPU store (write_chunks),
 * appended chunk by chunk as they were written.  Where the store cannot be
 * had (the GPU's set-up failed under mergepath.device = auto) or cannot
 * take a chunk (its limit, or the GPU's free memory), that chunk's rows and
 * the rest are put as the leader's own input would be: as a sort beyond
 * its memory takes them then, into runs on disk.
 */
static void
take_chunks(mp_rowsort *rs, int participant, const rs_run_entry *e)
{
	char		name[MAXPGPATH];
	BufFile    *file;
	int			nwords = rs->wide.nwords;
	int			wb = rs->wide.word_bytes;
	bool		to_dev = device_spill(rs);
	TupleTableSlot *slot = NULL;
	char	   *keys = NULL,
			   *tuples = NULL;
	uint64	   *off = NULL;
	int64		keys_cap = 0,
				off_cap = 0;
	Size		tuples_cap = 0;
	double		t0 = mp_now_ms();

	file_name(name, sizeof(name), participant, e->seq);
	file = BufFileOpenFileSet(&rs->share->fs, name, O_RDONLY, false);
	for (int64 left = e->rows; left > 0;)
	{
		rs_chunk_head head;
		char	   *p;

		CHECK_FOR_INTERRUPTS();
		file_read(rs, file, &head, sizeof(head));
		if (head.rows <= 0 || head.rows > left)
			elog(ERROR, "%s: a worker's rows are not as it listed them", rs->fname);
		if (head.rows > keys_cap)
		{
			keys_cap = Max(head.rows, keys_cap * 2);
			keys = keys ? repalloc_huge(keys, keys_cap * nwords * wb)
				: MemoryContextAllocHuge(rs->cxt, keys_cap * nwords * wb);
		}
		if (head.bytes > tuples_cap)
		{
			tuples_cap = Max(head.bytes, tuples_cap * 2);
			tuples = tuples ? repalloc_huge(tuples, tuples_cap)
				: MemoryContextAllocHuge(rs->cxt, tuples_cap);
		}
		note_peak(rs);
		file_read(rs, file, keys, head.rows * nwords * wb);
		file_read(rs, file, tuples, head.bytes);
		if (to_dev)
		{
			mp_status	st = mp_gpu_store_reserve(rs->dev, head.rows, head.bytes);
			Size		at = 0;

			if (st == MP_OUT_OF_MEMORY)
				to_dev = false;
			else
			{
				device_call(rs, st);
				if (head.rows > off_cap)
				{
					off_cap = Max(head.rows, off_cap * 2);
					off = off ? repalloc_huge(off, off_cap * sizeof(uint64))
						: MemoryContextAllocHuge(rs->cxt, off_cap * sizeof(uint64));
				}
				for (int64 j = 0; j < head.rows; j++)
				{
					off[j] = rs->dev_bytes + at;
					at += MAXALIGN(((MinimalTuple) (tuples + at))->t_len);
				}
				if (at != head.bytes)
					elog(ERROR, "%s: a worker's rows are not as it listed them", rs->fname);
				while ((st = mp_gpu_store_append(rs->dev, tuples, head.bytes, off, keys,
												 head.rows, head.rows, mp_poll,
												 &rs->stats.gpu)) == MP_CANCELLED)
					CHECK_FOR_INTERRUPTS();
				device_call(rs, st);
				rs->dev_bytes += head.bytes;
				rs->dev_rows += head.rows;
			}
		}
		if (!to_dev)
		{
			if (slot == NULL)
				slot = MakeSingleTupleTableSlot(rs->desc, &TTSOpsMinimalTuple);
			p = tuples;
			for (int64 j = 0; j < head.rows; j++)
			{
				MinimalTuple row = (MinimalTuple) p;

				ExecStoreMinimalTuple(row, slot, false);
				mp_rowsort_put(rs, slot);
				p += MAXALIGN(row->t_len);
			}
			ExecClearTuple(slot);
		}
		left -= head.rows;
	}
	BufFileClose(file);
	BufFileDeleteFileSet(&rs->share->fs, name, true);
	if (slot)
		ExecDropSingleTupleTableSlot(slot);
	if (keys)
		pfree(keys);
	if (tuples)
		pfree(tuples);
	if (off)
		pfree(off);
	rs->stats.taken_runs += e->spills;
	rs->stats.taken_rows += e->rows;
	rs->stats.write_ms += mp_now_ms() - t0;
}

/*
 * The leader's input read: the runs that worker participant handed in
 * join its own, and mp_rowsort_perform merges them all (the rows the
 * leader holds become a run first).
 */
void
mp_rowsort_take_runs(mp_rowsort *rs, int participant)
{
	char		name[MAXPGPATH];
	BufFile    *list;
	rs_run_entry e;
	size_t		got;
	MemoryContext old;

	Assert(rs->share != NULL && rs->participant < 0);
	old = MemoryContextSwitchTo(rs->cxt);
	open_tapes(rs);
	file_name(name, sizeof(name), participant, -1);
	list = BufFileOpenFileSet(&rs->share->fs, name, O_RDONLY, false);
	while ((got = BufFileRead(list, &e, sizeof(e))) == sizeof(e))
	{
		rs_run		run = {NULL, participant, e.seq, 0, e.rows, 0, e.wide, e.keys_only,
		e.values, e.vnulls};

		if (e.unsorted)
		{
			take_chunks(rs, participant, &e);
			continue;
		}
		push_run(rs, &run);
		rs->stats.taken_runs++;
	}
	if (got != 0)
		elog(ERROR, "%s: a worker's list of runs is cut short", rs->fname);
	BufFileClose(list);
	BufFileDeleteFileSet(&rs->share->fs, name, true);
	MemoryContextSwitchTo(old);
}

void
mp_rowsort_perform(mp_rowsort *rs)
{
	MemoryContext old;

	old = MemoryContextSwitchTo(rs->cxt);
	if (rs->dev && (rs->nrows == 0 || ship_rows(rs)))
	{
		/* every row is on the GPU */
		MemoryContextReset(rs->rows_cxt);
		device_sort(rs);
		rs->stats.method = MP_ROWSORT_DEVICE;
		rs->status = RS_DEVICE;
		rs->cur = -1;
		MemoryContextSwitchTo(old);
		return;
	}
	if (rs->dev)
		drain_device(rs);
	if (!rs->spilled)
	{
		MemoryContextSwitchTo(old);
		sort_in_memory(rs);
		note_peak(rs);
		return;
	}
	if (rs->nrows > 0)
		write_run(rs);
	MemoryContextReset(rs->rows_cxt);
	rs->stats.method = MP_ROWSORT_EXTERNAL;
	rs->stats.key_rows = rs->key_rows;
	merge_layout(rs);
	merge_passes(rs);
	rs->stats.passes++;
	merge_begin(rs, rs->runs, rs->nruns);
	if (rs->random_access)
	{
		merge_to_result(rs);
		rs->status = RS_TAPE;
	}
	else
	{
		/*
		 * Nothing is written from now on: the blocks read need not be
		 * listed for reuse (that list would grow with the input), as
		 * tuplesort's last merge does.
		 */
		LogicalTapeSetForgetFreeSpace(rs->tapes);
		rs->status = RS_STREAM;
	}
	MemoryContextSwitchTo(old);
}

/* The result tape's next row into the buffer; false at its end (the tape
 * then stays before its end mark). */
static bool
tape_forward(mp_rowsort *rs)
{
	uint32		len;

	tape_read(rs->result, &len, sizeof(len));
	if (len == 0)
	{
		/* the end: stay before it */
		LogicalTapeBackspace(rs->result, sizeof(len));
		return false;
	}
	if (len > rs->buf_size)
	{
		rs->buf = rs->buf ? repalloc_huge(rs->buf, len) : MemoryContextAllocHuge(rs->cxt, len);
		rs->buf_size = len;
	}
	((MinimalTuple) rs->buf)->t_len = len;
	tape_read(rs->result, rs->buf + sizeof(uint32), len - sizeof(uint32));
	tape_read(rs->result, &len, sizeof(len));
	return true;
}

/* Back over the row that ends where the tape is; false at its start. */
static bool
tape_back(mp_rowsort *rs)
{
	uint32		len;

	if (LogicalTapeBackspace(rs->result, sizeof(len)) != sizeof(len))
		return false;
	tape_read(rs->result, &len, sizeof(len));
	if (LogicalTapeBackspace(rs->result, len + sizeof(len)) != len + sizeof(len))
		elog(ERROR, "mergepath row sort: could not read a temporary file backwards");
	return true;
}

/*
 * The tape's rows as a Sort returns them: cur is the row returned last, the
 * tape just after it (at its start before the first, at its end after the
 * last).
 */
static bool
get_from_tape(mp_rowsort *rs, bool forward, TupleTableSlot *slot)
{
	if (forward)
	{
		if (rs->cur >= rs->nresult || !tape_forward(rs))
		{
			rs->cur = rs->nresult;
			return false;
		}
		rs->cur++;
	}
	else
	{
		if (rs->cur < 0)
			return false;
		if (rs->cur < rs->nresult)
		{
			/* back over the row returned last */
			if (!tape_back(rs) || rs->cur == 0)
			{
				rs->cur = -1;
				return false;
			}
		}
		if (!tape_back(rs))
		{
			rs->cur = -1;
			return false;
		}
		(void) tape_forward(rs);
		rs->cur--;
	}
	ExecStoreMinimalTuple((MinimalTuple) rs->buf, slot, false);
	return true;
}

bool
mp_rowsort_get(mp_rowsort *rs, bool forward, TupleTableSlot *slot)
{
	MemoryContext old;
	bool		got;

	if (rs->status == RS_STREAM || rs->status == RS_TAPE)
	{
		/* the tapes' buffers live in the sort's own context */
		old = MemoryContextSwitchTo(rs->cxt);
		got = rs->status == RS_STREAM
			? (rs->outpos < rs->nout || merge_batch(rs))
			: get_from_tape(rs, forward, slot);
		MemoryContextSwitchTo(old);
		if (got && rs->status == RS_STREAM)
		{
			MinimalTuple row = rs->out[rs->outpos];

			Assert(forward);
			/* the rows merged lie in the runs' windows: ask for one a few ahead */
			if (rs->outpos + 8 < rs->nout)
				__builtin_prefetch(rs->out[rs->outpos + 8]);
			if (is_key_only(row))
			{
				out_key(rs, rs->outpos, rs->key);
				store_key_row(rs, rs->key, rs->merge_wide, slot);
			}
			else
				ExecStoreMinimalTuple(row, slot, false);
			rs->outpos++;
		}
		if (!got)
			ExecClearTuple(slot);
		return got;
	}
	switch (rs->status)
	{
		case RS_MEMORY:
			if (forward)
				rs->cur += rs->cur < rs->nrows;
			else
				rs->cur -= rs->cur >= 0;
			if (rs->cur < 0 || rs->cur >= rs->nrows)
				break;
			if (rs->key_rows)
			{
				uint64		key = rs->early_bits <= 32 ? ((uint32 *) rs->sorted)[rs->cur]
					: ((uint64 *) rs->sorted)[rs->cur];

				store_key_row(rs, &key, false, slot);
				return true;
			}
			/* the rows are scattered over the blocks: ask for one a few ahead */
			if (rs->cur + 8 < rs->nrows && !rs->value_rows)
				__builtin_prefetch(rs->rows[rs->cur + 8]);
			store_held(rs, rs->cur, slot);
			return true;
		case RS_DEVICE:
			if (forward)
				rs->cur += rs->cur < rs->dev_rows;
			else
				rs->cur -= rs->cur >= 0;
			if (rs->cur < 0 || rs->cur >= rs->dev_rows)
				break;
			old = MemoryContextSwitchTo(rs->cxt);
			ExecStoreMinimalTuple(fetch_row(rs, rs->cur, forward), slot, false);
			MemoryContextSwitchTo(old);
			return true;
		case RS_STREAM:
		case RS_TAPE:
		case RS_HANDED:
			break;
		case RS_LOADING:
			elog(ERROR, "%s: rows taken before the sort", rs->fname);
	}
	ExecClearTuple(slot);
	return false;
}

void
mp_rowsort_rescan(mp_rowsort *rs)
{
	Assert(rs->random_access);
	if (rs->status == RS_TAPE)
		LogicalTapeRewindForRead(rs->result, BLCKSZ);
	rs->cur = -1;
}

void
mp_rowsort_mark(mp_rowsort *rs)
{
	rs->mark = rs->cur;
	if (rs->status == RS_TAPE)
		LogicalTapeTell(rs->result, &rs->mark_block, &rs->mark_offset);
}

void
mp_rowsort_restore(mp_rowsort *rs)
{
	rs->cur = rs->mark;
	if (rs->status == RS_TAPE)
		LogicalTapeSeek(rs->result, rs->mark_block, rs->mark_offset);
}

void
mp_rowsort_get_stats(mp_rowsort *rs, mp_rowsort_stats *stats)
{
	*stats = rs->stats;
	stats->memory_kb = (int64) (rs->peak_bytes + 1023) / 1024;
	if (rs->status == RS_DEVICE)
		stats->space_kb = rs->dev_kb;
	else if (rs->spilled)
		stats->space_kb = (rs->tapes ? (int64) LogicalTapeSetBlocks(rs->tapes) * (BLCKSZ / 1024)
						   : 0) + (int64) (rs->shared_bytes + 1023) / 1024;
	else
		stats->space_kb = stats->memory_kb;
}

void
mp_rowsort_end(mp_rowsort *rs)
{
	/* the shared files being written or merged: closed (the file set
	 * deletes them) */
	if (rs->chunks_open)
		BufFileClose(rs->chunks.file);
	for (int r = 0; r < rs->ninputs; r++)
		if (rs->inputs[r].file)
			BufFileClose(rs->inputs[r].file);
	if (rs->tapes)
		LogicalTapeSetClose(rs->tapes);
	MemoryContextDelete(rs->cxt);
}

const char *
mp_rowsort_method_name(mp_rowsort_method method)
{
	switch (method)
	{
		case MP_ROWSORT_MEMORY:
			return "radix";
		case MP_ROWSORT_EXTERNAL:
			return "external merge";
		case MP_ROWSORT_DEVICE:
			return "external sort";
		case MP_ROWSORT_HANDED:
			return "rows to the leader";
		case MP_ROWSORT_NONE:
			break;
	}
	return "still in progress";
}
