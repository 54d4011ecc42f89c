/*
 * pg_compat.h
 *		What differs between the PostgreSQL versions mergepath builds
 *		against (15, 17 and 18): every PG_VERSION_NUM test of the glue is
 *		here, and the glue includes this header after postgres.h.
 */
#ifndef MP_PG_COMPAT_H
#define MP_PG_COMPAT_H

#include "postgres.h"

#include "nodes/pathnodes.h"
#include "nodes/primnodes.h"

/* from 16 on, the varlena macros (VARSIZE, VARATT_IS_SHORT, ...) are in a
 * header of their own */
#if PG_VERSION_NUM >= 160000
#include "varatt.h"
#endif

/* 18 spells "does not return" as a prefix, pg_noreturn */
#if PG_VERSION_NUM < 180000
#define pg_noreturn _Noreturn
#endif

/*
 * From 16 on, a Var or PlaceHolderVar names the outer joins that can make it
 * NULL (varnullingrels, phnullingrels): the same column has other marks
 * above an outer join than below it.  Before 16 there are none.
 */
#if PG_VERSION_NUM >= 160000
static inline Bitmapset *
mp_nullingrels(Node *var)
{
	return IsA(var, Var) ? ((Var *) var)->varnullingrels :
		((PlaceHolderVar *) var)->phnullingrels;
}

static inline void
mp_set_nullingrels(Node *var, Bitmapset *relids)
{
	if (IsA(var, Var))
		((Var *) var)->varnullingrels = bms_copy(relids);
	else
		((PlaceHolderVar *) var)->phnullingrels = bms_copy(relids);
}
#else
static inline Bitmapset *
mp_nullingrels(Node *var)
{
	return NULL;
}

static inline void
mp_set_nullingrels(Node *var, Bitmapset *relids)
{
}
#endif

/*
 * How many range table entries EXPLAIN counts when it decides whether to
 * qualify column names: 18 adds entries for GROUP BY that it leaves out.
 */
#if PG_VERSION_NUM >= 180000
#define mp_explain_rtable_size(es) ((es)->rtable_size)
#else
#define mp_explain_rtable_size(es) list_length((es)->rtable)
#endif

/* 18 gives heap_form_minimal_tuple room for extra bytes in front */
#if PG_VERSION_NUM >= 180000
#define mp_form_minimal_tuple(desc, values, isnull) \
	heap_form_minimal_tuple((desc), (values), (isnull), 0)
#else
#define mp_form_minimal_tuple(desc, values, isnull) \
	heap_form_minimal_tuple((desc), (values), (isnull))
#endif

/* 18 moved EXPLAIN's property functions out of commands/explain.h */
#if PG_VERSION_NUM >= 180000
#include "commands/explain_format.h"
#endif

#endif							/* MP_PG_COMPAT_H */
