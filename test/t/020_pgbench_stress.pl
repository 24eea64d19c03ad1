# Concurrency stress: 8 pgbench clients run a mixed workload against
# pagebtree indexes (unique and not, int8, text, DESC, multi-column,
# comparator mode) for PBT_STRESS_SECONDS (default 120): point and range
# reads forward and backward, inserts (new ids from a sequence; colliding
# unique inserts are the isolation tests' job, since an error ends a pgbench
# client in PostgreSQL 15), non-HOT updates, deletes of whole key ranges
# (so VACUUM deletes and recycles pages) and VACUUM itself.  No client may
# fail, and afterwards pagebtree_check must pass on every index and every
# index must agree with a sequential scan.
#
# Three more indexes have a delta area (WITH (delta = on)): a unique one
# and two others, normalized and comparator keys.  A second script (one
# transaction in five) reads through them (point and range lookups, both
# directions, index-only), inserts, and switches its session's
# pagebtree.delta_append_always (on in postgresql.conf) on or off now and
# then, so that appends to runs, folds at the threshold, folds of leaves
# written anyway, splits that take runs and (auto)VACUUM folds run
# concurrently with each other and with the readers; samples taken during
# the run must show pending entries and folds.  Afterwards (autovacuum off,
# and a few more inserts to leave entries pending) every delta index must
# pass pagebtree_check and agree with a sequential scan both before and
# after a VACUUM that folds the runs.
#
# Two indexes have leaf groups (issue #23; leaf_group_size = 4, built on the
# initial rows): st_gk ((-k)) INCLUDE (k), int8 with fillfactor = 100, and
# st_gt (reverse(t)), text COLLATE "C", with a delta area (delta = on:
# its subnodes' runs are appended to, folded, taken by rebalances and
# cleared by VACUUM before it deletes groups).  Every write of the workload
# maintains them, and a third script (one transaction in six) reads through
# them (ranges and LIMIT scans in both directions, index-only, = ANY) while
# groups rebalance and split under the readers, inserts and deletes ranges
# of them (one in 2,000 a range wide enough to empty whole groups, which
# VACUUM then deletes).  The inserts of both scripts log the group
# rebalances and splits they make, and VACUUM the groups it deletes
# (log_min_messages = debug2 for the statement); rebalances or splits
# must happen.  Afterwards both pass pagebtree_check and return
# the rows of a sequential scan, in both directions.
#
# A queue (table sq, a pagebtree index over wide keys: arrays, compared by
# their comparator, a few dozen downlinks a page) takes a fourth script
# (one transaction in seven): appends of 300 rows at the right end,
# deletes of the 300 oldest, scans from the left end and back from the
# right, and VACUUM, which deletes emptied parents with their last leaves
# under the other clients (logged at debug2; such deletions must happen).
# Afterwards sq_k passes pagebtree_check and returns the rows of a
# sequential scan in both directions.
#
# The tables do not truncate at VACUUM: a truncating VACUUM waits up to 5 s
# for its exclusive lock while the other clients' VACUUMs queue behind it,
# and such a convoy (seen in a 600 s run) stops the workload for minutes.

use strict;
use warnings;

use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use PagebtreeTest;

my $seconds = $ENV{PBT_STRESS_SECONDS} // 120;

my $node = PostgreSQL::Test::Cluster->new('stress');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'pagebtree'
max_connections = 40
autovacuum_naptime = 1s
autovacuum_vacuum_threshold = 500
autovacuum_vacuum_scale_factor = 0.02
pagebtree.delta_append_always = on
});
$node->start;
$node->safe_psql('postgres', q{
CREATE EXTENSION pagebtree;
CREATE TABLE st (id int8, k int8, t text COLLATE "C", n numeric, v int)
  WITH (vacuum_truncate = false);
INSERT INTO st SELECT i, i * 7, md5(i::text), i % 1000, 0 FROM generate_series(1, 50000) i;
CREATE SEQUENCE st_seq START 50001;
CREATE UNIQUE INDEX st_id ON st USING pagebtree (id);
CREATE INDEX st_k ON st USING pagebtree (k DESC);
CREATE INDEX st_t ON st USING pagebtree (t, v);
CREATE INDEX st_n ON st USING pagebtree (n) INCLUDE (v);
CREATE INDEX st_v ON st USING pagebtree (v);
CREATE UNIQUE INDEX st_did ON st USING pagebtree ((-id)) WITH (delta = on);
CREATE INDEX st_dkt ON st USING pagebtree ((k % 1000), t) INCLUDE (v) WITH (delta = on);
CREATE INDEX st_dn ON st USING pagebtree ((n * 3), id) WITH (delta = on);
CREATE INDEX st_gk ON st USING pagebtree ((-k)) INCLUDE (k)
  WITH (leaf_group_size = 4, fillfactor = 100);
CREATE INDEX st_gt ON st USING pagebtree (reverse(t)) WITH (leaf_group_size = 4, delta = on);
CREATE TABLE sq (n int8, k int8[]) WITH (vacuum_truncate = false);
CREATE SEQUENCE sq_seq;
INSERT INTO sq SELECT g, ARRAY(SELECT g * 100 + j FROM generate_series(1, 24) j)
  FROM (SELECT nextval('sq_seq') g FROM generate_series(1, 20000)) s;
CREATE INDEX sq_k ON sq USING pagebtree (k);
});

my $script = q{
\set id random(1, 100000)
\set k random(1, 900000)
\set r random(1, 100)
\if :r <= 30
SELECT count(*) FROM st WHERE k BETWEEN :k AND :k + 500;
\elif :r <= 45
SELECT id, k FROM st WHERE id >= :id ORDER BY id DESC LIMIT 20;
\elif :r <= 55
SELECT count(*) FROM st WHERE t >= md5(:id::text) AND t < md5(:id::text) || 'z';
\elif :r <= 75
SET log_min_messages = debug2;
INSERT INTO st VALUES (nextval('st_seq'), :k, md5(:k::text), :k % 1000, 1);
RESET log_min_messages;
\elif :r <= 90
UPDATE st SET v = v + 1, k = k + 1 WHERE id = :id;
\elif :r <= 98
DELETE FROM st WHERE id BETWEEN :id AND :id + 300;
\else
SET log_min_messages = debug2;
VACUUM st;
RESET log_min_messages;
\endif
};

# through the indexes with a delta area
my $delta_script = q{
\set id random(1, 100000)
\set k random(1, 900000)
\set r random(1, 100)
\set g random(1, 10)
\if :g = 1
SET pagebtree.delta_append_always = off;
\elif :g = 2
SET pagebtree.delta_append_always = on;
\endif
\if :r <= 20
SELECT id, k FROM st WHERE -id = -:id;
\elif :r <= 35
SELECT count(*) FROM st WHERE -id BETWEEN -:id - 200 AND -:id;
\elif :r <= 50
SELECT k % 1000, t FROM st WHERE k % 1000 = :k % 1000 ORDER BY k % 1000 DESC, t DESC LIMIT 20;
\elif :r <= 60
SELECT k % 1000, t, v FROM st WHERE k % 1000 = :k % 1000 AND t >= md5(:id::text) ORDER BY k % 1000, t LIMIT 20;
\elif :r <= 70
SELECT n * 3, id FROM st WHERE n * 3 >= :r * 30 ORDER BY n * 3, id LIMIT 50;
\elif :r <= 95
INSERT INTO st VALUES (nextval('st_seq'), :k, md5(:k::text), :k % 1000, 2);
\else
UPDATE st SET v = v + 1, n = n + 1 WHERE id = :id;
\endif
};

# through the indexes with leaf groups
my $group_script = q{
\set k random(1, 900000)
\set r random(1, 100)
\set big random(1, 2000)
\if :big = 1
DELETE FROM st WHERE -k BETWEEN -:k - 40000 AND -:k;
\elif :r <= 15
SELECT count(*) FROM st WHERE -k BETWEEN -:k - 2000 AND -:k;
\elif :r <= 30
SELECT -k, k FROM st WHERE -k <= -:k ORDER BY -k DESC LIMIT 40;
\elif :r <= 40
SELECT -k, id FROM st WHERE -k >= -:k ORDER BY -k LIMIT 40;
\elif :r <= 45
SELECT -k, k FROM st WHERE -k = ANY(ARRAY[-:k, -:k - 7, -:k * 2, -:k / 3]) ORDER BY -k DESC;
\elif :r <= 55
SELECT reverse(t), id FROM st WHERE reverse(t) >= reverse(md5(:k::text)) ORDER BY reverse(t) LIMIT 40;
\elif :r <= 65
SELECT reverse(t), id FROM st WHERE reverse(t) < reverse(md5(:k::text)) ORDER BY reverse(t) DESC LIMIT 40;
\elif :r <= 90
SET log_min_messages = debug2;
INSERT INTO st VALUES (nextval('st_seq'), :k, md5(:k::text), :k % 1000, 4);
RESET log_min_messages;
\else
DELETE FROM st WHERE -k BETWEEN -:k - 100 AND -:k;
\endif
};

# the queue
my $queue_script = q{
\set r random(1, 100)
\if :r <= 35
INSERT INTO sq SELECT g, ARRAY(SELECT g * 100 + j FROM generate_series(1, 24) j)
  FROM (SELECT nextval('sq_seq') g FROM generate_series(1, 300)) s;
\elif :r <= 70
DELETE FROM sq WHERE n < (SELECT min(n) FROM sq) + 300;
\elif :r <= 85
SELECT n FROM sq ORDER BY k LIMIT 20;
\elif :r <= 95
SELECT n FROM sq WHERE k < ARRAY[(SELECT max(n) FROM sq) * 100 - 5000] ORDER BY k DESC LIMIT 200;
\else
SET log_min_messages = debug2;
VACUUM sq;
RESET log_min_messages;
\endif
};

# pending entries and folds of the delta indexes, sampled during the run
my $runs_q = q{SELECT sum(r.entries), sum(r.folds)
  FROM unnest(ARRAY['st_did', 'st_dkt', 'st_dn']) i, LATERAL pagebtree_runs(i::regclass) r};
$node->safe_psql('postgres', 'CREATE TABLE delta_samples (entries int8, folds int8)');
my $sampler_file = $node->basedir . '/sample.sql';
PostgreSQL::Test::Utils::append_to_file($sampler_file,
	"\\sleep 300 ms\nINSERT INTO delta_samples $runs_q;\n");
my $sampler = IPC::Run::start(
	[ 'pgbench', '-n', '-h', $node->host, '-p', $node->port, '-c', 1,
		'-T', $seconds, '-f', $sampler_file, 'postgres' ],
	'<', \undef, '>', \my $sampler_out, '2>', \my $sampler_err);

my $logpos = -s $node->logfile;
$node->pgbench(
	"--no-vacuum --client=8 --jobs=2 --time=$seconds",
	0, [qr{processed: [1-9]}, qr{number of failed transactions: 0}], [qr{^$}],
	'8 clients of mixed reads, inserts, updates, deletes and VACUUM',
	{ 'stress@4' => $script, 'delta@1' => $delta_script, 'group@1' => $group_script,
	  'queue@1' => $queue_script });
$sampler->finish;
my $subtrees = () = substr(PostgreSQL::Test::Utils::slurp_file($node->logfile), $logpos)
  =~ /deletion of the leaf at block \d+ of index "sq_k" with \d+ of its ancestors/g;
ok($subtrees > 0, "sq_k: VACUUM deleted $subtrees parents with their last leaves during the run");

my $gops = pbt_group_ops(
	substr(PostgreSQL::Test::Utils::slurp_file($node->logfile), $logpos),
	qr/^st_g[kt]$/);
ok($gops->{rebalance} + $gops->{split} > 0,
	"group indexes during the run: $gops->{rebalance} rebalances, $gops->{split} splits logged by the inserts");
note "group indexes during the run: $gops->{deletion} empty groups deleted, $gops->{reuse} reused by VACUUM and inserts";
my $gruns = pbt_runs($node, ['st_gt']);
ok($gruns->{folds} > 0,
	"st_gt, groups with a delta area: $gruns->{folds} runs folded, $gruns->{entries} entries pending");

my ($samples, $max_pending, $max_folds) = split /\|/, $node->safe_psql('postgres',
	'SELECT count(*), max(entries), max(folds) FROM delta_samples');
ok($max_pending > 0 && $max_folds > 0,
	"delta indexes during the run: up to $max_pending entries pending, $max_folds folds ($samples samples)");

# the indexes with a delta area, with entries pending (autovacuum off now,
# so that they stay pending), then after VACUUM
$node->safe_psql('postgres', q{
ALTER TABLE st SET (autovacuum_enabled = off);
SET pagebtree.delta_append_always = on;
INSERT INTO st SELECT nextval('st_seq'), g * 13, md5(g::text), g % 1000, 3 FROM generate_series(1, 3000) g;
});
my @delta = qw(st_did st_dkt st_dn);
my %dq = (
	st_did => 'SELECT -id FROM st WHERE -id < 0 ORDER BY -id',
	st_dkt => 'SELECT k % 1000, t FROM st WHERE k % 1000 >= 0 ORDER BY k % 1000, t',
	st_dn  => 'SELECT n * 3, id FROM st WHERE n * 3 >= 0 ORDER BY n * 3 DESC, id DESC',
);
my ($pending, $folds) = split /\|/, $node->safe_psql('postgres', $runs_q);
ok($pending > 0, "delta indexes: $pending entries pending before VACUUM");
for my $when ('before VACUUM', 'after VACUUM')
{
	if ($when eq 'after VACUUM')
	{
		$node->safe_psql('postgres', 'VACUUM st');
		my ($p, $f) = split /\|/, $node->safe_psql('postgres', $runs_q);
		ok($p < $pending && $f > $folds, "VACUUM folded runs ($pending -> $p entries pending)");
	}
	for my $idx (@delta)
	{
		my ($ret, $out, $err) = $node->psql('postgres', "SELECT pagebtree_check('$idx', true)");
		is($ret, 0, "pagebtree_check($idx) passes $when") or diag($err);
		my $off = 'SET enable_seqscan = off; SET enable_bitmapscan = off; SET enable_sort = off;';
		my $plan = $node->safe_psql('postgres', "$off EXPLAIN (COSTS OFF) $dq{$idx}");
		like($plan, qr/^ *(->  )?Index (Only )?Scan (Backward )?using $idx /m, "$idx is used for its query");
		my $viaindex = $node->safe_psql('postgres',
			"$off SELECT count(*), md5(string_agg(x::text, ',')) FROM ($dq{$idx}) x");
		my $viaseq = $node->safe_psql('postgres',
			"SET enable_indexscan = off; SET enable_indexonlyscan = off; SET enable_bitmapscan = off; SELECT count(*), md5(string_agg(x::text, ',')) FROM ($dq{$idx}) x");
		is($viaindex, $viaseq, "$idx returns the same rows as a sequential scan $when");
	}
}
for my $idx (qw(st_id st_k st_t st_n st_v))
{
	my ($ret, $out, $err) = $node->psql('postgres', "SELECT pagebtree_check('$idx', true)");
	is($ret, 0, "pagebtree_check($idx) passes after the stress run") or diag($err);
}

# the group indexes: pagebtree_check, and scans in both directions
my %gq = (
	st_gk => [ 'SELECT -k, k FROM st WHERE -k < 0 ORDER BY -k', 'SELECT -k, k FROM st WHERE -k < 0 ORDER BY -k DESC',
		'SELECT -k, id FROM st WHERE -k BETWEEN -600000 AND -300000 ORDER BY -k DESC' ],
	st_gt => [ 'SELECT reverse(t), id FROM st WHERE reverse(t) > \'\' ORDER BY reverse(t)',
		'SELECT reverse(t), id FROM st WHERE reverse(t) > \'\' ORDER BY reverse(t) DESC',
		'SELECT reverse(t) FROM st WHERE reverse(t) >= \'4\' AND reverse(t) < \'b\' ORDER BY reverse(t) DESC' ],
);
for my $idx (sort keys %gq)
{
	my ($ret, $out, $err) = $node->psql('postgres', "SELECT pagebtree_check('$idx', true)");
	is($ret, 0, "pagebtree_check($idx) passes after the stress run") or diag($err);
	for my $q (@{ $gq{$idx} })
	{
		my $off = 'SET enable_seqscan = off; SET enable_bitmapscan = off; SET enable_sort = off;';
		my $plan = $node->safe_psql('postgres', "$off EXPLAIN (COSTS OFF) $q");
		like($plan, qr/^ *(->  )?Index (Only )?Scan (Backward )?using $idx /m, "$idx is used for <$q>");
		# the rows as a multiset, and the first column (the key) in order
		my $agg = "SELECT count(*), md5(string_agg(x::text, ',' ORDER BY x::text)), "
		  . "md5(string_agg(x.c1::text, ',')) FROM ($q) x(c1)";
		my $seqoff = 'SET enable_indexscan = off; SET enable_indexonlyscan = off; SET enable_bitmapscan = off;';
		is($node->safe_psql('postgres', "$off $agg"), $node->safe_psql('postgres', "$seqoff $agg"),
			"$idx returns the rows of a sequential scan, keys in order: <$q>");
	}
}

# every index returns what a sequential scan returns
my %q = (
	st_id => 'SELECT id FROM st WHERE id > 0 ORDER BY id',
	st_k => 'SELECT k FROM st WHERE k > 0 ORDER BY k DESC',
	st_t => 'SELECT t, v FROM st WHERE t > \'\' ORDER BY t, v',
	st_n => 'SELECT n, v FROM st WHERE n >= 0 ORDER BY n, v',
	st_v => 'SELECT v FROM st WHERE v >= 0 ORDER BY v',
);
for my $idx (sort keys %q)
{
	my $viaindex = $node->safe_psql('postgres',
		"SET enable_seqscan = off; SET enable_bitmapscan = off; SELECT md5(string_agg(x::text, ',')) FROM ($q{$idx}) x");
	my $viaseq = $node->safe_psql('postgres',
		"SET enable_indexscan = off; SET enable_indexonlyscan = off; SET enable_bitmapscan = off; SELECT md5(string_agg(x::text, ',')) FROM ($q{$idx}) x");
	is($viaindex, $viaseq, "$idx returns the same rows as a sequential scan");
}
my ($ret, $out, $err) = $node->psql('postgres', "SELECT pagebtree_check('sq_k', true)");
is($ret, 0, 'pagebtree_check(sq_k) passes after the stress run') or diag($err);
for my $dir ('', ' DESC')
{
	my $q = "SELECT n FROM sq WHERE k > '{}' ORDER BY k$dir";
	my $off = 'SET enable_seqscan = off; SET enable_bitmapscan = off; SET enable_sort = off;';
	like($node->safe_psql('postgres', "$off EXPLAIN (COSTS OFF) $q"),
		qr/Index (Only )?Scan (Backward )?using sq_k /, "sq_k is used for <$q>");
	my $agg = "SELECT count(*), md5(string_agg(x::text, ',')) FROM ($q) x";
	is($node->safe_psql('postgres', "$off $agg"),
		$node->safe_psql('postgres',
			"SET enable_indexscan = off; SET enable_indexonlyscan = off; SET enable_bitmapscan = off; $agg"),
		"sq_k returns the rows of a sequential scan: <$q>");
}
my $deleted = $node->safe_psql('postgres', q{
	SELECT count(*) FROM generate_series(1, (SELECT nblocks - 1 FROM pagebtree_metapage('st_id'))) b,
	LATERAL pagebtree_page_stats('st_id', b) WHERE page_type = 'deleted'});
note "st_id has $deleted deleted pages after the run";

$node->stop;
done_testing();
