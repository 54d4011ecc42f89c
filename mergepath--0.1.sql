-- mergepath 0.1: gpu_merge and mergepath_info
\echo Use "CREATE EXTENSION mergepath" to load this file. \quit

CREATE FUNCTION gpu_merge(a int4[], b int4[]) RETURNS int4[]
AS 'MODULE_PATHNAME', 'mergepath_merge'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gpu_merge(int4[], int4[]) IS
'all elements of two ascending arrays, ascending; on ties a''s come first';

CREATE FUNCTION gpu_merge(a int8[], b int8[]) RETURNS int8[]
AS 'MODULE_PATHNAME', 'mergepath_merge'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gpu_merge(int8[], int8[]) IS
'all elements of two ascending arrays, ascending; on ties a''s come first';

CREATE FUNCTION gpu_merge(a float4[], b float4[]) RETURNS float4[]
AS 'MODULE_PATHNAME', 'mergepath_merge'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gpu_merge(float4[], float4[]) IS
'all elements of two ascending arrays, ascending; on ties a''s come first';

CREATE FUNCTION gpu_merge(a float8[], b float8[]) RETURNS float8[]
AS 'MODULE_PATHNAME', 'mergepath_merge'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gpu_merge(float8[], float8[]) IS
'all elements of two ascending arrays, ascending; on ties a''s come first';

CREATE FUNCTION mergepath_info() RETURNS jsonb
AS 'MODULE_PATHNAME', 'mergepath_info'
LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION mergepath_info() IS
'settings, the GPU, GPU slots, and which backend ran this session''s last call, with per-phase timings';
