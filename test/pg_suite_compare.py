#!/usr/bin/env python3
"""Compares PostgreSQL's regression suite run with mergepath against the same
suite run on a plain server (test/pg_suite.sh).

Outputs are compared result by result.  Where a test's output differs, each
differing result (a table psql printed) must be one of:
  plan      EXPLAIN's plan text (a table headed QUERY PLAN), or a table whose
            statement the list names (plan text printed by a function)
  order     the same rows in another order, for a statement without ORDER BY
  ties      the same rows in another order within ties of the statement's
          ORDER BY (the list names the statement)
  tiebreak  as many rows, other values, where a value depends on which of
          the rows that tie in a sort comes first: window functions over
          ties (first_value, lag), DISTINCT ON (the list names the statement)
  messages  NOTICE or INFO lines a function raised for the rows it was given,
            in another order or for other rows: the plan decides which rows
            and in what order (a trigger's NOTICEs under MERGE, a leaky
            function's under row security, EXPLAIN raised as INFO)
  settings  values of the settings the run was given (the statement that
            shows them named)
and the known-differences list must name the test with that kind (and, for
ties, tiebreak and settings, the statement).  Anything else fails: a row that only one
run returns, an error only one run raises, any other line.
"""
import argparse
import difflib
import os
import re
import sys
import textwrap
from collections import Counter

SEPARATOR = re.compile(r'^-+(\+-+)*$')
FOOTER = re.compile(r'^\(\d+ rows?\)$')


def load_known(path):
    """test | kind | runs | statement | why -> [(test, kind, runs, pattern)]"""
    known = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip('\n')
            if not line.strip() or line.lstrip().startswith('#'):
                continue
            parts = [p.strip() for p in line.split(' | ')]
            if len(parts) != 5 or parts[1] not in ('plan', 'order', 'ties', 'tiebreak', 'messages', 'settings') \
                    or not parts[4]:
                sys.exit(f'{path}:{n}: want "test | kind | runs | statement | why"')
            test, kind, runs, pattern, _ = parts
            if kind in ('ties', 'tiebreak', 'settings') and pattern == '*':
                sys.exit(f'{path}:{n}: a {kind} entry names its statement')
            known.append((test, kind, runs, pattern))
    return known


def schedule_tests(path):
    tests = []
    with open(path) as f:
        for line in f:
            if line.startswith('test:'):
                tests.extend(line[5:].split())
    return tests


def statement_of(lines, header):
    """The statement psql echoed before the table at header."""
    out, dollars = [], 0
    j = header - 1
    while j >= 0:
        line = lines[j]
        if FOOTER.match(line) or (out and line.rstrip().endswith(';') and dollars % 2 == 0):
            break
        dollars += line.count('$$')
        out.append(line)
        j -= 1
    return ' '.join(reversed(out))


def squash(s):
    return re.sub(r'\s+', ' ', s).strip().lower()


def top_order_by(stmt):
    """Whether the statement has an ORDER BY outside parentheses (not a
    subquery's or a window's)."""
    text = re.sub(r"'[^']*'|\$\$.*?\$\$", "''", stmt.lower())
    depth, top = 0, []
    for ch in text:
        depth += ch == '('
        depth -= ch == ')'
        top.append(ch if depth == 0 else ' ')
    return re.search(r'\border\s+by\b', ''.join(top)) is not None


def cells(line):
    return tuple(c.strip() for c in line.split('|'))


def classify(a, ta, b, tb):
    """The kind of difference between two tables, or None."""
    stmt = statement_of(a, ta[0])
    if a[ta[0]].strip() == 'QUERY PLAN' and b[tb[0]].strip() == 'QUERY PLAN':
        return 'plan', stmt
    if cells(a[ta[0]]) != cells(b[tb[0]]):
        return None, stmt
    rows_a = [cells(r) for r in a[ta[0] + 2:ta[1]]]
    rows_b = [cells(r) for r in b[tb[0] + 2:tb[1]]]
    if Counter(rows_a) == Counter(rows_b):
        return ('ties' if top_order_by(stmt) else 'order'), stmt
    if len(rows_a) == len(rows_b):
        return 'tiebreak', stmt
    return 'rows', stmt


def allowed(known, test, run, kind, stmt):
    """The kind a line of the list allows this difference as, or None."""
    for k_test, k_kind, k_runs, pattern in known:
        if k_test != test or (k_runs != '*' and run not in k_runs.split(',')):
            continue
        matches = pattern == '*' or squash(pattern) in squash(stmt)
        if k_kind == kind and matches:
            return kind
        # plan text printed by a function the list names
        if k_kind == 'plan' and pattern != '*' and matches:
            return 'plan'
        # the run's own settings, shown by the statement the list names
        if k_kind == 'settings' and matches and kind in ('tiebreak', 'rows'):
            return 'settings'
    return None


def units(lines):
    """The output as units: each psql table one (its header and footer line
    numbers), each other line one; with a key to compare them by."""
    out, i = [], 0
    while i < len(lines):
        # psql pads a table's header to its separator's width; a line of
        # dashes alone under a comment line is no separator
        if i + 1 < len(lines) and SEPARATOR.match(lines[i + 1]) and \
                len(lines[i]) == len(lines[i + 1]) and not lines[i].startswith('--'):
            k = i + 2
            while k < len(lines) and not FOOTER.match(lines[k]):
                k += 1
            if k < len(lines):
                out.append(('table', (i, k), '\n'.join(lines[i:k + 1])))
                i = k + 1
                continue
        out.append(('line', i, lines[i]))
        i += 1
    return out


MESSAGE = re.compile(r'^(NOTICE|INFO):  |^ ')


def compare(test, run, path_a, path_b, known):
    """(allowed kinds Counter, list of failures)"""
    with open(path_a, errors='replace') as f:
        a = f.read().split('\n')
    with open(path_b, errors='replace') as f:
        b = f.read().split('\n')
    ua, ub = units(a), units(b)
    kinds, failures = Counter(), []
    sm = difflib.SequenceMatcher(None, [u[2] for u in ua], [u[2] for u in ub], autojunk=False)
    for op, i1, i2, j1, j2 in sm.get_opcodes():
        if op == 'equal':
            continue
        ra, rb = ua[i1:i2], ub[j1:j2]
        ta = [u[1] for u in ra if u[0] == 'table']
        tb = [u[1] for u in rb if u[0] == 'table']
        la = [a[u[1]] for u in ra if u[0] == 'line']
        lb = [b[u[1]] for u in rb if u[0] == 'line']
        problems = []
        if la or lb:
            # messages a function raised for the rows it saw, in another
            # order or for other rows: the plan's order of evaluation
            ca, cb = Counter(la), Counter(lb)
            rest = list(((ca - cb) + (cb - ca)).elements())
            if all(MESSAGE.match(x) or not x.strip() for x in rest) and \
                    allowed(known, test, run, 'messages', '*'):
                kinds['messages'] += 1
            else:
                problems.append(('lines that differ', ''))
        if len(ta) != len(tb):
            problems.append(('a result only one run has', ''))
        else:
            for x, y in zip(ta, tb):
                kind, stmt = classify(a, x, b, y)
                as_kind = allowed(known, test, run, kind, stmt)
                if as_kind:
                    kinds[as_kind] += 1
                elif kind == 'rows':
                    problems.append(('different rows', stmt))
                else:
                    problems.append((f'{kind} difference not listed', stmt))
        if not problems:
            continue
        la0 = ra[0][1] if ra else (ua[i1][1] if i1 < len(ua) else len(a))
        lb0 = rb[0][1] if rb else (ub[j1][1] if j1 < len(ub) else len(b))
        la0 = la0[0] if isinstance(la0, tuple) else la0
        lb0 = lb0[0] if isinstance(lb0, tuple) else lb0
        la1 = ra[-1][1] if ra else la0
        lb1 = rb[-1][1] if rb else lb0
        la1 = (la1[1] if isinstance(la1, tuple) else la1) + 1
        lb1 = (lb1[1] if isinstance(lb1, tuple) else lb1) + 1
        diff = list(difflib.unified_diff(a[la0:la1], b[lb0:lb1], 'plain', run,
                                         lineterm='', n=0))
        for what, stmt in problems:
            failures.append(f'{test}: {what} (line {la0 + 1})'
                            + (f'\n  statement: {stmt[:300]}' if stmt else '')
                            + '\n' + '\n'.join('  ' + d for d in diff[:40]))
    return kinds, failures


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--known', required=True)
    ap.add_argument('--run', required=True)
    ap.add_argument('--schedule', required=True)
    ap.add_argument('plain')
    ap.add_argument('other')
    args = ap.parse_args()
    known = load_known(args.known)
    tests = schedule_tests(args.schedule)
    same = 0
    kinds_all, failures, differing = Counter(), [], []
    for test in tests:
        pa = os.path.join(args.plain, test + '.out')
        pb = os.path.join(args.other, test + '.out')
        if not os.path.exists(pa) or not os.path.exists(pb):
            failures.append(f'{test}: no output in the '
                            + ('plain run' if not os.path.exists(pa) else args.run + ' run'))
            continue
        with open(pa, 'rb') as fa, open(pb, 'rb') as fb:
            if fa.read() == fb.read():
                same += 1
                continue
        kinds, fails = compare(test, args.run, pa, pb, known)
        kinds_all += kinds
        failures += fails
        if kinds:
            differing.append(f'{test} ({", ".join(f"{k} {n}" for k, n in sorted(kinds.items()))})')
    for f in failures:
        print(f)
    print(textwrap.fill(f'suite, {args.run} against plain: {len(tests)} tests, {same} '
                        f'identical, {len(differing)} with listed differences, '
                        f'{len(failures)} differences not allowed', 78,
                        subsequent_indent='  '))
    if differing:
        print(textwrap.fill('listed: ' + '; '.join(differing), 78, initial_indent='  ',
                            subsequent_indent='    '))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
