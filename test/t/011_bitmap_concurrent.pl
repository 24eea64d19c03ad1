# Bitmap scans under concurrent splits (issue #24): pgbench clients insert
# rows at random places in the key range, so that leaves split all over the
# index, and now and then delete a key range and VACUUM (which deletes
# leaves and takes cleanup locks), while other clients run long bitmap
# index scans (tens of leaves each) in REPEATABLE READ and compare, under
# the same snapshot, the TIDs each returns with those of a sequential scan.
# Any difference, or a plan without a Bitmap Index Scan of the index, raises
# an error, which fails its client and this test.
#
# On PostgreSQL 17 and later a bitmap scan reads its leaves through a read
# stream fed by the level above (pbt_readahead_read), which pins leaves
# ahead of the reader; the reader follows right-links and must neither miss
# a leaf that split after the stream listed its parent nor read one twice.
# On 15 and 16 the same source drives the PrefetchBuffer window.
# shared_buffers is small, so that the stream reads from disk.
#
# bm_d has a delta area and the server runs with
# pagebtree.delta_append_always = on: its inserts go to runs of pending
# entries on side pages, which the bitmap scan reads with each leaf; its
# query is two ranges ORed (a BitmapOr: two amgetbitmap calls).
#
# Index-only scans of bm_k keep their leaf pinned while they return its
# tuples, as btree's do, so on 17 and later they read ahead through a read
# stream too, in either direction: the readers run one forward and one
# backward through scrollable cursors that pause every 10,000 rows
# (VACUUM's cleanup locks wait for their pins meanwhile) and turn there,
# and compare the keys with those of a sequential scan.
#
# Plain index scans hold no pin between their batches: from 17 on they load
# the leaves ahead through read streams in stretches released before the
# call returns, so a VACUUM must finish beside a paused plain cursor.
#
# PBT_BITMAP_SECONDS sets the length of the concurrent run (default 30).

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;

my $seconds = $ENV{PBT_BITMAP_SECONDS} // 30;

my $node = PostgreSQL::Test::Cluster->new('bitmap');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'pagebtree'
shared_buffers = 16MB
fsync = off
autovacuum = off
effective_io_concurrency = 16
pagebtree.delta_append_always = on
});
$node->start;
my $major = int($node->safe_psql('postgres', 'SHOW server_version_num') / 10000);
note "PostgreSQL major version $major";
$node->safe_psql('postgres', q{
CREATE EXTENSION pagebtree;
CREATE TABLE bm (k int8, d int8, pad text);
INSERT INTO bm SELECT i * 16, i * 16, 'orig' FROM generate_series(1, 300000) i;
CREATE INDEX bm_k ON bm USING pagebtree (k);
CREATE INDEX bm_d ON bm USING pagebtree (d) WITH (delta = on);
VACUUM ANALYZE bm;
CREATE TABLE bm_checks (idx text, n int);

-- EXPLAIN's plan of stmt under the caller's settings, one string
CREATE FUNCTION plan_of(stmt text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
  plan text := '';
  line text;
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || stmt LOOP
    plan := plan || line || E'\n';
  END LOOP;
  RETURN plan;
END
$$;

-- The TIDs of the rows of bm where q holds, through a bitmap scan of idx
-- and through a sequential scan, under the caller's snapshot: an error if
-- the plan has no Bitmap Index Scan of idx or if they differ; else their
-- number.
CREATE FUNCTION bitmap_vs_seq(idx text, q text) RETURNS int
LANGUAGE plpgsql AS $$
DECLARE
  stmt text := 'SELECT array_agg(ctid ORDER BY ctid) FROM bm WHERE ' || q;
  plan text;
  via_bitmap tid[];
  via_seq tid[];
BEGIN
  PERFORM set_config('enable_seqscan', 'off', true),
          set_config('enable_indexscan', 'off', true),
          set_config('enable_indexonlyscan', 'off', true),
          set_config('enable_bitmapscan', 'on', true);
  plan := plan_of(stmt);
  IF plan NOT LIKE '%Bitmap Index Scan on ' || idx || E'\n%' THEN
    RAISE EXCEPTION 'no bitmap scan of %: %', idx, plan;
  END IF;
  EXECUTE stmt INTO via_bitmap;
  PERFORM set_config('enable_seqscan', 'on', true),
          set_config('enable_bitmapscan', 'off', true);
  EXECUTE stmt INTO via_seq;
  IF via_bitmap IS DISTINCT FROM via_seq THEN
    RAISE EXCEPTION 'bitmap scan of % returned % TIDs, a sequential scan %: % missing, % extra',
      idx, coalesce(cardinality(via_bitmap), 0), coalesce(cardinality(via_seq), 0),
      (SELECT count(*) FROM (SELECT unnest(via_seq) EXCEPT ALL SELECT unnest(via_bitmap)) m),
      (SELECT count(*) FROM (SELECT unnest(via_bitmap) EXCEPT ALL SELECT unnest(via_seq)) e);
  END IF;
  RETURN coalesce(cardinality(via_seq), 0);
END
$$;

-- The same for the keys in order (dir: ASC or DESC) through an index-only
-- scan of bm_k, read through a scrollable cursor that pauses every 10,000
-- rows and there turns back 10 rows and forward again.
CREATE FUNCTION ios_vs_seq(q text, dir text) RETURNS int
LANGUAGE plpgsql AS $$
DECLARE
  stmt text := 'SELECT k FROM bm WHERE ' || q || ' ORDER BY k ' || dir;
  want text := 'Index Only Scan ' || CASE dir WHEN 'DESC' THEN 'Backward ' ELSE '' END
               || 'using bm_k on bm%';
  plan text;
  c refcursor;
  k8 int8;
  via_index int8[] := '{}';
  via_seq int8[];
BEGIN
  PERFORM set_config('enable_seqscan', 'off', true),
          set_config('enable_bitmapscan', 'off', true),
          set_config('enable_indexscan', 'on', true),
          set_config('enable_indexonlyscan', 'on', true);
  plan := plan_of(stmt);
  IF plan NOT LIKE want OR plan LIKE '%Sort%' THEN
    RAISE EXCEPTION 'no ordered index-only scan of bm_k (%): %', dir, plan;
  END IF;
  OPEN c SCROLL FOR EXECUTE stmt;
  LOOP
    FETCH c INTO k8;
    EXIT WHEN NOT FOUND;
    via_index := via_index || k8;
    IF cardinality(via_index) % 10000 = 0 THEN
      PERFORM pg_sleep(0.02);
      MOVE BACKWARD 10 FROM c;
      MOVE FORWARD 10 FROM c;
    END IF;
  END LOOP;
  CLOSE c;
  PERFORM set_config('enable_seqscan', 'on', true),
          set_config('enable_indexscan', 'off', true),
          set_config('enable_indexonlyscan', 'off', true);
  EXECUTE 'SELECT array_agg(k ORDER BY k ' || dir || ') FROM bm WHERE ' || q INTO via_seq;
  IF via_index IS DISTINCT FROM coalesce(via_seq, '{}') THEN
    RAISE EXCEPTION 'index-only scan of bm_k (%) returned % keys, a sequential scan %',
      dir, cardinality(via_index), coalesce(cardinality(via_seq), 0);
  END IF;
  RETURN cardinality(via_index);
END
$$;
});

# writers: random inserts everywhere (splits), now and then a deleted range
# and VACUUM (page deletion, cleanup locks on leaves a stream may have pinned)
my $writer = q{
\set r random(1, 100)
\set x random(1, 4800000)
\if :r <= 97
INSERT INTO bm SELECT v, v, 'new' FROM (SELECT (random() * 4800000)::int8 AS v FROM generate_series(1, 200)) s;
\else
DELETE FROM bm WHERE k BETWEEN :x AND :x + 20000;
VACUUM bm;
\endif
};
# readers: a range of about a sixth of the keys (50,000 rows and more), and
# two ranges ORed through the index with a delta area
my $reader = q{
\set lo random(1, 4000000)
\set hi :lo + 800000
\set lo2 random(1, 4400000)
\set hi2 :lo2 + 300000
SET log_min_messages = debug2;
BEGIN ISOLATION LEVEL REPEATABLE READ;
INSERT INTO bm_checks SELECT 'bm_k', bitmap_vs_seq('bm_k', format('k BETWEEN %s AND %s', :lo, :hi));
INSERT INTO bm_checks SELECT 'bm_d', bitmap_vs_seq('bm_d', format('d BETWEEN %s AND %s OR d BETWEEN %s AND %s', :lo, :lo + 300000, :lo2, :hi2));
INSERT INTO bm_checks SELECT 'ios', ios_vs_seq(format('k BETWEEN %s AND %s', :lo2, :hi2), 'ASC');
INSERT INTO bm_checks SELECT 'ios', ios_vs_seq(format('k BETWEEN %s AND %s', :lo, :lo + 300000), 'DESC');
COMMIT;
};
my $wfile = $node->basedir . '/writer.sql';
PostgreSQL::Test::Utils::append_to_file($wfile, $writer);
my $wrun = IPC::Run::start(
	[ 'pgbench', '-n', '-h', $node->host, '-p', $node->port, '-c', 2, '-j', 2,
		'-T', $seconds, '-f', $wfile, 'postgres' ],
	'<', \undef, '>', \my $wout, '2>', \my $werr);
$node->pgbench(
	"--no-vacuum --client=2 --jobs=2 --time=$seconds",
	0, [qr{processed: [1-9]}, qr{number of failed transactions: 0}], [qr{^$}],
	'bitmap scans return what a sequential scan returns while leaves split',
	{ 'reader' => $reader });
$wrun->finish;
is($wrun->result(0), 0, 'the writers ran without error') or diag($werr);
like($wout, qr{processed: [1-9]}, 'the writers inserted rows');

my ($checks, $min, $avg) = split /\|/, $node->safe_psql('postgres',
	"SELECT count(*), min(n), round(avg(n)) FROM bm_checks WHERE idx = 'bm_k'");
ok($checks > 0 && $min > 20000,
	"bm_k: $checks bitmap scans checked, $min to about $avg TIDs each");
my $dchecks = $node->safe_psql('postgres',
	"SELECT count(*) FROM bm_checks WHERE idx = 'bm_d'");
ok($dchecks > 0, "bm_d (delta area): $dchecks BitmapOr scans checked");
my ($ichecks, $imin) = split /\|/, $node->safe_psql('postgres',
	"SELECT count(*), min(n) FROM bm_checks WHERE idx = 'ios'");
ok($ichecks > 0 && $imin > 10000,
	"bm_k: $ichecks index-only scans (half of them backward) through paused, turning cursors checked, $imin keys and more each");
my ($nrows, $leaves) = split /\|/, $node->safe_psql('postgres',
	"SELECT (SELECT count(*) FROM bm), (SELECT count(*) FROM generate_series(1, (SELECT nblocks - 1 FROM pagebtree_metapage('bm_k'))) b,
	   LATERAL pagebtree_page_stats('bm_k', b) WHERE page_type = 'leaf')");
note "bm has $nrows rows, bm_k $leaves leaves after the run";
# How the readers' scans read their leaves (their DEBUG2 lines in the
# server log): a leaf is read directly, not from the look-ahead, once per
# stretch (the one where the look-ahead starts) and when the level above
# did not list it when the look-ahead read it (a concurrent split).
my %reads;	# kind => [stretches, from the stream, directly, stretches with leaves not queued]
for my $line (split /\n/, slurp_file($node->logfile))
{
	next unless $line =~ /(bitmap|index) scan of "bm_[kd]" read (\d+) leaves from its read stream, (\d+) directly/;
	my $r = $reads{$1} //= [ 0, 0, 0, 0 ];
	$r->[0]++;
	$r->[1] += $2;
	$r->[2] += $3;
	$r->[3]++ if $3 > 1;
}
for my $kind (qw(bitmap index))
{
	my ($scans, $from_stream, $direct, $more_direct) = @{ $reads{$kind} // [ 0, 0, 0, 0 ] };
	note "the readers' $kind scans: $scans stretches with look-ahead, $from_stream leaves from the read stream, "
	  . "$direct directly"
	  . ($major >= 17 ? "; $more_direct stretches read leaves the read stream had not queued" : '');
	# before 17 an index-only scan keeps the PrefetchBuffer window of its own
	if ($kind eq 'index' && $major < 17)
	{
		is($scans, 0, "on $major the readers' index-only scans read ahead without pbt_readahead_read");
		next;
	}
	ok($scans > 0 && ($major >= 17 ? $from_stream > $direct : $from_stream == 0),
		"the readers' $kind scans read ahead ("
		  . ($major >= 17 ? 'a read stream' : 'the PrefetchBuffer window') . ')');
}

# a writer's VACUUM at the end may have folded every run: rows inserted
# after the writers keep entries pending for the checks below
$node->safe_psql('postgres',
	"INSERT INTO bm SELECT v, v, 'last' FROM (SELECT (random() * 4800000)::int8 AS v FROM generate_series(1, 200)) s");
my $pending = $node->safe_psql('postgres',
	"SELECT sum(entries) FROM pagebtree_runs('bm_d')");
ok($pending > 0, "bm_d has $pending entries pending in runs");

for my $idx (qw(bm_k bm_d))
{
	my ($ret, $out, $err) = $node->psql('postgres', "SELECT pagebtree_check('$idx', true)");
	is($ret, 0, "pagebtree_check($idx) passes") or diag($err);
	my $col = substr($idx, 3);
	is($node->safe_psql('postgres',
		"BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT bitmap_vs_seq('$idx', '$col > 0') = count(*) FROM bm WHERE $col > 0; COMMIT;"),
		't', "$idx: a bitmap scan of the whole index returns what a sequential scan returns");
}

# the leaves came through the look-ahead: a read stream from 17 on
my ($ret, $out, $err) = $node->psql('postgres', q{
SET client_min_messages = debug2;
SET enable_seqscan = off; SET enable_indexscan = off; SET enable_indexonlyscan = off;
SELECT count(*) FROM bm WHERE k > 0;
});
is($ret, 0, 'a bitmap scan with DEBUG2 messages');
if ($err =~ /bitmap scan of "bm_k" read (\d+) leaves from its read stream, (\d+) directly/)
{
	my ($stream, $direct) = ($1, $2);
	note "the bitmap scan of bm_k read $stream leaves from its read stream, $direct directly";
	if ($major >= 17)
	{
		ok($stream > $direct, "on $major the leaves come from the read stream ($stream of " . ($stream + $direct) . ")");
	}
	else
	{
		ok($stream == 0 && $direct > 0, "on $major no read stream: the PrefetchBuffer window ($direct leaves)");
	}
}
else
{
	fail('the bitmap scan reported how it read its leaves');
	diag($err);
}

# an index-only scan of the whole index in each direction: a read stream
# from 17 on, the PrefetchBuffer window (no message) before
for my $dir (qw(ASC DESC))
{
	($ret, $out, $err) = $node->psql('postgres', qq{
SET client_min_messages = debug2;
SET enable_seqscan = off; SET enable_bitmapscan = off;
SELECT count(*) FROM (SELECT k FROM bm WHERE k > 0 ORDER BY k $dir) s;
});
	is($ret, 0, "an index-only scan ($dir) with DEBUG2 messages");
	if ($major < 17)
	{
		unlike($err, qr/index scan of "bm_k" read/, "on $major the index-only scan ($dir) has no read stream");
	}
	elsif ($err =~ /index scan of "bm_k" read (\d+) leaves from its read stream, (\d+) directly/)
	{
		ok($1 > 10 * $2, "on $major the index-only scan ($dir) read $1 leaves from its read stream, $2 directly");
	}
	else
	{
		fail("the index-only scan ($dir) reported how it read its leaves");
		diag($err);
	}
}

# A plain index scan (its rows need the heap) holds no pin between its
# batches, as btree's does not: from 17 on it loads the leaves ahead
# through read streams, in stretches it releases at once, and before 17
# it keeps the PrefetchBuffer window (no message)
for my $dir (qw(ASC DESC))
{
	my $query = "SELECT count(pad) FROM (SELECT pad FROM bm WHERE k > 0 ORDER BY k $dir) s";
	like($node->safe_psql('postgres', "SET enable_seqscan = off; SET enable_bitmapscan = off; EXPLAIN (COSTS OFF) $query"),
		qr/Index Scan (Backward )?using bm_k/, "a plain index scan ($dir) of bm_k");
	($ret, $out, $err) = $node->psql('postgres', qq{
SET client_min_messages = debug3;
SET enable_seqscan = off; SET enable_bitmapscan = off;
$query;
});
	is($ret, 0, "a plain index scan ($dir) with DEBUG3 messages");
	is($out, $node->safe_psql('postgres', 'SELECT count(pad) FROM bm WHERE k > 0'),
		"the plain index scan ($dir) counts what a sequential scan counts");
	if ($major < 17)
	{
		unlike($err, qr/index scan of "bm_k" (loaded|read)/, "on $major the plain index scan ($dir) has no read stream");
	}
	elsif ($err =~ /index scan of "bm_k" loaded (\d+) leaves ahead into shared buffers/)
	{
		ok($1 > $leaves / 2, "on $major the plain index scan ($dir) loaded $1 of bm_k's $leaves leaves ahead");
		unlike($err, qr/index scan of "bm_k" read/, "the plain index scan ($dir) kept no stream between its batches");
	}
	else
	{
		fail("the plain index scan ($dir) reported the leaves it loaded ahead");
		diag($err);
	}
}

# with effective_io_concurrency 1 (17's default) a stretch would be one
# leaf, read while the scan waits: the scan keeps the window
($ret, $out, $err) = $node->psql('postgres', q{
SET client_min_messages = debug3; SET effective_io_concurrency = 1;
SET enable_seqscan = off; SET enable_bitmapscan = off;
SELECT count(pad) FROM (SELECT pad FROM bm WHERE k > 0 ORDER BY k) s;
});
is($ret, 0, 'a plain index scan with effective_io_concurrency 1');
unlike($err, qr/index scan of "bm_k" (loaded|read)/,
	'with effective_io_concurrency 1 the plain index scan loads no stretches');

# ... so a cursor paused in a plain index scan holds VACUUM up nowhere (an
# index-only scan's cursor holds it up at its leaf, as btree's does:
# 034_vacuum_block_order.pl); the rows deleted before the cursor opened are
# dead to everyone, so VACUUM takes every leaf's cleanup lock and removes
# them from leaves ahead of the cursor, which must still return its rows
$node->safe_psql('postgres', 'DELETE FROM bm WHERE k % 7 = 3');
my $cursor = $node->background_psql('postgres', on_error_stop => 1);
$cursor->query_safe('BEGIN ISOLATION LEVEL REPEATABLE READ');
$cursor->query_safe('SET enable_indexscan = off; SET enable_indexonlyscan = off; SET enable_bitmapscan = off');
my $expect = $cursor->query_safe('SELECT count(*), sum(k) FROM bm WHERE k > 0');
$cursor->query_safe('RESET enable_indexscan; RESET enable_indexonlyscan; SET enable_seqscan = off');
my $cquery = 'SELECT k, pad FROM bm WHERE k > 0 ORDER BY k';
like($cursor->query_safe("EXPLAIN (COSTS OFF) $cquery"), qr/^Index Scan using bm_k/,
	'the cursor scans bm_k, not index-only');
$cursor->query_safe("DECLARE c CURSOR FOR $cquery");
my @rows = split /\n/, $cursor->query_safe('FETCH 20000 FROM c');
($ret, $out, $err) = $node->psql('postgres', "SET statement_timeout = '60s'; VACUUM bm");
is($ret, 0, "VACUUM finishes while a plain index scan's cursor stands in bm_k") or diag($err);
push @rows, split /\n/, $cursor->query_safe('FETCH ALL FROM c');
my $sum = 0;
$sum += (split /\|/)[0] for @rows;
is(scalar(@rows) . "|$sum", $expect,
	'the cursor returns the rows (count, sum of keys) that a sequential scan returned in its snapshot');
$cursor->query_safe('COMMIT');
$cursor->quit;

$node->stop;
done_testing();
