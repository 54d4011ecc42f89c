-- What test/bench/batch.sql and batch_sweep.sql share: the tables
-- bench_rows, of :rows rows of two sorted int4[:len], and bench_sort_rows,
-- of :rows rows of an unsorted int4[2 len], and bench_ms, a query's median
-- time.  The unsorted arrays have a table of their own: beside the sorted
-- ones they would double the bytes that every set operation's scan reads
-- (1M rows of int4[100]: 868 MB for the two sorted arrays, 1953 MB with the
-- unsorted one).
-- 1000 sorted arrays a side (and unsorted ones for the sorts), dealt out to
-- the rows: every row's work is a real intersection of len + len elements.
-- The subqueries name k, so that each pool row gets arrays of its own (an
-- uncorrelated one runs once, and every row would repeat the same pair).
DROP TABLE IF EXISTS bench_pool, bench_rows, bench_sort_rows;
SELECT setseed(0.5);
CREATE TABLE bench_pool AS
SELECT k,
       (SELECT array_agg(v ORDER BY v) FROM (SELECT (random() * 10 * :len)::int4 + 0 * k AS v
                                              FROM generate_series(1, :len)) s) AS a,
       (SELECT array_agg(v ORDER BY v) FROM (SELECT (random() * 10 * :len)::int4 + 0 * k AS v
                                              FROM generate_series(1, :len)) s) AS b,
       (SELECT array_agg(v) FROM (SELECT (random() * 10 * :len)::int4 + 0 * k AS v
                                  FROM generate_series(1, 2 * :len)) s) AS u
FROM generate_series(0, 999) k;
CREATE TABLE bench_rows AS
SELECT i AS id, p.a, q.b
FROM generate_series(1, :rows) i
JOIN bench_pool p ON p.k = i % 1000
JOIN bench_pool q ON q.k = (i * 7) % 1000;
CREATE TABLE bench_sort_rows AS
SELECT i AS id, r.u
FROM generate_series(1, :rows) i
JOIN bench_pool r ON r.k = (i * 13) % 1000;
VACUUM ANALYZE bench_rows;
VACUUM ANALYZE bench_sort_rows;

-- the median of reps runs of q, in ms, after one to warm up
CREATE OR REPLACE FUNCTION bench_ms(q text, reps int DEFAULT 3) RETURNS numeric
LANGUAGE plpgsql AS $$
DECLARE
  t timestamptz;
  ms numeric[] := '{}';
  dummy text;
BEGIN
  EXECUTE q INTO dummy;
  FOR i IN 1..reps LOOP
    t := clock_timestamp();
    EXECUTE q INTO dummy;
    ms := ms || (extract(epoch FROM clock_timestamp() - t) * 1000)::numeric;
  END LOOP;
  RETURN round((SELECT v FROM unnest(ms) v ORDER BY v OFFSET reps / 2 LIMIT 1), 3);
END $$;
