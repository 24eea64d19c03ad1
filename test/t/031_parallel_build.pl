# Parallel CREATE INDEX (issue #25 item 2).  Each index is built twice,
# with max_parallel_maintenance_workers = 2 and with 0: the parallel build
# must say that it launched its workers, and give the same index as the
# serial one: page by page where the leader loads alone (it merges the
# sorted runs into the order a serial build sorts), the same leaf entries
# where a worker loads the upper half of the keys (the split load of a
# normalized, non-unique build), pass pagebtree_check with heapallindexed,
# and answer queries as a sequential scan does.  Also: a unique violation
# between rows that different participants sort, runs that spill past
# maintenance_work_mem, CREATE INDEX CONCURRENTLY and REINDEX, and indexes
# in comparator mode (tuplesort's parallel sort).  A streaming standby
# replays every build: worker 0 WAL-logs the pages the leader finishes while
# it loads on, the leader the rest, and the standby's pages must equal the
# primary's.

use strict;
use warnings;

use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use PagebtreeTest;

my $node = PostgreSQL::Test::Cluster->new('parallel_build');
$node->init(allows_streaming => 1);
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'pagebtree'
max_worker_processes = 8
max_parallel_workers = 8
maintenance_work_mem = 64MB
autovacuum = off
});
$node->start;
my $standby = pbt_new_standby($node, 'parallel_build_standby');

# parallel_workers on the table: the planner asks for 2 workers whatever
# the table's size and maintenance_work_mem
$node->safe_psql('postgres', q{
CREATE EXTENSION pagebtree;
CREATE TABLE pb (id int8, k int8, t text COLLATE "C", u uuid, n int4, m numeric)
  WITH (parallel_workers = 2);
INSERT INTO pb
  SELECT i,
         CASE WHEN i % 97 = 0 THEN NULL ELSE (hashint8(i) % 100000)::int8 END,
         repeat(md5(i::text), 1 + i % 3),
         md5(i::text)::uuid,
         i % 10,
         (i % 1000) / 7.0
  FROM generate_series(1, 200000) i;
VACUUM ANALYZE pb;
});

# blocks that differ between two indexes (their statistics, and the items
# of tree pages), or -1 if their sizes differ
$node->safe_psql('postgres', q{
CREATE FUNCTION page_text(idx regclass, blk int8) RETURNS text LANGUAGE sql AS $$
  SELECT s::text || CASE WHEN s.page_type IN ('leaf', 'inner') THEN
    (SELECT array_agg(i::text)::text FROM pagebtree_page_items(idx, blk) i) ELSE '' END
  FROM pagebtree_page_stats(idx, blk) s $$;
});

sub pages_differing
{
	my ($a, $b) = @_;
	return $node->safe_psql('postgres', qq{
SELECT CASE WHEN pg_relation_size('$a') <> pg_relation_size('$b') THEN -1 ELSE
  (SELECT count(*) FROM generate_series(1, pg_relation_size('$a') / 8192 - 1) blk
   WHERE page_text('$a', blk) IS DISTINCT FROM page_text('$b', blk)) END});
}

# leaf entries that differ between two indexes (their multisets, in key
# order): a parallel build whose load was split by key range has other
# page boundaries than the serial build, the same entries
sub entries_differing
{
	my ($a, $b) = @_;
	my $entries = q{SELECT i.data FROM generate_series(1, pg_relation_size('%s') / 8192 - 1) blk,
  pagebtree_page_stats('%s', blk) s, pagebtree_page_items('%s', blk) i WHERE s.page_type = 'leaf'};
	return $node->safe_psql('postgres', sprintf(qq{
SELECT count(*) FROM ((%s) EXCEPT ALL (%s)) d1}, sprintf($entries, ($a) x 3), sprintf($entries, ($b) x 3)))
	  + $node->safe_psql('postgres', sprintf(qq{
SELECT count(*) FROM ((%s) EXCEPT ALL (%s)) d2}, sprintf($entries, ($b) x 3), sprintf($entries, ($a) x 3)));
}

# the same index as the serial build: page for page, or (split load) the
# same entries
sub same_index
{
	my ($err, $a, $b, $what) = @_;
	if ($err =~ /"$a": a parallel worker loads the leaves/)
	{
		is(entries_differing($a, $b), 0, "$what: split load, the same entries as the serial build");
	}
	else
	{
		is(pages_differing($a, $b), 0, "$what: the same pages as the serial build");
	}
}

# CREATE INDEX with the given workers; returns its psql stderr (DEBUG1)
sub build
{
	my ($workers, $sql, $settings) = @_;
	$settings //= '';
	my ($ret, $out, $err) = $node->psql('postgres', qq{
SET max_parallel_maintenance_workers = $workers;
$settings
SET client_min_messages = debug1;
$sql});
	is($ret, 0, "built: $sql") or diag($err);
	return $err;
}

my %indexes = (
	k       => '(k)',
	t       => '(t)',
	u       => '(u)',
	n       => '(n)',
	kdt     => '(k DESC NULLS LAST, t) INCLUDE (id)',
	kdelta  => '(k) WITH (delta = on)',
	kgroup  => '(k) WITH (leaf_group_size = 8)',
	id_uniq => 'UNIQUE:(id)',
);
for my $name (sort keys %indexes)
{
	my ($unique, $def) = $indexes{$name} =~ /^(UNIQUE:)?(.*)$/;
	my $create = $unique ? 'CREATE UNIQUE INDEX' : 'CREATE INDEX';
	my $err = build(2, "$create p_$name ON pb USING pagebtree $def;");
	# the load is split only if the leader sorted 10,000 items or more of
	# the parallel heap scan: on a loaded machine the workers can take
	# nearly all of it, so such a build is tried again
	for (my $try = 2; $try <= 3 && $err =~ /too few to split the load/; $try++)
	{
		diag("p_$name: no load split, try $try: "
			  . join(' ', $err =~ /(the leader sorted \d+ items)/));
		$node->safe_psql('postgres', "DROP INDEX p_$name");
		$err = build(2, "$create p_$name ON pb USING pagebtree $def;");
	}
	like($err, qr/pagebtree: building index "p_$name" with 2 of 2 parallel workers/,
		"p_$name: built with 2 workers");
	# a unique or group build does not split its load
	if ($unique || $name eq 'kgroup')
	{
		unlike($err, qr/loads the leaves/, "p_$name: load not split");
	}
	else
	{
		like($err, qr/"p_$name": a parallel worker loads the leaves/, "p_$name: load split");
	}
	my $perr = $err;
	$err = build(0, "$create s_$name ON pb USING pagebtree $def;");
	unlike($err, qr/parallel workers/, "s_$name: built serially");
	same_index($perr, "p_$name", "s_$name", "p_$name");
	$node->safe_psql('postgres', "SELECT pagebtree_check('p_$name', true)");
	pass("p_$name: pagebtree_check with heapallindexed");
}

# the parallel-built indexes answer as a sequential scan does (the serial
# ones dropped for it, in a transaction rolled back)
my $query = q{SELECT count(*), sum(id), md5(string_agg(id::text, ',' ORDER BY k DESC NULLS LAST, t, id))
  FROM pb WHERE k BETWEEN 1000 AND 60000};
my $seq = $node->safe_psql('postgres', "SET enable_indexscan = off; SET enable_bitmapscan = off; $query");
my $drop = 'BEGIN; DROP INDEX ' . join(', ', map { "s_$_" } sort keys %indexes) . ';';
my ($plan, $idx) = split /\n---\n/, $node->safe_psql('postgres', qq{$drop
SET enable_seqscan = off; SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) $query;
SELECT '---';
$query;
ROLLBACK;});
like($plan, qr/Index (Only )?Scan (Backward )?using p_/, 'range query uses a parallel-built index');
is($idx, $seq, 'range query through it equals a sequential scan');

# runs past maintenance_work_mem (which the participants share) go to a
# tuplesort
my $err = build(2, 'CREATE INDEX p_spill ON pb USING pagebtree (t, k);',
	"SET maintenance_work_mem = '1MB';");
like($err, qr/with 2 of 2 parallel workers/, 'spilling build: 2 workers');
build(0, 'CREATE INDEX s_spill ON pb USING pagebtree (t, k);');
same_index($err, 'p_spill', 's_spill', 'spilled runs');

# CREATE INDEX CONCURRENTLY and REINDEX, in parallel
$err = build(2, 'CREATE INDEX CONCURRENTLY p_cic ON pb USING pagebtree (u);');
like($err, qr/building index "p_cic" with 2 of 2 parallel workers/, 'CIC: 2 workers');
same_index($err, 'p_cic', 's_u', 'CIC');
$err = build(2, 'REINDEX INDEX p_k;');
like($err, qr/building index "p_k" with 2 of 2 parallel workers/, 'REINDEX: 2 workers');
same_index($err, 'p_k', 's_k', 'REINDEX');
is($node->safe_psql('postgres', q{SELECT bool_and(indisvalid) FROM pg_index
  WHERE indexrelid::regclass::text IN ('p_cic', 'p_k')}), 't', 'CIC and REINDEX: valid');
$node->safe_psql('postgres', "SELECT pagebtree_check('p_cic', true), pagebtree_check('p_k', true)");
pass('CIC and REINDEX: pagebtree_check with heapallindexed');

# comparator mode (numeric): tuplesort's parallel sort, in memory and
# spilling; the same pages as the serial build
$err = build(2, 'CREATE INDEX p_m ON pb USING pagebtree (m, id);');
like($err, qr/building index "p_m" with 2 of 2 parallel workers/, 'comparator mode: 2 workers');
build(0, 'CREATE INDEX s_m ON pb USING pagebtree (m, id);');
is(pages_differing('p_m', 's_m'), 0, 'comparator mode: the same pages as the serial build');
$err = build(2, 'CREATE INDEX p_mspill ON pb USING pagebtree (m DESC, t);',
	"SET maintenance_work_mem = '1MB';");
like($err, qr/with 2 of 2 parallel workers/, 'comparator mode, spilling: 2 workers');
build(0, 'CREATE INDEX s_mspill ON pb USING pagebtree (m DESC, t);');
is(pages_differing('p_mspill', 's_mspill'), 0,
	'comparator mode, spilling: the same pages as the serial build');
$node->safe_psql('postgres', "SELECT pagebtree_check('p_m', true), pagebtree_check('p_mspill', true)");
pass('comparator mode: pagebtree_check with heapallindexed');
is($node->safe_psql('postgres', q{SET enable_seqscan = off; SET enable_bitmapscan = off;
  SELECT count(*), sum(m) FROM pb WHERE m < 50}),
	$node->safe_psql('postgres', q{SET enable_indexscan = off; SET enable_bitmapscan = off;
  SELECT count(*), sum(m) FROM pb WHERE m < 50}), 'comparator mode: equals a sequential scan');

# a duplicate far apart in the heap: the participants most likely sort the
# two rows in different runs, and the leader's merge must find them adjacent
$node->safe_psql('postgres', 'DROP INDEX p_id_uniq, s_id_uniq; UPDATE pb SET id = 5 WHERE id = 199990');
my ($ret, $out);
($ret, $out, $err) = $node->psql('postgres', q{
SET max_parallel_maintenance_workers = 2;
CREATE UNIQUE INDEX p_dup ON pb USING pagebtree (id);});
isnt($ret, 0, 'unique build over a duplicate fails');
like($err, qr/could not create unique index "p_dup".*Key \(id\)=\(5\) is duplicated/s,
	'unique violation found by the merge');

# the standby replayed every parallel build into the primary's pages (the
# standby catches up after the primary's digest, and autovacuum is off: an
# autovacuum that removed the UPDATE's dead entries between the two digests
# once made every index but one differ)
my $digest = q{SELECT string_agg(c.relname || ':' ||
  md5((SELECT string_agg(coalesce(page_text(c.oid, blk), 'NULL'), ',' ORDER BY blk)
       FROM generate_series(1, pg_relation_size(c.oid) / 8192 - 1) blk)), ' ' ORDER BY c.relname)
  FROM pg_class c JOIN pg_am a ON a.oid = c.relam
  WHERE a.amname = 'pagebtree' AND c.relname LIKE 'p\_%'};
my $primary_pages = $node->safe_psql('postgres', $digest);
$node->wait_for_catchup($standby);
like($primary_pages, qr/p_kgroup:.*p_mspill:/, 'page digests of the parallel-built indexes');
my $standby_pages = $standby->safe_psql('postgres', $digest);
is($standby_pages, $primary_pages,
	'the standby has the parallel-built indexes page for page')
  or diag_page_differences();
$standby->safe_psql('postgres', "SELECT pagebtree_check('p_k'), pagebtree_check('p_kgroup')");
pass('pagebtree_check on the standby');

$standby->stop;
$node->stop;
done_testing();

# for a failed comparison: the first blocks that differ, on both nodes
sub diag_page_differences
{
	my $pages = q{SELECT c.relname || ' ' || blk || ' ' || md5(coalesce(page_text(c.oid, blk), 'NULL'))
  FROM pg_class c JOIN pg_am a ON a.oid = c.relam,
    generate_series(1, pg_relation_size(c.oid) / 8192 - 1) blk
  WHERE a.amname = 'pagebtree' AND c.relname LIKE 'p\_%' ORDER BY 1};
	my %on_standby = map { $_ => 1 } split /\n/, $standby->safe_psql('postgres', $pages);
	my $shown = 0;
	for my $page (split /\n/, $node->safe_psql('postgres', $pages))
	{
		next if $on_standby{$page};
		my ($rel, $blk) = split / /, $page;
		my $q = "SELECT page_text('$rel', $blk)";
		diag("$rel block $blk differs\n primary: " . $node->safe_psql('postgres', $q)
			  . "\n standby: " . $standby->safe_psql('postgres', $q));
		last if ++$shown == 5;
	}
	diag('no block differs any more') unless $shown;
}
