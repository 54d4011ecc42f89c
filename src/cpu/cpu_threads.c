/*
 * cpu_threads.c
 *		The CPU backend's threads: a loop cut into parts run side by side.
 *
 * A server process is single-threaded as far as PostgreSQL knows, so the
 * threads started here never touch PostgreSQL: they get the caller's plain
 * memory and a function over a range of it, run with every signal blocked
 * (the server's signal handlers keep running on its own thread), and are
 * joined before mp_cpu_parallel returns.  Starting a thread costs tens of
 * microseconds; the callers give each part enough work (min_part) to make
 * that noise.  mp_cpu_start runs one piece of work beside the caller, under
 * the same rules, until mp_cpu_wait joins it.  Plain C, no PostgreSQL
 * headers.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE				/* sched_getaffinity, CPU_COUNT */
#endif
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "../api/mp_api.h"

#define MAX_THREADS 64

int			mp_cpu_threads = 4;
int			(*mp_cpu_sharers) (void) = NULL;

typedef struct part
{
	mp_part_fn	fn;
	void	   *ctx;
	int64_t		lo;
	int64_t		hi;
} part;

/*
 * Whether this thread is one started here.  Such a thread never asks
 * mp_cpu_sharers (PostgreSQL's state): it takes the share its starter saw.
 */
static _Thread_local bool started_here;
static int	usable_seen;

static void *
run_part(void *arg)
{
	part	   *p = arg;

	p->fn(p->ctx, p->lo, p->hi);
	return NULL;
}

static void *
start_part(void *arg)
{
	started_here = true;
	return run_part(arg);
}

/*
 * The processors this process may run on: its affinity mask (a server kept
 * to some of the host's processors by taskset or a container's cpuset sees
 * only those), else the host's count.
 */
static int
processors(void)
{
	static int	count;

	if (count == 0)
	{
		cpu_set_t	set;
		long		n;

		CPU_ZERO(&set);
		n = sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set)
			: sysconf(_SC_NPROCESSORS_ONLN);
		count = n < 1 ? 1 : n > MAX_THREADS ? MAX_THREADS : (int) n;
	}
	return count;
}

/*
 * The processors this process may use: its share where others share them
 * (asked on the server's own thread; a thread started here takes what its
 * starter saw last).
 */
static int
usable_processors(void)
{
	if (!started_here)
	{
		int			sharers = mp_cpu_sharers ? mp_cpu_sharers() : 1;

		usable_seen = processors() / (sharers > 1 ? sharers : 1);
		if (usable_seen < 1)
			usable_seen = 1;
	}
	return usable_seen > 0 ? usable_seen : processors();
}

int
mp_cpu_processors(void)
{
	return processors();
}

int
mp_cpu_threads_now(void)
{
	int			usable = usable_processors();

	return mp_cpu_threads < usable ? mp_cpu_threads : usable;
}

void
mp_cpu_parallel(int threads, int64_t n, int64_t min_part, mp_part_fn fn, void *ctx)
{
	part		parts[MAX_THREADS];
	pthread_t	ids[MAX_THREADS];
	bool		started[MAX_THREADS];
	sigset_t	all,
				old;
	int			usable = usable_processors();
	int			nparts = threads < usable ? threads : usable;

	if (min_part < 1)
		min_part = 1;
	if (nparts > n / min_part)
		nparts = (int) (n / min_part);
	if (nparts <= 1)
	{
		if (n > 0)
			fn(ctx, 0, n);
		return;
	}
	for (int i = 0; i < nparts; i++)
	{
		parts[i].fn = fn;
		parts[i].ctx = ctx;
		parts[i].lo = n * i / nparts;
		parts[i].hi = n * (i + 1) / nparts;
	}

	/* the new threads inherit the mask: set it, start them, restore it */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (int i = 1; i < nparts; i++)
		started[i] = pthread_create(&ids[i], NULL, start_part, &parts[i]) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);

	run_part(&parts[0]);
	for (int i = 1; i < nparts; i++)
	{
		if (started[i])
			pthread_join(ids[i], NULL);
		else
			run_part(&parts[i]);
	}
}

struct mp_cpu_job
{
	pthread_t	id;
	void		(*fn) (void *ctx);
	void	   *ctx;
};

static void *
run_job(void *arg)
{
	mp_cpu_job *job = arg;

	started_here = true;
	job->fn(job->ctx);
	return NULL;
}

mp_cpu_job *
mp_cpu_start(void (*fn) (void *ctx), void *ctx)
{
	mp_cpu_job *job = malloc(sizeof(mp_cpu_job));
	sigset_t	all,
				old;
	bool		started;

	if (job == NULL)
		return NULL;
	job->fn = fn;
	job->ctx = ctx;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	started = pthread_create(&job->id, NULL, run_job, job) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!started)
	{
		free(job);
		return NULL;
	}
	return job;
}

void
mp_cpu_wait(mp_cpu_job *job)
{
	pthread_join(job->id, NULL);
	free(job);
}
