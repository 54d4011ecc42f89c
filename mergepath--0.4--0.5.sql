-- mergepath 0.4 -> 0.5: gpu_join's outer kinds; gpu_sort_agg(value, key)
\echo Use "ALTER EXTENSION mergepath UPDATE TO '0.5'" to load this file. \quit

-- gpu_join gains its kind: the two-argument form becomes the default
DROP FUNCTION gpu_join(int4[], int4[]);
DROP FUNCTION gpu_join(int8[], int8[]);
DROP FUNCTION gpu_join(float4[], float4[]);
DROP FUNCTION gpu_join(float8[], float8[]);

CREATE FUNCTION gpu_join(a int4[], b int4[], kind text DEFAULT 'inner',
                         OUT a_pos int4, OUT b_pos int4)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'mergepath_join'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 1000;
COMMENT ON FUNCTION gpu_join(int4[], int4[], text) IS
'equi-join of kind inner, left, right or full: the subscripts (a_pos, b_pos) of every pair with a[a_pos] = b[b_pos], and for an outer join each unmatched row of the outer side with NULL for the other; ordered by key, pairs by a_pos then b_pos; both arrays ascending';

CREATE FUNCTION gpu_join(a int8[], b int8[], kind text DEFAULT 'inner',
                         OUT a_pos int4, OUT b_pos int4)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'mergepath_join'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 1000;
COMMENT ON FUNCTION gpu_join(int8[], int8[], text) IS
'equi-join of kind inner, left, right or full: the subscripts (a_pos, b_pos) of every pair with a[a_pos] = b[b_pos], and for an outer join each unmatched row of the outer side with NULL for the other; ordered by key, pairs by a_pos then b_pos; both arrays ascending';

CREATE FUNCTION gpu_join(a float4[], b float4[], kind text DEFAULT 'inner',
                         OUT a_pos int4, OUT b_pos int4)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'mergepath_join'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 1000;
COMMENT ON FUNCTION gpu_join(float4[], float4[], text) IS
'equi-join of kind inner, left, right or full: the subscripts (a_pos, b_pos) of every pair with a[a_pos] = b[b_pos], and for an outer join each unmatched row of the outer side with NULL for the other; ordered by key, pairs by a_pos then b_pos; both arrays ascending';

CREATE FUNCTION gpu_join(a float8[], b float8[], kind text DEFAULT 'inner',
                         OUT a_pos int4, OUT b_pos int4)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'mergepath_join'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 1000;
COMMENT ON FUNCTION gpu_join(float8[], float8[], text) IS
'equi-join of kind inner, left, right or full: the subscripts (a_pos, b_pos) of every pair with a[a_pos] = b[b_pos], and for an outer join each unmatched row of the outer side with NULL for the other; ordered by key, pairs by a_pos then b_pos; both arrays ascending';

-- gpu_sort_agg(value, key): one state and support functions for every pair
-- of types
CREATE FUNCTION mergepath_sort_by_key_agg_transfn(internal, anyelement, anycompatible)
RETURNS internal
AS 'MODULE_PATHNAME', 'mergepath_sort_by_key_agg_transfn'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION mergepath_sort_by_key_agg_finalfn(internal, anyelement, anycompatible)
RETURNS anyarray
AS 'MODULE_PATHNAME', 'mergepath_agg_finalfn'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE gpu_sort_agg(value int4, key int4) (
	SFUNC = mergepath_sort_by_key_agg_transfn,
	STYPE = internal,
	FINALFUNC = mergepath_sort_by_key_agg_finalfn,
	FINALFUNC_EXTRA,
	COMBINEFUNC = mergepath_agg_combine,
	SERIALFUNC = mergepath_agg_serialize,
	DESERIALFUNC = mergepath_agg_deserialize,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE gpu_sort_agg(int4, int4) IS
'the non-NULL values in the stable order of their keys, those of NULL keys last (NULL when there are none)';

CREATE AGGREGATE gpu_sort_agg(value int4, key int8) (
	SFUNC = mergepath_sort_by_key_agg_transfn,
	STYPE = internal,
	FINALFUNC = mergepath_sort_by_key_agg_finalfn,
	FINALFUNC_EXTRA,
	COMBINEFUNC = mergepath_agg_combine,
	SERIALFUNC = mergepath_agg_serialize,
	DESERIALFUNC = mergepath_agg_deserialize,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE gpu_sort_agg(int4, int8) IS
'the non-NULL values in the stable order of their keys, those of NULL keys last (NULL when there are none)';

CREATE AGGREGATE gpu_sort_agg(value int4, key float4) (
	SFUNC = mergepath_sort_by_key_agg_transfn,
	STYPE = internal,
	FINALFUNC = mergepath_sort_by_key_agg_finalfn,
	FINALFUNC_EXTRA,
	COMBINEFUNC = mergepath_agg_combine,
	SERIALFUNC = mergepath_agg_serialize,
	DESERIALFUNC = mergepath_agg_deserialize,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE gpu_sort_agg(int4, float4) IS
'the non-NULL values in the stable order of their keys, those of NULL keys last (NULL when there are none)';

CREATE AGGREGATE gpu_sort_agg(value int4, key float8) (
	SFUNC = mergepath_sort_by_key_agg_transfn,
	STYPE = internal,
	FINALFUNC = mergepath_sort_by_key_agg_finalfn,
	FINALFUNC_EXTRA,
	COMBINEFUNC = mergepath_agg_combine,
	SERIALFUNC = mergepath_agg_serialize,
	DESERIALFUNC = mergepath_agg_deserialize,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE gpu_sort_agg(int4, float8) IS
'the non-NULL values in the stable order of their keys, those of NULL keys last (NULL when there are none)';

CREATE AGGREGATE gpu_sort_agg(value int8, key int4) (
	SFUNC = mergepath_sort_by_key_agg_transfn,
	STYPE = internal,
	FINALFUNC = mergepath_sort_by_key_agg_finalfn,
	FINALFUNC_EXTRA,
	COMBINEFUNC = mergepath_agg_combine,
	SERIALFUNC = mergepath_agg_serialize,
	DESERIALFUNC = mergepath_agg_deserialize,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE gpu_sort_agg(int8, int4) IS
'the non-NULL values in the stable order of their keys, those of NULL keys last (NULL when there are none)';

CREATE AGGREGATE gpu_sort_agg(value int8, key int8) (
	SFUNC = mergepath_sort_by_key_agg_transfn,
	STYPE = internal,
	FINALFUNC = mergepath_sort_by_key_agg_finalfn,
	FINALFUNC_EXTRA,
	COMBINEFUNC = mergepath_agg_combine,
	SERIALFUNC = mergepath_agg_serialize,
	DESERIALFUNC = mergepath_agg_deserialize,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE gpu_sort_agg(int8, int8) IS
'the non-NULL values in the stable order of their keys, those of NULL keys last (NULL when there are none)';

CREATE AGGREGATE gpu_sort_agg(value int8, key float4) (
	SFUNC = mergepath_sort_by_key_agg_transfn,
	STYPE = internal,
	FINALFUNC = mergepath_sort_by_key_agg_finalfn,
	FINALFUNC_EXTRA,
	COMBINEFUNC = mergepath_agg_combine,
	SERIALFUNC = mergepath_agg_serialize,
	DESERIALFUNC = mergepath_agg_deserialize,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE gpu_sort_agg(int8, float4) IS
'the non-NULL values in the stable order of their keys, those of NULL keys last (NULL when there are none)';

CREATE AGGREGATE gpu_sort_agg(value int8, key float8) (
	SFUNC = mergepath_sort_by_key_agg_transfn,
	STYPE = internal,
	FINALFUNC = mergepath_sort_by_key_agg_finalfn,
	FINALFUNC_EXTRA,
	COMBINEFUNC = mergepath_agg_combine,
	SERIALFUNC = mergepath_agg_serialize,
	DESERIALFUNC = mergepath_agg_deserialize,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE gpu_sort_agg(int8, float8) IS
'the non-NULL values in the stable order of their keys, those of NULL keys last (NULL when there are none)';

CREATE AGGREGATE gpu_sort_agg(value float4, key int4) (
	SFUNC = mergepath_sort_by_key_agg_transfn,
	STYPE = internal,
	FINALFUNC = mergepath_sort_by_key_agg_finalfn,
	FINALFUNC_EXTRA,
	COMBINEFUNC = mergepath_agg_combine,
	SERIALFUNC = mergepath_agg_serialize,
	DESERIALFUNC = mergepath_agg_deserialize,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE gpu_sort_agg(float4, int4) IS
'the non-NULL values in the stable order of their keys, those of NULL keys last (NULL when there are none)';

CREATE AGGREGATE gpu_sort_agg(value float4, key int8) (
	SFUNC = mergepath_sort_by_key_agg_transfn,
	STYPE = internal,
	FINALFUNC = mergepath_sort_by_key_agg_finalfn,
	FINALFUNC_EXTRA,
	COMBINEFUNC = mergepath_agg_combine,
	SERIALFUNC = mergepath_agg_serialize,
	DESERIALFUNC = mergepath_agg_deserialize,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE gpu_sort_agg(float4, int8) IS
'the non-NULL values in the stable order of their keys, those of NULL keys last (NULL when there are none)';

CREATE AGGREGATE gpu_sort_agg(value float4, key float4) (
	SFUNC = mergepath_sort_by_key_agg_transfn,
	STYPE = internal,
	FINALFUNC = mergepath_sort_by_key_agg_finalfn,
	FINALFUNC_EXTRA,
	COMBINEFUNC = mergepath_agg_combine,
	SERIALFUNC = mergepath_agg_serialize,
	DESERIALFUNC = mergepath_agg_deserialize,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE gpu_sort_agg(float4, float4) IS
'the non-NULL values in the stable order of their keys, those of NULL keys last (NULL when there are none)';

CREATE AGGREGATE gpu_sort_agg(value float4, key float8) (
	SFUNC = mergepath_sort_by_key_agg_transfn,
	STYPE = internal,
	FINALFUNC = mergepath_sort_by_key_agg_finalfn,
	FINALFUNC_EXTRA,
	COMBINEFUNC = mergepath_agg_combine,
	SERIALFUNC = mergepath_agg_serialize,
	DESERIALFUNC = mergepath_agg_deserialize,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE gpu_sort_agg(float4, float8) IS
'the non-NULL values in the stable order of their keys, those of NULL keys last (NULL when there are none)';

CREATE AGGREGATE gpu_sort_agg(value float8, key int4) (
	SFUNC = mergepath_sort_by_key_agg_transfn,
	STYPE = internal,
	FINALFUNC = mergepath_sort_by_key_agg_finalfn,
	FINALFUNC_EXTRA,
	COMBINEFUNC = mergepath_agg_combine,
	SERIALFUNC = mergepath_agg_serialize,
	DESERIALFUNC = mergepath_agg_deserialize,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE gpu_sort_agg(float8, int4) IS
'the non-NULL values in the stable order of their keys, those of NULL keys last (NULL when there are none)';

CREATE AGGREGATE gpu_sort_agg(value float8, key int8) (
	SFUNC = mergepath_sort_by_key_agg_transfn,
	STYPE = internal,
	FINALFUNC = mergepath_sort_by_key_agg_finalfn,
	FINALFUNC_EXTRA,
	COMBINEFUNC = mergepath_agg_combine,
	SERIALFUNC = mergepath_agg_serialize,
	DESERIALFUNC = mergepath_agg_deserialize,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE gpu_sort_agg(float8, int8) IS
'the non-NULL values in the stable order of their keys, those of NULL keys last (NULL when there are none)';

CREATE AGGREGATE gpu_sort_agg(value float8, key float4) (
	SFUNC = mergepath_sort_by_key_agg_transfn,
	STYPE = internal,
	FINALFUNC = mergepath_sort_by_key_agg_finalfn,
	FINALFUNC_EXTRA,
	COMBINEFUNC = mergepath_agg_combine,
	SERIALFUNC = mergepath_agg_serialize,
	DESERIALFUNC = mergepath_agg_deserialize,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE gpu_sort_agg(float8, float4) IS
'the non-NULL values in the stable order of their keys, those of NULL keys last (NULL when there are none)';

CREATE AGGREGATE gpu_sort_agg(value float8, key float8) (
	SFUNC = mergepath_sort_by_key_agg_transfn,
	STYPE = internal,
	FINALFUNC = mergepath_sort_by_key_agg_finalfn,
	FINALFUNC_EXTRA,
	COMBINEFUNC = mergepath_agg_combine,
	SERIALFUNC = mergepath_agg_serialize,
	DESERIALFUNC = mergepath_agg_deserialize,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE gpu_sort_agg(float8, float8) IS
'the non-NULL values in the stable order of their keys, those of NULL keys last (NULL when there are none)';
