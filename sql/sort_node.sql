-- MergepathSort: the node in the place of Sort, on whichever backend
-- mergepath.device picks, checked against PostgreSQL's own Sort: each query
-- runs with the node and without it, and must give the same rows with the
-- same keys at every position (ties may come in another order).
LOAD 'mergepath';		-- the planner hook needs the library when plans are made
SET mergepath.enable_join = off;	-- the Merge Joins here are what the Sorts are for
SET work_mem = '64MB';
SET max_parallel_workers_per_gather = 0;
SET mergepath.sort_min_rows = 0;
SELECT setseed(0.5);

-- q with the node off and on: whether the node ran, and whether the rows are
-- the same multiset with the same keys (a comma-separated list of q's output
-- columns) at each position
CREATE FUNCTION check_sort(q text, keys text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  wrapped text := format('SELECT row_number() OVER () AS pos, s.* FROM (%s) s', q);
  mem text := current_setting('work_mem');
  plan text := '';
  line text;
  differ text;
  bad bigint;
  same_rows bool;
  n bigint;
BEGIN
  PERFORM set_config('mergepath.enable_sort', 'off', true);
  EXECUTE 'CREATE TEMP TABLE r_off AS ' || wrapped;
  PERFORM set_config('mergepath.enable_sort', 'on', true);
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || wrapped LOOP
    plan := plan || line;
  END LOOP;
  EXECUTE 'CREATE TEMP TABLE r_on AS ' || wrapped;
  -- the comparisons in memory whatever work_mem the query had, and without
  -- the node under test
  PERFORM set_config('work_mem', '256MB', true);
  PERFORM set_config('mergepath.enable_sort', 'off', true);
  SELECT string_agg(format('a.%1$s IS DISTINCT FROM b.%1$s', k), ' OR ')
    INTO differ FROM regexp_split_to_table(keys, ',\s*') k;
  EXECUTE format('SELECT count(*) FROM r_on a FULL JOIN r_off b USING (pos)
                  WHERE a.pos IS NULL OR b.pos IS NULL OR %s', differ) INTO bad;
  -- the same multiset of rows, as text (so -0 and 0, 1.0 and 1.00 differ)
  ALTER TABLE r_on DROP COLUMN pos;
  ALTER TABLE r_off DROP COLUMN pos;
  SELECT count(*) INTO n FROM r_on;
  SELECT n = (SELECT count(*) FROM r_off) AND
         NOT EXISTS (SELECT x::text FROM r_on x EXCEPT ALL SELECT y::text FROM r_off y)
    INTO same_rows;
  DROP TABLE r_on, r_off;
  PERFORM set_config('work_mem', mem, true);
  RETURN format('%s rows, %s, %s', n,
                CASE WHEN plan LIKE '%MergepathSort%' THEN 'node used' ELSE 'NODE NOT USED' END,
                CASE WHEN bad = 0 AND same_rows THEN 'same rows in key order'
                     ELSE format('DIFFERENT: %s positions, same multiset: %s', bad, same_rows) END);
END $$;

-- the same for a query whose result order does not matter
CREATE FUNCTION check_same(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  plan text := '';
  line text;
  r_off text[];
  r_on text[];
BEGIN
  PERFORM set_config('mergepath.enable_sort', 'off', true);
  EXECUTE format('SELECT array_agg(x::text ORDER BY x::text) FROM (%s) x', q) INTO r_off;
  PERFORM set_config('mergepath.enable_sort', 'on', true);
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
    plan := plan || line;
  END LOOP;
  EXECUTE format('SELECT array_agg(x::text ORDER BY x::text) FROM (%s) x', q) INTO r_on;
  RETURN format('%s rows, %s, %s', coalesce(cardinality(r_on), 0),
                CASE WHEN plan LIKE '%MergepathSort%' THEN 'node used' ELSE 'NODE NOT USED' END,
                CASE WHEN r_on IS NOT DISTINCT FROM r_off THEN 'same rows' ELSE 'DIFFERENT' END);
END $$;

-- EXPLAIN ANALYZE with the figures that vary (times, memory, the backend) masked;
-- the rows as whole numbers, as PostgreSQL before 18 prints them
CREATE FUNCTION explain_masked(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  line text;
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, SUMMARY OFF, TIMING OFF, BUFFERS OFF) ' || q LOOP
    line := regexp_replace(line, 'Sort Backend: (cpu|gpu).*', 'Sort Backend: (cpu or gpu)');
    line := regexp_replace(line, 'Backend: (cpu|gpu)( and cpu)?$', 'Backend: (cpu or gpu)');
    -- beyond work_mem: runs on disk (the CPU backend), or the rows kept on
    -- the GPU (mergepath.gpu_sort_mem): one expected output for both
    line := regexp_replace(line, 'external merge  Disk|external sort  Device',
                           'external (merge on disk or sort on the GPU)');
    line := regexp_replace(line, 'Runs: \d+, (merged in \d+ pass(es)?|sorted on the device)',
                           'Runs: N, merged in N passes or sorted on the device');
    line := regexp_replace(line, 'Runs: \d+', 'Runs: N');
    line := regexp_replace(line, 'Worker \d+:', 'Worker N:');
    line := regexp_replace(line, 'rows=(\d+)\.00 ', 'rows=\1 ');
    RETURN NEXT regexp_replace(line, '\d+kB', 'NkB', 'g');
  END LOOP;
END $$;

-- every key type, with NULLs, duplicates, extremes and float specials
CREATE TEMP TABLE st AS
SELECT g AS id,
       CASE WHEN g % 17 = 0 THEN NULL ELSE (g * 7919 % 201 - 100) END::int2 AS i2,
       CASE WHEN g % 13 = 0 THEN NULL
            WHEN g % 97 = 0 THEN -2147483648 WHEN g % 89 = 0 THEN 2147483647
            ELSE (random() * 2000 - 1000)::int4 END AS i4,
       CASE WHEN g % 11 = 0 THEN NULL
            WHEN g % 83 = 0 THEN -9223372036854775808 WHEN g % 79 = 0 THEN 9223372036854775807
            ELSE (random() * 1e12)::int8 - 500000000000 END AS i8,
       CASE g % 9 WHEN 0 THEN NULL WHEN 1 THEN 'NaN' WHEN 2 THEN '-0' WHEN 3 THEN '0'
                  WHEN 4 THEN '-Infinity' WHEN 5 THEN 'Infinity'
                  ELSE (random() * 100 - 50)::float4 END::float4 AS f4,
       CASE g % 10 WHEN 0 THEN NULL WHEN 1 THEN 'NaN' WHEN 2 THEN '-0' WHEN 3 THEN '0'
                   WHEN 4 THEN '-Infinity' WHEN 5 THEN 'Infinity' WHEN 6 THEN '1e-310'
                   ELSE round(random() * 20) / 4 - 2.5 END::float8 AS f8,
       CASE WHEN g % 19 = 0 THEN NULL WHEN g % 41 = 0 THEN 'infinity'::date
            ELSE date '2000-01-01' + (random() * 10000)::int END AS d,
       CASE WHEN g % 23 = 0 THEN NULL
            ELSE timestamp '1990-01-01' + random() * interval '40 years' END AS ts,
       CASE WHEN g % 29 = 0 THEN NULL WHEN g % 43 = 0 THEN '-infinity'::timestamptz
            ELSE timestamptz '1990-01-01 00:00+00' + random() * interval '40 years' END AS tstz,
       CASE WHEN g % 7 = 0 THEN NULL ELSE g % 3 = 0 END AS b,
       CASE WHEN g % 31 = 0 THEN NULL ELSE (g * 2654435761 % 4294967296)::oid END AS o,
       CASE WHEN g % 37 = 0 THEN NULL ELSE time '00:00' + random() * interval '24 hours' END AS tm,
       CASE WHEN g % 47 = 0 THEN NULL ELSE (random() * 2000 - 1000)::numeric::money END AS m
FROM generate_series(1, 3000) g;
ANALYZE st;

-- each type alone, ascending and descending, NULLs first and last
SELECT k, check_sort(format('SELECT %s, id FROM st ORDER BY %s%s', k, k, o), k) AS result
FROM unnest(ARRAY['i2', 'i4', 'i8', 'f4', 'f8', 'd', 'ts', 'tstz', 'b', 'o', 'tm', 'm']) k,
     unnest(ARRAY['', ' DESC', ' NULLS FIRST', ' DESC NULLS LAST']) o
ORDER BY k, o;

-- several keys, mixed directions
SELECT check_sort('SELECT i2, f8, id FROM st ORDER BY i2, f8 DESC, id', 'i2, f8, id');
SELECT check_sort('SELECT b, i8, f4, tm FROM st ORDER BY b DESC NULLS LAST, i8 NULLS FIRST, f4',
                  'b, i8, f4');
SELECT check_sort('SELECT f4, f8, d, tstz, i2, o FROM st ORDER BY f4 DESC, f8, d DESC, tstz, i2, o',
                  'f4, f8, d, tstz, i2, o');
SELECT check_sort('SELECT i8, ts, tstz, m, f8, i4, id FROM st ORDER BY i8 DESC, ts, tstz, m DESC, f8, i4, id',
                  'i8, ts, tstz, m, f8, i4, id');
-- a key the input computes
SELECT check_sort('SELECT i4 % 7 AS r, i4 FROM st ORDER BY i4 % 7 DESC, i4', 'r, i4');

-- a one-column input (kept as values rather than tuples)
SELECT check_sort('SELECT f4 FROM st ORDER BY f4 DESC NULLS LAST', 'f4');
SELECT check_sort('SELECT ts FROM st ORDER BY ts NULLS FIRST', 'ts');

-- all keys equal, empty and one-row inputs, rows wider than a block
SELECT check_sort('SELECT id * 0 AS zero, id FROM st ORDER BY 1', 'zero');
SELECT check_sort('SELECT f8 * 0 AS z, id FROM st WHERE f8 = 0 ORDER BY 1', 'z');
SELECT check_sort('SELECT i4, id FROM st WHERE false ORDER BY i4', 'i4');
SELECT check_sort('SELECT i4, id FROM st WHERE id = 5 ORDER BY i4', 'i4');
SELECT check_sort($$SELECT i4, repeat(md5(id::text), 3000) AS wide FROM st WHERE id <= 100 ORDER BY i4$$,
                  'i4');

-- inside joins, subqueries, CTEs, GROUP BY, DISTINCT and window functions
SET enable_hashagg = off;
SET enable_hashjoin = off;
SELECT check_sort('SELECT a.i4, b.f8, a.id FROM st a JOIN st b ON a.id = b.id + 1 ORDER BY a.i4, b.f8',
                  'i4, f8');
SELECT check_sort('WITH c AS MATERIALIZED (SELECT * FROM st ORDER BY f4 DESC)
                   SELECT f4, i2 FROM c WHERE i2 > 0 ORDER BY i2, f4', 'i2, f4');
SELECT check_sort('SELECT i2, count(*) AS n, sum(i8) AS s FROM st GROUP BY i2 ORDER BY i2', 'i2');
SELECT check_sort('SELECT DISTINCT f8 FROM st ORDER BY f8', 'f8');
SELECT check_sort('SELECT i2, id, row_number() OVER (PARTITION BY i2 ORDER BY f8, id) AS rn,
                          sum(i4) OVER (ORDER BY d, id) AS running FROM st ORDER BY i2, id', 'i2, id');
SELECT check_sort('SELECT i4, id FROM (SELECT i4, id FROM st WHERE id % 2 = 0
                   UNION ALL SELECT i4, id FROM st WHERE id % 2 = 1) u ORDER BY i4', 'i4');
-- sorts under an Append
SELECT check_same('(SELECT i4 FROM st ORDER BY i4 OFFSET 0) UNION ALL (SELECT i2 FROM st ORDER BY i2 OFFSET 0)');
EXPLAIN (COSTS OFF) (SELECT i4 FROM st ORDER BY i4 OFFSET 0) UNION ALL (SELECT i2 FROM st ORDER BY i2 OFFSET 0);
SELECT check_same('SELECT i2, count(*) FROM st GROUP BY i2');
SELECT check_same('SELECT DISTINCT b, o FROM st');

-- the inputs of a Merge Join: duplicate keys make it mark and restore
SET enable_nestloop = off;
SELECT check_same('SELECT a.id, b.id FROM st a JOIN st b ON a.i2 = b.i2 WHERE a.id % 5 = 0');
SELECT check_same('SELECT a.id, b.id FROM st a FULL JOIN st b ON a.f8 = b.f8 WHERE a.id % 50 = 0 OR b.id % 50 = 0');
EXPLAIN (COSTS OFF) SELECT a.id, b.id FROM st a JOIN st b ON a.i2 = b.i2;
RESET enable_nestloop;
RESET enable_hashjoin;
RESET enable_hashagg;

-- a rescanned node: rewound when nothing changed, sorted again when its
-- input's parameters did
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_material = off;
SELECT check_same('SELECT g, s.id FROM generate_series(1, 4) g,
                   (SELECT * FROM st ORDER BY i4 OFFSET 0) s WHERE s.id % 1000 = g');
SELECT check_same('SELECT g, (SELECT array_agg(id) FROM (SELECT id FROM st WHERE i2 = g ORDER BY f8, id) x)
                   FROM generate_series(-3, 3) g');
RESET enable_material;
RESET enable_mergejoin;
RESET enable_hashjoin;

-- a scrollable cursor fetched both ways
EXPLAIN (COSTS OFF) SELECT i4, id FROM st ORDER BY i4, id;
BEGIN;
DECLARE c SCROLL CURSOR FOR SELECT i4, id FROM st ORDER BY i4, id;
FETCH 3 FROM c;
FETCH BACKWARD 2 FROM c;
FETCH BACKWARD 2 FROM c;
FETCH LAST FROM c;
FETCH BACKWARD 3 FROM c;
FETCH ABSOLUTE 1500 FROM c;
FETCH RELATIVE -1 FROM c;
MOVE FORWARD ALL IN c;
FETCH BACKWARD 1 FROM c;
COMMIT;

-- parallel plans: the node under Gather Merge, in each worker (parallel
-- workers cannot read temporary tables)
CREATE TABLE st_shared AS SELECT * FROM st;
ANALYZE st_shared;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET enable_hashagg = off;
EXPLAIN (COSTS OFF) SELECT i8, id FROM st_shared ORDER BY i8 DESC;
SELECT check_sort('SELECT i8, id FROM st_shared ORDER BY i8 DESC', 'i8');
EXPLAIN (COSTS OFF) SELECT i2, count(*) AS n FROM st_shared GROUP BY i2 ORDER BY i2;
SELECT check_sort('SELECT i2, count(*) AS n FROM st_shared GROUP BY i2 ORDER BY i2', 'i2');
DROP TABLE st_shared;
RESET enable_hashagg;
RESET max_parallel_workers_per_gather;
RESET min_parallel_table_scan_size;
RESET parallel_tuple_cost;
RESET parallel_setup_cost;
SET max_parallel_workers_per_gather = 0;

-- where the node is chosen, and where it is not
EXPLAIN (COSTS OFF) SELECT * FROM st ORDER BY i4;
EXPLAIN (COSTS OFF) SELECT * FROM st ORDER BY i4 LIMIT 10;		-- top-N stays a Sort
EXPLAIN (COSTS OFF) SELECT * FROM st ORDER BY i4, id::text;	-- a text key
EXPLAIN (COSTS OFF) SELECT * FROM st ORDER BY m::numeric;		-- a numeric key
SET mergepath.sort_min_rows = 3001;
EXPLAIN (COSTS OFF) SELECT * FROM st ORDER BY i4;				-- fewer rows than sort_min_rows
SET mergepath.sort_min_rows = 3000;
EXPLAIN (COSTS OFF) SELECT * FROM st ORDER BY i4;
SET mergepath.sort_min_rows = 0;
SET work_mem = '64kB';
EXPLAIN (COSTS OFF) SELECT * FROM st ORDER BY i4;				-- more than work_mem: runs on disk
SET work_mem = '64MB';
SET mergepath.enable_sort = off;
EXPLAIN (COSTS OFF) SELECT * FROM st ORDER BY i4;
RESET mergepath.enable_sort;

-- EXPLAIN ANALYZE: the method, memory and backend
SELECT explain_masked('SELECT * FROM st ORDER BY f8 DESC NULLS LAST, i2');

-- an input that outgrows work_mem at run time (the planner expected 10
-- rows) is sorted in runs on disk, merged back
CREATE FUNCTION many_rows(n int) RETURNS TABLE (k int4, pay text) LANGUAGE plpgsql ROWS 10 AS $$
BEGIN
  RETURN QUERY SELECT (g * 7919 % 10007)::int4, md5(g::text) FROM generate_series(1, n) g;
END $$;
SET work_mem = '64kB';
SELECT explain_masked('SELECT * FROM many_rows(20000) ORDER BY k DESC');
SELECT check_sort('SELECT k, pay FROM many_rows(20000) ORDER BY k DESC', 'k');
SELECT check_sort('SELECT k FROM many_rows(20000) ORDER BY k DESC', 'k');
BEGIN;
DECLARE c2 SCROLL CURSOR FOR SELECT k, pay FROM many_rows(20000) ORDER BY k, pay;
FETCH 2 FROM c2;
FETCH LAST FROM c2;
FETCH BACKWARD 2 FROM c2;
COMMIT;
SET work_mem = '64MB';

-- inputs large enough that the rows are put in key order on several threads
-- (mergepath.cpu_threads), and on one: rows of values (every column passed
-- by value) and rows kept as tuples, with NULLs in keys and payload from
-- some row on, and without NULLs (the keys folded while reading, or
-- after it where they need more than a word)
CREATE TEMP TABLE wide AS
SELECT (g::int8 * 7919 % 300007)::int4 AS k,
       CASE WHEN g > 200000 AND g % 5 = 0 THEN NULL ELSE g END AS v,
       CASE WHEN g % 11 = 0 THEN NULL ELSE (g % 1000)::float8 END AS f, md5(g::text) AS t
FROM generate_series(1, 300000) g;
ANALYZE wide;
CREATE TEMP TABLE wide_queries (i int, q text, keys text);
INSERT INTO wide_queries VALUES
  (1, 'SELECT k, v FROM wide ORDER BY k DESC', 'k'),
  (2, 'SELECT v, k FROM wide ORDER BY v NULLS FIRST, k', 'v, k'),
  (3, 'SELECT f, k, t FROM wide ORDER BY f, k', 'f, k'),
  (4, 'SELECT k, t FROM wide ORDER BY k', 'k'),
  (5, 'SELECT (k % 10)::int8 AS r, k::int8 AS k8 FROM wide ORDER BY r DESC, k8', 'r, k8'),
  (6, 'SELECT v, k, t FROM wide ORDER BY v, k', 'v, k'),
  (7, 'SELECT v, t FROM wide ORDER BY v DESC', 'v');
SET mergepath.cpu_threads = 1;
SELECT i, check_sort(q, keys) AS result FROM wide_queries ORDER BY i;
SET mergepath.cpu_threads = 4;
SELECT i, check_sort(q, keys) AS result FROM wide_queries ORDER BY i;
RESET mergepath.cpu_threads;

-- a cancel while the node runs, then a right answer in the same session
CREATE TEMP TABLE big AS SELECT (random() * 1e9)::int4 AS k FROM generate_series(1, 1000000);
ANALYZE big;
SET work_mem = '1GB';
SET statement_timeout = '50ms';
SELECT count(*) FROM (SELECT * FROM big ORDER BY k DESC OFFSET 0) s;
RESET statement_timeout;
SET work_mem = '64MB';
SELECT check_sort('SELECT k, pay FROM many_rows(50000) ORDER BY k', 'k');

-- the node's memory within work_mem when it sorts in runs (EXPLAIN
-- ANALYZE's Memory line, within 5% for the allocator's rounding): rows
-- that are their 64-bit keys (which once took more room for one row past
-- the memory's end), rows of values (whose arrays, doubled, once outgrew
-- the memory) and rows kept as tuples
CREATE FUNCTION node_memory_kb(q text) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
  line text;
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
    IF line ~ 'Sort Runs: .*Memory: \d+kB' THEN
      RETURN substring(line FROM 'Memory: (\d+)kB')::int;
    END IF;
  END LOOP;
  RETURN NULL;
END $$;
SET work_mem = '4MB';
SELECT q, node_memory_kb(q) <= 4096 * 1.05 AS within_work_mem
FROM (VALUES ('SELECT k, -k AS k2 FROM big ORDER BY k, k2'),
             ('SELECT k, k::int8 * 3 AS p FROM big ORDER BY k'),
             ('SELECT k, -k AS i, k::int8 * 3 AS p FROM big ORDER BY k'),
             ('SELECT k, k::text AS t FROM big ORDER BY k')) v(q);
-- and at 32MB, where arrays of 4MB and more are mapped (each once rounded
-- up to 2MB pages), the room for rows once grew by one row with its arrays
-- copied, and rows kept as tuples took a block past the memory's end
SET work_mem = '32MB';
SELECT q, node_memory_kb(q) <= 32768 * 1.05 AS within_work_mem
FROM (VALUES ('SELECT k, k::int8 * 3 AS p FROM big ORDER BY k'),
             ('SELECT k, -k AS i, k::int8 * 3 AS p FROM big ORDER BY k'),
             ('SELECT k, k::text AS t FROM big ORDER BY k')) v(q);
-- and at 64kB, where 1M rows kept as tuples make some 1300 runs: each
-- run's structures (its tape's, about 240 bytes) once took 486kB in all;
-- the runs now merge as they come from a quarter of the memory's worth on
-- (232kB: the merge's six windows of 32kB, and the rest)
SET work_mem = '64kB';
SET mergepath.gpu_sort_mem = 0;
SELECT node_memory_kb('SELECT k, k::text AS t FROM big ORDER BY k') < 320 AS runs_bounded;
RESET mergepath.gpu_sort_mem;
SET work_mem = '64MB';

-- rows kept from a projection, with alignment padding in front of a long
-- varlena, read again at every rescan into memory that held the last
-- scan's rows: the padding must read as padding (zeroed), as PostgreSQL's
-- own tuples have it
CREATE TEMP TABLE pad_outer AS SELECT g AS i FROM generate_series(1, 6) g;
CREATE TEMP TABLE pad_rows AS
SELECT g AS k, (g % 7)::int2 AS s, repeat('x', 127 + g % 37) AS t FROM generate_series(1, 20000) g;
ANALYZE pad_outer;
ANALYZE pad_rows;
SET mergepath.sort_min_rows = 0;
EXPLAIN (COSTS OFF)
SELECT o.i, (SELECT sum(length(q.t) * q.s + q.k)
             FROM (SELECT k, s, t || repeat('y', o.i) AS t FROM pad_rows ORDER BY k + 0 OFFSET 0) q)
FROM pad_outer o;
CREATE TEMP TABLE pad_node AS
SELECT o.i, (SELECT sum(length(q.t) * q.s + q.k)
             FROM (SELECT k, s, t || repeat('y', o.i) AS t FROM pad_rows ORDER BY k + 0 OFFSET 0) q) AS v
FROM pad_outer o;
SET mergepath.enable_sort = off;
CREATE TEMP TABLE pad_pg AS
SELECT o.i, (SELECT sum(length(q.t) * q.s + q.k)
             FROM (SELECT k, s, t || repeat('y', o.i) AS t FROM pad_rows ORDER BY k + 0 OFFSET 0) q) AS v
FROM pad_outer o;
RESET mergepath.enable_sort;
RESET mergepath.sort_min_rows;
SELECT count(*) AS rescans, bool_and(n.v = p.v) AS same_as_sort FROM pad_node n JOIN pad_pg p USING (i);

-- beyond work_mem: sorted runs written to temporary files and merged, in
-- several passes where there are more runs than one merge takes; the same
-- rows in the same key order as PostgreSQL's Sort
SET work_mem = '64kB';
SET mergepath.sort_min_rows = 0;
SELECT k, check_sort(format('SELECT %s, id FROM st ORDER BY %s%s', k, k, o), k) AS result
FROM unnest(ARRAY['i2', 'i4', 'i8', 'f4', 'f8', 'd', 'ts', 'tstz', 'b', 'o', 'tm', 'm']) k,
     unnest(ARRAY['', ' DESC NULLS LAST']) o
ORDER BY k, o;
SELECT check_sort('SELECT f4, f8, d, tstz, i2, o FROM st ORDER BY f4 DESC, f8, d DESC, tstz, i2, o',
                  'f4, f8, d, tstz, i2, o');
-- more keys than four 64-bit words hold
SELECT check_sort('SELECT i8, ts, tstz, m, f8, i4, id FROM st ORDER BY i8 DESC, ts, tstz, m DESC, f8, i4, id',
                  'i8, ts, tstz, m, f8, i4, id');
SELECT i, check_sort(q, keys) AS result FROM wide_queries ORDER BY i;
-- payload passed by reference (text, numeric), all keys equal, one column
SELECT check_sort('SELECT k, t, (k::numeric / 7) AS n FROM wide ORDER BY k DESC', 'k');
SELECT check_sort('SELECT k * 0 AS z, t FROM wide ORDER BY z', 'z');
SELECT check_sort('SELECT f FROM wide ORDER BY f NULLS FIRST', 'f');
SELECT explain_masked('SELECT k, t FROM wide ORDER BY k');
-- runs whose rows of values share one pattern of NULLs are written packed:
-- z NULL in every row, s NULL in whole runs (a block of the input), in no
-- row of others and in some rows of the runs between them and after row
-- 200000; merged with each other and with runs of tuples, s a key or not
SELECT check_sort('SELECT k, NULL::int8 AS z, CASE WHEN v BETWEEN 50000 AND 120000 THEN NULL ELSE v END AS s
                   FROM wide ORDER BY k', 'k, z, s');
SELECT check_sort('SELECT CASE WHEN v BETWEEN 50000 AND 120000 THEN NULL ELSE v END AS s, NULL::int4 AS z, k
                   FROM wide ORDER BY s DESC NULLS LAST, k', 's, z, k');

-- rows whose every column is a key of an integer-like type, the keys in one
-- word: held as their keys alone (in memory and in runs on disk) and formed
-- again from them, until a key is NULL (the rows held then become values:
-- n4 from row 250000 on, n2 in the first row); on disk and in memory
CREATE TEMP TABLE kr AS
SELECT g AS id, (g::int8 * 7919 % 300007 - 150000)::int4 AS k4, (g % 601 - 300)::int2 AS k2,
       g % 3 = 0 AS kb, date '2000-01-01' + (g * 13 % 5000) AS kd,
       (g::int8 * 2654435761 % 4294967296)::oid AS ko,
       (g::int8 * 1000003 % 10000019 - 5000000) * 1000000000000 AS k8,
       CASE WHEN g > 250000 AND g % 7 = 0 THEN NULL ELSE g % 1000 END AS n4,
       CASE WHEN g = 1 THEN NULL ELSE g % 100 END::int2 AS n2
FROM generate_series(1, 300000) g;
ANALYZE kr;
CREATE TEMP TABLE kr_queries (i int, q text, keys text);
INSERT INTO kr_queries VALUES
  (1, 'SELECT k4, id FROM kr ORDER BY k4, id', 'k4, id'),
  (2, 'SELECT k2, kb, k4 FROM kr ORDER BY k2 DESC, kb, k4 DESC', 'k2, kb, k4'),
  (3, 'SELECT kd, ko FROM kr ORDER BY kd DESC, ko', 'kd, ko'),
  (4, 'SELECT k8 FROM kr ORDER BY k8 DESC', 'k8'),
  (5, 'SELECT ko FROM kr ORDER BY ko', 'ko'),
  (6, 'SELECT n4, k2 FROM kr ORDER BY n4 NULLS FIRST, k2', 'n4, k2'),
  (7, 'SELECT n2, id FROM kr ORDER BY n2 DESC NULLS LAST, id', 'n2, id'),
  (8, 'SELECT k4, id, row_number() OVER (ORDER BY k4, id) AS rn FROM kr', 'k4, id');
SELECT i, check_sort(q, keys) AS result FROM kr_queries ORDER BY i;
SET mergepath.gpu_sort_mem = 0;	-- runs on disk on the GPU too
SELECT explain_masked('SELECT k4, id FROM kr ORDER BY k4, id');
RESET mergepath.gpu_sort_mem;
-- read backwards (the merged keys formed into tuples on a tape), and marked
-- and restored under a Merge Join
BEGIN;
DECLARE c6 SCROLL CURSOR FOR SELECT n4, k2 FROM kr ORDER BY n4 NULLS FIRST, k2;
FETCH ABSOLUTE 150000 FROM c6;
FETCH BACKWARD 2 FROM c6;
FETCH LAST FROM c6;
FETCH ABSOLUTE 1 FROM c6;
COMMIT;
SET enable_hashjoin = off;
SET enable_nestloop = off;
SELECT check_same('SELECT a.k2, count(*) FROM kr a JOIN kr b ON a.k2 = b.k2 WHERE b.id % 100 = 0 GROUP BY a.k2');
RESET enable_nestloop;
RESET enable_hashjoin;
SET work_mem = '64MB';
SELECT i, check_sort(q, keys) AS result FROM kr_queries ORDER BY i;
SELECT explain_masked('SELECT k2, kb, k4 FROM kr ORDER BY k2 DESC, kb, k4 DESC');
SET work_mem = '64kB';

-- a spilled sort read by a scrollable cursor, backwards too
BEGIN;
DECLARE c3 SCROLL CURSOR FOR SELECT k, v FROM wide ORDER BY k, v;
FETCH 3 FROM c3;
FETCH BACKWARD 2 FROM c3;
FETCH BACKWARD 2 FROM c3;
FETCH ABSOLUTE 150000 FROM c3;
FETCH RELATIVE -1 FROM c3;
FETCH LAST FROM c3;
FETCH BACKWARD 3 FROM c3;
MOVE FORWARD ALL IN c3;
FETCH BACKWARD 1 FROM c3;
FETCH ABSOLUTE -300000 FROM c3;
COMMIT;

-- where the GPU sorts the rows beyond work_mem, they are kept in its memory
-- (mergepath.gpu_sort_mem); a store that reaches that limit becomes a run
-- on disk, merged with the runs after it; with the limit at 0 every run is
-- on disk.  The CPU backend writes runs to disk in all three.
SET mergepath.gpu_sort_mem = '1MB';
SELECT i, check_sort(q, keys) AS result FROM wide_queries WHERE i IN (2, 3, 5) ORDER BY i;
SELECT i, check_sort(q, keys) AS result FROM kr_queries WHERE i IN (1, 6) ORDER BY i;
SET mergepath.gpu_sort_mem = 0;
SELECT i, check_sort(q, keys) AS result FROM wide_queries WHERE i IN (2, 3, 5) ORDER BY i;
BEGIN;
DECLARE c5 SCROLL CURSOR FOR SELECT k, v FROM wide ORDER BY k, v;
FETCH ABSOLUTE 150000 FROM c5;
FETCH BACKWARD 2 FROM c5;
FETCH LAST FROM c5;
COMMIT;
RESET mergepath.gpu_sort_mem;

-- mark and restore under a Merge Join whose inputs spilled, and spilled
-- sorts rewound and sorted again
SET enable_hashagg = off;
SET enable_hashjoin = off;
SET enable_nestloop = off;
SELECT check_same('SELECT a.id, b.id FROM st a JOIN st b ON a.i2 = b.i2 WHERE a.id % 5 = 0');
SELECT check_same('SELECT a.id, b.id FROM st a FULL JOIN st b ON a.f8 = b.f8 WHERE a.id % 50 = 0 OR b.id % 50 = 0');
RESET enable_nestloop;
SET enable_mergejoin = off;
SET enable_material = off;
SELECT check_same('SELECT g, s.id FROM generate_series(1, 4) g,
                   (SELECT * FROM st ORDER BY i4 OFFSET 0) s WHERE s.id % 1000 = g');
SELECT check_same('SELECT g, (SELECT array_agg(id) FROM (SELECT id FROM st WHERE i2 > g * 20 ORDER BY f8, id) x)
                   FROM generate_series(-3, 3) g');
RESET enable_material;
RESET enable_mergejoin;
RESET enable_hashjoin;
RESET enable_hashagg;

-- parallel plans whose workers spill, each worker's sort in EXPLAIN ANALYZE
CREATE TABLE wide_shared AS SELECT * FROM wide;
ANALYZE wide_shared;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
SELECT check_sort('SELECT k, t FROM wide_shared ORDER BY k DESC', 'k');
SELECT check_sort('SELECT f, count(*) AS n FROM wide_shared GROUP BY f ORDER BY f', 'f');
SELECT explain_masked('SELECT k, t FROM wide_shared ORDER BY k');
-- each worker's memory within work_mem, as its own line in EXPLAIN ANALYZE says
CREATE FUNCTION sorts_memory_kb(q text) RETURNS SETOF int LANGUAGE plpgsql AS $$
DECLARE
  line text;
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
    IF line ~ '(Sort Runs|Worker \d+: .* Runs): .*Memory: \d+kB' THEN
      RETURN NEXT substring(line FROM 'Memory: (\d+)kB')::int;
    END IF;
  END LOOP;
END $$;
SET work_mem = '1MB';
SELECT count(*) AS sorts, bool_and(kb <= 1024 * 1.05) AS within_work_mem
FROM sorts_memory_kb('SELECT k, t FROM wide_shared ORDER BY k') kb;
SET work_mem = '64kB';
-- with the leader taking part, the workers that write runs hand them to it
-- and it merges them with its own: the same rows in key order for each kind
-- of run (tuples with text, values packed, keys alone, NULL keys, several
-- keys), the runs the leader takes those the workers wrote, its temporary
-- files gone after a cancel, and temp_file_limit held in the workers
RESET parallel_leader_participation;
SELECT i, check_sort(replace(q, 'FROM wide ', 'FROM wide_shared '), keys) AS result
FROM wide_queries ORDER BY i;
CREATE FUNCTION runs_handed(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  line text;
  taken int := 0;
  handed int := 0;
  own int := 0;
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
    IF line ~ 'Sort Runs: \d+ and \d+ of the workers' THEN
      taken := taken + substring(line FROM 'and (\d+) of the workers')::int;
    ELSIF line ~ 'Worker \d+: .*Runs: \d+ \(\d+ (merged|sorted) by the leader\)' THEN
      handed := handed + substring(line FROM '\((\d+) (merged|sorted) by the leader')::int;
    ELSIF line ~ 'Worker \d+: .*Runs: \d+' THEN
      own := own + 1;
    END IF;
  END LOOP;
  -- a worker that starts after the leader's input ended has no rows: none
  -- merges its own runs, and how many hand theirs in varies
  RETURN format('the leader took %s runs the workers handed in, workers that merged their own: %s',
                CASE WHEN taken = handed THEN 'the' ELSE format('%s of %s', taken, handed) END,
                own);
END $$;
SELECT runs_handed('SELECT k, t FROM wide_shared ORDER BY k');
SELECT runs_handed('SELECT k FROM wide_shared ORDER BY k DESC');
-- where the leader sorts every participant's rows on the GPU (its store),
-- a store too small for them: the rows it cannot take are sorted in runs
SET mergepath.gpu_sort_mem = '1MB';
SELECT check_sort('SELECT k, t FROM wide_shared ORDER BY k', 'k');
SELECT check_sort('SELECT v, k FROM wide_shared ORDER BY v NULLS FIRST, k', 'v, k');
RESET mergepath.gpu_sort_mem;
SET statement_timeout = '50ms';
DO $$
BEGIN
  PERFORM count(*) FROM (SELECT f, k, t FROM wide_shared ORDER BY f, k OFFSET 0) s;
EXCEPTION WHEN query_canceled THEN
  NULL;
END $$;
RESET statement_timeout;
SELECT count(*) AS temporary_files FROM pg_ls_tmpdir();
SET temp_file_limit = '512kB';
DO $$
BEGIN
  PERFORM count(*) FROM (SELECT * FROM wide_shared ORDER BY k OFFSET 0) s;
EXCEPTION WHEN OTHERS THEN
  RAISE NOTICE 'SQLSTATE %: %', SQLSTATE, replace(SQLERRM, '"', '');
END $$;
RESET temp_file_limit;
SELECT count(*) AS temporary_files FROM pg_ls_tmpdir();
SELECT check_sort('SELECT v, k FROM wide_shared ORDER BY v NULLS FIRST, k', 'v, k');
RESET max_parallel_workers_per_gather;
RESET min_parallel_table_scan_size;
RESET parallel_tuple_cost;
RESET parallel_setup_cost;
DROP TABLE wide_shared;

-- temp_file_limit holds with PostgreSQL's own error; a cancel in any phase
-- (reading and writing runs, merging them, returning rows) leaves no
-- temporary file behind, and the session sorts right after it
SET mergepath.gpu_sort_mem = 0;
SET temp_file_limit = '512kB';
DO $$
BEGIN
  PERFORM count(*) FROM (SELECT * FROM wide ORDER BY k OFFSET 0) s;
EXCEPTION WHEN OTHERS THEN
  RAISE NOTICE 'SQLSTATE %: %', SQLSTATE, replace(SQLERRM, '"', '');	-- 18 quotes the name
END $$;
RESET temp_file_limit;
RESET mergepath.gpu_sort_mem;
SELECT count(*) AS temporary_files FROM pg_ls_tmpdir();
-- a cancel while rows are read and runs written (the input sleeps after
-- 200000 rows), while the runs are merged and rows returned (a cursor moved
-- through the final merge), and at times that fall in any phase
SET statement_timeout = '1s';
SELECT count(*) FROM (SELECT g, CASE WHEN g = 200000 THEN pg_sleep(30) END AS s
                      FROM generate_series(1, 300000) g ORDER BY g % 1000 OFFSET 0) q;
RESET statement_timeout;
SELECT count(*) AS temporary_files FROM pg_ls_tmpdir();
BEGIN;
DECLARE c4 CURSOR FOR SELECT * FROM wide ORDER BY f, k;
FETCH 1 FROM c4;
SET statement_timeout = '1ms';
MOVE FORWARD ALL IN c4;
ROLLBACK;
SELECT count(*) AS temporary_files FROM pg_ls_tmpdir();
CREATE FUNCTION sort_or_cancel(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE q;
  RETURN 'finished';
EXCEPTION WHEN query_canceled THEN
  RETURN 'canceled';
END $$;
CREATE TEMP TABLE cancels (ms int, outcome text);
SET statement_timeout = '10ms';
INSERT INTO cancels SELECT 10, sort_or_cancel('SELECT count(*) FROM (SELECT * FROM wide ORDER BY f DESC, v, k OFFSET 0) s');
RESET statement_timeout;
SET statement_timeout = '100ms';
INSERT INTO cancels SELECT 100, sort_or_cancel('SELECT count(*) FROM (SELECT * FROM wide ORDER BY f DESC, v, k OFFSET 0) s');
RESET statement_timeout;
SET statement_timeout = '400ms';
INSERT INTO cancels SELECT 400, sort_or_cancel('SELECT count(*) FROM (SELECT * FROM wide ORDER BY f DESC, v, k OFFSET 0) s');
RESET statement_timeout;
SELECT count(*) FILTER (WHERE outcome = 'canceled') > 0 AS some_canceled,
       (SELECT count(*) FROM pg_ls_tmpdir()) AS temporary_files
FROM cancels;
SELECT check_sort('SELECT k, v FROM wide ORDER BY v DESC, k', 'v, k');
SET work_mem = '64MB';
RESET mergepath.sort_min_rows;
