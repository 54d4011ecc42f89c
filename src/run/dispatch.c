/*
 * dispatch.c
 *		Which backend runs a call, the GPU's life cycle inside a backend
 *		process, and the one place where backend status codes become errors.
 *
 * The GPU is set up lazily at the first call that wants it, never in
 * _PG_init (with shared_preload_libraries that runs in the postmaster, and
 * CUDA state does not survive fork).  Before that, the process takes one of
 * mergepath.max_gpu_backends slots: a byte-range lock on a file in
 * pg_stat_tmp, which the kernel drops when the process exits however it
 * exits.  A process that finds every slot taken uses the CPU.
 *
 * Backend calls are synchronous and leave nothing running when they return,
 * errors included, and interrupts are polled between chunks and raised here
 * after the backend has returned.  So an error or a cancel never strands
 * device work or buffers; the buffers themselves belong to the process and
 * are reused by its next call.
 *
 * What the process holds is bounded: at the end of each piece of GPU work
 * (mp_gpu_begin .. mp_gpu_end) the device pool is freed when it holds more
 * than mergepath.gpu_pool_max_mb, and once the process has not used the GPU
 * for mergepath.gpu_idle_release seconds, everything (context, pinned ring,
 * pool) and its GPU slot are given back.  An idle backend runs no code of
 * its own, so that release runs on a thread of this module's: it touches
 * nothing of PostgreSQL's (only the CUDA runtime, which is thread-safe, and
 * the slot's lock), blocks every signal, and releases only while no GPU
 * work is under way (gpu_lock and gpu_holds below).
 */
#include "postgres.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "miscadmin.h"
#include "pgstat.h"
#include "storage/ipc.h"
#include "utils/json.h"

#include "mp_run.h"
#include "../api/mp_measured.h"

#define MP_SLOT_FILE PG_STAT_TMP_DIR "/mergepath_gpu.slots"

/* GPU state of this process */
static bool gpu_ready = false;
static bool gpu_unusable = false;	/* no driver or no device: for good */
static int	gpu_slot = -1;
static int	slot_fd = -1;
static bool exit_hook_set = false;
static char gpu_unusable_reason[256];

static const char slots_taken[] =
	"every GPU slot (mergepath.max_gpu_backends) is held by another backend";

/*
 * Shared with the release thread, under gpu_lock: gpu_ready and gpu_slot
 * above, how many pieces of GPU work are under way (the thread releases
 * nothing while there is one), when the last one ended, and whether the
 * thread runs.
 */
static pthread_mutex_t gpu_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gpu_wake = PTHREAD_COND_INITIALIZER;
static int	gpu_holds = 0;
static struct timespec gpu_last_use;
static bool reaper_running = false;
static bool process_exiting = false;

/* The life cycle's figures, for mergepath_info() */
static int64 context_creations = 0;
static double last_context_ms = 0;
static int64 idle_releases = 0;

/* What the last call did, for mergepath_info(). */
typedef struct mp_last_call
{
	bool		valid;
	char		function[NAMEDATALEN];
	const char *backend;
	char		note[320];
	int64		elements_in;
	int64		elements_out;
	double		total_ms;
	bool		used_gpu;
	mp_gpu_timing gpu;
} mp_last_call;

static mp_last_call last_call;

double
mp_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000.0 + ts.tv_nsec / 1e6;
}

/* The backends' poll: an interrupt is pending and may be served. */
bool
mp_poll(void)
{
	return INTERRUPTS_PENDING_CONDITION() && INTERRUPTS_CAN_BE_PROCESSED();
}

static bool
slot_lock(int fd, int slot, short type, int cmd)
{
	struct flock lock;

	memset(&lock, 0, sizeof(lock));
	lock.l_type = type;
	lock.l_whence = SEEK_SET;
	lock.l_start = slot;
	lock.l_len = 1;
	return fcntl(fd, cmd, &lock) == 0 && (cmd != F_GETLK || lock.l_type != F_UNLCK);
}

static int
open_slot_file(void)
{
	if (slot_fd < 0)
		slot_fd = open(MP_SLOT_FILE, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	return slot_fd;
}

/* Take a free GPU slot; false when all are held. */
static bool
take_slot(void)
{
	int			fd;

	if (gpu_slot >= 0)
		return true;
	fd = open_slot_file();
	if (fd < 0)
	{
		/* without the file there is no limit to enforce: say so, go on */
		ereport(WARNING,
				(errcode_for_file_access(),
				 errmsg("mergepath: could not open \"%s\": %m; GPU slots are not limited",
						MP_SLOT_FILE)));
		gpu_slot = 0;
		return true;
	}
	for (int i = 0; i < mp_max_gpu_backends; i++)
	{
		if (slot_lock(fd, i, F_WRLCK, F_SETLK))
		{
			gpu_slot = i;
			return true;
		}
	}
	return false;
}

static void
give_slot(void)
{
	if (gpu_slot >= 0 && slot_fd >= 0)
		slot_lock(slot_fd, gpu_slot, F_UNLCK, F_SETLK);
	gpu_slot = -1;
}

/* No driver or no device: the CPU for the rest of this process's life. */
static void
mark_gpu_unusable(void)
{
	gpu_ready = false;
	gpu_unusable = true;
	strlcpy(gpu_unusable_reason, mp_gpu_last_error(), sizeof(gpu_unusable_reason));
	give_slot();
}

static void
gpu_at_exit(int code, Datum arg)
{
	pthread_mutex_lock(&gpu_lock);
	process_exiting = true;
	if (gpu_ready)
		mp_gpu_shutdown();
	gpu_ready = false;
	give_slot();
	pthread_mutex_unlock(&gpu_lock);
}

/*
 * The release thread: sleeps until the GPU has been idle for
 * mergepath.gpu_idle_release seconds (as it was when the last piece of work
 * ended), then gives everything back and ends.  The next GPU call sets the
 * GPU up again and starts a new thread.
 */
static int	idle_release_s;		/* the setting, as gpu work last ended */

static void *
reaper_main(void *arg)
{
	pthread_mutex_lock(&gpu_lock);
	for (;;)
	{
		struct timespec now,
					deadline;

		if (!gpu_ready || process_exiting)
			break;
		if (gpu_holds > 0 || idle_release_s <= 0)
		{
			pthread_cond_wait(&gpu_wake, &gpu_lock);
			continue;
		}
		deadline = gpu_last_use;
		deadline.tv_sec += idle_release_s;
		clock_gettime(CLOCK_REALTIME, &now);
		if (now.tv_sec > deadline.tv_sec ||
			(now.tv_sec == deadline.tv_sec && now.tv_nsec >= deadline.tv_nsec))
		{
			mp_gpu_release();
			gpu_ready = false;
			give_slot();
			idle_releases++;
			break;
		}
		pthread_cond_timedwait(&gpu_wake, &gpu_lock, &deadline);
	}
	reaper_running = false;
	pthread_mutex_unlock(&gpu_lock);
	return NULL;
}

/* Starts the release thread, with gpu_lock held and every signal blocked
 * (so that the thread takes none of PostgreSQL's). */
static void
start_reaper(void)
{
	pthread_t	thread;
	pthread_attr_t attr;

	if (reaper_running)
		return;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&thread, &attr, reaper_main, NULL) == 0)
		reaper_running = true;
	pthread_attr_destroy(&attr);
}

void
mp_gpu_begin(void)
{
	pthread_mutex_lock(&gpu_lock);
	gpu_holds++;
	pthread_mutex_unlock(&gpu_lock);
}

/*
 * The end of a piece of GPU work (also on error): when none is left, the
 * pool is trimmed to mergepath.gpu_pool_max_mb and the idle clock starts.
 */
void
mp_gpu_end(void)
{
	pthread_mutex_lock(&gpu_lock);
	if (gpu_holds > 0 && --gpu_holds == 0)
	{
		if (gpu_ready)
			mp_gpu_trim((size_t) mp_gpu_pool_max_mb << 20);
		clock_gettime(CLOCK_REALTIME, &gpu_last_use);
		idle_release_s = mp_gpu_idle_release;
		pthread_cond_signal(&gpu_wake);
	}
	pthread_mutex_unlock(&gpu_lock);
}

/* Whether this process has the GPU ready. */
bool
mp_gpu_is_ready(void)
{
	return gpu_ready;
}

/* Whether this process knows that it cannot use the GPU. */
bool
mp_gpu_known_unusable(void)
{
	return gpu_unusable || mp_max_gpu_backends == 0;
}

/*
 * Make the GPU ready for this process.  On failure returns the status and
 * leaves the reason in *why.
 */
static mp_status
gpu_acquire(const char **why)
{
	sigset_t	all,
				old;
	mp_status	st;
	double		t0;

	if (gpu_ready)
		return MP_OK;
	if (gpu_unusable)
	{
		*why = gpu_unusable_reason;
		return MP_NO_DEVICE;
	}
	if (mp_max_gpu_backends == 0)
	{
		*why = "mergepath.max_gpu_backends is 0";
		return MP_NO_DEVICE;
	}
	if (!take_slot())
	{
		*why = slots_taken;
		return MP_NO_DEVICE;
	}

	/*
	 * The CUDA runtime starts threads of its own, and so does this module
	 * (the release thread); they inherit this mask, so that PostgreSQL's
	 * signals keep going to the backend's own thread.
	 */
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	t0 = mp_now_ms();
	st = mp_gpu_init();
	if (st == MP_OK)
	{
		last_context_ms = mp_now_ms() - t0;
		context_creations++;
		pthread_mutex_lock(&gpu_lock);
		gpu_ready = true;
		start_reaper();
		pthread_mutex_unlock(&gpu_lock);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);

	if (st != MP_OK)
	{
		give_slot();
		*why = mp_gpu_last_error();
		if (st == MP_NO_DEVICE)
		{
			mark_gpu_unusable();
			*why = gpu_unusable_reason;
		}
		return st;
	}
	if (!exit_hook_set)
	{
		on_proc_exit(gpu_at_exit, (Datum) 0);
		exit_hook_set = true;
	}
	return MP_OK;
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
 * Why the CPU ran a call that the GPU could not take, as EXPLAIN and
 * mergepath_info()'s last call show it: short enough for a plan's line;
 * the full reason is in errors and in mergepath_info()'s "gpu" member.
 */
static void
unavailable_note(const char *why, char *note, size_t note_size)
{
	if (gpu_unusable)
		why = "no usable GPU, see mergepath_info()";
	else if (why == slots_taken)
		why = "every GPU slot is taken";
	snprintf(note, note_size, "GPU unavailable: %s", why);
}

/*
 * mp_run's GPU part, inside mp_gpu_begin .. mp_gpu_end: true when the GPU ran
 * the work (its status in *st), false when the CPU is to run it (why in
 * note).  With mergepath.device = gpu every failure is raised here.
 */
static bool
run_on_gpu(const char *fname, void *ctx, mp_gpu_run gpu, mp_status *st, char *note,
		   size_t note_size)
{
	const char *why = NULL;

	if ((*st = gpu_acquire(&why)) != MP_OK)
	{
		if (mp_device == MP_DEVICE_GPU)
			report_gpu_failure(fname, *st, why);
		unavailable_note(why, note, note_size);
		return false;
	}
	for (;;)
	{
		*st = gpu(ctx, mp_poll, &last_call.gpu);
		if (*st != MP_CANCELLED)
			break;
		CHECK_FOR_INTERRUPTS();
	}
	if (*st != MP_OK && *st != MP_UNSORTED)
	{
		/* a GPU failure, not bad input.  After an error that may have broken
		 * the context the backend has torn it down: the next call sets the
		 * GPU up again (otherwise that is a no-op) */
		pthread_mutex_lock(&gpu_lock);
		gpu_ready = false;
		pthread_mutex_unlock(&gpu_lock);
		if (*st == MP_NO_DEVICE)
			mark_gpu_unusable();
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
run_on_gpu_bracketed(const char *fname, void *ctx, mp_gpu_run gpu, mp_status *st, char *note,
					 size_t note_size)
{
	volatile bool used = false;

	mp_gpu_begin();
	PG_TRY();
	{
		used = run_on_gpu(fname, ctx, gpu, st, note, note_size);
	}
	PG_FINALLY();
	{
		mp_gpu_end();
	}
	PG_END_TRY();
	return used;
}

/*
 * Where mergepath.device = auto starts to use the GPU, operation by
 * operation, in input elements (rows for the aggregates and the nodes): the
 * measured crossovers (api/mp_measured.h).  mergepath.gpu_min_elements,
 * when set, overrides all.
 */
static const struct
{
	const char *name;
	int			min_elements;
}			op_thresholds[MP_N_OPS] = {
	[MP_OP_MERGE] = {"merge", MP_GPU_MIN_MERGE},
	[MP_OP_SETOP] = {"setops", MP_GPU_MIN_SETOPS},
	[MP_OP_SEARCH] = {"search", MP_GPU_MIN_SEARCH},
	[MP_OP_SEMIJOIN] = {"semijoin", MP_GPU_MIN_SEMIJOIN},
	[MP_OP_JOIN] = {"join", MP_GPU_MIN_JOIN},
	[MP_OP_SORT] = {"sort", MP_GPU_MIN_SORT},
	[MP_OP_UNIQUE] = {"unique", MP_GPU_MIN_UNIQUE},
	[MP_OP_SORT_AGG] = {"sort_agg", MP_GPU_MIN_SORT_AGG},
	[MP_OP_SORT_BY_KEY_AGG] = {"sort_agg_by_key", MP_GPU_MIN_SORT_BY_KEY_AGG},
	[MP_OP_MERGE_AGG] = {"merge_agg", MP_GPU_MIN_MERGE_AGG},
	[MP_OP_NODES] = {"nodes", MP_GPU_MIN_NODES},
};

/* The threshold in force for op: -1 for never. */
int
mp_gpu_threshold(mp_op op)
{
	return mp_gpu_min_elements >= 0 ? mp_gpu_min_elements : op_thresholds[op].min_elements;
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
	int			threshold = mp_gpu_threshold(op);
	char		dummy[1];

	if (note == NULL)
	{
		note = dummy;
		note_size = sizeof(dummy);
	}
	switch (mp_device)
	{
		case MP_DEVICE_CPU:
			strlcpy(note, "mergepath.device is cpu", note_size);
			return false;
		case MP_DEVICE_GPU:
			return true;
		default:
			break;
	}
	if (threshold >= 0 && n >= threshold)
		return true;
	if (mp_gpu_min_elements >= 0)
		strlcpy(note, "below mergepath.gpu_min_elements", note_size);
	else if (threshold < 0)
		snprintf(note, note_size, "the CPU is faster at every size for %s",
				 op_thresholds[op].name);
	else
		snprintf(note, note_size, "below the GPU threshold of %s (%d elements)",
				 op_thresholds[op].name, threshold);
	return false;
}

/*
 * Run n elements' work on the backend the settings choose, with the
 * fallbacks of mergepath.device = auto: cpu(ctx) or gpu(ctx) does it.
 * Returns MP_OK or MP_UNSORTED; every other outcome is raised here.  The run
 * becomes mergepath_info()'s last call, and *report (when not NULL) says
 * which backend ran it and why.
 */
mp_status
mp_run(const char *fname, mp_op op, int64 n, void *ctx, mp_cpu_run cpu, mp_gpu_run gpu,
	   mp_run_report *report)
{
	double		t0 = mp_now_ms();
	bool		use_gpu;
	mp_status	st = MP_OK;
	char		note[320] = "";

	memset(&last_call, 0, sizeof(last_call));

	use_gpu = mp_gpu_chosen(op, n, note, sizeof(note));
	if (use_gpu)
		use_gpu = run_on_gpu_bracketed(fname, ctx, gpu, &st, note, sizeof(note));
	if (!use_gpu)
	{
		for (;;)
		{
			st = cpu(ctx, mp_poll);
			if (st != MP_CANCELLED)
				break;
			CHECK_FOR_INTERRUPTS();
		}
	}
	if (st != MP_OK && st != MP_UNSORTED)
		elog(ERROR, "%s: the CPU backend failed with status %d", fname, (int) st);

	last_call.valid = true;
	strlcpy(last_call.function, fname, sizeof(last_call.function));
	last_call.backend = use_gpu ? "gpu" : "cpu";
	last_call.used_gpu = use_gpu;
	strlcpy(last_call.note, note, sizeof(last_call.note));
	last_call.elements_in = n;
	last_call.elements_out = n;
	last_call.total_ms = mp_now_ms() - t0;
	if (report)
	{
		report->used_gpu = use_gpu;
		strlcpy(report->note, note, sizeof(report->note));
		report->gpu = last_call.gpu;
		report->total_ms = last_call.total_ms;
	}
	return st;
}

/* An array operation and its backend functions, as mp_run's context. */
typedef struct pair_run
{
	mp_call    *call;
	mp_cpu_fn	cpu;
	mp_gpu_fn	gpu;
} pair_run;

static mp_status
pair_on_cpu(void *ctx, mp_poll_fn poll)
{
	pair_run   *run = ctx;

	return run->cpu(run->call, mp_check_sorted, poll);
}

static mp_status
pair_on_gpu(void *ctx, mp_poll_fn poll, mp_gpu_timing *timing)
{
	pair_run   *run = ctx;

	return run->gpu(run->call, mp_check_sorted, poll, timing);
}

/*
 * Run a one- or two-array operation (call->b is NULL for one) on the backend
 * the settings choose.
 */
void
mp_run_pair(const char *fname, mp_op op, mp_call *call, mp_cpu_fn cpu, mp_gpu_fn gpu)
{
	pair_run	run = {call, cpu, gpu};
	mp_run_report report;

	if (mp_run(fname, op, call->a->n + (call->b ? call->b->n : 0), &run, pair_on_cpu, pair_on_gpu,
			   &report) == MP_UNSORTED)
		mp_report_unsorted(fname, call->a, call->b);
	call->used_gpu = report.used_gpu;
	last_call.elements_out = call->nout;
}

/*
 * Work that follows a call (a join handing out its pairs) adds to its
 * record: ms of time, and the GPU's timings when more is not null.
 */
void
mp_extend_last_call(double ms, const mp_gpu_timing *more)
{
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

static void
json_key(StringInfo json, const char *key, bool first)
{
	if (!first)
		appendStringInfoString(json, ", ");
	escape_json(json, key);
	appendStringInfoString(json, ": ");
}

static void
json_str(StringInfo json, const char *key, const char *value, bool first)
{
	json_key(json, key, first);
	escape_json(json, value);
}

static void
json_bool(StringInfo json, const char *key, bool value, bool first)
{
	json_key(json, key, first);
	appendStringInfoString(json, value ? "true" : "false");
}

static void
json_int(StringInfo json, const char *key, int64 value)
{
	json_key(json, key, false);
	appendStringInfo(json, INT64_FORMAT, value);
}

static void
json_ms(StringInfo json, const char *key, double value)
{
	json_key(json, key, false);
	appendStringInfo(json, "%.3f", value);
}

static int
slots_in_use(void)
{
	int			fd = open_slot_file();
	int			used = 0;

	if (fd < 0)
		return -1;
	for (int i = 0; i < mp_max_gpu_backends; i++)
		if (i == gpu_slot || slot_lock(fd, i, F_WRLCK, F_GETLK))
			used++;
	return used;
}

/*
 * The backends as this process sees them, as the members of a JSON object.
 * Takes no GPU slot and sets nothing up; with mergepath.device = cpu only
 * what the process already holds is described.
 */
void
mp_describe_backends(StringInfo json)
{
	const char *why = NULL;
	mp_gpu_device dev;
	mp_status	st;
	bool		looked = true;
	bool		held;

	/*
	 * Nothing is set up here: a GPU this process holds is described (under
	 * the lock, as the release thread may give it back meanwhile), else the
	 * device is only probed, with no slot and no context taken.  The CUDA
	 * driver may start threads of its own: they inherit a mask of every
	 * signal, as in gpu_acquire.
	 */
	pthread_mutex_lock(&gpu_lock);
	held = gpu_ready;
	st = MP_NO_DEVICE;
	if (held)
		st = mp_gpu_describe(&dev);
	else if (mp_device == MP_DEVICE_CPU)
		looked = false;
	else if (gpu_unusable)
		why = gpu_unusable_reason;
	else
	{
		sigset_t	all,
					old;

		sigfillset(&all);
		sigprocmask(SIG_BLOCK, &all, &old);
		st = mp_gpu_probe(&dev);
		sigprocmask(SIG_SETMASK, &old, NULL);
	}
	pthread_mutex_unlock(&gpu_lock);
	held = held && st == MP_OK;

	json_str(json, "device_setting", device_setting_name(), true);
	json_int(json, "gpu_min_elements", mp_gpu_min_elements);
	json_key(json, "gpu_thresholds", false);
	appendStringInfoChar(json, '{');
	for (int op = 0; op < MP_N_OPS; op++)
	{
		int			threshold = mp_gpu_threshold((mp_op) op);

		json_key(json, op_thresholds[op].name, op == 0);
		if (threshold < 0)
			appendStringInfoString(json, "null");
		else
			appendStringInfo(json, "%d", threshold);
	}
	appendStringInfoChar(json, '}');
	json_bool(json, "check_sorted", mp_check_sorted, false);

	json_key(json, "gpu", false);
	appendStringInfoChar(json, '{');
	if (!looked)
		json_str(json, "note", "not looked at: mergepath.device is cpu and this backend holds "
				 "nothing of the GPU", true);
	else if (st == MP_OK)
	{
		char		cc[32];

		snprintf(cc, sizeof(cc), "%d.%d", dev.compute_major, dev.compute_minor);
		json_bool(json, "available", true, true);
		json_str(json, "name", dev.name, false);
		json_str(json, "compute_capability", cc, false);
		json_int(json, "multiprocessors", dev.multiprocessors);
		json_int(json, "memory_total_mb", dev.memory_total >> 20);
		if (dev.memory_free >= 0)
			json_int(json, "memory_free_mb", dev.memory_free >> 20);
		json_int(json, "pool_mb", dev.pool_bytes >> 20);
		json_int(json, "pinned_kb", dev.pinned_bytes >> 10);
		json_int(json, "runtime_version", dev.runtime_version);
		json_int(json, "driver_version", dev.driver_version);
	}
	else
	{
		json_bool(json, "available", false, true);
		json_str(json, "reason", why ? why : mp_gpu_last_error(), false);
	}
	appendStringInfoChar(json, '}');

	json_key(json, "gpu_slots", false);
	appendStringInfoChar(json, '{');
	json_key(json, "max", true);
	appendStringInfo(json, "%d", mp_max_gpu_backends);
	json_int(json, "in_use", slots_in_use());
	json_int(json, "this_backend", gpu_slot);
	appendStringInfoChar(json, '}');

	/* what this process holds of the GPU, and its life cycle */
	json_key(json, "gpu_held", false);
	appendStringInfoChar(json, '{');
	json_bool(json, "context", held, true);
	json_int(json, "pool_mb", held ? dev.pool_bytes >> 20 : 0);
	json_int(json, "pinned_kb", held ? dev.pinned_bytes >> 10 : 0);
	json_int(json, "pool_max_mb", mp_gpu_pool_max_mb);
	json_int(json, "idle_release_s", mp_gpu_idle_release);
	json_int(json, "contexts_created", context_creations);
	json_ms(json, "last_context_ms", last_context_ms);
	json_int(json, "idle_releases", idle_releases);
	appendStringInfoChar(json, '}');

	json_key(json, "last_call", false);
	if (!last_call.valid)
	{
		appendStringInfoString(json, "null");
		return;
	}
	appendStringInfoChar(json, '{');
	json_str(json, "function", last_call.function, true);
	json_str(json, "backend", last_call.backend, false);
	if (last_call.note[0])
		json_str(json, "note", last_call.note, false);
	json_int(json, "elements_in", last_call.elements_in);
	json_int(json, "elements_out", last_call.elements_out);
	json_ms(json, "total_ms", last_call.total_ms);
	if (last_call.used_gpu)
	{
		json_ms(json, "h2d_ms", last_call.gpu.h2d_ms);
		json_ms(json, "kernel_ms", last_call.gpu.kernel_ms);
		json_ms(json, "d2h_ms", last_call.gpu.d2h_ms);
		json_int(json, "bytes_h2d", last_call.gpu.bytes_h2d);
		json_int(json, "bytes_d2h", last_call.gpu.bytes_d2h);
		json_int(json, "staging_chunks", last_call.gpu.chunks);
	}
	appendStringInfoChar(json, '}');
}
