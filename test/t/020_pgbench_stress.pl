# Concurrency stress: 8 pgbench clients run a mixed workload against
# pagebtree indexes (unique and not, int8, text, DESC, multi-column,
# comparator mode) for PBT_STRESS_SECONDS (default 120): point and range
# reads forward and backward, inserts (new ids from a sequence; colliding
# unique inserts are the isolation tests' job, since an error ends a pgbench
# client in PostgreSQL 15), non-HOT updates, deletes of whole key ranges
# (so VACUUM deletes and recycles pages) and VACUUM itself.  No client may
# fail, and afterwards pagebtree_check must pass on every index and every
# index must agree with a sequential scan.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $seconds = $ENV{PBT_STRESS_SECONDS} // 120;

my $node = PostgreSQL::Test::Cluster->new('stress');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'pagebtree'
max_connections = 40
autovacuum_naptime = 1s
autovacuum_vacuum_threshold = 500
autovacuum_vacuum_scale_factor = 0.02
});
$node->start;
$node->safe_psql('postgres', q{
CREATE EXTENSION pagebtree;
CREATE TABLE st (id int8, k int8, t text COLLATE "C", n numeric, v int);
INSERT INTO st SELECT i, i * 7, md5(i::text), i % 1000, 0 FROM generate_series(1, 50000) i;
CREATE SEQUENCE st_seq START 50001;
CREATE UNIQUE INDEX st_id ON st USING pagebtree (id);
CREATE INDEX st_k ON st USING pagebtree (k DESC);
CREATE INDEX st_t ON st USING pagebtree (t, v);
CREATE INDEX st_n ON st USING pagebtree (n) INCLUDE (v);
CREATE INDEX st_v ON st USING pagebtree (v);
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
INSERT INTO st VALUES (nextval('st_seq'), :k, md5(:k::text), :k % 1000, 1);
\elif :r <= 90
UPDATE st SET v = v + 1, k = k + 1 WHERE id = :id;
\elif :r <= 98
DELETE FROM st WHERE id BETWEEN :id AND :id + 300;
\else
VACUUM st;
\endif
};

$node->pgbench(
	"--no-vacuum --client=8 --jobs=2 --time=$seconds",
	0, [qr{processed: [1-9]}, qr{number of failed transactions: 0}], [qr{^$}],
	'8 clients of mixed reads, inserts, updates, deletes and VACUUM',
	{ 'stress' => $script });

$node->safe_psql('postgres', 'VACUUM st');
for my $idx (qw(st_id st_k st_t st_n st_v))
{
	my ($ret, $out, $err) = $node->psql('postgres', "SELECT pagebtree_check('$idx', true)");
	is($ret, 0, "pagebtree_check($idx) passes after the stress run") or diag($err);
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
my $deleted = $node->safe_psql('postgres', q{
	SELECT count(*) FROM generate_series(1, (SELECT nblocks - 1 FROM pagebtree_metapage('st_id'))) b,
	LATERAL pagebtree_page_stats('st_id', b) WHERE page_type = 'deleted'});
note "st_id has $deleted deleted pages after the run";

$node->stop;
done_testing();
