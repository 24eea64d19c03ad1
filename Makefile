# pagebtree: PGXS build.
#   make && make install && make installcheck
#   make PBT_CHECKS=1     build with per-page invariant checks after every change

# this file's directory (builds may run elsewhere: make -f .../Makefile)
PBT_TOP := $(dir $(lastword $(MAKEFILE_LIST)))

MODULE_big = pagebtree
OBJS = \
	src/pbt_handler.o \
	src/pbt_keys.o \
	src/pbt_page.o \
	src/pbt_registry.o \
	src/pbt_policy.o \
	src/pbt_layout_plain.o \
	src/pbt_layout_heads.o \
	src/pbt_layout_dense.o \
	src/pbt_layout_semidense.o \
	src/pbt_layout_bpa.o \
	src/pbt_layout_bpa_change.o \
	src/pbt_layout_fingerprint.o \
	src/pbt_layout_posting.o \
	src/pbt_layout_lists.o \
	src/pbt_search.o \
	src/pbt_bufcache.o \
	src/pbt_leafcache.o \
	src/pbt_insert.o \
	src/pbt_group.o \
	src/pbt_splitloc.o \
	src/pbt_delete.o \
	src/pbt_delta.o \
	src/pbt_prefetch.o \
	src/pbt_adapt.o \
	src/pbt_scan.o \
	src/pbt_scankey.o \
	src/pbt_rowcompare.o \
	src/pbt_readpage.o \
	src/pbt_build.o \
	src/pbt_vacuum.o \
	src/pbt_wal.o \
	src/pbt_check.o

EXTENSION = pagebtree
# the current version's install script is built from src/sql/; the scripts of
# released versions and the upgrade scripts between them are kept frozen in sql/
DATA_built = pagebtree--0.2.sql
DATA = sql/pagebtree--0.1.sql sql/pagebtree--0.1--0.2.sql
PGFILEDESC = "pagebtree - B-link tree index access method"

REGRESS = $(patsubst test/sql/%.sql,%,$(sort $(wildcard test/sql/*.sql)))
REGRESS_OPTS = --inputdir=test --load-extension=pagebtree
ISOLATION = $(patsubst test/specs/%.spec,%,$(sort $(wildcard test/specs/*.spec)))
ISOLATION_OPTS = --inputdir=test --load-extension=pagebtree
TAP_TESTS = 1
PROVE_TESTS = $(sort $(wildcard test/t/*.pl))
EXTRA_CLEAN = pagebtree--0.2.sql

PG_CFLAGS = -Wall -Wmissing-prototypes -Wpointer-arith -Werror=vla -Werror=incompatible-pointer-types
# Nothing interposes the module's own functions: let calls within a file be
# inlined (-fPIC alone keeps every exported function an out-of-line call).
PG_CFLAGS += -fno-semantic-interposition
ifdef PBT_CHECKS
PG_CPPFLAGS += -DPBT_CHECKS
ifneq ($(wildcard /usr/include/valgrind/memcheck.h),)
PG_CPPFLAGS += -DPBT_VALGRIND
endif
endif

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

include $(PBT_TOP)cflags.mk

pagebtree--0.2.sql: src/sql/pagebtree_functions.sql src/sql/pagebtree_opclasses.sql
	cat $^ > $@

$(OBJS): src/pagebtree.h src/pbt_page.h src/pbt_layout.h src/pbt_keys.h src/pbt_xlog.h src/pbt_dense_util.h src/pbt_parts.h src/pbt_slots.h src/pbt_insert.h src/pbt_scan.h src/pbt_layout_bpa.h src/pbt_delta.h src/pbt_prefetch.h src/pbt_group.h src/pbt_tids.h
