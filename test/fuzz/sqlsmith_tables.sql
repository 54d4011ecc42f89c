-- What test/fuzz/sqlsmith.sh gives sqlsmith to work on: the extension and
-- tables of int4[], int8[], float4[] and float8[] arrays of every shape a
-- mergepath function must take or refuse: sorted, unsorted, with NULL
-- elements, NULL arrays, empty, one element, large, multi-dimensional, with
-- unusual lower bounds, all-equal keys and float specials; and plain
-- columns of the types MergepathSort and MergepathJoin work on.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS mergepath;
SELECT setseed(0.25);

CREATE TABLE arrays_int4 (id int4, a int4[], b int4[]);
INSERT INTO arrays_int4
SELECT g,
       CASE g % 9
            WHEN 0 THEN ARRAY(SELECT (random() * 100)::int4 FROM generate_series(1, g % 50) ORDER BY 1)
            WHEN 1 THEN ARRAY(SELECT (random() * 100)::int4 FROM generate_series(1, g % 50))
            WHEN 2 THEN '{}'
            WHEN 3 THEN ARRAY[g]
            WHEN 4 THEN '{1,NULL,3}'
            WHEN 5 THEN '{{1,2},{3,4}}'
            WHEN 6 THEN '[-5:-3]={7,8,9}'
            WHEN 7 THEN ARRAY(SELECT 2147483647 - (g % 3) FROM generate_series(1, 40))
            ELSE NULL END,
       ARRAY(SELECT (random() * 100)::int4 FROM generate_series(1, (g * 7) % 3000) ORDER BY 1)
FROM generate_series(1, 60) g;

CREATE TABLE arrays_int8 (id int4, a int8[], b int8[]);
INSERT INTO arrays_int8
SELECT id, a::int8[], CASE WHEN id % 4 = 0 THEN ARRAY(SELECT -9223372036854775808 + x FROM unnest(b) x)
                           ELSE b::int8[] END
FROM arrays_int4;

CREATE TABLE arrays_float4 (id int4, a float4[], b float4[]);
INSERT INTO arrays_float4
SELECT id,
       CASE id % 5 WHEN 0 THEN '{-Infinity,-0,0,NaN,NaN}'::float4[]
                   WHEN 1 THEN '{NaN,1,-0,0,-Infinity}'::float4[]
                   ELSE a::float4[] END,
       b::float4[]
FROM arrays_int4;

CREATE TABLE arrays_float8 (id int4, a float8[], b float8[]);
INSERT INTO arrays_float8
SELECT id,
       CASE id % 5 WHEN 0 THEN '{-Infinity,-1e-310,-0,0,1e-310,Infinity,NaN}'::float8[]
                   WHEN 1 THEN '{Infinity,NaN,-0,-Infinity}'::float8[]
                   ELSE a::float8[] END,
       ARRAY(SELECT x / 3.0 FROM unnest(b) x)
FROM arrays_int4;

-- rows for the executor nodes
CREATE TABLE rows_a AS
SELECT g AS id, (random() * 500)::int4 AS k, (random() * 1e6)::int8 AS k8,
       CASE WHEN g % 10 = 0 THEN NULL ELSE random() END AS f,
       date '2026-01-01' + (g % 400) AS d, 'row ' || g AS t
FROM generate_series(1, 3000) g;
CREATE TABLE rows_b AS
SELECT g AS id, (random() * 700)::int4 AS k, (random() * 1e6)::int8 AS k8,
       random()::float4 AS f, timestamptz '2026-01-01' + g * interval '1 hour' AS ts
FROM generate_series(1, 2000) g;
ANALYZE;
