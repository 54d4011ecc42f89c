/*
 * errors.c
 *		The errors of a run that a backend's status alone cannot word: an
 *		input out of order, with the element that breaks the order.
 */
#include "postgres.h"

#include "utils/lsyscache.h"

#include "mp_run.h"

static char *
mp_element_text(const mp_arg *arg, int64 i)
{
	const char *p = (const char *) arg->data + i * mp_type_size(arg->type);
	Oid			typoutput;
	bool		typisvarlena;
	Datum		value = 0;

	switch (arg->type)
	{
		case MP_INT4:
			value = Int32GetDatum(*(const int32 *) p);
			break;
		case MP_INT8:
			value = Int64GetDatum(*(const int64 *) p);
			break;
		case MP_FLOAT4:
			value = Float4GetDatum(*(const float4 *) p);
			break;
		case MP_FLOAT8:
			value = Float8GetDatum(*(const float8 *) p);
			break;
	}
	getTypeOutputInfo(arg->elemtype, &typoutput, &typisvarlena);
	return OidOutputFunctionCall(typoutput, value);
}

/*
 * A backend found an input out of order; find the first offending element
 * (in a before b) and say where it is.  Runs on the error path only.
 */
void
mp_report_unsorted(const char *fname, const mp_arg *a, const mp_arg *b)
{
	const mp_arg *arg = a;
	int64		i = mp_first_unsorted(a->type, a->data, a->n);

	if (i < 0 && b != NULL)
	{
		arg = b;
		i = mp_first_unsorted(b->type, b->data, b->n);
	}
	if (i < 0)
		elog(ERROR, "%s: a backend reported unsorted input that is sorted", fname);

	ereport(ERROR,
			(errcode(ERRCODE_DATA_EXCEPTION),
			 errmsg("%s: argument \"%s\" is not in ascending order at subscript " INT64_FORMAT,
					fname, arg->name, arg->lbound + i),
			 errdetail("%s[" INT64_FORMAT "] = %s follows %s[" INT64_FORMAT "] = %s.",
					   arg->name, arg->lbound + i, mp_element_text(arg, i),
					   arg->name, arg->lbound + i - 1, mp_element_text(arg, i - 1)),
			 errhint("Sort it with ORDER BY, for example array_agg(x ORDER BY x).")));
}
