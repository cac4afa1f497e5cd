# stablesel - build, test, install dependencies.
#
#   make deps     install/check Debian packages (scripts/deps.sh)
#   make          build ./stablesel
#   make test     build and run the whole test suite (cmocka) and the
#                 outputs on DPDK against scripts/identity.sums, JOBS at a
#                 time (default: the CPUs, or make's -jN)
#   make asan     the test suite under AddressSanitizer + UBSan
#   make valgrind the main commands under valgrind over real commits
#   make bench    benchmarks in bench/ (need ../shared/data)
#   make default-model   retrain models/default.model on ../shared/data
#   make install  the binary, a man page per command and the bash completion
#                 under $(DESTDIR)$(PREFIX) (PREFIX /usr/local); make uninstall

PKGS     := libgit2 gmime-3.0 libzstd zlib sqlite3 cmocka
CC       ?= cc
OPT      ?= -O2
CFLAGS   ?= $(OPT) -g
# project flags stay even when CFLAGS is given on the command line (make asan)
# -fno-math-errno: nothing reads errno after a math function, and with it
# GCC can inline and vectorise sqrtf (Adam, nn/nn_params.c)
SS_CFLAGS := -std=c11 -D_GNU_SOURCE -Wall -Wextra -Isrc -pthread -fno-math-errno
# WERROR=1 turns every warning into an error (what CI builds with, .ci/run)
ifeq ($(WERROR),1)
SS_CFLAGS += -Werror
endif
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs libgit2 gmime-3.0 libzstd zlib sqlite3 2>/dev/null)
LIBS     := $(PKG_LIBS) -llinear -lopenblas -lm -lpthread
TEST_LIBS := $(shell pkg-config --libs cmocka 2>/dev/null)
BUILD    ?= build
# make test compares the outputs on DPDK with scripts/identity.sums
# (scripts/identity.sh); the sanitizer build leaves it out (IDENTITY=0)
IDENTITY ?= 1
# tests run at once (scripts/run-tests.sh): JOBS=N, else make's own -jN,
# else the number of CPUs; their logs and times stay in $(BUILD)/test-logs
MAKE_J    = $(patsubst -j%,%,$(filter -j%,$(MAKEFLAGS)))
JOBS     ?= $(if $(MAKE_J),$(lastword $(MAKE_J)),$(shell getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2))
BIN      ?= stablesel

CORE_SRC := $(filter-out src/stablesel.c src/cli/% src/cmd/%,$(shell find src -name '*.c' | sort))
CLI_SRC  := src/stablesel.c $(sort $(wildcard src/cli/*.c src/cmd/*.c))
CORE_OBJ := $(CORE_SRC:%.c=$(BUILD)/%.o)
CLI_OBJ  := $(CLI_SRC:%.c=$(BUILD)/%.o)
TEST_SRC := $(sort $(wildcard tests/test_*.c))
TEST_BIN := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)
VERSION  := $(shell cat VERSION 2>/dev/null || echo 0.0.0)

all: check-deps $(BIN)

check-deps:
	@scripts/deps.sh --check

deps:
	scripts/deps.sh

$(BIN): $(CLI_OBJ) $(BUILD)/libstablesel.a
	$(CC) $(CFLAGS) $(SS_CFLAGS) -o $@ $(CLI_OBJ) $(BUILD)/libstablesel.a $(LIBS) $(LDFLAGS)

$(BUILD)/libstablesel.a: $(CORE_OBJ)
	@rm -f $@
	ar rcs $@ $^

# each object depends on the headers it includes: the compiler writes them
# into $(BUILD)/%.d (-MMD), with an empty rule per header (-MP) so that a
# header removed does not stop the build; an object without its .d (built
# before) is built again once
$(BUILD)/%.o: %.c $(BUILD)/%.d
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SS_CFLAGS) $(PKG_CFLAGS) -MMD -MP -DSS_VERSION='"$(VERSION)"' -c -o $@ $<

DEP_FILES := $(CORE_OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(TEST_BIN:=.d)
$(DEP_FILES):
-include $(wildcard $(DEP_FILES))

$(BUILD)/tests/%: tests/%.c $(BUILD)/tests/%.d $(BUILD)/libstablesel.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SS_CFLAGS) $(PKG_CFLAGS) -MMD -MP -Itests -o $@ $< $(BUILD)/libstablesel.a $(LIBS) $(TEST_LIBS) $(LDFLAGS)

# the embedded model is .incbin'd: rebuild when it changes
$(BUILD)/src/models/default_model.o: $(wildcard models/default.model)
# and so is the table of Linux releases
$(BUILD)/src/history/hist_linux.o: data/linux-releases.tsv

tests: $(TEST_BIN)

test: deps all tests
	@scripts/layers.sh
	@scripts/transport.sh
	@JOBS='$(JOBS)' LOGS=$(BUILD)/test-logs SS_BIN=./$(BIN) SS_BUILD=$(BUILD) scripts/run-tests.sh $(TEST_BIN) \
	  $(if $(filter 1,$(IDENTITY)),scripts/identity.sh)

# The sanitizer build lives in build-asan/ (binary build-asan/stablesel, which
# the tests run through SS_BIN); ./stablesel is left alone.  Any report
# fails the run: UBSan does not recover, LeakSanitizer exits non-zero.
asan:
	$(MAKE) BUILD=build-asan BIN=build-asan/stablesel OPT=-O1 IDENTITY=0 \
	  CFLAGS='-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined' \
	  LDFLAGS='-fsanitize=address,undefined' test

# What CI runs: the README's test command, then the same suite under the
# sanitizers.
ci: test asan

valgrind: all
	scripts/valgrind.sh

bench: all
	bench/run.sh

default-model: all
	scripts/train-default.sh

# Man pages and the bash completion come from the commands' option tables
# (src/cli/parse-options.h): "stablesel help --man CMD", "--completion-bash".
PREFIX   ?= /usr/local
BINDIR   := $(PREFIX)/bin
MANDIR   := $(PREFIX)/share/man/man1
COMPDIR  := $(PREFIX)/share/bash-completion/completions

doc: $(BIN)
	@rm -rf $(BUILD)/man && mkdir -p $(BUILD)/man
	set -e; ./$(BIN) help --man > $(BUILD)/man/stablesel.1; \
	for c in $$(./$(BIN) --list-commands); do \
	  ./$(BIN) help --man $$c > $(BUILD)/man/stablesel-$$c.1; done
	./$(BIN) --completion-bash > $(BUILD)/stablesel.bash

install: all doc
	install -d '$(DESTDIR)$(BINDIR)' '$(DESTDIR)$(MANDIR)' '$(DESTDIR)$(COMPDIR)'
	install -m 755 $(BIN) '$(DESTDIR)$(BINDIR)/stablesel'
	install -m 644 $(BUILD)/man/*.1 '$(DESTDIR)$(MANDIR)/'
	install -m 644 $(BUILD)/stablesel.bash '$(DESTDIR)$(COMPDIR)/stablesel'

uninstall:
	rm -f '$(DESTDIR)$(BINDIR)/stablesel' '$(DESTDIR)$(COMPDIR)/stablesel' \
	  '$(DESTDIR)$(MANDIR)/stablesel.1' '$(DESTDIR)$(MANDIR)'/stablesel-*.1

clean:
	rm -rf build build-asan stablesel

.PHONY: all check-deps deps tests test asan ci valgrind bench clean default-model doc install uninstall

# Fuzzing (fuzz/README.md): libFuzzer targets built with clang, ASan and
# UBSan into build-fuzz/; `make fuzz FUZZ_SECONDS=N` runs each for N s.
FUZZ_SECONDS ?= 60
FUZZ_CC      ?= clang
FUZZ_CFLAGS  := -O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer \
  -fno-sanitize-recover=undefined -std=c11 -D_GNU_SOURCE -Wall -Wextra -Isrc -pthread
FUZZ_BIN     := $(patsubst fuzz/%.c,build-fuzz/fuzz/%,$(sort $(wildcard fuzz/fuzz_*.c)))

fuzz-build:
	$(MAKE) BUILD=build-fuzz CC=$(FUZZ_CC) CFLAGS='$(FUZZ_CFLAGS)' build-fuzz/libstablesel.a
	$(MAKE) $(FUZZ_BIN)

build-fuzz/fuzz/%: fuzz/%.c fuzz/fuzz_util.h build-fuzz/libstablesel.a
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(subst fuzzer-no-link,fuzzer,$(FUZZ_CFLAGS)) $(PKG_CFLAGS) -Ifuzz -o $@ $< \
	  build-fuzz/libstablesel.a $(LIBS)

fuzz: fuzz-build
	nice -n 19 fuzz/run.sh $(FUZZ_SECONDS)

.PHONY: fuzz fuzz-build
