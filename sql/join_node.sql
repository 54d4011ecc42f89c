-- MergepathJoin: the node with PostgreSQL's own join methods off, on
-- whichever backend mergepath.device picks, checked against PostgreSQL's
-- plan with the node off: each query must return the same multiset of rows.
LOAD 'mergepath';		-- the join path needs the library when plans are made
SET max_parallel_workers_per_gather = 0;
SELECT setseed(0.25);

-- q with the node off (PostgreSQL's plan), then forced (hash, merge and
-- nested-loop joins off): whether the node ran, and whether the rows are the
-- same multiset
CREATE FUNCTION check_join(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  plan text := '';
  line text;
  r_off text[];
  r_on text[];
  saved text[] := ARRAY[current_setting('enable_hashjoin'), current_setting('enable_mergejoin'),
                        current_setting('enable_nestloop')];
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
  PERFORM set_config('enable_hashjoin', saved[1], true);
  PERFORM set_config('enable_mergejoin', saved[2], true);
  PERFORM set_config('enable_nestloop', saved[3], true);
  RETURN format('%s rows, %s, %s', coalesce(cardinality(r_on), 0),
                CASE WHEN plan LIKE '%MergepathJoin%' THEN 'node used' ELSE 'NODE NOT USED' END,
                CASE WHEN r_on IS NOT DISTINCT FROM r_off THEN 'same rows'
                     ELSE format('DIFFERENT (%s rows without the node)',
                                 coalesce(cardinality(r_off), 0)) END);
END $$;

-- Two tables with a key of every supported type: duplicates on both sides
-- (many-to-many), NULLs on both sides, keys only one side has.
CREATE TABLE ja (id int, i2 int2, i4 int4, i8 int8, f4 float4, f8 float8, d date,
                 ts timestamp, tz timestamptz, note text);
CREATE TABLE jb (id int, i2 int2, i4 int4, i8 int8, f4 float4, f8 float8, d date,
                 ts timestamp, tz timestamptz, note text);
INSERT INTO ja
SELECT i, k::int2, k, k * 1000000007::int8, k / 4.0, k / 8.0, date '2000-01-01' + k,
       timestamp '2000-01-01' + k * interval '1 hour', timestamptz '2000-01-01 UTC' + k * interval '1 minute',
       'a' || i
FROM (SELECT i, CASE WHEN random() < 0.05 THEN NULL ELSE (random() * 300)::int - 100 END AS k
      FROM generate_series(1, 2000) i) s;
INSERT INTO jb
SELECT i, k::int2, k, k * 1000000007::int8, k / 4.0, k / 8.0, date '2000-01-01' + k,
       timestamp '2000-01-01' + k * interval '1 hour', timestamptz '2000-01-01 UTC' + k * interval '1 minute',
       'b' || i
FROM (SELECT i, CASE WHEN random() < 0.05 THEN NULL ELSE (random() * 400)::int - 50 END AS k
      FROM generate_series(1, 1500) i) s;
ANALYZE ja;
ANALYZE jb;

-- every join type on every key type
SELECT col, kind, check_join(format(q, col)) AS result
FROM unnest(ARRAY['i2', 'i4', 'i8', 'f4', 'f8', 'd', 'ts', 'tz']) col,
     (VALUES ('inner', 'SELECT a.id, b.id FROM ja a JOIN jb b ON a.%1$s = b.%1$s'),
             ('left', 'SELECT a.id, b.id FROM ja a LEFT JOIN jb b ON a.%1$s = b.%1$s'),
             ('right', 'SELECT a.id, b.id FROM ja a RIGHT JOIN jb b ON a.%1$s = b.%1$s'),
             ('full', 'SELECT a.id, b.id FROM ja a FULL JOIN jb b ON a.%1$s = b.%1$s'),
             ('semi', 'SELECT a.id FROM ja a WHERE EXISTS (SELECT FROM jb b WHERE b.%1$s = a.%1$s)'),
             ('anti', 'SELECT a.id FROM ja a WHERE NOT EXISTS (SELECT FROM jb b WHERE b.%1$s = a.%1$s)'))
       AS t(kind, q)
ORDER BY col, kind;

-- the rows themselves, with text columns, for each join type
SELECT kind, check_join(q)
FROM (VALUES ('inner', 'SELECT a.*, b.* FROM ja a JOIN jb b USING (i4)'),
             ('left', 'SELECT a.*, b.* FROM ja a LEFT JOIN jb b USING (i4)'),
             ('full', 'SELECT * FROM ja a FULL JOIN jb b USING (i8)'),
             ('semi', 'SELECT * FROM ja a WHERE i4 IN (SELECT i4 FROM jb)'),
             ('anti', 'SELECT * FROM jb b WHERE NOT EXISTS (SELECT FROM ja a WHERE a.f8 = b.f8)'))
       AS t(kind, q);

-- float specials: NaN = NaN, -0 = +0, +-Infinity, as PostgreSQL's equality
CREATE TABLE fa (id int, f4 float4, f8 float8);
CREATE TABLE fb (id int, f4 float4, f8 float8);
INSERT INTO fa SELECT i, v, v FROM (SELECT i, (ARRAY['NaN', '-0', '0', 'Infinity', '-Infinity', '1.5', NULL, 'NaN', '-1e-30'])[1 + i % 9]::float8 AS v
                                    FROM generate_series(1, 90) i) s;
INSERT INTO fb SELECT i, v, v FROM (SELECT i, (ARRAY['0', 'NaN', '-Infinity', '-0', '2.5', NULL, 'Infinity'])[1 + i % 7]::float8 AS v
                                    FROM generate_series(1, 70) i) s;
SELECT kind, check_join(q)
FROM (VALUES ('f8 inner', 'SELECT a.id, a.f8, b.id, b.f8 FROM fa a JOIN fb b ON a.f8 = b.f8'),
             ('f4 inner', 'SELECT a.id, a.f4, b.id, b.f4 FROM fa a JOIN fb b ON a.f4 = b.f4'),
             ('f8 full', 'SELECT a.id, a.f8, b.id, b.f8 FROM fa a FULL JOIN fb b ON a.f8 = b.f8'),
             ('f4 anti', 'SELECT a.id FROM fa a WHERE NOT EXISTS (SELECT FROM fb b WHERE a.f4 = b.f4)'))
       AS t(kind, q);
-- the pairs of specials that PostgreSQL's equality makes
SET enable_hashjoin = off; SET enable_mergejoin = off; SET enable_nestloop = off;
SELECT a.f8::text AS a, b.f8::text AS b, count(*)
FROM fa a JOIN fb b ON a.f8 = b.f8 GROUP BY 1, 2 ORDER BY 1, 2;
RESET enable_hashjoin; RESET enable_mergejoin; RESET enable_nestloop;

-- an empty side, and both
CREATE TABLE jempty (id int, i4 int4);
SELECT kind, check_join(q)
FROM (VALUES ('inner', 'SELECT * FROM ja a JOIN jempty e USING (i4)'),
             ('left', 'SELECT a.id, e.id FROM ja a LEFT JOIN jempty e USING (i4)'),
             ('right', 'SELECT a.id, e.id FROM jempty e RIGHT JOIN ja a USING (i4)'),
             ('full', 'SELECT * FROM jempty e FULL JOIN ja a USING (i4)'),
             ('anti', 'SELECT * FROM ja a WHERE NOT EXISTS (SELECT FROM jempty e WHERE e.i4 = a.i4)'),
             ('both', 'SELECT * FROM jempty e FULL JOIN jempty f USING (i4)'))
       AS t(kind, q);

-- further join clauses that reject some pairs: an outer row whose only
-- partners fail them comes back with NULLs; filters above an outer join
SELECT kind, check_join(q)
FROM (VALUES ('inner', 'SELECT a.id, b.id FROM ja a JOIN jb b ON a.i4 = b.i4 AND a.id < b.id'),
             ('left', 'SELECT a.id, b.id FROM ja a LEFT JOIN jb b ON a.i4 = b.i4 AND b.id % 3 = 0'),
             ('right', 'SELECT a.id, b.id FROM ja a RIGHT JOIN jb b ON a.i4 = b.i4 AND a.id % 4 = 1'),
             ('full', 'SELECT a.id, b.id FROM ja a FULL JOIN jb b ON a.i8 = b.i8 AND a.note < b.note AND a.id > b.id'),
             ('semi', 'SELECT a.id FROM ja a WHERE EXISTS (SELECT FROM jb b WHERE b.i4 = a.i4 AND b.id > a.id)'),
             ('anti', 'SELECT a.id FROM ja a WHERE NOT EXISTS (SELECT FROM jb b WHERE b.i4 = a.i4 AND b.id > a.id)'),
             ('left, filter', 'SELECT a.id, b.id FROM ja a LEFT JOIN jb b ON a.i4 = b.i4 WHERE b.id IS NULL OR b.id < 100'),
             ('full, filter', 'SELECT a.id, b.id FROM ja a FULL JOIN jb b ON a.i4 = b.i4 AND a.id < 1000 WHERE coalesce(a.id, 0) + coalesce(b.id, 0) > 1500'),
             ('two keys', 'SELECT a.id, b.id FROM ja a JOIN jb b ON a.i4 = b.i4 AND a.i8 = b.i8 AND a.d = b.d'))
       AS t(kind, q);

-- join keys that are expressions
SELECT kind, check_join(q)
FROM (VALUES ('a.i4 + 1 = b.i4', 'SELECT a.id, b.id FROM ja a JOIN jb b ON a.i4 + 1 = b.i4'),
             ('abs', 'SELECT a.id, b.id FROM ja a LEFT JOIN jb b ON abs(a.i8) = abs(b.i8 - 7)'),
             ('cast', 'SELECT a.id, b.id FROM ja a JOIN jb b ON a.i2::int8 = b.i8 / 1000000007'),
             ('date', 'SELECT a.id, b.id FROM ja a FULL JOIN jb b ON a.d + 3 = b.d'))
       AS t(kind, q);

-- above an outer join, an expression of the nullable side is computed from
-- the NULL-extended row (coalesce(b.x, 0) of a missing row is 0), even where
-- the same expression is the join key, computed below the join
CREATE TABLE s1 AS SELECT g AS x FROM generate_series(1, 20000) g;
CREATE TABLE s2 AS SELECT g AS y FROM generate_series(1, 20000, 2) g;
ANALYZE s1, s2;
SELECT kind, check_join(q)
FROM (VALUES ('left, key in filter', 'SELECT count(*) FROM s1 LEFT JOIN s2 ON s1.x = coalesce(s2.y, 0) WHERE coalesce(s2.y, 0) >= 0'),
             ('full, key in filter', 'SELECT count(*) FROM s1 FULL JOIN s2 ON s1.x = coalesce(s2.y, 0) WHERE coalesce(s2.y, 0) >= 0'),
             ('left, key in output', 'SELECT s1.x, coalesce(s2.y, 0) FROM s1 LEFT JOIN s2 ON s1.x = coalesce(s2.y, 0)'),
             ('right, outer key', 'SELECT a.id, coalesce(a.i4, 0), b.id FROM ja a RIGHT JOIN jb b ON coalesce(a.i4, 0) = b.i4'),
             ('right, key in filter', 'SELECT a.id, b.id FROM ja a RIGHT JOIN jb b ON a.i4 + 1 = b.i4 WHERE (a.i4 + 1) IS NULL'),
             ('full, both keys', 'SELECT coalesce(a.i4, -1), coalesce(b.i4, -2), a.id, b.id FROM ja a FULL JOIN jb b ON coalesce(a.i4, -1) = coalesce(b.i4, -2)'),
             ('left, strict key', 'SELECT a.id, b.i4 + 1 FROM ja a LEFT JOIN jb b ON a.i4 = b.i4 + 1 WHERE (b.i4 + 1) IS NULL OR b.i4 + 1 > 50'),
             ('anti, key', 'SELECT a.id FROM ja a WHERE NOT EXISTS (SELECT FROM jb b WHERE coalesce(b.i4, 0) = a.i4)'),
             ('both sides in filter', 'SELECT a.id, b.id FROM ja a LEFT JOIN jb b ON a.i4 = coalesce(b.i4, 0) WHERE coalesce(b.i4, 0) + a.id > 100'),
             ('full, both in filter', 'SELECT a.id, b.id FROM ja a FULL JOIN jb b ON a.i8 = b.i8 + 0 WHERE coalesce(a.i8 + 1, 0) <> coalesce(b.i8 * 2, 0)'),
             ('placeholder', 'SELECT a.id, s.c FROM ja a LEFT JOIN (SELECT i4, coalesce(i4, 0) + 1 AS c FROM jb) s ON a.i4 = s.i4'),
             ('placeholder key', 'SELECT a.id, s.c FROM ja a LEFT JOIN (SELECT id, coalesce(i4, 7) AS c FROM jb) s ON a.i4 = s.c WHERE s.c IS NULL OR s.c > 0'),
             ('placeholder, full', 'SELECT s.c, t.c FROM (SELECT coalesce(i4, 5) AS c FROM ja) s FULL JOIN (SELECT coalesce(i4, 5) AS c FROM jb) t ON s.c = t.c'),
             ('lateral', 'SELECT a.id, s.id, s.v FROM ja a LEFT JOIN LATERAL (SELECT b.id, b.i4, coalesce(a.i4, 0) + b.id AS v FROM jb b) s ON s.i4 = a.i4'),
             ('lateral key', 'SELECT a.id, s.id FROM ja a LEFT JOIN LATERAL (SELECT b.id, coalesce(b.i4, a.id) AS k FROM jb b) s ON s.k = a.i4'))
       AS t(kind, q);
SET enable_hashjoin = off; SET enable_mergejoin = off; SET enable_nestloop = off;
SELECT s1.x, coalesce(s2.y, 0) AS c FROM s1 LEFT JOIN s2 ON s1.x = coalesce(s2.y, 0) ORDER BY s1.x LIMIT 4;
EXPLAIN (VERBOSE, COSTS OFF)
SELECT s1.x, coalesce(s2.y, 0) AS c FROM s1 LEFT JOIN s2 ON s1.x = coalesce(s2.y, 0);
RESET enable_hashjoin; RESET enable_mergejoin; RESET enable_nestloop;
DROP TABLE s1, s2;

-- the row-identity columns of an UPDATE, DELETE or MERGE on a partitioned
-- table pass through the node; EXPLAIN VERBOSE names them as PostgreSQL's
-- own joins do
CREATE TABLE pa_target (tid int PRIMARY KEY, v text) PARTITION BY LIST (tid);
CREATE TABLE pa_target1 PARTITION OF pa_target FOR VALUES IN (1, 2, 3);
CREATE TABLE pa_targetp PARTITION OF pa_target DEFAULT;
CREATE TABLE pa_source (sid int, v text);
INSERT INTO pa_source SELECT i, 's' || i FROM generate_series(1, 6) i;
INSERT INTO pa_target SELECT i, 't' || i FROM generate_series(2, 8, 2) i;
SET enable_hashjoin = off; SET enable_mergejoin = off; SET enable_nestloop = off;
EXPLAIN (VERBOSE, COSTS OFF)
MERGE INTO pa_target t USING pa_source s ON t.tid = s.sid
WHEN MATCHED THEN UPDATE SET v = t.v || '+' || s.v WHEN NOT MATCHED THEN INSERT VALUES (s.sid, s.v);
MERGE INTO pa_target t USING pa_source s ON t.tid = s.sid
WHEN MATCHED THEN UPDATE SET v = t.v || '+' || s.v WHEN NOT MATCHED THEN INSERT VALUES (s.sid, s.v);
EXPLAIN (VERBOSE, COSTS OFF)
UPDATE pa_target t SET v = t.v || '!' FROM pa_source s WHERE t.tid = s.sid AND s.sid % 2 = 1;
UPDATE pa_target t SET v = t.v || '!' FROM pa_source s WHERE t.tid = s.sid AND s.sid % 2 = 1;
EXPLAIN (VERBOSE, COSTS OFF)
DELETE FROM pa_target t USING pa_source s WHERE t.tid = s.sid + 1;
DELETE FROM pa_target t USING pa_source s WHERE t.tid = s.sid + 1;
RESET enable_hashjoin; RESET enable_mergejoin; RESET enable_nestloop;
SELECT tableoid::regclass, * FROM pa_target ORDER BY tid;
DROP TABLE pa_target, pa_source;

-- under aggregates, subqueries and LIMIT; three tables
SELECT kind, check_join(q)
FROM (VALUES ('aggregate', 'SELECT a.i4, count(*), sum(b.id) FROM ja a JOIN jb b USING (i4) GROUP BY a.i4'),
             ('subquery', 'SELECT * FROM (SELECT a.i4, b.id FROM ja a LEFT JOIN jb b USING (i4) WHERE a.id < 500) s WHERE s.id IS NOT NULL'),
             ('limit', 'SELECT count(*) FROM (SELECT a.id, b.id FROM ja a JOIN jb b USING (i8) ORDER BY a.i8, a.id, b.id LIMIT 50) s'),
             ('three tables', 'SELECT a.id, b.id, c.id FROM ja a JOIN jb b USING (i4) JOIN ja c ON c.i8 = b.i8 WHERE c.id < 300'),
             ('in a CTE', 'WITH j AS MATERIALIZED (SELECT a.i4, b.id FROM ja a JOIN jb b USING (i4)) SELECT i4, count(*) FROM j GROUP BY i4'))
       AS t(kind, q);

-- the output is in key order, which saves a Sort for ORDER BY the key
SET enable_hashjoin = off; SET enable_mergejoin = off; SET enable_nestloop = off;
EXPLAIN (COSTS OFF) SELECT a.i4, b.id FROM ja a JOIN jb b USING (i4) ORDER BY a.i4;
SELECT bool_and(ok) AS ordered FROM (
  SELECT i4 >= lag(i4) OVER () OR lag(i4) OVER () IS NULL AS ok
  FROM (SELECT a.i4 FROM ja a LEFT JOIN jb b USING (i4) ORDER BY a.i4) s) t;
-- a LIMIT over it stops early
SELECT a.i4, a.id, b.id FROM ja a JOIN jb b USING (i4) ORDER BY a.i4, a.id, b.id LIMIT 5;

-- rescans: a join under a subplan, without parameters (returned again from
-- memory) and with them (read again)
EXPLAIN (COSTS OFF)
SELECT x, (SELECT count(*) FROM (SELECT a.id FROM ja a JOIN jb b USING (i4) OFFSET 0) s WHERE s.id = x)
FROM generate_series(1, 3) x;
SELECT x, (SELECT count(*) FROM (SELECT a.id FROM ja a JOIN jb b USING (i4) OFFSET 0) s WHERE s.id = x)
FROM generate_series(1, 20) x
EXCEPT
SELECT x, (SELECT count(*) FROM ja a JOIN jb b USING (i4) WHERE a.id = x) FROM generate_series(1, 20) x;
SELECT x, (SELECT count(*) FROM ja a LEFT JOIN jb b ON a.i4 = b.i4 AND b.id < x * 50 WHERE a.id < x * 10)
FROM generate_series(1, 5) x;
RESET enable_hashjoin; RESET enable_mergejoin; RESET enable_nestloop;
SELECT x, (SELECT count(*) FROM ja a LEFT JOIN jb b ON a.i4 = b.i4 AND b.id < x * 50 WHERE a.id < x * 10)
FROM generate_series(1, 5) x;

-- inside parallel plans (sql/join_parallel.sql tests the parallel join itself)
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
CREATE TABLE pa AS SELECT i AS id, (i % 5000)::int8 AS k FROM generate_series(1, 30000) i;
CREATE TABLE pb AS SELECT i AS id, (i % 7000)::int8 AS k FROM generate_series(1, 14000) i;
ANALYZE pa;
ANALYZE pb;
SET enable_hashjoin = off; SET enable_mergejoin = off; SET enable_nestloop = off;
EXPLAIN (COSTS OFF) SELECT count(*), sum(pa.id + pb.id) FROM pa JOIN pb USING (k);
RESET enable_hashjoin; RESET enable_mergejoin; RESET enable_nestloop;
SELECT kind, check_join(q)
FROM (VALUES ('inner', 'SELECT count(*), sum(pa.id + pb.id) FROM pa JOIN pb USING (k)'),
             ('left', 'SELECT count(*), count(pb.id), sum(pa.id) FROM pa LEFT JOIN pb ON pa.k = pb.k AND pb.id % 2 = 0'),
             ('anti', 'SELECT count(*) FROM pa WHERE NOT EXISTS (SELECT FROM pb WHERE pb.k = pa.k + 3000)'),
             ('ordered', 'SELECT pa.k, pb.id FROM pa JOIN pb USING (k) WHERE pa.id % 100 = 0 ORDER BY pa.k, pb.id'))
       AS t(kind, q);
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET parallel_leader_participation;
SET max_parallel_workers_per_gather = 0;

-- inputs larger than the node's memory, where the planner expected small
-- ones (a function's rows are estimated at 1000): joined in key ranges
SET work_mem = '200kB';
CREATE FUNCTION big_side(n int, m int, seed int) RETURNS TABLE (id int, k int8, pad text)
LANGUAGE sql AS $$
  SELECT i, CASE WHEN i % 97 = 0 THEN NULL ELSE ((i * seed) % m)::int8 END, repeat('x', i % 20)
  FROM generate_series(1, n) i $$;
CREATE FUNCTION spilled(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  line text;
  result text := 'in memory';
BEGIN
  PERFORM set_config('enable_hashjoin', 'off', true);
  PERFORM set_config('enable_mergejoin', 'off', true);
  PERFORM set_config('enable_nestloop', 'off', true);
  FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) ' || q LOOP
    IF line LIKE '%key ranges from row sorts%' THEN
      result := 'key ranges';
    END IF;
  END LOOP;
  PERFORM set_config('enable_hashjoin', 'on', true);
  PERFORM set_config('enable_mergejoin', 'on', true);
  PERFORM set_config('enable_nestloop', 'on', true);
  RETURN result;
END $$;
SELECT kind, spilled(q), check_join(q)
FROM (VALUES ('inner', 'SELECT a.id, b.id FROM big_side(30000, 4000, 7) a JOIN big_side(20000, 5000, 11) b USING (k)'),
             ('left', 'SELECT a.id, b.id, b.pad FROM big_side(30000, 4000, 7) a LEFT JOIN big_side(20000, 5000, 11) b ON a.k = b.k AND b.id % 3 <> 0'),
             ('right', 'SELECT a.id, b.id FROM big_side(30000, 4000, 7) a RIGHT JOIN big_side(20000, 5000, 11) b USING (k)'),
             ('full', 'SELECT a.id, b.id FROM big_side(30000, 4000, 7) a FULL JOIN big_side(20000, 5000, 11) b ON a.k = b.k AND a.id > b.id'),
             ('semi', 'SELECT a.id FROM big_side(30000, 4000, 7) a WHERE a.k IN (SELECT k FROM big_side(20000, 5000, 11))'),
             ('anti', 'SELECT a.id FROM big_side(30000, 9000, 7) a WHERE NOT EXISTS (SELECT FROM big_side(20000, 5000, 11) b WHERE b.k = a.k)'),
             ('one key', 'SELECT count(*) FROM big_side(6000, 1, 1) a JOIN big_side(1000, 1, 1) b USING (k)'))
       AS t(kind, q);
RESET work_mem;

-- mergepath.enable_join off: PostgreSQL's own joins only (the plan without
-- the line PostgreSQL 18 adds for a join method that is off)
CREATE FUNCTION plan_of(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  line text;
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
    IF line !~ '^\s*Disabled: true$' THEN
      RETURN NEXT line;
    END IF;
  END LOOP;
END $$;
SET mergepath.enable_join = off;
SET enable_hashjoin = off; SET enable_mergejoin = off; SET enable_nestloop = off;
SELECT plan_of('SELECT * FROM ja a JOIN jb b USING (i4)');
RESET mergepath.enable_join;
-- not offered: no equality on a supported type
SELECT plan_of('SELECT * FROM ja a JOIN jb b USING (note)');
SELECT plan_of('SELECT * FROM ja a JOIN jb b ON a.i4 < b.i4');
RESET enable_hashjoin; RESET enable_mergejoin; RESET enable_nestloop;

-- The planner's own choice, with mergepath's default settings and the
-- memory for both inputs (as the Hash Join has it for one): the node for a
-- large join, PostgreSQL's hash join for a small one
SET work_mem = '256MB';
CREATE TABLE la AS SELECT i AS id, (i * 7)::int8 AS k FROM generate_series(1, 1000000) i ORDER BY random();
CREATE TABLE lb AS SELECT i AS id, (i * 7)::int8 AS k FROM generate_series(1, 1000000) i ORDER BY random();
ANALYZE la;
ANALYZE lb;
CREATE FUNCTION join_method(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  line text;
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
    IF line ~ 'Join|Nested Loop' THEN
      RETURN substring(line FROM '(MergepathJoin|Hash Join|Merge Join|Nested Loop)');
    END IF;
  END LOOP;
  RETURN NULL;
END $$;
SELECT join_method('SELECT count(*), sum(la.id + lb.id) FROM la JOIN lb USING (k)') AS "1M x 1M",
       join_method('SELECT count(*), sum(la.id + lb.id) FROM la JOIN lb USING (k) WHERE la.id < 1000 AND lb.id < 1000') AS "1000 x 1000";
DROP TABLE la, lb;
RESET work_mem;

DROP TABLE ja, jb, fa, fb, jempty, pa, pb;
DROP FUNCTION check_join(text);
DROP FUNCTION spilled(text);
DROP FUNCTION join_method(text);
DROP FUNCTION plan_of(text);
DROP FUNCTION big_side(int, int, int);
