/*
 * harness.h
 *		What the C tests of the backends share: the backends under test,
 *		input generators, and the pass/fail bookkeeping.
 */
#ifndef HARNESS_H
#define HARNESS_H

#include <stdbool.h>
#include <stdint.h>

#include "api/mp_api.h"

/* A backend as the tests call it (the GPU's timings are dropped). */
typedef struct backend
{
	const char *name;
	mp_status	(*merge) (mp_type type, const void *a, int64_t na, const void *b,
						  int64_t nb, void *out, bool check_sorted, mp_poll_fn poll);
	mp_status	(*setop) (mp_setop op, mp_type type, const void *a, int64_t na,
						  const void *b, int64_t nb, void *out, int64_t *nout,
						  bool check_sorted, mp_poll_fn poll);
	mp_status	(*search) (mp_search kind, mp_type type, const void *hay, int64_t nh,
						   const void *needles, int64_t nn, int32_t *out, bool check_sorted,
						   mp_poll_fn poll);
	mp_status	(*semijoin) (bool anti, mp_type type, const void *a, int64_t na,
							 const void *b, int64_t nb, void *out, int64_t *nout,
							 bool check_sorted, mp_poll_fn poll);

	/*
	 * The join's pairs, fetched in pieces of `piece` as the SQL function
	 * does, into *a_pos and *b_pos (malloc'd; NULL when there are none) when
	 * there are at most max_pairs.
	 */
	mp_status	(*join) (mp_type type, const void *a, int64_t na, const void *b, int64_t nb,
						 int64_t max_pairs, int64_t piece, int64_t *npairs, int32_t **a_pos,
						 int32_t **b_pos, bool check_sorted, mp_poll_fn poll);
	mp_status	(*sort) (mp_type type, const void *in, int64_t n, void *out, mp_poll_fn poll);
	mp_status	(*unique) (mp_type type, const void *x, int64_t n, void *out, int64_t *nout,
						   bool check_sorted, mp_poll_fn poll);
	mp_status	(*sort_rows) (const mp_row_keys *keys, int64_t n, uint32_t *perm,
							  mp_poll_fn poll);
	mp_status	(*merge_runs) (mp_type type, const void *in, const int64_t *bounds, int64_t k,
							   void *out, mp_poll_fn poll);
	mp_status	(*merge_key_runs) (int word_bytes, const void *keys, const int64_t *bounds,
								   int64_t k, uint32_t *perm, mp_poll_fn poll);
	mp_status	(*batch) (mp_batch_call *call, bool check_sorted, mp_poll_fn poll);
} backend;

/* Input shapes.  Each fills n sorted elements. */
typedef enum gen_kind
{
	GEN_WIDE,					/* uniform over the whole type */
	GEN_TINY,					/* keys 0..7: long runs crossing tiles */
	GEN_EQUAL,					/* one key; -0 and +0 mixed for floats */
	GEN_SPECIAL,				/* extremes, NaNs, infinities, zeros, subnormals */
	GEN_LOW,					/* keys in [0, 1000) */
	GEN_HIGH,					/* keys in [1000, 2000): disjoint from GEN_LOW */
	GEN_WALK,					/* sorted by construction, O(n), for big sizes */
	NUM_GENS
} gen_kind;

extern const char *const type_names[];
extern const char *const gen_names[];
extern bool quick;
extern int	shard,
			shards,
			thin;

/*
 * Whether this process runs unit u of its suite under --shard K/N: units
 * K, K + N, K + 2N, ...  A suite's units are its element types (the batch
 * suite's, its operations), and the parts outside those loops are units of
 * their own.
 */
static inline bool
shard_takes(int64_t u)
{
	return u % shards == shard;
}

/*
 * Whether this process runs the next case of a sweep (every split of tiny
 * sizes, every pair of shapes, every size around the tiles): under --thin N
 * one case in N of all the sweeps together, for the sanitizers, whose cost
 * is mostly per call.  The cases outside the sweeps (big, unequal, unsorted,
 * cancelled) always run.
 */
bool		sweep_takes(void);

uint64_t	rnd(void);
int64_t		rnd_below(int64_t n);

/* Counts a check; on failure prints what failed, where. */
void		check(bool ok, const char *fmt, const char *what, const backend *be,
				  mp_type type, int64_t na, int64_t nb);

void		put(mp_type type, void *out, int64_t i, int64_t iv, double fv);
void		gen_special(mp_type type, void *out, int64_t i);
void		gen_sorted(mp_type type, gen_kind kind, int64_t n, void *out);
void	   *xmalloc(size_t bytes);

/* A poll that asks to stop after polls_left more calls. */
extern int	polls_left;
bool		poll_countdown(void);

/* The suites, one per operation family. */
void		run_merge_tests(const backend *be);
void		run_setop_tests(const backend *be);
void		run_search_tests(const backend *be);
void		run_sort_tests(const backend *be);
void		run_rows_tests(const backend *be);
void		run_runs_tests(const backend *be);
void		run_batch_tests(const backend *be);

#endif							/* HARNESS_H */
