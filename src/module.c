/*
 * module.c
 *		The module's entry: its settings, and the executor nodes' hooks set up
 *		when the library is loaded.
 */
#include "postgres.h"

#include <limits.h>

#include "access/xact.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "utils/guc.h"

#include "run/mp_run.h"
#include "nodes/mp_nodes.h"
#include "api/mp_measured.h"

PG_MODULE_MAGIC;

int			mp_device = MP_DEVICE_AUTO;
int			mp_gpu_min_elements = -1;
bool		mp_check_sorted = true;
int			mp_max_gpu_backends = 8;
int			mp_gpu_ordinal = 0;
int			mp_gpu_pool_max_mb = 256;
int			mp_gpu_idle_release = 60;
int			mp_gpu_sort_mem_mb = 8192;
int			mp_merge_runs = MP_RUNS_AUTO;

static const struct config_enum_entry device_options[] = {
	{"auto", MP_DEVICE_AUTO, false},
	{"cpu", MP_DEVICE_CPU, false},
	{"gpu", MP_DEVICE_GPU, false},
	{NULL, 0, false}
};

static const struct config_enum_entry merge_runs_options[] = {
	{"auto", MP_RUNS_AUTO, false},
	{"merge", MP_RUNS_MERGE, false},
	{"sort", MP_RUNS_SORT, false},
	{NULL, 0, false}
};

void		_PG_init(void);

/*
 * The processes that share the machine's processors for the work at hand
 * (mp_cpu_sharers): in a parallel query, its participants, as many as a
 * Gather may have; else this process alone.  Each participant then keeps
 * to its share of the processors, so that the query's threads do not
 * outnumber them (test/bench/NOTES.md, "A parallel query's threads").
 */
static int
parallel_sharers(void)
{
	if (!IsInParallelMode())
		return 1;
	return Max(max_parallel_workers_per_gather + (parallel_leader_participation ? 1 : 0), 1);
}

/*
 * Settings and the planner hook: no CUDA call may happen in _PG_init, which
 * runs in the postmaster under shared_preload_libraries.
 */
void
_PG_init(void)
{
	DefineCustomEnumVariable("mergepath.device",
							 "Which backend runs mergepath functions.",
							 "auto uses the GPU from each operation's threshold on (see "
							 "mergepath.gpu_min_elements) and falls back to the CPU when the GPU "
							 "cannot run a call; "
							 "gpu raises an error instead.",
							 &mp_device, MP_DEVICE_AUTO, device_options,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("mergepath.gpu_min_elements",
							"Input elements from which mergepath.device = auto uses the GPU.",
							"-1: each operation's own measured crossover, which mergepath_info() "
							"lists; 0 or more: that many for every operation.",
							&mp_gpu_min_elements, -1, -1, INT_MAX,
							PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("mergepath.check_sorted",
							 "Check that array arguments are in ascending order.",
							 "The check is part of the merge itself; with it off, unsorted input "
							 "gives an unspecified result.",
							 &mp_check_sorted, true,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomEnumVariable("mergepath.merge_runs",
							 "How the aggregates put sorted runs together.",
							 "The runs are gpu_merge_agg's arrays and the aggregates' parallel "
							 "partial states. merge: a k-way merge; sort: a sort of their "
							 "concatenation; auto: whichever is faster on the backend for that "
							 "many runs.",
							 &mp_merge_runs, MP_RUNS_AUTO, merge_runs_options,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("mergepath.max_gpu_backends",
							"How many server processes may hold a GPU context at once.",
							"The others use the CPU. 0 keeps every process off the GPU.",
							&mp_max_gpu_backends, 8, 0, 1024,
							PGC_SIGHUP, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("mergepath.gpu_device",
							"Which GPU this server uses, as its CUDA ordinal.",
							"On a host with several GPUs, give each server (each Citus worker) "
							"its own. A process takes it up when it next sets the GPU up; the "
							"GPU slots of mergepath.max_gpu_backends are the server's.",
							&mp_gpu_ordinal, 0, 0, 1023,
							PGC_SIGHUP, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("mergepath.gpu_pool_max_mb",
							"Device memory a backend keeps for its next GPU calls.",
							"A call that needed more gets it, and frees it when it ends.",
							&mp_gpu_pool_max_mb, 256, 0, INT_MAX / 2,
							PGC_USERSET, GUC_UNIT_MB, NULL, NULL, NULL);
	DefineCustomIntVariable("mergepath.gpu_sort_mem",
							"Device memory a sort that outgrows work_mem may keep its rows in.",
							"Where the GPU sorts them (mergepath.device), a MergepathSort "
							"whose input outgrows work_mem ships the rows it cannot hold to "
							"the GPU instead of writing runs to temporary files, and sorts "
							"them there at once; past this much, or past what the GPU has "
							"free, it writes runs to temporary files. 0 keeps every such sort "
							"on disk.",
							&mp_gpu_sort_mem_mb, 8192, 0, INT_MAX / 2,
							PGC_USERSET, GUC_UNIT_MB, NULL, NULL, NULL);
	DefineCustomIntVariable("mergepath.gpu_idle_release",
							"Seconds without a GPU call after which a backend gives back its "
							"GPU context, memory and GPU slot.",
							"The next GPU call sets the GPU up again. 0 keeps them until the "
							"backend exits.",
							&mp_gpu_idle_release, 60, 0, INT_MAX,
							PGC_USERSET, GUC_UNIT_S, NULL, NULL, NULL);
	DefineCustomIntVariable("mergepath.cpu_threads",
							"Threads a server process may use for mergepath's work on the CPU.",
							"The CPU backend's sorts of arrays and of the executor nodes' rows "
							"(from 512K elements or rows) and the nodes' putting rows in key "
							"order run on up to this many threads, "
							"never more than the machine's processors, and in a parallel query "
							"never more than a participant's share of them "
							"(max_parallel_workers_per_gather + 1 participants); 1 keeps all of "
							"it on the process's own thread.",
							&mp_cpu_threads, 4, 1, 64,
							PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("mergepath.enable_sort",
							 "Lets MergepathSort take the place of Sort plan nodes.",
							 "Needs the library loaded when queries are planned "
							 "(shared_preload_libraries or session_preload_libraries).",
							 &mp_enable_sort, true,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("mergepath.sort_min_rows",
							"Estimated input rows from which MergepathSort takes a Sort's place.",
							"0 puts it wherever the sort keys qualify.",
							&mp_sort_min_rows, MP_SORT_MIN_ROWS, 0, INT_MAX,
							PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("mergepath.enable_join",
							 "Offers MergepathJoin to the planner for equi-joins.",
							 "Needs the library loaded when queries are planned "
							 "(shared_preload_libraries or session_preload_libraries).",
							 &mp_enable_join, true,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("mergepath.enable_batch",
							 "Lets MergepathBatch run the per-row calls of mergepath's array "
							 "functions a batch of rows at a time.",
							 "Needs the library loaded when queries are planned "
							 "(shared_preload_libraries or session_preload_libraries).",
							 &mp_enable_batch, true, PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("mergepath.batch_min_rows",
							"Estimated rows of a node from which MergepathBatch runs its calls.",
							"Not where the calls would run on the CPU with no processor to spare "
							"for running them beside the reading. "
							"0 puts it over every node whose calls it can run.",
							&mp_batch_min_rows, MP_BATCH_MIN_ROWS, 0, INT_MAX,
							PGC_USERSET, 0, NULL, NULL, NULL);
	MarkGUCPrefixReserved("mergepath");
	mp_cpu_sharers = parallel_sharers;
	mp_nodes_init();
}
