-- mergepath 0.1 -> 0.2: the multiset operations
\echo Use "ALTER EXTENSION mergepath UPDATE TO '0.2'" to load this file. \quit

CREATE FUNCTION gpu_intersect(a int4[], b int4[]) RETURNS int4[]
AS 'MODULE_PATHNAME', 'mergepath_intersect'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gpu_intersect(int4[], int4[]) IS
'min(m, n) copies of a key that a holds m times and b n times (INTERSECT ALL), ascending; copies paired with b''s come from a';

CREATE FUNCTION gpu_intersect(a int8[], b int8[]) RETURNS int8[]
AS 'MODULE_PATHNAME', 'mergepath_intersect'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gpu_intersect(int8[], int8[]) IS
'min(m, n) copies of a key that a holds m times and b n times (INTERSECT ALL), ascending; copies paired with b''s come from a';

CREATE FUNCTION gpu_intersect(a float4[], b float4[]) RETURNS float4[]
AS 'MODULE_PATHNAME', 'mergepath_intersect'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gpu_intersect(float4[], float4[]) IS
'min(m, n) copies of a key that a holds m times and b n times (INTERSECT ALL), ascending; copies paired with b''s come from a';

CREATE FUNCTION gpu_intersect(a float8[], b float8[]) RETURNS float8[]
AS 'MODULE_PATHNAME', 'mergepath_intersect'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gpu_intersect(float8[], float8[]) IS
'min(m, n) copies of a key that a holds m times and b n times (INTERSECT ALL), ascending; copies paired with b''s come from a';

CREATE FUNCTION gpu_union(a int4[], b int4[]) RETURNS int4[]
AS 'MODULE_PATHNAME', 'mergepath_union'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gpu_union(int4[], int4[]) IS
'max(m, n) copies of a key that a holds m times and b n times, ascending; copies paired with b''s come from a';

CREATE FUNCTION gpu_union(a int8[], b int8[]) RETURNS int8[]
AS 'MODULE_PATHNAME', 'mergepath_union'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gpu_union(int8[], int8[]) IS
'max(m, n) copies of a key that a holds m times and b n times, ascending; copies paired with b''s come from a';

CREATE FUNCTION gpu_union(a float4[], b float4[]) RETURNS float4[]
AS 'MODULE_PATHNAME', 'mergepath_union'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gpu_union(float4[], float4[]) IS
'max(m, n) copies of a key that a holds m times and b n times, ascending; copies paired with b''s come from a';

CREATE FUNCTION gpu_union(a float8[], b float8[]) RETURNS float8[]
AS 'MODULE_PATHNAME', 'mergepath_union'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gpu_union(float8[], float8[]) IS
'max(m, n) copies of a key that a holds m times and b n times, ascending; copies paired with b''s come from a';

CREATE FUNCTION gpu_except(a int4[], b int4[]) RETURNS int4[]
AS 'MODULE_PATHNAME', 'mergepath_except'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gpu_except(int4[], int4[]) IS
'max(m - n, 0) copies of a key that a holds m times and b n times (EXCEPT ALL), ascending';

CREATE FUNCTION gpu_except(a int8[], b int8[]) RETURNS int8[]
AS 'MODULE_PATHNAME', 'mergepath_except'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gpu_except(int8[], int8[]) IS
'max(m - n, 0) copies of a key that a holds m times and b n times (EXCEPT ALL), ascending';

CREATE FUNCTION gpu_except(a float4[], b float4[]) RETURNS float4[]
AS 'MODULE_PATHNAME', 'mergepath_except'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gpu_except(float4[], float4[]) IS
'max(m - n, 0) copies of a key that a holds m times and b n times (EXCEPT ALL), ascending';

CREATE FUNCTION gpu_except(a float8[], b float8[]) RETURNS float8[]
AS 'MODULE_PATHNAME', 'mergepath_except'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gpu_except(float8[], float8[]) IS
'max(m - n, 0) copies of a key that a holds m times and b n times (EXCEPT ALL), ascending';

CREATE FUNCTION gpu_symdiff(a int4[], b int4[]) RETURNS int4[]
AS 'MODULE_PATHNAME', 'mergepath_symdiff'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gpu_symdiff(int4[], int4[]) IS
'|m - n| copies of a key that a holds m times and b n times, ascending';

CREATE FUNCTION gpu_symdiff(a int8[], b int8[]) RETURNS int8[]
AS 'MODULE_PATHNAME', 'mergepath_symdiff'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gpu_symdiff(int8[], int8[]) IS
'|m - n| copies of a key that a holds m times and b n times, ascending';

CREATE FUNCTION gpu_symdiff(a float4[], b float4[]) RETURNS float4[]
AS 'MODULE_PATHNAME', 'mergepath_symdiff'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gpu_symdiff(float4[], float4[]) IS
'|m - n| copies of a key that a holds m times and b n times, ascending';

CREATE FUNCTION gpu_symdiff(a float8[], b float8[]) RETURNS float8[]
AS 'MODULE_PATHNAME', 'mergepath_symdiff'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gpu_symdiff(float8[], float8[]) IS
'|m - n| copies of a key that a holds m times and b n times, ascending';
