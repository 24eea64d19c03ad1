# Serializable transactions under concurrency keep an invariant that only
# serializability holds.  4 pgbench clients run transactions that count
# the rows of a random bucket through a pagebtree index and insert one
# more if the bucket holds fewer than $limit, or empty it if it is full
# (keeping the deleted rows' ids in a table without indexes).
# Two transactions that both count $limit - 1 and both insert are a write
# skew that predicate locking must break: one of them fails with a
# serialization failure, which pgbench retries (--max-tries).  So no bucket
# may ever hold more than $limit rows, before it is emptied or at the end.
#
# A bucket's entries fill about a leaf (a wide INCLUDE column), so a
# bucket's leaf splits as it fills, and once emptied autovacuum deletes
# it, while other transactions hold predicate locks on those leaves: the
# locks must follow the keys.  Three
# tables: a plain index, leaf groups (rebalances and group splits), and a
# delta area (inserts appended to the leaves' runs).  Afterwards every index
# passes pagebtree_check and returns what a sequential scan returns, and
# the splits, group rewrites and retried transactions must have happened.
#
# PBT_SSI_SECONDS sets the load's duration (default 20).

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib "$FindBin::RealBin/../perl";
use PagebtreeTest;

my $seconds = $ENV{PBT_SSI_SECONDS} // 20;
my $limit = 30;
my $buckets = 8;
my @tables = qw(sp sg sd);

my $node = pbt_new_node('serializable', rmgr => 1, delta_always => 1, conf => qq{
max_pred_locks_per_transaction = 256
autovacuum_naptime = 1s
autovacuum_vacuum_threshold = 200
autovacuum_vacuum_scale_factor = 0.01
});
$node->start;

my %options = (
	sp => '',
	sg => 'WITH (leaf_group_size = 4, fillfactor = 100)',
	sd => 'WITH (delta = on)',
);
# the rows each emptying of a bucket deleted, so that a bucket that held
# more than $limit rows for a while is seen afterwards
my $setup = "CREATE EXTENSION pagebtree;\nCREATE SEQUENCE s_seq;\n"
  . "CREATE TABLE emptied (tbl text, b int, xid int8, id int8);\n";
for my $t (@tables)
{
	$setup .= qq{
CREATE TABLE $t (b int NOT NULL, id int8 NOT NULL, pad text NOT NULL);
INSERT INTO $t SELECT b, nextval('s_seq'), repeat('x', 200)
  FROM generate_series(1, $buckets) b, generate_series(1, (b * 7) % $limit) i;
CREATE INDEX ${t}_b ON $t USING pagebtree (b, id) INCLUDE (pad) $options{$t};
};
}
$setup .= "ALTER DATABASE postgres SET enable_seqscan = off;\n";
$node->safe_psql('postgres', $setup);

my %blocks_before;
$blocks_before{$_} = $node->safe_psql('postgres',
	"SELECT nblocks FROM pagebtree_metapage('${_}_b')") for @tables;
my $groups_before = $node->safe_psql('postgres',
	"SELECT string_agg(start || ':' || epoch, ',') FROM pagebtree_groups('sg_b')");

# one table per transaction, at random
my $script = "\\set b random(1, $buckets)\n\\set t random(1, 3)\n"
  . "BEGIN ISOLATION LEVEL SERIALIZABLE;\n";
for my $i (0 .. $#tables)
{
	my $t = $tables[$i];
	$script .= ($i == 0 ? '\if' : '\elif') . ' :t = ' . ($i + 1) . "\n" . qq{SELECT count(*) AS n FROM $t WHERE b = :b \\gset
\\sleep 1 ms
\\if :n < $limit
INSERT INTO $t VALUES (:b, nextval('s_seq'), repeat('x', 200));
\\else
WITH d AS (DELETE FROM $t WHERE b = :b RETURNING id)
INSERT INTO emptied SELECT '$t', :b, txid_current(), id FROM d;
\\endif
};
}
$script .= "\\endif\nCOMMIT;\n";

my ($load, $outref, $errref) = pbt_start_script($node, $script, 4, $seconds, '--max-tries=1000');
$load->finish;
my ($out, $err) = ($$outref, $$errref);
is($load->result(0), 0, 'pgbench finished without a client aborting') or diag($err);
my ($retried) = $out =~ /number of transactions retried: (\d+)/;
my ($failed) = $out =~ /number of failed transactions: (\d+)/;
ok(defined $retried && $retried > 0,
	'serialization failures happened and were retried (' . ($retried // 'none') . ')')
  or diag($out);
is($failed // -1, 0, 'no transaction failed for good');
my ($done) = $out =~ /number of transactions actually processed: (\d+)/;
note("transactions: " . ($done // '?') . ", retried: " . ($retried // '?'));

for my $t (@tables)
{
	my $over = $node->safe_psql('postgres', qq{
SET enable_seqscan = on; SET enable_indexscan = off; SET enable_indexonlyscan = off;
SET enable_bitmapscan = off;
SELECT count(*) FROM (SELECT b FROM $t GROUP BY b HAVING count(*) > $limit) x});
	is($over, 0, "$t: no bucket holds more than $limit rows");
	my ($emptied, $over_then) = split /\|/, $node->safe_psql('postgres', qq{
SET enable_seqscan = on;
SELECT count(*), count(*) FILTER (WHERE n > $limit)
  FROM (SELECT count(*) AS n FROM emptied WHERE tbl = '$t' GROUP BY b, xid) x});
	cmp_ok($emptied, '>', 0, "$t: buckets were emptied ($emptied times)");
	is($over_then, 0, "$t: no bucket held more than $limit rows when it was emptied");
	my $blocks = $node->safe_psql('postgres', "SELECT nblocks FROM pagebtree_metapage('${t}_b')");
	cmp_ok($blocks, '>', $blocks_before{$t}, "$t: leaves split ($blocks_before{$t} -> $blocks blocks)");
	pbt_check_indexes($node, $t, table => $t);
	pbt_index_vs_seqscan($node, 'postgres', "SELECT b, id FROM $t WHERE b > 0", "${t}_b");
}
my $rewritten = $node->safe_psql('postgres', qq{
SELECT count(*) FROM pagebtree_groups('sg_b')
 WHERE start || ':' || epoch <> ALL (string_to_array('$groups_before', ','))});
cmp_ok($rewritten, '>', 0, "sg: leaf groups were rebalanced or split ($rewritten groups rewritten)");

$node->stop;
done_testing();
