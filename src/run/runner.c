/*
 * runner.c
 *		The one way an operation runs on a backend: the choice of backend
 *		(mergepath.device and the measured thresholds), the GPU taken and
 *		given back around the work, its time, and the one place where the
 *		backends' status codes become errors.  What the last run did is kept
 *		for mergepath_info().
 *
 * Backend calls are synchronous and leave nothing running when they return,
 * errors included, and interrupts are polled between chunks and raised here
 * after the backend has returned.  So an error or a cancel never strands
 * device work or buffers; the buffers themselves belong to the process and
 * are reused by its next call.
 */
#include "postgres.h"

#include "miscadmin.h"

#include "gpu_life.h"
#include "mp_json.h"
#include "../api/mp_measured.h"

/*
 * Why the CPU ran a piece of work, kept as a code and written out only when
 * someone reads it (mergepath_info(), EXPLAIN): a plain call pays for no
 * formatting.
 */
typedef enum cpu_reason
{
	CPU_NOT,					/* the GPU ran it */
	CPU_BY_SETTING,				/* mergepath.device = cpu */
	CPU_BELOW_FLOOR,			/* a node's piece below its floor */
	CPU_BELOW_SETTING,			/* below mergepath.gpu_min_elements */
	CPU_ALWAYS,					/* no threshold: the CPU is faster at every size */
	CPU_BELOW_THRESHOLD,		/* below the operation's measured threshold */
	CPU_PAIRS_BELOW_THRESHOLD,	/* a batch whose pairs average below it */
	CPU_GPU_NOTE				/* the GPU could not run it: the note says why */
} cpu_reason;

/*
 * A CPU call of fewer elements is not timed: it takes microseconds, and its
 * two clock readings were 6% of a per-row call on two 100-element arrays
 * (test/bench/NOTES.md, "What a plain call costs besides its work").  GPU
 * calls are always timed.
 */
#define MP_TIMED_MIN_ELEMENTS ((int64) 1 << 16)

/* What the last call did, for mergepath_info(). */
typedef struct mp_last_call
{
	bool		valid;
	const char *function;		/* a literal, as every caller passes */
	const char *backend;
	mp_op		op;
	cpu_reason	why;
	int			threshold;		/* in force at the call */
	char		note[320];		/* CPU_GPU_NOTE's */
	int64		elements_in;
	int64		elements_out;
	double		total_ms;		/* -1: not timed */
	bool		used_gpu;
	mp_gpu_timing gpu;
} mp_last_call;

static mp_last_call last_call;

/* The backends' poll: an interrupt is pending and may be served. */
bool
mp_poll(void)
{
	return INTERRUPTS_PENDING_CONDITION() && INTERRUPTS_CAN_BE_PROCESSED();
}

static const char *
device_setting_name(void)
{
	return mp_device == MP_DEVICE_GPU ? "gpu" : mp_device == MP_DEVICE_CPU ? "cpu" : "auto";
}

/* mergepath.device = gpu and the GPU could not run the call. */
static void
report_gpu_failure(const char *fname, mp_status st, const char *why)
{
	int			code;

	switch (st)
	{
		case MP_OUT_OF_MEMORY:
			code = ERRCODE_OUT_OF_MEMORY;
			break;
		case MP_NO_DEVICE:
			code = ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE;
			break;
		default:
			code = ERRCODE_SYSTEM_ERROR;
			break;
	}
	ereport(ERROR,
			(errcode(code),
			 errmsg("%s: the GPU backend could not run this call: %s", fname, why),
			 errhint("Set mergepath.device to auto to fall back to the CPU.")));
}

/*
 * The GPU part of a run, inside mp_gpu_begin .. mp_gpu_end: true when the
 * GPU ran the work (its status in *st), false when the CPU is to run it (why
 * in note).  With mergepath.device = gpu every failure is raised here.
 */
static bool
run_on_gpu(const char *fname, void *ctx, mp_work_fn work, mp_status *st, char *note,
		   size_t note_size)
{
	const char *why = NULL;

	if ((*st = mp_gpu_acquire(&why)) != MP_OK)
	{
		if (mp_device == MP_DEVICE_GPU)
			report_gpu_failure(fname, *st, why);
		mp_gpu_unavailable_note(why, note, note_size);
		return false;
	}
	for (;;)
	{
		*st = work(ctx, true, mp_poll, &last_call.gpu);
		if (*st != MP_CANCELLED)
			break;
		CHECK_FOR_INTERRUPTS();
	}
	if (*st != MP_OK && *st != MP_UNSORTED)
	{
		/* a GPU failure, not bad input */
		mp_gpu_lost(*st);
		if (mp_device == MP_DEVICE_GPU)
			report_gpu_failure(fname, *st, mp_gpu_last_error());
		snprintf(note, note_size, "fell back to the CPU: %s", mp_gpu_last_error());
		memset(&last_call.gpu, 0, sizeof(last_call.gpu));
		return false;
	}
	return true;
}

/* run_on_gpu between mp_gpu_begin and mp_gpu_end, the end also on error */
static bool
run_on_gpu_bracketed(const char *fname, void *ctx, mp_work_fn work, mp_status *st, char *note,
					 size_t note_size)
{
	volatile bool used = false;

	mp_gpu_begin();
	PG_TRY();
	{
		used = run_on_gpu(fname, ctx, work, st, note, note_size);
	}
	PG_FINALLY();
	{
		mp_gpu_end();
	}
	PG_END_TRY();
	return used;
}

/*
 * Work that keeps device memory across calls (rowsort.c's rows on the
 * GPU): the GPU set up inside mp_gpu_begin, which the caller ends with
 * mp_gpu_end once it has freed that memory (also on error).  False where
 * the GPU cannot be had, why in note; under mergepath.device = gpu that is
 * raised, as mp_run raises it.
 */
bool
mp_gpu_hold(const char *fname, char *note, size_t note_size)
{
	const char *why = NULL;
	mp_status	st;

	mp_gpu_begin();
	if ((st = mp_gpu_acquire(&why)) == MP_OK)
		return true;
	mp_gpu_end();
	if (mp_device == MP_DEVICE_GPU)
		report_gpu_failure(fname, st, why);
	mp_gpu_unavailable_note(why, note, note_size);
	return false;
}

/*
 * A failure of such work, raised: its device memory may be gone with the
 * GPU's context, and with it what the work kept there, so there is no CPU
 * to fall back to.  The GPU is set up again at the next call.
 */
void
mp_gpu_held_failed(const char *fname, mp_status st)
{
	if (st != MP_OUT_OF_MEMORY)
		mp_gpu_lost(st);
	ereport(ERROR,
			(errcode(st == MP_OUT_OF_MEMORY ? ERRCODE_OUT_OF_MEMORY : ERRCODE_SYSTEM_ERROR),
			 errmsg("%s: the GPU failed while it kept the sort's rows: %s", fname,
					mp_gpu_last_error()),
			 errhint("Set mergepath.gpu_sort_mem to 0 to keep sorts beyond work_mem in "
					 "temporary files.")));
}

/*
 * Where mergepath.device = auto starts to use the GPU, operation by
 * operation, in input elements (rows for the aggregates and the nodes): the
 * measured crossovers (api/mp_measured.h).  mergepath.gpu_min_elements,
 * when set, overrides them, but not the floors: the sizes below which a
 * node's pieces of work stay on the CPU whatever the threshold (a cold
 * floor only while the process has not set the GPU up).  mergepath_info()
 * lists the listed ones.
 */
static const struct
{
	const char *name;
	int			min_elements;
	bool		listed;
	int64		floor;
	int64		cold_floor;
	const char *floor_note;
}			op_thresholds[MP_N_OPS] = {
	[MP_OP_MERGE] = {"merge", MP_GPU_MIN_MERGE, true},
	[MP_OP_SETOP] = {"setops", MP_GPU_MIN_SETOPS, true},
	[MP_OP_SEARCH] = {"search", MP_GPU_MIN_SEARCH, true},
	[MP_OP_SEMIJOIN] = {"semijoin", MP_GPU_MIN_SEMIJOIN, true},
	[MP_OP_JOIN] = {"join", MP_GPU_MIN_JOIN, true},
	[MP_OP_SORT] = {"sort", MP_GPU_MIN_SORT, true},
	[MP_OP_UNIQUE] = {"unique", MP_GPU_MIN_UNIQUE, true},
	[MP_OP_SORT_AGG] = {"sort_agg", MP_GPU_MIN_SORT_AGG, true},
	[MP_OP_SORT_BY_KEY_AGG] = {"sort_agg_by_key", MP_GPU_MIN_SORT_BY_KEY_AGG, true},
	[MP_OP_MERGE_AGG] = {"merge_agg", MP_GPU_MIN_MERGE_AGG, true},
	[MP_OP_NODES] = {"nodes", MP_GPU_MIN_NODES, true},
	[MP_OP_NODE_RUN] = {"nodes", MP_GPU_MIN_NODES, false, 0, MP_COLD_GPU_MIN_ROWS,
	"runs below 1048576 rows stay on the CPU in a process without the GPU set up"},
	[MP_OP_NODE_MERGE] = {"nodes", MP_GPU_MIN_NODES, false, MP_MERGE_GPU_MIN_ROWS, 0,
	"merge batches below 1048576 rows stay on the CPU"},
	[MP_OP_NODE_SPILL] = {"nodes", MP_GPU_MIN_NODES, false, 0, MP_COLD_SPILL_MIN_ROWS,
	"sorts below 8388608 rows keep their runs on disk in a process without the GPU set up"},
	[MP_OP_JOIN_PART] = {"nodes", MP_GPU_MIN_NODES, false, 0, MP_COLD_JOIN_PART_MIN_ROWS,
	"a parallel join's pieces below 16777216 rows stay on the CPU in a process without the GPU set up"},
};

StaticAssertDecl(MP_COLD_GPU_MIN_ROWS == 1048576 && MP_MERGE_GPU_MIN_ROWS == 1048576 &&
				 MP_COLD_SPILL_MIN_ROWS == 8388608 &&
				 MP_COLD_JOIN_PART_MIN_ROWS == 16777216,
				 "the floors' notes give their sizes");

/* The threshold in force for op: -1 for never. */
int
mp_gpu_threshold(mp_op op)
{
	return mp_gpu_min_elements >= 0 ? mp_gpu_min_elements : op_thresholds[op].min_elements;
}

/* Why the settings keep op's work on n elements on the CPU, or CPU_NOT. */
static cpu_reason
settings_reason(mp_op op, int64 n)
{
	int			threshold;

	switch (mp_device)
	{
		case MP_DEVICE_CPU:
			return CPU_BY_SETTING;
		case MP_DEVICE_GPU:
			return CPU_NOT;
		default:
			break;
	}
	if (n < op_thresholds[op].floor ||
		(n < op_thresholds[op].cold_floor && !mp_gpu_is_ready()))
		return CPU_BELOW_FLOOR;
	threshold = mp_gpu_threshold(op);
	if (threshold >= 0 && n >= threshold)
		return CPU_NOT;
	if (mp_gpu_min_elements >= 0)
		return CPU_BELOW_SETTING;
	return threshold < 0 ? CPU_ALWAYS : CPU_BELOW_THRESHOLD;
}

/* The reason, written out. */
static void
reason_note(cpu_reason why, mp_op op, int threshold, const char *gpu_note, char *note,
			size_t note_size)
{
	switch (why)
	{
		case CPU_NOT:
			note[0] = '\0';
			break;
		case CPU_BY_SETTING:
			strlcpy(note, "mergepath.device is cpu", note_size);
			break;
		case CPU_BELOW_FLOOR:
			strlcpy(note, op_thresholds[op].floor_note, note_size);
			break;
		case CPU_BELOW_SETTING:
			strlcpy(note, "below mergepath.gpu_min_elements", note_size);
			break;
		case CPU_ALWAYS:
			snprintf(note, note_size, "the CPU is faster at every size for %s",
					 op_thresholds[op].name);
			break;
		case CPU_BELOW_THRESHOLD:
			snprintf(note, note_size, "below the GPU threshold of %s (%d elements)",
					 op_thresholds[op].name, threshold);
			break;
		case CPU_PAIRS_BELOW_THRESHOLD:
			snprintf(note, note_size,
					 "a batch whose calls average below the GPU threshold of %s (%d elements)",
					 op_thresholds[op].name, threshold);
			break;
		case CPU_GPU_NOTE:
			strlcpy(note, gpu_note, note_size);
			break;
	}
}

/*
 * Whether the settings send op's work on n elements to the GPU: the one
 * choice of backend, which mp_run then makes (falling back to the CPU where
 * mergepath.device = auto and the GPU cannot be had).  When they do not,
 * note (if given) says why.
 */
bool
mp_gpu_chosen(mp_op op, int64 n, char *note, size_t note_size)
{
	cpu_reason	why = settings_reason(op, n);

	if (note != NULL)
		reason_note(why, op, mp_gpu_threshold(op), NULL, note, note_size);
	return why == CPU_NOT;
}

/*
 * Why the settings keep a batch of npairs calls of op, elements in all, on
 * the CPU, or CPU_NOT.  Under mergepath.device = auto a batch goes to the
 * GPU where one call of its average size would: the GPU's batched path,
 * which gathers the calls' arrays into one transfer and scatters the
 * results back, was slower than the CPU backend's batch on threads for
 * every batch of small arrays measured (1M rows of two int4[100]: 1211
 * against 732 ms for gpu_intersect, 1876 against 702 for gpu_merge;
 * test/bench/batch.sh, H100 host; test/bench/NOTES.md "Batches of per-row
 * calls"), while a call above its operation's threshold is faster on the
 * GPU alone, and so in a batch of such calls.
 */
static cpu_reason
batch_reason(mp_op op, int64 elements, int64 npairs)
{
	cpu_reason	why = settings_reason(op, elements / Max(npairs, 1));

	return why == CPU_BELOW_THRESHOLD || why == CPU_BELOW_SETTING ?
		CPU_PAIRS_BELOW_THRESHOLD : why;
}

/* Whether the settings send a batch of npairs calls of op to the GPU. */
bool
mp_batch_gpu_chosen(mp_op op, int64 elements, int64 npairs)
{
	return batch_reason(op, elements, npairs) == CPU_NOT;
}

/*
 * Whether op's work on n elements will run on the GPU, as far as this
 * process can tell before running it: chosen, and the GPU either demanded
 * or already set up here (a first set-up may still fail).
 */
bool
mp_gpu_expected(mp_op op, int64 n)
{
	return !mp_gpu_known_unusable() && mp_gpu_chosen(op, n, NULL, 0) &&
		(mp_device == MP_DEVICE_GPU || mp_gpu_is_ready());
}

/*
 * Whether a plan may count on the GPU.  Only when mergepath.device is gpu:
 * with auto, whether there is a GPU is only known once a backend has tried
 * it, and a plan must not depend on that.
 */
bool
mp_gpu_plannable(void)
{
	return mp_device == MP_DEVICE_GPU;
}

/* A status of the CPU backend's that is not bad input, as an error. */
static void
report_cpu_failure(const char *fname, mp_status st)
{
	if (st == MP_OUT_OF_MEMORY)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory"),
				 errdetail("%s: the CPU backend could not allocate its working memory.",
						   fname)));
	elog(ERROR, "%s: the CPU backend failed with status %d", fname, (int) st);
}

/*
 * The end of a run, as mp_run and mp_ran_batch_on_cpu record it (the
 * reason and the GPU's timings already in last_call): the last call, and
 * *report when given.
 */
static void
record_call(const char *fname, bool used_gpu, int64 n, double ms, mp_run_report *report)
{
	last_call.valid = true;
	last_call.function = fname;
	last_call.backend = used_gpu ? "gpu" : "cpu";
	last_call.used_gpu = used_gpu;
	last_call.elements_in = n;
	last_call.elements_out = n;
	last_call.total_ms = ms;
	if (report)
	{
		report->used_gpu = used_gpu;
		reason_note(last_call.why, last_call.op, last_call.threshold, last_call.note,
					report->note, sizeof(report->note));
		report->gpu = last_call.gpu;
		report->total_ms = ms;
	}
}

/*
 * Run op's work on n elements on the backend that why (the settings'
 * reason, CPU_NOT for the GPU) says, with the fallbacks of
 * mergepath.device = auto: work(ctx, gpu, ...) does it on the GPU or on the
 * CPU.  Returns MP_OK or MP_UNSORTED; every other outcome is raised here.
 * The run becomes mergepath_info()'s last call, and *report (when not NULL)
 * says which backend ran it and why.
 */
static mp_status
run_for(const char *fname, mp_op op, cpu_reason why, int64 n, void *ctx, mp_work_fn work,
		mp_run_report *report)
{
	bool		timed = why == CPU_NOT || n >= MP_TIMED_MIN_ELEMENTS;
	double		t0 = timed ? mp_now_ms() : 0;
	bool		use_gpu;
	mp_status	st = MP_OK;

	last_call.valid = false;
	last_call.op = op;
	last_call.threshold = mp_gpu_threshold(op);
	last_call.why = why;
	memset(&last_call.gpu, 0, sizeof(last_call.gpu));
	use_gpu = last_call.why == CPU_NOT;
	if (use_gpu)
	{
		use_gpu = run_on_gpu_bracketed(fname, ctx, work, &st, last_call.note,
									   sizeof(last_call.note));
		if (!use_gpu)
			last_call.why = CPU_GPU_NOTE;
	}
	if (!use_gpu)
	{
		mp_gpu_timing unused = {0};

		for (;;)
		{
			st = work(ctx, false, mp_poll, &unused);
			if (st != MP_CANCELLED)
				break;
			CHECK_FOR_INTERRUPTS();
		}
	}
	if (st != MP_OK && st != MP_UNSORTED)
		report_cpu_failure(fname, st);

	record_call(fname, use_gpu, n, timed ? mp_now_ms() - t0 : -1, report);
	return st;
}

/* Run op's work on n elements on the backend the settings choose (run_for). */
mp_status
mp_run(const char *fname, mp_op op, int64 n, void *ctx, mp_work_fn work,
	   mp_run_report *report)
{
	return run_for(fname, op, settings_reason(op, n), n, ctx, work, report);
}

/* An array call as mp_run's work. */
static mp_status
array_work(void *ctx, bool gpu, mp_poll_fn poll, mp_gpu_timing *timing)
{
	mp_array_call *call = ctx;

	if (gpu)
		return mp_gpu_array(call, mp_check_sorted, poll, timing);
	return mp_cpu_array(call, mp_check_sorted, poll);
}

/*
 * Run an array call on the backend the settings choose; a and b (NULL for an
 * operation on one array) are its arguments, named in the error about an
 * unsorted one.  Returns whether the GPU ran it.
 */
bool
mp_run_array(const char *fname, mp_op op, mp_array_call *call, const mp_arg *a,
			 const mp_arg *b)
{
	if (mp_run(fname, op, call->na + call->nb, call, array_work, NULL) == MP_UNSORTED)
		mp_report_unsorted(fname, a, b);
	last_call.elements_out = call->nout;
	return last_call.used_gpu;
}

/* A batch as mp_run's work. */
static mp_status
batch_work(void *ctx, bool gpu, mp_poll_fn poll, mp_gpu_timing *timing)
{
	mp_batch_call *call = ctx;

	if (gpu)
		return mp_gpu_batch(call, mp_check_sorted, poll, timing);
	return mp_cpu_batch(call, mp_check_sorted, poll);
}

/*
 * Run a batch of fname's calls on the backend the settings choose for it
 * (batch_reason).  Returns MP_OK, or MP_UNSORTED with the first unsorted
 * pair in call->bad_pair (the caller decides what that row raises).
 */
mp_status
mp_run_batch(const char *fname, mp_op op, mp_batch_call *call, int64 elements,
			 mp_run_report *report)
{
	mp_status	st = run_for(fname, op, batch_reason(op, elements, call->npairs), elements,
							 call, batch_work, report);

	if (st == MP_OK)
		last_call.elements_out = call->out_off[call->npairs];
	return st;
}

/*
 * A batch on the CPU backend for certain (mp_batch_gpu_chosen false, or no
 * GPU to be had), run by the caller outside mp_run, on a thread beside its
 * own work, with outcome st in ms: recorded as mp_run records a run, its
 * failure raised as mp_run raises it, *report filled in.  Returns MP_OK or
 * MP_UNSORTED.
 */
mp_status
mp_ran_batch_on_cpu(const char *fname, mp_op op, const mp_batch_call *call, int64 elements,
					mp_status st, double ms, mp_run_report *report)
{
	if (st != MP_OK && st != MP_UNSORTED)
		report_cpu_failure(fname, st);
	last_call.op = op;
	last_call.threshold = mp_gpu_threshold(op);
	last_call.why = batch_reason(op, elements, call->npairs);
	if (last_call.why == CPU_NOT)
	{
		/* chosen, but there is no GPU to be had */
		last_call.why = CPU_GPU_NOTE;
		mp_gpu_unavailable_note("no GPU found", last_call.note, sizeof(last_call.note));
	}
	memset(&last_call.gpu, 0, sizeof(last_call.gpu));
	record_call(fname, false, elements, ms, report);
	if (st == MP_OK)
		last_call.elements_out = call->out_off[call->npairs];
	return st;
}

/*
 * Work that follows a call (a join handing out its pairs) adds to its
 * record: ms of time, and the GPU's timings when more is not null.
 */
void
mp_extend_last_call(double ms, const mp_gpu_timing *more)
{
	if (last_call.total_ms >= 0)
		last_call.total_ms += ms;
	if (more == NULL)
		return;
	last_call.gpu.h2d_ms += more->h2d_ms;
	last_call.gpu.kernel_ms += more->kernel_ms;
	last_call.gpu.d2h_ms += more->d2h_ms;
	last_call.gpu.bytes_h2d += more->bytes_h2d;
	last_call.gpu.bytes_d2h += more->bytes_d2h;
	last_call.gpu.chunks += more->chunks;
}

/*
 * The settings, the GPU and the last run as this process sees them, as the
 * members of mergepath_info()'s JSON object.
 */
void
mp_describe_backends(StringInfo json)
{
	mp_json_str(json, "device_setting", device_setting_name(), true);
	mp_json_int(json, "gpu_device", mp_gpu_ordinal);
	mp_json_int(json, "gpu_min_elements", mp_gpu_min_elements);
	mp_json_key(json, "gpu_thresholds", false);
	appendStringInfoChar(json, '{');
	for (int op = 0, first = true; op < MP_N_OPS; op++)
	{
		int			threshold = mp_gpu_threshold((mp_op) op);

		if (!op_thresholds[op].listed)
			continue;
		mp_json_key(json, op_thresholds[op].name, first);
		first = false;
		if (threshold < 0)
			appendStringInfoString(json, "null");
		else
			appendStringInfo(json, "%d", threshold);
	}
	appendStringInfoChar(json, '}');
	mp_json_bool(json, "check_sorted", mp_check_sorted, false);

	mp_describe_gpu(json);

	mp_json_key(json, "last_call", false);
	if (!last_call.valid)
	{
		appendStringInfoString(json, "null");
		return;
	}
	appendStringInfoChar(json, '{');
	mp_json_str(json, "function", last_call.function, true);
	mp_json_str(json, "backend", last_call.backend, false);
	if (last_call.why != CPU_NOT)
	{
		char		note[320];

		reason_note(last_call.why, last_call.op, last_call.threshold, last_call.note, note,
					sizeof(note));
		mp_json_str(json, "note", note, false);
	}
	mp_json_int(json, "elements_in", last_call.elements_in);
	mp_json_int(json, "elements_out", last_call.elements_out);
	if (last_call.total_ms >= 0)
		mp_json_ms(json, "total_ms", last_call.total_ms);
	if (last_call.used_gpu)
	{
		mp_json_ms(json, "h2d_ms", last_call.gpu.h2d_ms);
		mp_json_ms(json, "kernel_ms", last_call.gpu.kernel_ms);
		mp_json_ms(json, "d2h_ms", last_call.gpu.d2h_ms);
		mp_json_int(json, "bytes_h2d", last_call.gpu.bytes_h2d);
		mp_json_int(json, "bytes_d2h", last_call.gpu.bytes_d2h);
		mp_json_int(json, "staging_chunks", last_call.gpu.chunks);
	}
	appendStringInfoChar(json, '}');
}
