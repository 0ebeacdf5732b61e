# eqprof top-level build.  GNU make.
#
#   make              build build/eqprof
#   make check        install missing dependencies, build, run every test
#   make check-plain  the same tests against the plain build only (a third of
#                     the time; the sanitizer runs are left to make check)
#                     (plain and under ASan+UBSan), print "N passed, N failed"
#   make demo         run the built-in study and write a report
#   make bench        print performance figures (never pass/fail on time)
#   make install PREFIX=/usr/local
#   make viewer       the page of `eqprof view` (needs Node.js and npm)
#
# Each folder describes itself in a module.mk fragment that appends to the
# variables below; this file holds only the generic rules.  Build output goes
# to $(B) (default build/); a sanitizer build of the same tree goes to
# $(B)/san.  Use a separate B= to build several trees side by side.

B        ?= build
PREFIX   ?= /usr/local
CC       ?= cc
SAN      ?=
V        ?=

CSTD      = -std=c11 -D_GNU_SOURCE
WARN      = -Wall -Wextra -Werror -Wno-unused-parameter
OPT      ?= -O2 -g
INCLUDES  = -I. -Iisr/core -Ianalysis -Ihost -Ifirmware/portable -Isim
SANITIZE  = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
SANFLAGS  = $(if $(SAN),$(SANITIZE))
CFLAGS_ALL = $(CSTD) $(WARN) $(OPT) $(INCLUDES) $(SANFLAGS) $(EXTRA_CFLAGS) -MMD -MP
LDFLAGS_ALL = $(SANFLAGS) $(EXTRA_LDFLAGS)
LDLIBS_ALL  = -ldw -lelf -lcapstone -lz -liberty -lm -lpthread $(EXTRA_LDLIBS)

.DEFAULT_GOAL := all
.SECONDARY:          # keep objects of tests: no rebuild on every make check

# Filled in by module.mk fragments.
CORE_SRCS     :=   # isr/core: freestanding sample ring (host build)
FW_SRCS       :=   # firmware/portable: counting, jitter, compensation, protocol
ANALYSIS_SRCS :=   # analysis/: file format, symbols, profiles, power, plots
SIM_SRCS      :=   # sim/: whole-system simulator
HOST_SRCS     :=   # host/: eqprof main, builtins, transports
UNIT_TESTS    :=   # names of cmocka tests: test/<dir>/<name>.c -> $(B)/test/<dir>/<name>
UNIT_TEST_SRCS_EXTRA :=
INTEG_TESTS   :=   # scripts printing TAP ("ok N - what" / "not ok N - what")
INTEG_SAN_TESTS :=  # integration tests that also run against the sanitizer build
BENCHES       :=   # scripts or programs run by make bench
CHECK_EXTRA   :=   # make targets run by check before the tests (e.g. firmware)
EXTRA_PROGS   :=   # test, fuzz and bench programs (built by check and bench, not by `make`)

# The libraries, named before the fragments are read, so that their rules
# can list them as prerequisites (a parallel build links after they exist).
LIBCORE     = $(B)/libeqcore.a
LIBFW       = $(B)/libeqfw.a
LIBANALYSIS = $(B)/libeqanalysis.a
LIBSIM      = $(B)/libeqsim.a
LIBS        = $(LIBSIM) $(LIBANALYSIS) $(LIBFW) $(LIBCORE)

# The fuzzers (clang's libFuzzer, with ASan and UBSan): every source is
# compiled once into $(B)/fuzzobj with the fuzzer's instrumentation and
# shared by the targets that link it (one clang command a target compiled
# the analysis library four times over: 265 s of the plain build's 333 s
# of CPU); the .eqp reader once more with its CRC checks skipped
# (EQP_FUZZING, $(B)/fuzzobj-nocrc) for the targets that fuzz the contents
# of accepted recordings.  A target: $(call fuzzobj,SRCS) or
# $(call fuzzobj_nocrc,SRCS) as prerequisites, $(call fuzz_link,LIBS) as
# its recipe.
fuzzobj = $(patsubst %.c,$(B)/fuzzobj/%.o,$(1))
fuzzobj_nocrc = $(patsubst $(B)/fuzzobj/analysis/file/eqp_read.o,$(B)/fuzzobj-nocrc/analysis/file/eqp_read.o,$(call fuzzobj,$(1)))
FUZZ_CFLAGS = $(CSTD) -g -O1 -fsanitize=fuzzer-no-link,address,undefined $(INCLUDES)
define fuzz_link
@mkdir -p $(dir $@)
$(if $(Q),@echo "  FUZZ    $@")
$(Q)clang -g -fsanitize=fuzzer,address,undefined -o $@ $(filter %.o %.a,$^) $(1)
endef

include $(sort $(wildcard */module.mk */*/module.mk test/*/module.mk))

Q = $(if $(V),,@)
obj = $(patsubst %.c,$(B)/obj/%.o,$(1))

EQPROF      = $(B)/eqprof

.PHONY: all check check-plain check-build demo bench install clean deps fuzz
all: $(EQPROF)

$(B)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS_ALL) -c $< -o $@

$(B)/fuzzobj/%.o: %.c
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  FUZZCC  $<")
	$(Q)clang $(FUZZ_CFLAGS) $(EXTRA_CFLAGS) -MMD -MP -c $< -o $@

$(B)/fuzzobj-nocrc/%.o: %.c
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  FUZZCC  $< (CRCs skipped)")
	$(Q)clang $(FUZZ_CFLAGS) -DEQP_FUZZING=1 $(EXTRA_CFLAGS) -MMD -MP -c $< -o $@

define static_lib
$(1): $(call obj,$(2))
	@mkdir -p $$(dir $$@)
	$$(if $$(Q),@echo "  AR      $$@")
	$$(Q)rm -f $$@ && ar rcs $$@ $$^
endef
$(eval $(call static_lib,$(LIBCORE),$(CORE_SRCS)))
$(eval $(call static_lib,$(LIBFW),$(FW_SRCS)))
$(eval $(call static_lib,$(LIBANALYSIS),$(ANALYSIS_SRCS)))
$(eval $(call static_lib,$(LIBSIM),$(SIM_SRCS)))

$(EQPROF): $(call obj,$(HOST_SRCS)) $(LIBS)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS_ALL) -o $@ $(call obj,$(HOST_SRCS)) $(LIBS) $(LDLIBS_ALL)

# cmocka unit tests: test/foo/bar.c links every library.
UNIT_BINS = $(patsubst %,$(B)/%,$(UNIT_TESTS))
$(B)/test/%: $(B)/obj/test/%.o $(LIBS)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS_ALL) -o $@ $< $(LIBS) -lcmocka $(LDLIBS_ALL)

-include $(shell find $(B)/obj $(B)/fuzzobj $(B)/fuzzobj-nocrc -name '*.d' 2>/dev/null)

deps:
	@scripts/deps

# The fuzzers are built by clang with their own instrumentation whatever the
# build, and run against the plain one only: the sanitizer builds skip them,
# and the bench programs, which no test runs.
SAN_SKIP = $(B)/fuzz/% $(B)/test/firmware/proto_fuzz $(B)/bench/%
check-build: $(EQPROF) $(UNIT_BINS) $(if $(SAN),$(filter-out $(SAN_SKIP),$(EXTRA_PROGS)),$(EXTRA_PROGS))

# The whole suite: the plain build (and CHECK_EXTRA, in the same parallel
# make: they ran one after another while a CPU idled), then its tests while the sanitizer
# build (clang's ASan+UBSan; its UBSan also catches float-to-integer
# overflow, which gcc's does not) is made beside them; its tests start when
# it is made: every unit test and the integration tests of INTEG_SAN_TESTS
# (see scripts/run-tests).
check: deps
	@$(MAKE) --no-print-directory -j$$(nproc) check-build $(CHECK_EXTRA) B=$(B)
	@scripts/run-tests --build $(B) --clang-san $(B)/clang-san \
		--build-later $(B)/clang-san '$(MAKE) --no-print-directory -j$(shell nproc) check-build B=$(B)/clang-san SAN=1 CC=clang' \
		--unit "$(UNIT_TESTS)" --integ "$(INTEG_TESTS)" --integ-san "$(INTEG_SAN_TESTS)"

# Every test once, against the plain build: a quicker gate while working.
check-plain: deps
	@$(MAKE) --no-print-directory -j$$(nproc) check-build $(CHECK_EXTRA) B=$(B)
	@scripts/run-tests --build $(B) --unit "$(UNIT_TESTS)" --integ "$(INTEG_TESTS)"

bench: deps
	@$(MAKE) --no-print-directory -j$$(nproc) $(EQPROF) $(EXTRA_PROGS) B=$(B) OPT="-O2 -g"
	@set -e; for b in $(BENCHES); do echo "== $$b"; B=$(B) EQPROF=$(EQPROF) $$b; done

# The demo script belongs to the simulator (sim/); it prints where its report is.
demo:
	@scripts/deps build
	@$(MAKE) --no-print-directory -j$$(nproc) all B=$(B)
	@if command -v node >/dev/null && command -v npm >/dev/null; then \
		$(MAKE) --no-print-directory viewer B=$(B); fi
	@B=$(B) EQPROF=$(EQPROF) scripts/demo

# The viewer page (eqprof view) is built when Node.js and npm are there;
# without them eqprof is installed alone and `eqprof view` says so.
install: $(EQPROF)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/doc/eqprof/img $(DESTDIR)$(PREFIX)/share/eqprof
	install -m 755 $(EQPROF) $(DESTDIR)$(PREFIX)/bin/eqprof
	install -m 644 firmware/60-eqprof-board.rules $(DESTDIR)$(PREFIX)/share/eqprof/
	install -d $(DESTDIR)$(PREFIX)/share/bash-completion/completions
	install -m 644 host/eqprof-completion.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/eqprof
	@if command -v node >/dev/null && command -v npm >/dev/null; then \
		$(MAKE) --no-print-directory viewer B=$(B) && \
		install -d $(DESTDIR)$(PREFIX)/share/eqprof && \
		install -m 644 $(B)/viewer/viewer.html $(DESTDIR)$(PREFIX)/share/eqprof/viewer.html; \
	else echo "make install: no Node.js/npm: the viewer page (eqprof view) is not installed; 'make viewer' builds it" >&2; fi
	install -m 644 README.md docs/*.md $(DESTDIR)$(PREFIX)/share/doc/eqprof/
	install -m 644 docs/img/* $(DESTDIR)$(PREFIX)/share/doc/eqprof/img/

clean:
	rm -rf $(B)
