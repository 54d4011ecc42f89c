/*
 * gpu_life.c
 *		The GPU's life cycle inside a backend process: its slot, its set-up,
 *		its release when idle, and what mergepath_info() says of it.
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

#include "pgstat.h"
#include "storage/ipc.h"

#include "gpu_life.h"
#include "mp_json.h"

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

/*
 * Whether this process may have a GPU to use: not known unusable, and a
 * device seen by a probe (no context, no memory), made once a process.
 * For plans that only pay with a GPU (MergepathBatch under auto).
 */
bool
mp_gpu_may_be_present(void)
{
	static int	present = -1;

	if (mp_gpu_known_unusable())
		return false;
	if (present < 0)
	{
		mp_gpu_device dev;
		sigset_t	all,
					old;

		pthread_mutex_lock(&gpu_lock);
		if (gpu_ready)
			present = 1;
		else
		{
			sigfillset(&all);
			sigprocmask(SIG_BLOCK, &all, &old);
			mp_gpu_set_device(mp_gpu_ordinal);
			present = mp_gpu_probe(&dev) == MP_OK;
			sigprocmask(SIG_SETMASK, &old, NULL);
		}
		pthread_mutex_unlock(&gpu_lock);
	}
	return present == 1;
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
mp_status
mp_gpu_acquire(const char **why)
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
	mp_gpu_set_device(mp_gpu_ordinal);
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

/*
 * The GPU failed a piece of work (not bad input).  After an error that may
 * have broken the context the backend has torn it down: the next call sets
 * the GPU up again (otherwise that is a no-op).  Without a device it is the
 * CPU for good.
 */
void
mp_gpu_lost(mp_status st)
{
	pthread_mutex_lock(&gpu_lock);
	gpu_ready = false;
	pthread_mutex_unlock(&gpu_lock);
	if (st == MP_NO_DEVICE)
		mark_gpu_unusable();
}

/*
 * Why the CPU ran a call that the GPU could not take, as EXPLAIN and
 * mergepath_info()'s last call show it: short enough for a plan's line;
 * the full reason is in errors and in mergepath_info()'s "gpu" member.
 */
void
mp_gpu_unavailable_note(const char *why, char *note, size_t note_size)
{
	if (gpu_unusable)
		why = "no usable GPU, see mergepath_info()";
	else if (why == slots_taken)
		why = "every GPU slot is taken";
	snprintf(note, note_size, "GPU unavailable: %s", why);
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
 * The GPU as this process sees it, as members of mergepath_info()'s JSON
 * object: the device, the slots, what the process holds.  Takes no GPU slot
 * and sets nothing up; with mergepath.device = cpu only what the process
 * already holds is described.
 */
void
mp_describe_gpu(StringInfo json)
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
	 * signal, as in mp_gpu_acquire.
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
		mp_gpu_set_device(mp_gpu_ordinal);
		st = mp_gpu_probe(&dev);
		sigprocmask(SIG_SETMASK, &old, NULL);
	}
	pthread_mutex_unlock(&gpu_lock);
	held = held && st == MP_OK;

	mp_json_key(json, "gpu", false);
	appendStringInfoChar(json, '{');
	if (!looked)
		mp_json_str(json, "note", "not looked at: mergepath.device is cpu and this backend holds "
					"nothing of the GPU", true);
	else if (st == MP_OK)
	{
		char		cc[32];

		snprintf(cc, sizeof(cc), "%d.%d", dev.compute_major, dev.compute_minor);
		mp_json_bool(json, "available", true, true);
		mp_json_int(json, "device", dev.ordinal);
		mp_json_str(json, "name", dev.name, false);
		mp_json_str(json, "compute_capability", cc, false);
		mp_json_int(json, "multiprocessors", dev.multiprocessors);
		mp_json_int(json, "memory_total_mb", dev.memory_total >> 20);
		if (dev.memory_free >= 0)
			mp_json_int(json, "memory_free_mb", dev.memory_free >> 20);
		mp_json_int(json, "pool_mb", dev.pool_bytes >> 20);
		mp_json_int(json, "pinned_kb", dev.pinned_bytes >> 10);
		mp_json_int(json, "runtime_version", dev.runtime_version);
		mp_json_int(json, "driver_version", dev.driver_version);
	}
	else
	{
		mp_json_bool(json, "available", false, true);
		mp_json_str(json, "reason", why ? why : mp_gpu_last_error(), false);
	}
	appendStringInfoChar(json, '}');

	mp_json_key(json, "gpu_slots", false);
	appendStringInfoChar(json, '{');
	mp_json_key(json, "max", true);
	appendStringInfo(json, "%d", mp_max_gpu_backends);
	mp_json_int(json, "in_use", slots_in_use());
	mp_json_int(json, "this_backend", gpu_slot);
	appendStringInfoChar(json, '}');

	/* what this process holds of the GPU, and its life cycle */
	mp_json_key(json, "gpu_held", false);
	appendStringInfoChar(json, '{');
	mp_json_bool(json, "context", held, true);
	mp_json_int(json, "pool_mb", held ? dev.pool_bytes >> 20 : 0);
	mp_json_int(json, "pinned_kb", held ? dev.pinned_bytes >> 10 : 0);
	mp_json_int(json, "pool_max_mb", mp_gpu_pool_max_mb);
	mp_json_int(json, "idle_release_s", mp_gpu_idle_release);
	mp_json_int(json, "contexts_created", context_creations);
	mp_json_ms(json, "last_context_ms", last_context_ms);
	mp_json_int(json, "idle_releases", idle_releases);
	appendStringInfoChar(json, '}');
}
