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
 */
#include "postgres.h"

#include <fcntl.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "miscadmin.h"
#include "pgstat.h"
#include "storage/ipc.h"
#include "utils/json.h"

#include "mp_glue.h"

#define MP_SLOT_FILE PG_STAT_TMP_DIR "/mergepath_gpu.slots"

/* GPU state of this process */
static bool gpu_ready = false;
static bool gpu_unusable = false;	/* no driver or no device: for good */
static int	gpu_slot = -1;
static int	slot_fd = -1;
static bool exit_hook_set = false;
static char gpu_unusable_reason[256];

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

static bool
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
	if (gpu_ready)
		mp_gpu_shutdown();
	gpu_ready = false;
	give_slot();
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
		*why = "every GPU slot (mergepath.max_gpu_backends) is held by another backend";
		return MP_NO_DEVICE;
	}

	/*
	 * The CUDA runtime starts threads of its own; they inherit this mask, so
	 * that PostgreSQL's signals keep going to the backend's own thread.
	 */
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	st = mp_gpu_init();
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
	gpu_ready = true;
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
 * Run n elements' work on the backend the settings choose, with the
 * fallbacks of mergepath.device = auto: cpu(ctx) or gpu(ctx) does it.
 * Returns MP_OK or MP_UNSORTED; every other outcome is raised here.  The run
 * becomes mergepath_info()'s last call, and *report (when not NULL) says
 * which backend ran it and why.
 */
mp_status
mp_run(const char *fname, int64 n, void *ctx, mp_cpu_run cpu, mp_gpu_run gpu,
	   mp_run_report *report)
{
	double		t0 = mp_now_ms();
	bool		use_gpu;
	mp_status	st;
	const char *why = NULL;
	char		note[320] = "";

	memset(&last_call, 0, sizeof(last_call));

	switch (mp_device)
	{
		case MP_DEVICE_CPU:
			use_gpu = false;
			strlcpy(note, "mergepath.device is cpu", sizeof(note));
			break;
		case MP_DEVICE_GPU:
			use_gpu = true;
			break;
		default:
			use_gpu = n >= mp_gpu_min_elements;
			if (!use_gpu)
				strlcpy(note, "below mergepath.gpu_min_elements", sizeof(note));
			break;
	}

	if (use_gpu && (st = gpu_acquire(&why)) != MP_OK)
	{
		if (mp_device == MP_DEVICE_GPU)
			report_gpu_failure(fname, st, why);
		snprintf(note, sizeof(note), "GPU unavailable: %s", why);
		use_gpu = false;
	}

	if (use_gpu)
	{
		for (;;)
		{
			st = gpu(ctx, mp_poll, &last_call.gpu);
			if (st != MP_CANCELLED)
				break;
			CHECK_FOR_INTERRUPTS();
		}
		if (st != MP_OK && st != MP_UNSORTED)
		{
			/* a GPU failure, not bad input.  After an error that may have
			 * broken the context the backend has torn it down: the next
			 * call sets the GPU up again (otherwise that is a no-op) */
			gpu_ready = false;
			if (st == MP_NO_DEVICE)
				mark_gpu_unusable();
			if (mp_device == MP_DEVICE_GPU)
				report_gpu_failure(fname, st, mp_gpu_last_error());
			snprintf(note, sizeof(note), "fell back to the CPU: %s", mp_gpu_last_error());
			memset(&last_call.gpu, 0, sizeof(last_call.gpu));
			use_gpu = false;
		}
	}
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
mp_run_pair(const char *fname, mp_call *call, mp_cpu_fn cpu, mp_gpu_fn gpu)
{
	pair_run	run = {call, cpu, gpu};
	mp_run_report report;

	if (mp_run(fname, call->a->n + (call->b ? call->b->n : 0), &run, pair_on_cpu, pair_on_gpu,
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
 * Sets the GPU up if it is not yet (that is how the devices are found).
 */
void
mp_describe_backends(StringInfo json)
{
	const char *why = NULL;
	mp_gpu_device dev;
	mp_status	st = gpu_acquire(&why);

	json_str(json, "device_setting", device_setting_name(), true);
	json_int(json, "gpu_min_elements", mp_gpu_min_elements);
	json_bool(json, "check_sorted", mp_check_sorted, false);

	json_key(json, "gpu", false);
	appendStringInfoChar(json, '{');
	if (st == MP_OK)
		st = mp_gpu_describe(&dev);
	if (st == MP_OK)
	{
		char		cc[32];

		snprintf(cc, sizeof(cc), "%d.%d", dev.compute_major, dev.compute_minor);
		json_bool(json, "available", true, true);
		json_str(json, "name", dev.name, false);
		json_str(json, "compute_capability", cc, false);
		json_int(json, "multiprocessors", dev.multiprocessors);
		json_int(json, "memory_total_mb", dev.memory_total >> 20);
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
