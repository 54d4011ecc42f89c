/*
 * mp_measured.h
 *		Every constant that a measurement chose: costs, thresholds and
 *		crossovers, in one table.  Each says what it decides, the command that
 *		measured it and the machine it ran on; test/bench/NOTES.md has the
 *		tables under the heading named.  Measure again before changing one.
 *
 * "H200 host" and "H100 host": the GPU host of the project (16 cores, one
 * GPU, CUDA 13.0) with that card; "dev box": a 2-core machine without GPU,
 * which gives ratios only.  Plain C, no PostgreSQL header: both backends
 * and the PostgreSQL side read it.
 */
#ifndef MP_MEASURED_H
#define MP_MEASURED_H

#include <stdint.h>

/* ---- Where mergepath.device = auto starts to use the GPU ---------------- */

/*
 * Per SQL function, in input elements (rows for the aggregates): the
 * smallest size from which the GPU was faster at every larger size; -1:
 * never (the CPU was faster at every size measured).
 * test/bench/crossover.sql (sql_bench.sh crossover), H200 host; NOTES.md
 * "Payloads, outer joins and per-operation thresholds".
 */
#define MP_GPU_MIN_MERGE			100000
#define MP_GPU_MIN_SETOPS			20000
#define MP_GPU_MIN_SEARCH			20000
#define MP_GPU_MIN_SEMIJOIN			20000
#define MP_GPU_MIN_JOIN				10000
#define MP_GPU_MIN_SORT				20000
#define MP_GPU_MIN_UNIQUE			(-1)
#define MP_GPU_MIN_SORT_AGG			20000
#define MP_GPU_MIN_SORT_BY_KEY_AGG	20000
#define MP_GPU_MIN_MERGE_AGG		20000

/*
 * The executor nodes, in rows: the GPU backend's crossover for MergepathSort
 * was about 30K rows; 60000 keeps the node on the CPU where the two are
 * close.  test/bench/sort_node.sh SMALL=1, H200 host; NOTES.md "The sort
 * node: keys folded while reading, the gather on threads".
 */
#define MP_GPU_MIN_NODES			60000

/*
 * An external sort's run below this many rows stays on the CPU in a process
 * whose GPU is not set up (setting it up costs about 0.2 s): at work_mem
 * 4MB, 10M rows, Gather Merge over two workers' runs of 70K rows, 3656 ms
 * with the workers' runs on the GPU against 2758 on the CPU.
 * test/bench/sort_settings.sh, H100 host; NOTES.md "MergepathSort".
 */
#define MP_COLD_GPU_MIN_ROWS		(1 << 20)

/*
 * A sort expected to outgrow its memory keeps its rows on the GPU
 * (mergepath.gpu_sort_mem) in a process whose GPU is not set up only from
 * this many rows on.  At work_mem 4MB, 10M rows `s(id, k, p1, p2)`, whole
 * queries, medians of 3, the rows on the GPU against runs on disk on the
 * CPU backend: the serial window query (the leader's GPU set up) 5853 /
 * 7210 ms; the parallel ORDER BY, each of three processes sorting 3.3M
 * rows (the workers new processes, each setting its GPU up), 3105 / 2766
 * ms, and the parallel COPY 6620 / 4940.  Set-up, some 0.2 s a process,
 * and the gain, about 0.14 s a million rows at 10M, meet at a few million
 * rows; the floor keeps the workers of the default two-worker plan of a
 * 10M-row sort (4.2M rows each by the planner's estimate) on disk.
 * test/bench/sort_settings.sh, H100 host; NOTES.md "MergepathSort".
 */
#define MP_COLD_SPILL_MIN_ROWS		(1 << 23)

/*
 * A parallel join's piece of work (a participant's part of the shared inner
 * side, a batch of its outer rows) below this many rows stays on the CPU in
 * a process whose GPU is not set up.  10M x 10M, work_mem 1GB, 2 workers
 * (parts of 3.3M rows; the leader's GPU set up by a warm-up, the workers'
 * not: they are new processes), whole queries, the parts under the 1M-row
 * floor that runs have (so on the GPU) against the CPU backend: join 2562 /
 * 2178 ms, join + GROUP BY 2920 / 2509, left 1698 / 1490, anti 1544 / 1424.
 * Setting the GPU up costs a process about 0.2 s, while the CPU backend
 * sorts such a part in tens of milliseconds; 16M rows is where the CPU's
 * sort (about 100M keys/s on 4 threads) takes as long as the set-up.
 * test/bench/join_settings.sh, H200 host; docs/performance.md
 * "MergepathJoin in parallel plans".
 */
#define MP_COLD_JOIN_PART_MIN_ROWS	(1 << 24)

/*
 * An external sort's merge batches go to the GPU from this many rows: below
 * it the window query's sort share at work_mem 4MB, 10M rows, was 1.20 of
 * PostgreSQL's with the batches on the GPU against 0.68 on the CPU.
 * test/bench/sort_settings.sh, H100 host; NOTES.md "MergepathSort".
 */
#define MP_MERGE_GPU_MIN_ROWS		(1 << 20)

/*
 * mergepath.sort_min_rows' default: the node on the CPU backend was never
 * slower than the Sort, whole query, 1.00x at 100 rows, 1.35x faster at
 * 1000, 1.76x at 10K; from 1000 rows the plan's estimate is safely above
 * the tie.  test/bench/sort_node.sh SMALL=1, H200 host; NOTES.md "The sort
 * node: keys folded while reading, the gather on threads".
 */
#define MP_SORT_MIN_ROWS			1000

/*
 * mergepath.batch_min_rows' default: the estimated rows of a node from
 * which MergepathBatch goes over it.  test/bench/batch_sweep.sql on the dev
 * box (2 cores, CPU backend, batches beside the reading): from 10000 rows
 * on the batched query was 1.01-1.64x faster than row by row for arrays of
 * 10, 100 and 1000 elements; at 1000-3000 rows 0.93-1.45x.  NOTES.md "Batches of
 * per-row calls".
 */
#define MP_BATCH_MIN_ROWS			10000

/* ---- Costs the planner compares ----------------------------------------- */

/*
 * MergepathSort, in cpu_operator_cost units a row (no log n: radix passes).
 * A Sort costs 2 log2(n) units a row; the node's own time was 2.8x lower
 * than the Sort's at 10M rows on the CPU backend (int4 key), so
 * 2 x 23.3 / 2.8 = 16.  test/bench/sort_node.sh, H200 host; NOTES.md
 * "MergepathSort".
 */
#define MP_SORT_ROW_COST			16.0

/*
 * MergepathJoin, in cpu_operator_cost units, set so that its cost stands to
 * a Hash Join's as their times do: the CPU backend's whole query took
 * 0.67-0.77 of the Hash Join's at 100K rows and 0.28-0.43 at 1M and 10M;
 * these put the plan at 0.85-0.93 of the Hash Join's cost at 100K and 0.76
 * at 1M, inside the 100K runs' spread.  A row kept (values copied, key
 * folded, put in key order), a key sorted on each backend, a step of the
 * sorted search, a pair formed, and the start-up that leaves joins of a few
 * thousand rows to the Hash Join.  test/bench/merge_join.sh, H200 host;
 * NOTES.md "MergepathJoin".
 */
#define MP_JOIN_ROW_COST			1.0
#define MP_JOIN_SORT_CPU_COST		1.0
#define MP_JOIN_SORT_GPU_COST		0.5
#define MP_JOIN_SEARCH_COST			0.25
#define MP_JOIN_PAIR_COST			1.0
#define MP_JOIN_STARTUP_COST		10000.0

/*
 * The parallel MergepathJoin's own cost (above its inputs') where the
 * shared inner side fits in memory, as a fraction of what the constants
 * above give.  Parallel Hash Join's cost falls faster with the workers than
 * its time does (costsize.c counts a bucket's rows from a participant's
 * share of the inner side), while the node's time followed Parallel Hash
 * Join's: 10M x 10M rows, 4 copies of each key, work_mem 1GB,
 * CPU backend, the node's time over Parallel Hash Join's was 0.58 (join),
 * 0.66 (join + GROUP BY) and 0.47 (left join) with 2 workers, and 0.61,
 * 0.82, 0.48 and 0.50 (anti join) with 4, where the whole constants put the
 * node's cost 1-3% above the hash join's with 4 workers.  At a half the
 * whole query's cost stands at 0.90-0.92 of Parallel Hash Join's plan with
 * 4 workers and 0.81-0.90 with 2: still above the times' ratio, as the
 * serial constants are.  test/bench/join_settings.sh and the node forced
 * beside it, H200 host; NOTES.md "The parallel join's cost with more
 * workers".
 */
#define MP_JOIN_SHARED_FACTOR		0.5

/* ---- Choices inside the backends ---------------------------------------- */

/*
 * gpu_merge_agg: the k-way merge of k sorted runs beats a sort of their
 * concatenation up to this many runs (4-byte, 8-byte elements).  Sort time
 * over merge time at 10M elements: GPU 1.33-1.49 at 8 runs and 0.85-0.92 at
 * 32 (4-byte), 1.24-1.29 at 128 and 0.88-0.91 at 1000 (8-byte); CPU
 * 1.38-1.95 at 32 and 0.84-1.14 at 128 (4-byte), 0.99-1.46 at 1000 and
 * 0.59-0.80 at 10000 (8-byte).  test/bench/bench_runs --host, H200 host;
 * NOTES.md "The k-way merge of sorted runs".
 */
#define MP_RUNS_MERGE_MAX_GPU_4		16
#define MP_RUNS_MERGE_MAX_GPU_8		256
#define MP_RUNS_MERGE_MAX_CPU_4		64
#define MP_RUNS_MERGE_MAX_CPU_8		1000

/*
 * The CPU sort merges below MP_CPU_SORT_SMALL 4-byte elements (twice as many
 * 8-byte ones), takes a radix sort of byte digits below MP_CPU_SORT_BYTES,
 * and of 11-bit digits from there: the crossovers of the three alone,
 * merge / byte radix at 64 (int4, float4) and 128 (int8, float8) elements,
 * byte / 11-bit radix at 640-800 (int4, float4) and 1024-1536 (int8,
 * float8).  test/bench/bench_cpu --sort, dev box; NOTES.md "The CPU sort
 * of small arrays" (the H200 host's merge / 11-bit crossover was 128-192,
 * "The CPU sort: 11-bit digits").
 */
#define MP_CPU_SORT_SMALL			64
#define MP_CPU_SORT_BYTES			768

/*
 * Host copies of the staging ring run on mergepath.cpu_threads threads only
 * for transfers of this many bytes or more, in parts of at least
 * MP_COPY_PART bytes: one core's memcpy bounds the ring (8.5 GB/s against
 * the link's 50), but below it the copies take a few milliseconds and many
 * sessions at once would only crowd the processors.  The GPU tests' load
 * step and sql_bench.sh, H200 host; NOTES.md "The staging ring's host
 * copies on threads".
 */
#define MP_THREADED_COPY_FROM		((int64_t) 32 << 20)
#define MP_COPY_PART				((int64_t) 1 << 20)

/*
 * Merges of up to this many elements in all run in shorter tiles that search
 * their own boundaries, with no partition kernel in front: at 1M a side
 * 0.012-0.016 ms against 0.014-0.018; level from 3M a side, the partition
 * faster at 10M.  test/bench/bench_merge, H200 host; NOTES.md "Small merges
 * without a partition kernel".
 */
#define MP_MERGE_SMALL_UPTO			((int64_t) 4 << 20)

#endif							/* MP_MEASURED_H */
