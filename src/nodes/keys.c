/*
 * keys.c
 *		The column types whose values the nodes fold into an order-preserving
 *		unsigned key (mp_order.h), and the bits each takes.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "utils/lsyscache.h"

#include "mp_nodes.h"

mp_key_kind
mp_key_kind_of(Oid type)
{
	switch (getBaseType(type))
	{
		case BOOLOID:
			return MP_KEY_BOOL;
		case INT2OID:
			return MP_KEY_INT2;
		case INT4OID:
		case DATEOID:
			return MP_KEY_INT4;
		case OIDOID:
			return MP_KEY_UINT4;
		case INT8OID:
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
		case TIMEOID:
		case CASHOID:
			return MP_KEY_INT8;
		case FLOAT4OID:
			return MP_KEY_FLOAT4;
		case FLOAT8OID:
			return MP_KEY_FLOAT8;
		default:
			return MP_KEY_NONE;
	}
}

int
mp_key_kind_bits(mp_key_kind kind)
{
	switch (kind)
	{
		case MP_KEY_BOOL:
			return 1;
		case MP_KEY_INT2:
			return 16;
		case MP_KEY_INT4:
		case MP_KEY_UINT4:
		case MP_KEY_FLOAT4:
			return 32;
		case MP_KEY_INT8:
		case MP_KEY_FLOAT8:
			return 64;
		case MP_KEY_NONE:
			break;
	}
	return 0;
}
