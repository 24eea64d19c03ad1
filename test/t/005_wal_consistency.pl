
# Redo produces the primary's pages byte for byte.
#
# The primary (preloaded: pagebtree's own WAL records) runs with
# wal_consistency_checking = 'pagebtree', so every pagebtree record carries
# a full image of each page it touches, and whoever replays it compares its
# result with the image (after rm_mask) and stops with "inconsistent page
# found" on any difference.  (Generic WAL records cannot be checked: the
# generic mask does not know pagebtree's unlogged hints, the adaption
# counter and dead-entry bits, which legitimately differ.)  A workload makes every kind of record on every
# layout: inserts, splits of leaves and inner pages (left pages kept in
# place and rebuilt), downlinks, deletions of dead entries, page deletion
# and reuse, adaptive layout conversions.  Then:
#   - a streaming standby replays it all and returns the primary's rows;
#   - the primary, stopped immediately, replays its WAL from the last
#     checkpoint in crash recovery;
#   - pagebtree_check passes on both.

use strict;
use warnings;

use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use PagebtreeTest;

my $primary = pbt_new_node('wcc_primary', rmgr => 1, streaming => 1,
	conf => "wal_consistency_checking = 'pagebtree'\n"
	  . "wal_compression = lz4\n");
$primary->start;
$primary->safe_psql('postgres', q{
CREATE EXTENSION pagebtree;
CREATE TABLE w (id int8, title text COLLATE "C", url text COLLATE "C",
                n numeric, pad text);
ALTER TABLE w SET (autovacuum_enabled = off);
});
# the slot keeps WAL (a full image per page per record) until it is replayed
$primary->safe_psql('postgres',
	"SELECT pg_create_physical_replication_slot('wcc_standby')");
$primary->backup('base');
my $standby = PostgreSQL::Test::Cluster->new('wcc_standby');
$standby->init_from_backup($primary, 'base', has_streaming => 1);
$standby->append_conf('postgresql.conf', "primary_slot_name = 'wcc_standby'\n");
$standby->start;

# one index per layout (and comparator mode), built on the empty table so
# that every page is made by inserts and splits
my %indexes = (
	w_id        => 'USING pagebtree (id)',
	w_title     => 'USING pagebtree (title)',
	w_url       => 'USING pagebtree (url)',
	w_title_fp  => q{USING pagebtree (title) WITH (layout = 'fingerprint')},
	w_title_bpa => q{USING pagebtree (title) WITH (layout = 'bpa')},
	w_id_bpa    => q{USING pagebtree (id) WITH (layout = 'bpa')},
	w_id_plain  => q{USING pagebtree (id) WITH (layout = 'plain')},
	w_id_incl   => 'USING pagebtree (id) INCLUDE (pad)',
	w_n         => 'USING pagebtree (n)',
);
$primary->safe_psql('postgres',
	join('', map { "CREATE INDEX $_ ON w $indexes{$_};\n" } sort keys %indexes));

my $rows = q{
SELECT g, 'Adjective Noun ' || (g * 7919 %% 15013),
       'https://example.org/' || md5((g %% 300)::text) || '/' || g,
       (g * 31 %% 1009) / 7.0, repeat('p', g %% 40)
FROM generate_series(%d, %d) g};
# ascending ids (appending splits, dense and semidense leaves), then the
# same shape in random order (median splits, new items left and right)
$primary->safe_psql('postgres',
	sprintf("INSERT INTO w $rows;", 1, 5000));
$primary->safe_psql('postgres',
	sprintf("INSERT INTO w SELECT * FROM ($rows) s ORDER BY md5(g::text);",
		5001, 10000));

# point lookups make the adaptive url index convert leaves to fingerprint
$primary->safe_psql('postgres', q{
SET enable_seqscan = off; SET enable_bitmapscan = off;
DO $$
DECLARE
	t text;
	c int;
BEGIN
	FOR t IN SELECT url FROM w, generate_series(1, 2) ORDER BY random() LOOP
		EXECUTE 'SELECT count(*) FROM w WHERE url = $1' INTO c USING t;
	END LOOP;
END $$;
});
like(
	$primary->safe_psql('postgres', q{
SELECT string_agg(layout, ',') FROM pagebtree_layout_summary('w_url')
 WHERE page_type = 'leaf'}),
	qr/fingerprint/,
	'lookups converted url leaves to fingerprint (logged conversions)');

# dead entries: removed on the way to a split, by VACUUM, and whole leaves
# deleted; then inserts reuse the deleted pages
$primary->safe_psql('postgres', q{
DELETE FROM w WHERE id % 3 = 0;
SET enable_seqscan = off; SET enable_bitmapscan = off;
SELECT count(*) FROM w WHERE id > 0;
});
$primary->safe_psql('postgres',
	sprintf("INSERT INTO w SELECT * FROM ($rows) s ORDER BY md5(g::text);",
		10001, 12500));
$primary->safe_psql('postgres', q{
DELETE FROM w WHERE id BETWEEN 1000 AND 4000;
VACUUM w;
});
$primary->safe_psql('postgres',
	sprintf("INSERT INTO w SELECT * FROM ($rows) s ORDER BY md5(g::text);",
		12501, 15000));

my %kinds = map { $_ => 1 } split /\n/, $primary->safe_psql('postgres', q{
SELECT DISTINCT layout FROM pagebtree_layout_summary('w_id') UNION
SELECT DISTINCT layout FROM pagebtree_layout_summary('w_id_incl') UNION
SELECT DISTINCT layout FROM pagebtree_layout_summary('w_title_bpa') UNION
SELECT DISTINCT layout FROM pagebtree_layout_summary('w_n')});
ok($kinds{$_}, "the workload made $_ pages") for qw(dense semidense bpa plain heads);
ok($primary->safe_psql('postgres',
		q{SELECT level FROM pagebtree_metapage('w_url')}) >= 1,
	'the url index has split its root');

$primary->wait_for_catchup($standby);
ok(!$standby->log_contains('inconsistent page'),
	'standby: redo matched every page image');

my $digest = q{
SET enable_seqscan = off; SET enable_bitmapscan = off;
SELECT count(*), sum(id), md5(string_agg(title, ',' ORDER BY title, id))
  FROM w WHERE title >= 'A';};
my $expected = $primary->safe_psql('postgres',
	q{SET enable_indexscan = off; SET enable_bitmapscan = off;
SELECT count(*), sum(id), md5(string_agg(title, ',' ORDER BY title, id))
  FROM w WHERE title >= 'A';});
is($standby->safe_psql('postgres', $digest), $expected,
	'standby: index scan returns the rows of a sequential scan on the primary');

for my $idx (sort keys %indexes)
{
	my ($ret, $out, $err) =
	  $standby->psql('postgres', "SELECT pagebtree_check('$idx', true)");
	ok($ret == 0 && $err eq '', "standby: pagebtree_check('$idx')")
	  or diag($err);
}

# crash recovery replays the same records on the primary itself
$primary->stop('immediate');
$primary->start;
ok(!$primary->log_contains('inconsistent page'),
	'primary: crash recovery matched every page image');
is($primary->safe_psql('postgres', $digest), $expected,
	'primary after crash recovery: index scan returns the same rows');
pbt_check_indexes($primary, 'primary after crash recovery', table => 'w');

$standby->stop;
$primary->stop;
done_testing();
