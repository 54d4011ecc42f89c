-- The parallel MergepathJoin: both inputs partial, the inner side read by
-- every participant into shared memory and sorted once, each participant's
-- outer rows joined with it in batches.  Forced (PostgreSQL's joins off,
-- parallel plans free), checked against PostgreSQL's plan with the node off:
-- each query must return the same multiset of rows.
LOAD 'mergepath';
SELECT setseed(0.5);
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 4;

-- q without the node, then with PostgreSQL's joins off: which MergepathJoin
-- ran, and whether the rows are the same multiset
CREATE FUNCTION check_parallel(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  plan text := '';
  line text;
  r_off text[];
  r_on text[];
BEGIN
  PERFORM set_config('mergepath.enable_join', 'off', true);
  EXECUTE format('SELECT array_agg(x::text ORDER BY x::text) FROM (%s) x', q) INTO r_off;
  PERFORM set_config('mergepath.enable_join', 'on', true);
  PERFORM set_config('enable_hashjoin', 'off', true);
  PERFORM set_config('enable_mergejoin', 'off', true);
  PERFORM set_config('enable_nestloop', 'off', true);
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
    plan := plan || line;
  END LOOP;
  EXECUTE format('SELECT array_agg(x::text ORDER BY x::text) FROM (%s) x', q) INTO r_on;
  PERFORM set_config('enable_hashjoin', 'on', true);
  PERFORM set_config('enable_mergejoin', 'on', true);
  PERFORM set_config('enable_nestloop', 'on', true);
  RETURN format('%s rows, %s, %s', coalesce(cardinality(r_on), 0),
                CASE WHEN plan LIKE '%Inner Side: shared%' THEN 'shared inner'
                     WHEN plan LIKE '%Gather%MergepathJoin%' THEN 'node, not shared'
                     WHEN plan LIKE '%MergepathJoin%' THEN 'serial node'
                     ELSE 'NODE NOT USED' END,
                CASE WHEN r_on IS NOT DISTINCT FROM r_off THEN 'same rows'
                     ELSE format('DIFFERENT (%s rows without the node)',
                                 coalesce(cardinality(r_off), 0)) END);
END $$;

-- a key of every supported type, duplicates on both sides (many to many),
-- NULL keys on both sides, text payloads
CREATE TABLE qa (id int, b bool, i2 int2, i4 int4, i8 int8, f4 float4, f8 float8,
                 d date, ts timestamp, o oid, note text);
CREATE TABLE qb (id int, b bool, i2 int2, i4 int4, i8 int8, f4 float4, f8 float8,
                 d date, ts timestamp, o oid, note text);
INSERT INTO qa
SELECT i, i % 3 = 0, (i % 700 - 350)::int2, CASE WHEN i % 53 = 0 THEN NULL ELSE (i * 37) % 4000 - 2000 END,
       ((i * 101) % 5000)::int8 * 1000003 - 2000000000, ((i % 900) - 450) / 4.0, CASE WHEN i % 401 = 0 THEN 'NaN' ELSE (i % 1100) / 8.0 - 60 END,
       date '2020-01-01' + (i % 800), timestamp '2020-01-01' + (i % 900) * interval '1 hour',
       (i % 1200)::oid, 'a' || i
FROM generate_series(1, 15000) i;
INSERT INTO qb
SELECT i, i % 5 = 0, (i % 500 - 200)::int2, CASE WHEN i % 41 = 0 THEN NULL ELSE (i * 13) % 5000 - 2500 END,
       ((i * 7) % 6000)::int8 * 1000003 - 2000000000, ((i % 700) - 300) / 4.0, CASE WHEN i % 307 = 0 THEN 'NaN' ELSE (i % 1300) / 8.0 - 70 END,
       date '2020-01-01' + (i % 1000), timestamp '2020-01-01' + (i % 700) * interval '1 hour',
       (i % 1500)::oid, repeat('b', i % 30)
FROM generate_series(1, 6000) i;
CREATE TABLE qempty (LIKE qb);
ANALYZE qa;
ANALYZE qb;
ANALYZE qempty;

SET enable_hashjoin = off; SET enable_mergejoin = off; SET enable_nestloop = off;
EXPLAIN (COSTS OFF) SELECT count(*), sum(a.id + b.id) FROM qa a JOIN qb b USING (i8);
EXPLAIN (COSTS OFF) SELECT count(*), count(a.id), count(b.id) FROM qa a FULL JOIN qb b USING (i4);
RESET enable_hashjoin; RESET enable_mergejoin; RESET enable_nestloop;

SELECT key, check_parallel(format('SELECT a.id, b.id, b.note FROM qa a JOIN qb b USING (%I) WHERE a.id %% 7 = 0', key))
FROM unnest(ARRAY['b', 'i2', 'i4', 'i8', 'f4', 'f8', 'd', 'ts', 'o']) key
WHERE key <> 'b';
SELECT check_parallel('SELECT count(*), sum(a.id), sum(b.id) FROM qa a JOIN qb b USING (b)') AS "bool key";

-- every join type: a RIGHT or FULL join's unmatched inner rows (NULL keys
-- among them) come once, from the last participant to finish
SELECT kind, check_parallel(q)
FROM (VALUES ('inner', 'SELECT a.id, b.id FROM qa a JOIN qb b USING (i4)'),
             ('inner, filter', 'SELECT a.id, b.id FROM qa a JOIN qb b ON a.i4 = b.i4 AND a.id % 5 <> b.id % 3'),
             ('left', 'SELECT a.id, b.id, b.note FROM qa a LEFT JOIN qb b USING (i4)'),
             ('left, filter', 'SELECT a.id, b.id FROM qa a LEFT JOIN qb b ON a.i4 = b.i4 AND b.id % 2 = 0'),
             ('semi', 'SELECT a.id FROM qa a WHERE a.i8 IN (SELECT i8 FROM qb)'),
             ('semi, filter', 'SELECT a.id FROM qa a WHERE EXISTS (SELECT FROM qb b WHERE b.f8 = a.f8 AND b.id > a.id)'),
             ('anti', 'SELECT a.id FROM qa a WHERE NOT EXISTS (SELECT FROM qb b WHERE b.i4 = a.i4)'),
             ('anti, filter', 'SELECT a.id FROM qa a WHERE NOT EXISTS (SELECT FROM qb b WHERE b.d = a.d AND b.id < a.id)'),
             ('right', 'SELECT a.id, b.id FROM qa a RIGHT JOIN qb b USING (i4)'),
             ('full', 'SELECT a.id, b.id FROM qa a FULL JOIN qb b USING (i4)'),
             ('full, filter', 'SELECT a.id, b.id, b.note FROM qa a FULL JOIN qb b ON a.i8 = b.i8 AND a.id % 3 = b.id % 4'),
             ('full, few matches', 'SELECT a.id, b.id FROM qa a FULL JOIN qb b ON a.i4 = b.i4 + 3000'),
             ('right, small outer', 'SELECT a.id, b.id FROM (SELECT * FROM qa WHERE id < 300) a RIGHT JOIN qb b USING (i4)'),
             ('no inner row, full', 'SELECT a.id, b.id FROM qa a FULL JOIN (SELECT * FROM qb WHERE id < 0) b USING (i4)'),
             ('no outer row, full', 'SELECT a.id, b.id FROM (SELECT * FROM qa WHERE id < 0) a FULL JOIN qb b USING (i4)'),
             ('empty inner', 'SELECT a.id, b.id FROM qa a JOIN qempty b USING (i4)'),
             ('empty inner, left', 'SELECT a.id, b.id FROM qa a LEFT JOIN qempty b USING (i4)'),
             ('empty inner, anti', 'SELECT a.id FROM qa a WHERE NOT EXISTS (SELECT FROM qempty b WHERE b.i4 = a.i4)'),
             ('inner not partial', 'SELECT a.id, b.i4 FROM qa a JOIN generate_series(-2000, 2000, 3) b(i4) USING (i4)'),
             ('inner not partial, left', 'SELECT a.id, b.i4 FROM qa a LEFT JOIN generate_series(-2000, 2000, 3) b(i4) USING (i4)'),
             ('inner not partial, anti', 'SELECT a.id FROM qa a WHERE NOT EXISTS (SELECT FROM generate_series(-2000, 2000, 3) b(i4) WHERE b.i4 = a.i4)'),
             ('empty outer', 'SELECT a.id, b.id FROM qempty a JOIN qb b USING (i4)'),
             ('no inner row', 'SELECT a.id, b.id FROM qa a JOIN (SELECT * FROM qb WHERE id < 0) b USING (i4)'),
             ('no inner row, left', 'SELECT a.id, b.id FROM qa a LEFT JOIN (SELECT * FROM qb WHERE id < 0) b USING (i4)'),
             ('no inner row, anti', 'SELECT a.id FROM qa a WHERE NOT EXISTS (SELECT FROM qb b WHERE b.i4 = a.i4 AND b.id < 0)'),
             ('no outer row', 'SELECT a.id, b.id FROM qa a JOIN qb b USING (i4) WHERE a.id < 0'),
             ('expression key', 'SELECT a.id, b.id FROM qa a JOIN qb b ON a.i4 + 1 = b.i4 - 1'),
             ('projection', 'SELECT a.id * 2, upper(b.note), a.i8 FROM qa a JOIN qb b USING (i8) WHERE b.id % 3 = 0'))
       AS t(kind, q);

-- without the leader, and with one worker
SET parallel_leader_participation = off;
SELECT check_parallel('SELECT a.id, b.id FROM qa a JOIN qb b USING (i4)') AS "workers only";
SELECT check_parallel('SELECT a.id, b.id FROM qa a FULL JOIN qb b USING (i4)') AS "workers only, full";
RESET parallel_leader_participation;
SET max_parallel_workers_per_gather = 1;
SELECT check_parallel('SELECT a.id, b.id FROM qa a LEFT JOIN qb b USING (i8)') AS "one worker";
SET max_parallel_workers_per_gather = 4;
-- no worker launched: the leader alone reads both sides
SET max_parallel_workers = 0;
SELECT check_parallel('SELECT a.id, b.id FROM qa a JOIN qb b USING (i4)') AS "no worker launched";
SELECT check_parallel('SELECT a.id, b.id FROM qa a FULL JOIN qb b USING (i4)') AS "no worker launched, full";
RESET max_parallel_workers;

-- a participant's memory smaller than its outer rows: several batches each
SET work_mem = '64kB';
SELECT kind, check_parallel(q)
FROM (VALUES ('inner', 'SELECT a.id, b.id, a.note FROM qa a JOIN (SELECT * FROM qb WHERE id <= 1500) b USING (i4)'),
             ('left', 'SELECT a.id, b.id FROM qa a LEFT JOIN (SELECT * FROM qb WHERE id <= 1500) b USING (i4)'),
             ('anti', 'SELECT a.id FROM qa a WHERE NOT EXISTS (SELECT FROM qb b WHERE b.i4 = a.i4 AND b.id <= 1500)'),
             ('full', 'SELECT a.id, b.id FROM qa a FULL JOIN (SELECT * FROM qb WHERE id <= 1500) b USING (i4)'))
       AS t(kind, q);
CREATE FUNCTION batches(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  line text;
  most int := 0;
BEGIN
  PERFORM set_config('enable_hashjoin', 'off', true);
  PERFORM set_config('enable_mergejoin', 'off', true);
  PERFORM set_config('enable_nestloop', 'off', true);
  FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
    most := greatest(most, substring(line FROM 'Batches: (\d+)')::int);
  END LOOP;
  PERFORM set_config('enable_hashjoin', 'on', true);
  PERFORM set_config('enable_mergejoin', 'on', true);
  PERFORM set_config('enable_nestloop', 'on', true);
  RETURN CASE WHEN most > 1 THEN 'several batches' ELSE 'one batch' END;
END $$;
SELECT batches('SELECT a.id, b.id, a.note FROM qa a JOIN (SELECT * FROM qb WHERE id <= 1500) b USING (i4)');
RESET work_mem;

-- beyond the memory: the inner side outgrows what Parallel Hash Join's table
-- may hold (hash_mem x participants), and both sides go into key ranges on
-- temporary files, split by a sample of the inner keys
SET work_mem = '64kB';
SET hash_mem_multiplier = 1;
CREATE FUNCTION ranges(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  line text;
  n int;
  budget int;
  peak int;
  again text;
BEGIN
  PERFORM set_config('enable_hashjoin', 'off', true);
  PERFORM set_config('enable_mergejoin', 'off', true);
  PERFORM set_config('enable_nestloop', 'off', true);
  FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
    IF line ~ 'in \d+ key ranges' THEN
      n := substring(line FROM 'in (\d+) key ranges')::int;
      budget := substring(line FROM 'outgrew (\d+)kB')::int;
      again := CASE WHEN line ~ 'split again' THEN 'the spool split again'
                    ELSE 'the spool''s buckets as the ranges' END;
    END IF;
    peak := coalesce(substring(line FROM 'Shared Inner Memory: at most (\d+)kB')::int, peak);
  END LOOP;
  PERFORM set_config('enable_hashjoin', 'on', true);
  PERFORM set_config('enable_mergejoin', 'on', true);
  PERFORM set_config('enable_nestloop', 'on', true);
  RETURN CASE WHEN n IS NULL THEN 'in memory'
              ELSE format('%s, %s, %s', CASE WHEN n > 1 THEN 'several key ranges' ELSE 'one key range' END,
                          CASE WHEN peak <= 3 * budget THEN 'within the memory'
                               ELSE 'OVER THE MEMORY' END, again) END;
END $$;
SELECT kind, check_parallel(q)
FROM (VALUES ('inner', 'SELECT a.id, b.id, b.note FROM qa a JOIN qb b USING (i4)'),
             ('inner, int8', 'SELECT a.id, b.id FROM qa a JOIN qb b USING (i8)'),
             ('inner, float8', 'SELECT a.id, b.id FROM qa a JOIN qb b USING (f8)'),
             ('inner, int2', 'SELECT a.id, b.id FROM qa a JOIN qb b USING (i2)'),
             ('inner, filter', 'SELECT a.id, b.id FROM qa a JOIN qb b ON a.i4 = b.i4 AND a.id % 5 <> b.id % 3'),
             ('left', 'SELECT a.id, b.id, b.note FROM qa a LEFT JOIN qb b USING (i4)'),
             ('semi', 'SELECT a.id FROM qa a WHERE a.i8 IN (SELECT i8 FROM qb)'),
             ('anti', 'SELECT a.id FROM qa a WHERE NOT EXISTS (SELECT FROM qb b WHERE b.i4 = a.i4)'),
             ('right', 'SELECT a.id, b.id FROM qa a RIGHT JOIN qb b USING (i4)'),
             ('full', 'SELECT a.id, b.id FROM qa a FULL JOIN qb b USING (i4)'),
             ('full, filter', 'SELECT a.id, b.id, b.note FROM qa a FULL JOIN qb b ON a.i8 = b.i8 AND a.id % 3 = b.id % 4'),
             ('full, larger inner', 'SELECT a.id, b.id FROM qb a FULL JOIN qa b USING (i4)'),
             ('no outer row, full', 'SELECT a.id, b.id FROM (SELECT * FROM qa WHERE id < 0) a FULL JOIN qb b USING (i4)'))
       AS t(kind, q);
SELECT ranges('SELECT a.id, b.id FROM qa a FULL JOIN qb b USING (i4)') AS "full";
-- keys in the inner table's physical order: a sample of the first rows read
-- would put them all in one range
CREATE TABLE qc AS SELECT i AS id, i::int8 * 3 AS k, md5(i::text) AS note FROM generate_series(1, 40000) i;
ANALYZE qc;
SELECT check_parallel('SELECT a.id, c.id FROM qa a JOIN qc c ON a.i8 % 120000 = c.k') AS "clustered inner";
SELECT ranges('SELECT a.id, c.id FROM qa a JOIN qc c ON a.i8 % 120000 = c.k') AS "clustered inner";
-- one key with more rows than a range holds: its range outgrows the memory
CREATE TABLE qs AS SELECT i AS id, CASE WHEN i % 2 = 0 THEN 7 ELSE i END AS k FROM generate_series(1, 30000) i;
ANALYZE qs;
SELECT check_parallel('SELECT a.id, s.id FROM qa a FULL JOIN qs s ON a.i4 = s.k') AS "skewed, full";
SELECT ranges('SELECT a.id, s.id FROM qa a FULL JOIN qs s ON a.i4 = s.k') LIKE 'several key ranges%' AS "skewed, full, in ranges";
-- temp_file_limit is PostgreSQL's own: 53400 (its message's quoting
-- differs between versions)
SET enable_hashjoin = off; SET enable_mergejoin = off; SET enable_nestloop = off;
SET temp_file_limit = '100kB';
\set VERBOSITY sqlstate
SELECT count(*) FROM qa a JOIN qc c ON a.i8 % 120000 = c.k;
\set VERBOSITY default
RESET temp_file_limit;
-- a rescan of the Gather above: both sides split again
SET enable_material = off;
SELECT v.x, s.* FROM (SELECT count(*), count(a.id), count(b.id) FROM qa a FULL JOIN qb b USING (i4)) s
  RIGHT JOIN (VALUES (1), (2)) v(x) ON true;
RESET enable_material;
-- a cancel while the outer rows are split into ranges, and while a range is
-- probed: no temporary file is left
SET statement_timeout = '300ms';
SELECT count(*) FROM (SELECT * FROM qa WHERE pg_sleep(0.001) IS NOT NULL) a JOIN qc c ON a.i8 % 120000 = c.k;
SELECT count(*) FROM qa a FULL JOIN qc c ON a.i8 % 120000 = c.k AND pg_sleep(0.001) IS NOT NULL;
RESET statement_timeout;
RESET enable_hashjoin; RESET enable_mergejoin; RESET enable_nestloop;
SELECT count(*) AS "temporary files left" FROM pg_ls_tmpdir();
SET mergepath.enable_join = off;
SELECT count(*), count(a.id), count(b.id) FROM qa a FULL JOIN qb b USING (i4);
RESET mergepath.enable_join;
RESET work_mem;
RESET hash_mem_multiplier;

-- the Gather above rescanned (a nested loop's inner side, not materialized):
-- the shared side is built again each time
SET enable_hashjoin = off; SET enable_mergejoin = off; SET enable_material = off;
EXPLAIN (COSTS OFF)
SELECT v.x, s.c, s.s FROM (SELECT count(*) c, sum(a.id) s FROM qa a JOIN qb b USING (i4)) s
  RIGHT JOIN (VALUES (1), (2), (3)) v(x) ON true;
SELECT v.x, s.c, s.s FROM (SELECT count(*) c, sum(a.id) s FROM qa a JOIN qb b USING (i4)) s
  RIGHT JOIN (VALUES (1), (2), (3)) v(x) ON true;
SELECT v.x, s.* FROM (SELECT count(*), count(a.id), count(b.id) FROM qa a FULL JOIN qb b USING (i4)) s
  RIGHT JOIN (VALUES (1), (2), (3)) v(x) ON true;
RESET enable_hashjoin; RESET enable_mergejoin; RESET enable_material;
SET mergepath.enable_join = off;
SELECT v.x, s.* FROM (SELECT count(*), count(a.id), count(b.id) FROM qa a FULL JOIN qb b USING (i4)) s
  RIGHT JOIN (VALUES (1), (2), (3)) v(x) ON true;
SELECT v.x, s.c, s.s FROM (SELECT count(*) c, sum(a.id) s FROM qa a JOIN qb b USING (i4)) s
  RIGHT JOIN (VALUES (1), (2), (3)) v(x) ON true;
RESET mergepath.enable_join;

-- an error in a participant (here a division by zero in the join filter)
-- reaches the client, and the next query runs
\set VERBOSITY terse
SET enable_hashjoin = off; SET enable_mergejoin = off; SET enable_nestloop = off;
SELECT count(*) FROM qa a JOIN qb b ON a.i4 = b.i4 AND a.id / (b.id - b.id) > 0;
SELECT count(*) FROM qa a JOIN qb b USING (i4);
RESET enable_hashjoin; RESET enable_mergejoin; RESET enable_nestloop;

-- a cancel while the participants read the inner side (one waiting at the
-- barrier for the others), and while they probe; then the same query runs
SET enable_hashjoin = off; SET enable_mergejoin = off; SET enable_nestloop = off;
SET statement_timeout = '300ms';
SELECT count(*) FROM qa a JOIN (SELECT * FROM qb WHERE pg_sleep(0.001) IS NOT NULL) b USING (i4);
SELECT count(*) FROM qa a JOIN qb b ON a.i4 = b.i4 AND pg_sleep(0.001) IS NOT NULL;
SELECT count(*) FROM qa a FULL JOIN qb b ON a.i4 = b.i4 AND pg_sleep(0.001) IS NOT NULL;
RESET statement_timeout;
SELECT count(*) FROM qa a FULL JOIN qb b USING (i4);
RESET enable_hashjoin; RESET enable_mergejoin; RESET enable_nestloop;
\set VERBOSITY default

DROP TABLE qa, qb, qc, qs, qempty;
DROP FUNCTION check_parallel(text);
DROP FUNCTION batches(text);
DROP FUNCTION ranges(text);
