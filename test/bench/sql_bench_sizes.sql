-- The sizes of :'sizes' one after the other, a line as each starts: the
-- arrays of the size added to the table :'bench_table' through the view
-- new_pair (which reads the setting bench.n), then the size's figures
-- measured into results through the view measured, then, with a line of
-- its own, the statement :'bench_after' (a format of n: PostgreSQL's slow
-- plain SQL, say).
\pset format unaligned
\pset tuples_only on
SELECT format('SELECT %L', format('   %s elements a side ...', n)),
       format('SET bench.n = %s', n),
       format('INSERT INTO %I SELECT %s, * FROM new_pair', :'bench_table', n),
       format('INSERT INTO results SELECT * FROM measured WHERE n = %s', n),
       format('SELECT %L WHERE %L <> %L', format('   %s elements a side: %s ...', n, :'bench_after_name'),
              :'bench_after', ''),
       format(coalesce(nullif(:'bench_after', ''), 'SELECT WHERE %s < 0'), n)
FROM unnest(string_to_array(:'sizes', ',')::int[]) AS n
\gexec
\pset tuples_only off
\pset format aligned
