-- The tables of test/bench/batch.sql and batch_sweep.sql: bench_rows, of
-- :rows rows of two sorted int4[:len] and an unsorted int4[2 len].
-- 1000 sorted arrays a side (and unsorted ones for the sorts), dealt out to
-- the rows: every row's work is a real intersection of len + len elements
DROP TABLE IF EXISTS bench_pool, bench_rows;
SELECT setseed(0.5);
CREATE TABLE bench_pool AS
SELECT k,
       (SELECT array_agg(v ORDER BY v) FROM (SELECT (random() * 10 * :len)::int4 AS v
                                              FROM generate_series(1, :len)) s) AS a,
       (SELECT array_agg(v ORDER BY v) FROM (SELECT (random() * 10 * :len)::int4 AS v
                                              FROM generate_series(1, :len)) s) AS b,
       (SELECT array_agg((random() * 10 * :len)::int4) FROM generate_series(1, 2 * :len)) AS u
FROM generate_series(0, 999) k;
CREATE TABLE bench_rows AS
SELECT i AS id, p.a, q.b, r.u
FROM generate_series(1, :rows) i
JOIN bench_pool p ON p.k = i % 1000
JOIN bench_pool q ON q.k = (i * 7) % 1000
JOIN bench_pool r ON r.k = (i * 13) % 1000;
VACUUM ANALYZE bench_rows;
