
# The randomized differential test (010_random_diff.pl) without preloading
# and without pagebtree.delta_append_always, as a user gets pagebtree by
# default: generic WAL, every index with a delta area, heads leaves
# appending to runs, and dirty dense, posting and semidense leaves taking
# inserts in place (their generic records written from the bytes the
# layout says they change).

use strict;
use warnings;

use FindBin;
use lib "$FindBin::RealBin/../perl";
# loaded here, at compile time, for their INIT blocks
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use PagebtreeTest;

$ENV{PBT_DIFF_GENERIC} = 1;
do "$FindBin::RealBin/010_random_diff.pl";
die $@ if $@;
