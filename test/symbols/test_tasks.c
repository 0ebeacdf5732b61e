/*
 * test_tasks.c - processes over time: an exec in place retires the old
 * address space at the exec's time (both programs at the same addresses, as
 * two non-PIE binaries are), a forked child has its own space from its
 * fork, a thread's own name is its own and not its process's, a pid used
 * twice is two processes; rows by pid and by thread; old files whose maps
 * carry no begin time still read.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "file/eqp.h"
#include "profile/profile.h"
#include "symbols/symbolize.h"

/* Two non-PIE programs: same addresses, different code. */
static const char maps_a[] = "400000-402000 r-xp 00000000 00:00 0 /bin/a\n";
static const char maps_b[] = "400000-402000 r-xp 00000000 00:00 0 /bin/b\n";
static const struct eqp_symbol syms_a[] = { { 0x1000, 0x1000, "in_a" } };
static const struct eqp_symbol syms_b[] = { { 0x1000, 0x1000, "in_b" } };

struct fixture {
	char path[64];
	struct eqp_file *f;
	struct eq_symbolizer *s;
};

static struct eq_sample smp(uint64_t time, uint64_t pc, uint32_t pid, uint32_t tid)
{
	return (struct eq_sample){ .time = time, .pc = pc, .pid = pid, .tid = tid };
}

static void write_file(struct fixture *fx, int old_style)
{
	struct eqp_meta meta = { .mode = EQP_MODE_TIME, .nominal_hz = 1000, .clock_hz = 1e9,
				 .target = "unit test" };
	struct eqp_symtab a = { "/bin/a", 0, 1, syms_a }, b = { "/bin/b", 0, 1, syms_b };
	struct eq_sample v[64];
	struct eq_error err;
	struct eqp_writer *w;
	size_t n = 0;
	int i;

	snprintf(fx->path, sizeof(fx->path), "/tmp/test_tasks.%d.eqp", (int)getpid());
	w = eqp_create(fx->path, &meta, &err);
	assert_non_null(w);
	assert_int_equal(eqp_add_symtab(w, &a, &err), 0);
	assert_int_equal(eqp_add_symtab(w, &b, &err), 0);
	if (old_style) {
		/* One space, names with any time: as import and sim write. */
		assert_int_equal(eqp_add_maps(w, 10, 0, maps_a, strlen(maps_a), &err), 0);
		assert_int_equal(eqp_add_comm(w, 10, 500, "a", &err), 0);
	} else {
		/* pid 10 runs a from 100, execs b at 1000 (a's map written
		 * twice, as a recorder rewrites a growing map); 10's thread 12
		 * names itself at 300; pid 11 forks from 10 at 200 (a's map) and
		 * ends; pid 11 comes back at 2000 as a fork of b. */
		assert_int_equal(eqp_add_comm(w, 10, 100, "a", &err), 0);
		assert_int_equal(eqp_add_maps(w, 10, 100, "", 0, &err), 0);
		assert_int_equal(eqp_add_maps(w, 11, 200, maps_a, strlen(maps_a), &err), 0);
		assert_int_equal(eqp_add_comm(w, 11, 200, "a", &err), 0);
		assert_int_equal(eqp_add_thread_name(w, 10, 12, 300, "worker", &err), 0);
		assert_int_equal(eqp_add_maps(w, 10, 100, maps_a, strlen(maps_a), &err), 0);
		assert_int_equal(eqp_add_comm(w, 10, 1000, "b", &err), 0);
		assert_int_equal(eqp_add_maps(w, 10, 1000, maps_b, strlen(maps_b), &err), 0);
		assert_int_equal(eqp_add_maps(w, 11, 2000, maps_b, strlen(maps_b), &err), 0);
		assert_int_equal(eqp_add_comm(w, 11, 2000, "b", &err), 0);
	}
	for (i = 0; i < 10; i++)
		v[n++] = smp(150 + (uint64_t)i, 0x401000, 10, 10);   /* a */
	for (i = 0; i < 5; i++)
		v[n++] = smp(400 + (uint64_t)i, 0x401000, 10, 12);   /* a, thread "worker" */
	for (i = 0; i < 7; i++)
		v[n++] = smp(250 + (uint64_t)i, 0x401000, 11, 11);   /* forked child of a */
	for (i = 0; i < 20; i++)
		v[n++] = smp(1500 + (uint64_t)i, 0x401000, 10, 10);  /* b, after the exec */
	for (i = 0; i < 3; i++)
		v[n++] = smp(2500 + (uint64_t)i, 0x401000, 11, 11);  /* the second pid 11 */
	assert_int_equal(eqp_add_samples(w, v, n, &err), 0);
	assert_int_equal(eqp_commit(w, &err), 0);
	fx->f = eqp_open(fx->path, &err);
	assert_non_null(fx->f);
	fx->s = eq_sym_new(fx->f, NULL, &err);
	assert_non_null(fx->s);
}

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));

	write_file(fx, 0);
	*state = fx;
	return 0;
}

static int setup_old(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));

	write_file(fx, 1);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	eq_sym_free(fx->s);
	eqp_close(fx->f);
	unlink(fx->path);
	free(fx);
	return 0;
}

static const struct eq_loc *at(void **state, uint64_t time, uint32_t pid)
{
	struct fixture *fx = *state;
	struct eq_sample s = smp(time, 0x401000, pid, pid);

	return eq_sym_lookup(fx->s, &s);
}

static void exec_retires_old_maps(void **state)
{
	assert_true(eq_sym_multi_space(((struct fixture *)*state)->s));
	assert_string_equal(at(state, 150, 10)->proc, "in_a");
	assert_string_equal(at(state, 150, 10)->exe, "a");
	assert_string_equal(at(state, 999, 10)->proc, "in_a");
	assert_string_equal(at(state, 1000, 10)->proc, "in_b");
	assert_string_equal(at(state, 1000, 10)->exe, "b");
	assert_string_equal(at(state, 5000, 10)->proc, "in_b");
	/* before any space began: the first (older files stamp maps late) */
	assert_string_equal(at(state, 5, 10)->proc, "in_a");
}

static void fork_and_pid_reuse(void **state)
{
	assert_string_equal(at(state, 250, 11)->proc, "in_a");
	assert_string_equal(at(state, 250, 11)->exe, "a");
	assert_string_equal(at(state, 2500, 11)->proc, "in_b");
	assert_string_equal(at(state, 2500, 11)->exe, "b");
	/* a pid the recording never named: its number */
	assert_string_equal(at(state, 10, 99)->exe, "pid 99");
	assert_int_equal(at(state, 10, 99)->kind, EQ_LOC_NO_MODULE);
}

static void thread_names(void **state)
{
	struct fixture *fx = *state;
	struct eq_sample worker = smp(400, 0x401000, 10, 12), main_ = smp(400, 0x401000, 10, 10);
	struct eq_sample later = smp(1500, 0x401000, 10, 10), idle = smp(1, 0, 0, 0);

	assert_string_equal(eq_sym_thread_name(fx->s, &worker), "worker");
	assert_string_equal(eq_sym_thread_name(fx->s, &main_), "a");
	assert_string_equal(eq_sym_thread_name(fx->s, &later), "b");
	assert_string_equal(eq_sym_thread_name(fx->s, &idle), "[idle]");
	/* the process keeps its own name */
	assert_string_equal(eq_sym_lookup(fx->s, &worker)->exe, "a");
}

static uint64_t row(const struct eq_profile *p, const char *name)
{
	const struct eq_row *r = eq_profile_find(p, name, NULL);

	if (!r)
		fail_msg("no row %s", name);
	return r->samples;
}

static void rows_by_pid_thread_proc(void **state)
{
	struct fixture *fx = *state;
	struct eq_error err;
	struct eq_profile *p = eq_profile_build(fx->f, fx->s, EQ_BY_PID, 0, &err);

	assert_non_null(p);
	assert_int_equal(p->nrows, 4);
	assert_int_equal(row(p, "10:a"), 15);
	assert_int_equal(row(p, "10:b"), 20);
	assert_int_equal(row(p, "11:a"), 7);
	assert_int_equal(row(p, "11:b"), 3);
	assert_int_equal(eq_profile_find(p, "10:a", NULL)->pid, 10);
	eq_profile_free(p);
	p = eq_profile_build(fx->f, fx->s, EQ_BY_THREAD, 0, &err);
	assert_non_null(p);
	assert_int_equal(row(p, "10:a"), 10);
	assert_int_equal(row(p, "12:worker"), 5);
	assert_string_equal(eq_profile_find(p, "12:worker", NULL)->module, "10:a");
	assert_int_equal(eq_profile_find(p, "12:worker", NULL)->tid, 12);
	assert_int_equal(row(p, "10:b"), 20);
	eq_profile_free(p);
	p = eq_profile_build(fx->f, fx->s, EQ_BY_PROC, 0, &err);
	assert_non_null(p);
	assert_int_equal(row(p, "in_a"), 22);
	assert_int_equal(row(p, "in_b"), 23);
	eq_profile_free(p);
	p = eq_profile_build(fx->f, fx->s, EQ_BY_EXE, 0, &err);
	assert_non_null(p);
	assert_int_equal(row(p, "a"), 22);
	assert_int_equal(row(p, "b"), 23);
	eq_profile_free(p);
}

static void old_files_read(void **state)
{
	struct fixture *fx = *state;
	struct eq_sample late = smp(1500, 0x401000, 10, 10);

	assert_false(eq_sym_multi_space(fx->s));
	assert_string_equal(eq_sym_lookup(fx->s, &late)->proc, "in_a");
	assert_string_equal(eq_sym_lookup(fx->s, &late)->exe, "a");
	assert_string_equal(at(state, 1, 10)->exe, "a");
}

static void by_parse(void **state)
{
	struct eq_error err;
	enum eq_by by;

	(void)state;
	assert_int_equal(eq_by_parse("thread", &by, &err), 0);
	assert_int_equal(by, EQ_BY_THREAD);
	assert_int_equal(eq_by_parse("pid", &by, &err), 0);
	assert_int_equal(by, EQ_BY_PID);
	assert_string_equal(eq_by_name(EQ_BY_THREAD), "thread");
	assert_int_equal(eq_by_parse("tid", &by, &err), -1);
	assert_non_null(strstr(err.msg, "--by tid"));
	assert_non_null(strstr(err.msg, "thread"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(exec_retires_old_maps, setup, teardown),
		cmocka_unit_test_setup_teardown(fork_and_pid_reuse, setup, teardown),
		cmocka_unit_test_setup_teardown(thread_names, setup, teardown),
		cmocka_unit_test_setup_teardown(rows_by_pid_thread_proc, setup, teardown),
		cmocka_unit_test_setup_teardown(old_files_read, setup_old, teardown),
		cmocka_unit_test(by_parse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
