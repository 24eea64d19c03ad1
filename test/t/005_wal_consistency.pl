
# Redo produces the primary's pages byte for byte.
#
# The primary (preloaded: pagebtree's own WAL records) runs with
# wal_consistency_checking = 'pagebtree', so every pagebtree record carries
# a full image of each page it touches, and whoever replays it compares its
# result with the image (after rm_mask) and stops with "inconsistent page
# found" on any difference.  (Generic records are checked by
# 001_crash_recovery.pl and 037_generic_in_place.pl: the generic mask does
# not know pagebtree's unlogged hints, the adaption counter and dead-entry
# bits, so readers set none while generic records are checked,
# pbt_unlogged_hints_allowed.)  A workload makes every kind of record on every
# layout: inserts, splits of leaves and inner pages (left pages kept in
# place and rebuilt, right pages as images and as their entries), leaves
# converted instead of split, downlinks, deletions of dead entries, page deletion and reuse, adaptive
# layout conversions, and the deletion of emptied parents with their last
# leaves or leaf groups (queue churn over wide keys).  Then:
#   - a streaming standby replays it all and returns the primary's rows;
#   - the primary, stopped immediately, replays its WAL from the last
#     checkpoint in crash recovery;
#   - pagebtree_check passes on both.
# Indexes with a delta area (WITH (delta = on), four layouts, normalized
# and comparator keys, three group sizes) take part, with
# pagebtree.delta_append_always = on: their inserts append to runs
# (XLOG_PBT_RUN_APPEND, the first one of a side page initializing it), runs
# fold at the threshold (XLOG_PBT_FOLD), leaves split with their runs
# (XLOG_PBT_SPLIT with the side page as block 4), and VACUUM drops dead
# pending entries and folds the rest (XLOG_PBT_FOLD); pg_waldump confirms
# that each kind of record was written, and the standby must end with the
# primary's runs.
# Indexes with leaf groups (issue #23; int8 with fillfactor = 100, text
# COLLATE "C", group sizes 4 and 16, the largest, whose split logs 33
# pages) take inserts, deletes and VACUUMs in sessions with
# wal_consistency_checking = 'all' (heap records checked too): group
# rebalances and splits (GROUP_REWRITE) between pagebtree records that
# change single subnodes; both must happen, and the standby
# and crash recovery must replay them without an inconsistent page and
# return the rows of a sequential scan, both directions.  One of them has a
# delta area (appends forced, as above): its subnodes' runs are appended to,
# folded, and taken into rebalanced groups, and the standby must end with
# the primary's runs.  An empty group index, loaded with no checkpoint
# asked for, has its rebalanced subnodes logged as the entries they gained,
# not as images; pg_waldump counts them, and both replays check them.
# A left page kept in place by a split that started its adaption counter
# is checked by the generic records of page deletions that follow.

use strict;
use warnings;

use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use Time::HiRes qw(usleep);
use PagebtreeTest;

my $primary = pbt_new_node('wcc_primary', rmgr => 1, streaming => 1,
	delta_always => 1,
	conf => "wal_consistency_checking = 'pagebtree'\n");
$primary->start;
# compressed page images: lz4 where the server has it (the wheels' do not)
my $compression = $primary->safe_psql('postgres', q{
SELECT CASE WHEN 'lz4' = ANY (enumvals) THEN 'lz4' ELSE 'pglz' END
FROM pg_settings WHERE name = 'wal_compression'});
$primary->safe_psql('postgres', "ALTER SYSTEM SET wal_compression = $compression");
$primary->reload;
$primary->safe_psql('postgres', q{
CREATE EXTENSION pagebtree;
CREATE TABLE w (id int8, title text COLLATE "C", url text COLLATE "C",
                n numeric, pad text,
                id2 int8 GENERATED ALWAYS AS (id) STORED);
ALTER TABLE w SET (autovacuum_enabled = off);
});
# the slot keeps WAL (a full image per page per record) until it is replayed
$primary->safe_psql('postgres',
	"SELECT pg_create_physical_replication_slot('wcc_standby')");
my $standby = pbt_new_standby($primary, 'wcc_standby',
	"primary_slot_name = 'wcc_standby'\n");

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
	# 5 values: posting leaves (widened, converted to heads, split)
	w_len       => 'USING pagebtree ((length(pad) / 8))',
	# 20 entries or so a key: lists leaves (new keys, splits, deletes)
	w_fk        => 'USING pagebtree ((id % 997))',
	# 160-byte keys whose neighbours share a byte or two: split right
	# pages logged front-coded with two-byte lengths
	w_long      => 'USING pagebtree ((repeat(md5(id::text), 5)))',
	# delta area, each with an order no other index gives (and none leading
	# with url, which the lookups above must find in w_url): dense and
	# plain leaves (ascending ids), heads, BPA and fingerprint leaves,
	# comparator keys (numeric); 64, 16 and 4 leaves per side page
	# (threshold 1, 5 and 20 %); ids in random order after the ascending
	# ones make leaves with runs that convert to dense pages instead of
	# splitting (a generic record of the leaf and its emptied slot), and
	# dense split halves (id2: a copy of id that no other index orders)
	w_id_delta        => q{USING pagebtree (id, title) INCLUDE (pad) WITH (delta = on)},
	w_id2_delta       => q{USING pagebtree (id2) WITH (delta = on)},
	w_id_plain_delta  => q{USING pagebtree (id, url) WITH (layout = 'plain', delta = on, delta_threshold = 20)},
	w_title_delta     => q{USING pagebtree (title, id) WITH (delta = on, delta_threshold = 1)},
	w_title_bpa_delta => q{USING pagebtree (title, url) WITH (layout = 'bpa', delta = on)},
	w_title_fp_delta  => q{USING pagebtree (title DESC, id) WITH (layout = 'fingerprint', delta = on)},
	w_n_delta         => q{USING pagebtree (n, id) WITH (delta = on)},
);
my @delta = sort grep { /_delta$/ } keys %indexes;
$primary->safe_psql('postgres',
	join('', map { "CREATE INDEX $_ ON w $indexes{$_};\n" } sort keys %indexes));
is($primary->safe_psql('postgres', q{
SELECT string_agg(m.delta_group::text, ',' ORDER BY o)
  FROM unnest(ARRAY['w_title_delta', 'w_id_delta', 'w_id_plain_delta']) WITH ORDINALITY u(i, o),
       LATERAL pagebtree_metapage(i::regclass) m}),
	'64,16,4', 'delta areas of 64, 16 and 4 leaves per side page');
# keeps the WAL from here on for pg_waldump
$primary->safe_psql('postgres',
	"SELECT pg_create_physical_replication_slot('wcc_dump', true)");
my $start_lsn = $primary->safe_psql('postgres', 'SELECT pg_current_wal_insert_lsn()');

my $rows = q{
SELECT g, 'Adjective Noun ' || (g * 7919 %% 15013),
       'https://example.org/' || md5((g %% 300)::text) || '/' || g,
       (g * 31 %% 1009) / 7.0, repeat('p', g %% 40)
FROM generate_series(%d, %d) g};
# ascending ids (appending splits, dense and semidense leaves, whose right
# pages are logged as their entries), then the
# same shape in random order (median splits, new items left and right)
$primary->safe_psql('postgres',
	sprintf("INSERT INTO w $rows;", 1, 5000));
$primary->safe_psql('postgres',
	sprintf("INSERT INTO w SELECT * FROM ($rows) s ORDER BY md5(g::text);",
		5001, 10000));
# odd keys indexed, then the even ones in random order: dense leaves fill
# their windows, converting instead of splitting (REBUILD records), and
# with a delta area taking their runs in
$primary->safe_psql('postgres', q{
CREATE TABLE wodd (k int8, kd int8) WITH (autovacuum_enabled = off);
INSERT INTO wodd SELECT g * 2 + 1, g * 2 + 1 FROM generate_series(1, 20000) g;
CREATE INDEX wodd_k ON wodd USING pagebtree (k);
CREATE INDEX wodd_kd ON wodd USING pagebtree (kd) WITH (delta = on);
INSERT INTO wodd SELECT g * 2, g * 2 FROM generate_series(1, 20000) g ORDER BY md5(g::text);});

# serial ids: after a CHECKPOINT, the first insert into the rightmost leaf, a
# dense page that ascending ids have begun to fill, logs its image without
# the value array's empty slots, which lie in the page's hole
{
	$primary->safe_psql('postgres', q{
CREATE TABLE wser (k int8) WITH (autovacuum_enabled = off);
CREATE INDEX wser_k ON wser USING pagebtree (k);
INSERT INTO wser SELECT g FROM generate_series(1, 3000) g;
CHECKPOINT;});
	my $node = $primary->safe_psql('postgres', "SELECT pg_relation_filenode('wser_k')");
	my $start = $primary->safe_psql('postgres', 'SELECT pg_current_wal_insert_lsn()');
	$primary->safe_psql('postgres', 'INSERT INTO wser VALUES (3001)');
	my $end = $primary->safe_psql('postgres', 'SELECT pg_current_wal_flush_lsn()');
	my $out = '';
	IPC::Run::run(
		[ 'pg_waldump', '--path', $primary->data_dir . '/pg_wal', '--bkp-details',
			'--start', $start, '--end', $end ],
		'<', \undef, '>', \$out, '2>', \my $err);
	my ($blk, $hole) = $out =~ m{rel \d+/\d+/$node fork main blk (\d+) \(FPW[^)]*\); hole: offset: \d+, length: (\d+)};
	my $layout = defined $blk ? $primary->safe_psql('postgres',
		"SELECT layout FROM pagebtree_page_stats('wser_k', $blk)") : '';
	ok(defined $hole && $hole >= 4000 && $layout eq 'dense',
		"the rightmost dense leaf's image leaves out its empty slots (hole of "
		  . ($hole // 'none') . " bytes, $layout leaf)")
	  or diag($out . $err);
}

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

# delta area: entries of rows deleted while they are pending, which VACUUM
# drops from the runs, folding the rest
$primary->safe_psql('postgres',
	sprintf("INSERT INTO w SELECT * FROM ($rows) s ORDER BY md5(g::text);",
		15001, 16000));
my $runs = pbt_runs($primary, \@delta);
ok($runs->{entries} > 0 && $runs->{folds} > 0,
	'delta indexes: entries pending in runs, runs folded')
  or diag("pending $runs->{entries}, folds $runs->{folds}");
$primary->safe_psql('postgres', q{
DELETE FROM w WHERE id > 15000 AND id % 4 = 0;
VACUUM w;
});
my $vac = pbt_runs($primary, \@delta);
ok($vac->{entries} < $runs->{entries} && $vac->{folds} > $runs->{folds},
	'VACUUM folded the runs')
  or diag("pending $runs->{entries} -> $vac->{entries}, folds $runs->{folds} -> $vac->{folds}");
$primary->safe_psql('postgres',
	sprintf("INSERT INTO w SELECT * FROM ($rows) s ORDER BY md5(g::text);",
		16001, 17000));
$runs = pbt_runs($primary, \@delta);
note "delta indexes: $runs->{entries} entries pending in $runs->{runs} runs, $runs->{folds} folds";

# a leaf of one long key's duplicates (a few bytes each under the page's
# prefix) with pending entries on both sides that do not share it: no two
# pages hold them all, so the split keeps the left entry pending (the split
# record sets the left half's run to it)
$primary->safe_psql('postgres', q{
CREATE TABLE wd (id serial, s text COLLATE "C");
CREATE INDEX wd_s ON wd USING pagebtree (s)
  WITH (delta = on, delta_threshold = 20, deduplicate_items = off);
INSERT INTO wd (s) SELECT 'b' || repeat(md5('x'), 12) FROM generate_series(1, 600);
INSERT INTO wd (s) VALUES ('a' || repeat(md5('y'), 12)), ('c' || repeat(md5('z'), 12));
INSERT INTO wd (s) SELECT 'b' || repeat(md5('x'), 12) FROM generate_series(1, 300);
});
is($primary->safe_psql('postgres', q{
SELECT string_agg(leaf || ':' || entries, ',' ORDER BY leaf)
  FROM pagebtree_runs('wd_s') WHERE entries > 0}),
	'2:1,3:8', "wd_s: the split kept an entry pending in the left half's run");

# the records of the delta area and the conversions, counted by pg_waldump
# (which names records of a custom resource manager by number: custom140,
# UNKNOWN (info))
{
	my $end_lsn = $primary->safe_psql('postgres', 'SELECT pg_current_wal_flush_lsn()');
	my %delta_rel = map {
		$primary->safe_psql('postgres', "SELECT pg_relation_filenode('$_')") => 1
	} @delta;
	my %n = (append => 0, fold => 0, fold_leaf => 0, split => 0, split_run => 0,
		convert => 0, split_right_built => 0, rebuild => 0, rebuild_run => 0);
	my $partial = '';
	my $count = sub {
		my ($line) = @_;
		return unless $line =~ /desc: UNKNOWN \((\w+)\)/;
		my $info = $1;
		my %blk;
		# the url index's conversions by point lookups (above)
		$n{convert}++ if $info eq '70';
		# a split's right page logged as its entries: no image to apply
		# (only the one for the check, "FPW for WAL verification")
		$n{split_right_built}++
		  if $info eq '30' && $line =~ /blkref #1: [^,]*FPW for WAL verification/;
		# leaves converted instead of split (wodd), with a run or without
		if ($info eq '90')
		{
			$n{rebuild}++;
			$n{rebuild_run}++ if $line =~ /blkref #1:/;
		}
		$blk{$1} = $2 while $line =~ /blkref #(\d+): rel \d+\/\d+\/(\d+)/g;
		return unless defined $blk{0} ? $delta_rel{$blk{0}} : $delta_rel{$blk{1} // 0};
		if ($info eq '40')
		{
			$n{append}++;
		}
		elsif ($info eq '50')
		{
			$n{fold}++;
			$n{fold_leaf}++ if defined $blk{0};
		}
		elsif ($info eq '30')
		{
			$n{split}++;
			$n{split_run}++ if defined $blk{4};
		}
	};
	my $err = '';
	my $ok = IPC::Run::run(
		[ 'pg_waldump', '--path', $primary->data_dir . '/pg_wal',
			'--rmgr', 'custom140', '--start', $start_lsn, '--end', $end_lsn ],
		'<', \undef,
		'>', sub {
			$partial .= $_[0];
			while ($partial =~ s/^([^\n]*)\n//)
			{
				$count->($1);
			}
		},
		'2>', \$err);
	ok($ok, 'pg_waldump read the WAL of the workload') or diag($err);
	note 'delta-area records: ' . join(', ', map { "$_ $n{$_}" } sort keys %n);
	ok($n{append} > 0, "RUN_APPEND records ($n{append})");
	ok($n{fold_leaf} > 0, "FOLD records that fold into the leaf ($n{fold_leaf} of $n{fold})");
	ok($n{split_run} > 0, "SPLIT records that take the run, block 4 ($n{split_run} of $n{split})");
	ok($n{convert} > 0, "CONVERT records of leaves that readers converted ($n{convert})");
	ok($n{split_right_built} > 0,
		"SPLIT records whose right page redo builds from its entries ($n{split_right_built})");
	ok($n{rebuild} > $n{rebuild_run} && $n{rebuild_run} > 0,
		"REBUILD records of leaves converted instead of split ($n{rebuild}, $n{rebuild_run} with a run)");
	$primary->safe_psql('postgres', "SELECT pg_drop_replication_slot('wcc_dump')");
}

# leaf groups, every record checked (wal_consistency_checking = 'all'); the
# sessions print the groups' rebalances and splits (DEBUG2)
# (name => [definition, range condition for group_scans])
my %groups = (
	wg_k   => [ '(k) WITH (leaf_group_size = 4, fillfactor = 100)', 'k BETWEEN 5000 AND 9000' ],
	wg_s   => [ '(s) WITH (leaf_group_size = 4)', "s >= '3' AND s < '5'" ],
	wg_is  => [ '(id, s) WITH (leaf_group_size = 16)', 'id BETWEEN 9000 AND 15000' ],
	wg_kd  => [ '(id, k) WITH (leaf_group_size = 8, delta = on)', 'id BETWEEN 20000 AND 26000' ],
);
{
	my $group_rows = q{
INSERT INTO wg SELECT g, g * 7919 %% 60000, md5(g::text) || repeat('s', g %% 50)
FROM generate_series(%d, %d) g ORDER BY md5(g::text);};
	my $set = "SET wal_consistency_checking = 'all';\nSET client_min_messages = debug2;\n";
	my $gsql = $set
	  . 'CREATE TABLE wg (id int8, k int8, s text COLLATE "C");' . "\n"
	  . "ALTER TABLE wg SET (autovacuum_enabled = off);\n"
	  . sprintf($group_rows, 1, 12000) . "\n"
	  . join('', map { "CREATE INDEX $_ ON wg USING pagebtree $groups{$_}[0];\n" } sort keys %groups)
	  . sprintf($group_rows, 12001, 20000) . "\n"
	  . "DELETE FROM wg WHERE id % 3 = 0;\nVACUUM wg;\n"
	  . sprintf($group_rows, 20001, 26000) . "\n"
	  . "DELETE FROM wg WHERE k BETWEEN 10000 AND 30000;\nVACUUM wg;\n";
	my ($ret, $out, $err) = $primary->psql('postgres', $gsql, on_error_stop => 1);
	# the deleted groups become reusable once no transaction older than
	# their deletion runs (VACUUM hands them to the free space map); on a
	# busy machine a snapshot elsewhere (an autovacuum worker's ANALYZE) can
	# keep the deleted rows until one of these VACUUMs, which then deletes
	# the groups: their messages count too (CI once saw none within 10 s
	# while other tests loaded the machine: up to 30 s)
	my $reusable = 0;
	my $later = '';
	for (my $i = 0; $i < 150 && !$reusable; $i++)
	{
		my (undef, undef, $verbose) = $primary->psql('postgres',
			"SET client_min_messages = debug2;\nSELECT txid_current();\nVACUUM (VERBOSE) wg;");
		$later .= $verbose;
		$reusable = $1 if $verbose =~ /index "wg_k": pages: .* (\d+) reusable/;
		usleep(200_000) if !$reusable;
	}
	ok($reusable > 0, "deleted group pages became reusable ($reusable)")
	  or diag("what holds the xmin horizon back:\n",
		$primary->safe_psql('postgres', q{
SELECT 'backend', pid, backend_type, backend_xmin, state, left(query, 60)
  FROM pg_stat_activity WHERE backend_xmin IS NOT NULL
UNION ALL
SELECT 'slot', NULL, slot_name, coalesce(xmin, catalog_xmin), active::text, NULL
  FROM pg_replication_slots
UNION ALL
SELECT 'prepared', NULL, gid, transaction, NULL, NULL FROM pg_prepared_xacts}));
	my ($ret2, $out2, $err2) = $primary->psql('postgres', $set
		  . sprintf($group_rows, 26001, 32000) . "\n"
		  . "UPDATE wg SET k = k + 1, s = s || 'u' WHERE id % 7 = 0;\n",
		on_error_stop => 1);
	ok($ret == 0 && $ret2 == 0,
		'leaf groups: inserts, deletes and VACUUM with wal_consistency_checking = all')
	  or diag($err . $err2);
	my $ops = pbt_group_ops($err . $later . $err2);
	note "leaf groups: $ops->{rebalance} rebalances, $ops->{split} splits, "
	  . "$ops->{deletion} deletions, $ops->{reuse} reused";
	ok($ops->{rebalance} > 0, "leaf groups were rebalanced ($ops->{rebalance})");
	ok($ops->{split} > 0, "leaf groups were split ($ops->{split})");
	ok($ops->{deletion} > 0, "empty leaf groups were deleted ($ops->{deletion})");
	ok(pbt_group_ops($err2, qr/^wg_k$/)->{reuse} > 0,
		'new groups took the blocks of deleted ones');
	my $opsd = pbt_group_ops($err . $err2, qr/^wg_kd$/);
	my $runsd = pbt_runs($primary, ['wg_kd']);
	ok($opsd->{rebalance} > 0 && $opsd->{split} > 0 && $runsd->{folds} > 0,
		"a group index with a delta area: runs folded ($runsd->{folds}), "
		  . "groups rebalanced ($opsd->{rebalance}) and split ($opsd->{split})");
	my $ops16 = pbt_group_ops($err, qr/^wg_is$/);
	ok($ops16->{split} > 0, "groups of 16 leaves were split ($ops16->{split}; 33 pages a record)");
	like($primary->safe_psql('postgres', 'SHOW wal_consistency_checking'),
		qr/^pagebtree$/, 'the other sessions check pagebtree records only');
}

# rebalances between checkpoints: their subnodes are logged as the entries
# they gain (GROUP_REWRITE blocks without an image to apply, which
# pg_waldump shows as "FPW for WAL verification"), and the standby and
# crash recovery rebuild them from those (checked with the images below)
{
	$primary->safe_psql('postgres', q{
CREATE TABLE wgr (k int8) WITH (autovacuum_enabled = off);
CREATE INDEX wgr_k ON wgr USING pagebtree (k) WITH (leaf_group_size = 4);
SELECT pg_create_physical_replication_slot('wcc_groups', true);});
	my $start = $primary->safe_psql('postgres', 'SELECT pg_current_wal_insert_lsn()');
	$primary->safe_psql('postgres', q{
INSERT INTO wgr SELECT g * 7919 % 1000003 FROM generate_series(1, 8000) g ORDER BY md5(g::text);
DELETE FROM wgr WHERE k % 5 = 0;
INSERT INTO wgr SELECT g * 7919 % 1000003 FROM generate_series(8001, 12000) g ORDER BY md5(g::text);});
	my $end = $primary->safe_psql('postgres', 'SELECT pg_current_wal_flush_lsn()');
	my ($records, $described) = (0, 0);
	my $out = '';
	IPC::Run::run(
		[ 'pg_waldump', '--path', $primary->data_dir . '/pg_wal',
			'--rmgr', 'custom140', '--start', $start, '--end', $end ],
		'<', \undef, '>', \$out, '2>', \my $err);
	for my $line (split /\n/, $out)
	{
		next unless $line =~ /desc: UNKNOWN \(80\)/;
		$records++;
		$described++ for grep { !/ FPW$/ } split /, blkref/, $line;
	}
	$primary->safe_psql('postgres', "SELECT pg_drop_replication_slot('wcc_groups')");
	note "GROUP_REWRITE: $records records, $described blocks described";
	ok($records > 0 && $described > 0,
		"group rebalances logged subnodes as their entries ($described blocks in $records records)")
	  or diag($err);
}

# a leaf split that keeps its left page in place and starts the page's
# adaption counter (string-like keys appended after keys whose heads all
# differ), then page deletions, whose generic records are checked here
# ('all'): the split record carries the left page's counter, or the check
# of the next generic record of that page stops redo
{
	$primary->safe_psql('postgres', q{
SET wal_consistency_checking = 'all';
CREATE TABLE wctr (id int, b text COLLATE "C") WITH (autovacuum_enabled = off);
CREATE INDEX wctr_b ON wctr USING pagebtree (b);
INSERT INTO wctr SELECT i, 'p0000/' || md5(i::text) FROM generate_series(1, 150) i ORDER BY 2;
CHECKPOINT;
INSERT INTO wctr SELECT i, 'p' || lpad((i / 50)::text, 4, '0') || '/shared/' || lpad((i % 50)::text, 3, '0')
  FROM generate_series(1000, 1600) i;
DELETE FROM wctr WHERE id > 1300;
VACUUM wctr;});
	ok($primary->safe_psql('postgres', q{
SELECT count(*) FROM generate_series(1, pg_relation_size('wctr_b') / 8192 - 1) b,
  pagebtree_page_stats('wctr_b', b) s
WHERE s.flags LIKE '%ops=%'}) > 0, 'wctr_b: splits started leaves\' adaption counters');
}

# queue churn over wide keys (arrays, compared by their comparator: few
# downlinks a page; and long text keys in groups of two on plain pages):
# VACUUM deletes parents with their last leaves or groups, all their pages
# in one UNLINK record; their reuse is logged as any page's
my %queues = (
	wq => [ 'int8[]', '(k)', q{ARRAY(SELECT g * 100 + j FROM generate_series(1, 24) j)} ],
	wgq => [ 'text COLLATE "C"', q{(k) WITH (leaf_group_size = 2, layout = plain, delta = off)},
		q{repeat('q', 300) || lpad(g::text, 8, '0')} ]);
for my $t (sort keys %queues)
{
	my ($type, $def, $key) = @{ $queues{$t} };
	my $append = qq{INSERT INTO $t SELECT g, $key
  FROM generate_series(coalesce((SELECT max(n) FROM $t), 0) + 1,
                       coalesce((SELECT max(n) FROM $t), 0) + 5000) g};
	$primary->safe_psql('postgres', qq{
CREATE TABLE $t (n int8, k $type) WITH (autovacuum_enabled = off);
CREATE INDEX ${t}_k ON $t USING pagebtree $def;});
	$primary->safe_psql('postgres', $append) for 1 .. 4;
	my $deleted_inner = 0;
	for my $cycle (1 .. 3)
	{
		$primary->safe_psql('postgres',
			qq{DELETE FROM $t WHERE n <= (SELECT max(n) FROM $t) - 15000});
		$primary->safe_psql('postgres', "VACUUM $t");
		$deleted_inner = $primary->safe_psql('postgres', qq{
SELECT count(*) FROM generate_series(1, pg_relation_size('${t}_k') / 8192 - 1) b,
  pagebtree_page_stats('${t}_k', b) s
WHERE s.page_type = 'deleted' AND s.level > 0});
		$primary->safe_psql('postgres', $append);
	}
	ok($deleted_inner > 0, "${t}_k: VACUUM deleted inner pages")
	  or diag("deleted inner pages: $deleted_inner");
}

my %kinds = map { $_ => 1 } split /\n/, $primary->safe_psql('postgres', q{
SELECT DISTINCT layout FROM pagebtree_layout_summary('w_id') UNION
SELECT DISTINCT layout FROM pagebtree_layout_summary('w_id_incl') UNION
SELECT DISTINCT layout FROM pagebtree_layout_summary('w_title_bpa') UNION
SELECT DISTINCT layout FROM pagebtree_layout_summary('w_n') UNION
SELECT DISTINCT layout FROM pagebtree_layout_summary('w_len') UNION
SELECT DISTINCT layout FROM pagebtree_layout_summary('w_fk')});
ok($kinds{$_}, "the workload made $_ pages") for qw(dense semidense bpa plain heads posting lists);
ok($primary->safe_psql('postgres',
		q{SELECT level FROM pagebtree_metapage('w_url')}) >= 1,
	'the url index has split its root');
ok($primary->safe_psql('postgres',
		q{SELECT level FROM pagebtree_metapage('w_long')}) >= 1,
	'the index of long keys has split its root');

$primary->wait_for_catchup($standby);
ok(!$standby->log_contains('inconsistent page'),
	'standby: redo matched every page image');

delta_scans($standby, 'standby');
group_scans($standby, 'standby');

my $runs_q = 'SELECT i, r.* FROM unnest(ARRAY[' . join(', ', map { "'$_'" } @delta, 'wd_s', 'wg_kd')
  . ']) i, LATERAL pagebtree_runs(i::regclass) r ORDER BY 1, 2';
my $runs_p = $primary->safe_psql('postgres', $runs_q);
is($standby->safe_psql('postgres', $runs_q), $runs_p,
	"standby: the primary's runs, entry for entry");

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
my $wgr_q = q{SELECT count(*), sum(k), md5(string_agg(k::text, ',')) FROM (SELECT k FROM wgr ORDER BY k) x};
ordered_scan_ok($standby, 'wgr_k', $wgr_q, 1, 'standby: wgr_k returns the rows of a sequential scan');
my %queue_q = map {
	$_ => "SELECT count(*), sum(n), md5(string_agg(k::text, ',')) FROM (SELECT k, n FROM $_ ORDER BY k) x"
} keys %queues;
ordered_scan_ok($standby, "${_}_k", $queue_q{$_}, 1,
	"standby: ${_}_k returns the rows of a sequential scan") for sort keys %queues;
my %wodd_q = map {
	$_ => "SELECT count(*), sum($_), md5(string_agg(${_}::text, ',')) FROM (SELECT $_ FROM wodd ORDER BY $_) x"
} qw(k kd);
ordered_scan_ok($standby, "wodd_$_", $wodd_q{$_}, 1,
	"standby: wodd_$_ returns the rows of a sequential scan") for qw(k kd);

for my $idx (sort(keys %indexes), 'wd_s', 'wgr_k', 'wodd_k', 'wodd_kd', 'wctr_b',
	(map { "${_}_k" } sort keys %queues), sort keys %groups)
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
is($primary->safe_psql('postgres', $runs_q), $runs_p,
	'primary after crash recovery: the same runs');
delta_scans($primary, 'primary after crash recovery');
group_scans($primary, 'primary after crash recovery');
pbt_check_indexes($primary, 'primary after crash recovery', table => 'wg');
pbt_check_indexes($primary, 'primary after crash recovery', table => 'wgr');
ordered_scan_ok($primary, 'wgr_k', $wgr_q, 1, 'primary after crash recovery: wgr_k returns the rows of a sequential scan');
pbt_check_indexes($primary, 'primary after crash recovery', table => 'wodd');
pbt_check_indexes($primary, 'primary after crash recovery', table => 'wctr');
ordered_scan_ok($primary, "wodd_$_", $wodd_q{$_}, 1,
	"primary after crash recovery: wodd_$_ returns the rows of a sequential scan") for qw(k kd);
for my $t (sort keys %queues)
{
	pbt_check_indexes($primary, 'primary after crash recovery', table => $t);
	ordered_scan_ok($primary, "${t}_k", $queue_q{$t}, 1,
		"primary after crash recovery: ${t}_k returns the rows of a sequential scan");
}
pbt_check_indexes($primary, 'primary after crash recovery', table => 'w');
pbt_check_indexes($primary, 'primary after crash recovery', table => 'wd');
my $wd_q = q{SELECT count(*), md5(string_agg(s || id, ',' ORDER BY s, id)) FROM wd WHERE s > ''};
is($primary->safe_psql('postgres', "SET enable_seqscan = off; SET enable_bitmapscan = off; $wd_q"),
	$primary->safe_psql('postgres', "SET enable_indexscan = off; SET enable_bitmapscan = off; $wd_q"),
	'primary after crash recovery: wd_s returns the rows of a sequential scan');

$standby->stop;
$primary->stop;
done_testing();

# Full scans of each delta index, forward and backward (index-only), against
# a sequential scan and a sort.
sub delta_scans
{
	my ($node, $label) = @_;
	for my $idx (@delta)
	{
		my ($keys) = $indexes{$idx} =~ /\(([\w, ]+)\)/;
		my @keys = split /, /, $keys;
		my $cols = join(', ', map { (split / /)[0] } @keys);
		for my $backward (0, 1)
		{
			my $order = join(', ',
				map { $backward ? (/ DESC$/ ? (split / /)[0] : "$_ DESC") : $_ } @keys);
			ordered_scan_ok($node, $idx,
				"SELECT count(*), md5(string_agg(x::text, ',')) FROM (SELECT $cols FROM w ORDER BY $order) x",
				0, "$label: $idx ORDER BY $order returns the rows of a sequential scan");
		}
	}
	return;
}

# Scans of each group index, forward and backward, in full (index-only) and
# over a range, against a sequential scan and a sort.
sub group_scans
{
	my ($node, $label) = @_;
	for my $idx (sort keys %groups)
	{
		my ($keys) = $groups{$idx}[0] =~ /^\(([\w, ]+)\)/;
		my @keys = split /, /, $keys;
		my $cond = $groups{$idx}[1];
		for my $where ('', "WHERE $cond")
		{
			for my $backward (0, 1)
			{
				my $order = join(', ', map { $backward ? "$_ DESC" : $_ } @keys);
				ordered_scan_ok($node, $idx,
					"SELECT count(*), md5(string_agg(x::text, ',')) FROM "
					  . "(SELECT $keys FROM wg $where ORDER BY $order) x",
					1, "$label: $idx $where ORDER BY $order returns the rows of a sequential scan");
			}
		}
	}
	return;
}

# Query q (a count and a hash of ordered rows) gives the same through an
# index scan of idx, without a sort, as through a sequential scan (and, if
# nonempty, some rows).
sub ordered_scan_ok
{
	my ($node, $idx, $q, $nonempty, $name) = @_;
	my $off = 'SET enable_bitmapscan = off; SET enable_incremental_sort = off; ';
	my $plan = $node->safe_psql('postgres',
		"${off}SET enable_seqscan = off; SET enable_sort = off; EXPLAIN (COSTS OFF) $q");
	my $got = $node->safe_psql('postgres',
		"${off}SET enable_seqscan = off; SET enable_sort = off; $q");
	my $want = $node->safe_psql('postgres',
		"${off}SET enable_indexscan = off; SET enable_indexonlyscan = off; $q");
	ok($plan =~ /Index (Only )?Scan (Backward )?using $idx / && $got eq $want
		  && !($nonempty && $want =~ /^0\|/), $name)
	  or diag("plan:\n$plan\nindex scan: $got\nsequential scan: $want");
	return;
}
