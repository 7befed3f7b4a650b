# aioscope — top-level build.
#
#   make              build everything (build/kmod/RELEASE/aiodev.ko for each kernel of the
#                     test matrix, the BPF objects, build/cli/aioscope, the test programs)
#   make deps         install Debian packages and fetch the matrix's Debian kernels
#   make test         deps if missing, build, run every test suite (ends "N passed, N failed")
#   make test-debug   the VM suites under a KASAN + lockdep kernel built from linux-source
#   make stress       the stress suite alone, STRESS_SECONDS=N (default 300)
#   make fuzz         the libFuzzer targets of tests/fuzz/ on the host, one after the
#                     other, FUZZ_SECONDS=N each (default 60)
#   make bench        benchmarks (one VM boot), printing ratios
#   make demo         the dashboard on a live workload, in the test VM
#   make man          the man pages (build/man/, from man/*.scd with scdoc)
#   make install      the CLI, man pages, bash completion, docs and the module source for
#                     DKMS under $(DESTDIR)$(PREFIX) (PREFIX=/usr/local); make uninstall
#   make deb          Debian packages into build/deb/ (docs/install.md)
#   make clean
#
# KERNELS="6.1 6.12 newest" (the default) chooses the kernels of the matrix that make
# builds for and make test runs on (docs/kernels.md).
# KDIR=<kernel build tree> builds kmod/aiodev.ko for that one kernel instead (your own
# running kernel, typically); V=1 shows commands.
KDIR_ARG := $(if $(KDIR),KDIR=$(KDIR))

# Subdirectories with a Makefile are built; others do not exist yet.
TEST_DIRS := $(patsubst %/Makefile,%,$(wildcard tests/*/Makefile))
STRESS_SECONDS ?= 300
FUZZ_SECONDS ?= 60

.PHONY: all kmod cli tests deps deps-if-missing test test-debug stress fuzz bench demo clean \
	man all-man install uninstall deb

# One version for the CLI, the module, the man pages and the packages.
VERSION := $(shell cat VERSION)

all: kmod cli tests all-man

# the man pages after make deps (scdoc); debian/rules calls make man directly
all-man: deps-if-missing
	$(MAKE) man

kmod: deps-if-missing
	$(if $(KDIR),$(MAKE) -C kmod $(KDIR_ARG),scripts/build-kmod)

cli: deps-if-missing
	$(if $(wildcard cli/Makefile),$(MAKE) -C cli,@true)

tests: cli
	$(foreach d,$(TEST_DIRS),$(MAKE) -C $(d) &&) true

deps:
	scripts/deps

# Only touch apt when something is missing, so a configured machine builds offline.
deps-if-missing:
	@scripts/deps --check || scripts/deps

test: all
	tests/run

test-debug: all
	scripts/build-debug-kernel
	scripts/build-debug-module
	tests/run --debug-kernel

stress: all
	tests/vm/run --name stress -- tests/stress/run $(STRESS_SECONDS)

# the targets need clang's fuzzer runtime, nothing of the kernel side
fuzz: deps-if-missing
	$(MAKE) -C tests/fuzz run FUZZ_SECONDS=$(FUZZ_SECONDS)

bench: all
	tests/bench/run

demo: all
	tests/vm/run --timeout 0 -- tests/demo/guest

include install.mk

clean:
	$(if $(KDIR),$(MAKE) -C kmod $(KDIR_ARG) clean,rm -f kmod/*.o kmod/*.ko kmod/*.mod kmod/*.mod.c kmod/.*.cmd kmod/modules.order kmod/Module.symvers)
	rm -rf build
