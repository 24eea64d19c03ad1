# pagebtree_check while the index changes: 4 pgbench clients insert keys
# at random places (leaf and inner splits, root splits early on), update
# rows (moving keys, so not HOT) and delete ranges, with a VACUUM now and
# then, while another session runs pagebtree_check(index, true) on each
# index over and over.  Every check must finish and pass: it takes copies
# of pages and re-reads before it reports a disagreement, and it must never
# hold a parent's lock while it locks a child (an insert that splits the
# child waits for the parent, so that would hang both for good), nor count
# the entries before it takes the snapshot of the heap it compares with.
# The indexes start small, so that splits reach the upper levels.
#
# PBT_CHECK_SECONDS sets the load's duration (default 20).

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib "$FindBin::RealBin/../perl";
use PagebtreeTest;
use Time::HiRes qw(time);

my $seconds = $ENV{PBT_CHECK_SECONDS} // 20;

my $node = PostgreSQL::Test::Cluster->new('check_concurrent');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'pagebtree'
max_connections = 20
autovacuum = off
});
$node->start;
$node->safe_psql('postgres', q{
CREATE EXTENSION pagebtree;
CREATE TABLE cc (id int8, k int8, t text COLLATE "C");
INSERT INTO cc SELECT i, hashint8(i), md5(i::text) FROM generate_series(1, 2000) i;
CREATE SEQUENCE cc_seq START 2001;
CREATE INDEX cc_k ON cc USING pagebtree (k);
CREATE INDEX cc_t ON cc USING pagebtree (t, id);
CREATE INDEX cc_kd ON cc USING pagebtree (k) WITH (delta = on);
CREATE INDEX cc_n ON cc USING pagebtree ((k::numeric));
});

my $script = q{
\set id random(1, 200000)
\set r random(1, 100)
\if :r <= 70
INSERT INTO cc SELECT i, hashint8(i), md5(i::text) FROM (SELECT nextval('cc_seq') AS i FROM generate_series(1, 5)) s;
\elif :r <= 90
UPDATE cc SET k = k + 1, t = t || 'u' WHERE id = :id;
\elif :r <= 99
DELETE FROM cc WHERE id BETWEEN :id AND :id + 20;
\else
VACUUM cc;
\endif
};
my ($load, $outref, $errref) = pbt_start_script($node, $script, 4, $seconds);

# checks until the load is over; a hang would stop the test here
my @indexes = qw(cc_k cc_t cc_kd cc_n);
my %passed = map { $_ => 0 } @indexes;
my @failures;
my $deadline = time() + $seconds;
while (time() < $deadline)
{
	for my $idx (@indexes)
	{
		my ($ret, $stdout, $stderr) = $node->psql('postgres',
			"SELECT pagebtree_check('$idx', true)");
		if ($ret == 0) { $passed{$idx}++; }
		else { push @failures, "$idx: $stderr"; }
	}
}
my $during = $node->safe_psql('postgres', 'SELECT count(*) FROM cc');
$load->finish;
is($load->result(0), 0, 'pgbench succeeded') or diag($$errref);
like($$outref, qr{number of failed transactions: 0}, 'no pgbench transaction failed');
is(scalar(@failures), 0, 'every check during the load passed')
  or diag(join("\n", @failures[0 .. ($#failures < 4 ? $#failures : 4)]));
for my $idx (@indexes)
{
	cmp_ok($passed{$idx}, '>=', 3, "$idx: checked $passed{$idx} times during the load");
}
cmp_ok($during, '>', 2000, "the table grew during the checks ($during rows)");
my $levels = $node->safe_psql('postgres', "SELECT level FROM pagebtree_metapage('cc_k')");
cmp_ok($levels, '>=', 1, "cc_k grew past one level (root level $levels)");

# afterwards: checks pass and the indexes answer as a sequential scan does
for my $idx (@indexes)
{
	$node->safe_psql('postgres', "SELECT pagebtree_check('$idx', true)");
}
pass('pagebtree_check with heapallindexed after the load');
my $q = 'SELECT count(*), sum(k), md5(string_agg(t, \',\' ORDER BY t, id)) FROM cc WHERE k > 0';
is($node->safe_psql('postgres', "SET enable_seqscan = off; SET enable_bitmapscan = off; $q"),
	$node->safe_psql('postgres', "SET enable_indexscan = off; SET enable_indexonlyscan = off; SET enable_bitmapscan = off; $q"),
	'index scan equals a sequential scan after the load');

$node->stop;
done_testing();
