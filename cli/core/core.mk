# cli/core/core.mk - the aggregation core's sources, for other makefiles:
#   include cli/core/core.mk   (from the repository root)
# gives AIO_CORE_SRCS (paths relative to the root). Plain C (gnu11), libc
# and libm only (-lm): no libbpf, no curses.
AIO_CORE_SRCS := cli/core/oatable.c cli/core/hist.c cli/core/inflight.c cli/core/table.c \
		 cli/core/format.c cli/core/json.c cli/core/prom.c \
		 cli/core/profile.c cli/core/stages.c
AIO_CORE_HDRS := $(AIO_CORE_SRCS:.c=.h) bpf/buckets.h
