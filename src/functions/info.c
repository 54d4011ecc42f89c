/*
 * info.c
 *		mergepath_info(): what this backend sees of its settings and backends.
 */
#include "postgres.h"

#include "utils/fmgrprotos.h"

#include "mp_arrays.h"

/*
 * What this backend sees: settings, the GPU, GPU slots, and the backend and
 * per-phase timings of the last call.
 */
PG_FUNCTION_INFO_V1(mergepath_info);
Datum
mergepath_info(PG_FUNCTION_ARGS)
{
	StringInfoData json;

	initStringInfo(&json);
	appendStringInfoChar(&json, '{');
	mp_describe_backends(&json);
	appendStringInfoChar(&json, '}');
	PG_RETURN_DATUM(DirectFunctionCall1(jsonb_in, CStringGetDatum(json.data)));
}
