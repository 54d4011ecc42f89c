/*
 * mp_json.h
 *		Members of mergepath_info()'s JSON object, written into a StringInfo.
 */
#ifndef MP_JSON_H
#define MP_JSON_H

#include "postgres.h"

#include "lib/stringinfo.h"
#include "utils/json.h"

static inline void
mp_json_key(StringInfo json, const char *key, bool first)
{
	if (!first)
		appendStringInfoString(json, ", ");
	escape_json(json, key);
	appendStringInfoString(json, ": ");
}

static inline void
mp_json_str(StringInfo json, const char *key, const char *value, bool first)
{
	mp_json_key(json, key, first);
	escape_json(json, value);
}

static inline void
mp_json_bool(StringInfo json, const char *key, bool value, bool first)
{
	mp_json_key(json, key, first);
	appendStringInfoString(json, value ? "true" : "false");
}

static inline void
mp_json_int(StringInfo json, const char *key, int64 value)
{
	mp_json_key(json, key, false);
	appendStringInfo(json, INT64_FORMAT, value);
}

static inline void
mp_json_ms(StringInfo json, const char *key, double value)
{
	mp_json_key(json, key, false);
	appendStringInfo(json, "%.3f", value);
}

#endif							/* MP_JSON_H */
