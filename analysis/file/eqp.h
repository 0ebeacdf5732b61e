/*
 * eqp.h - the .eqp recording file: one reader and one writer for all of eqprof.
 *
 * A recording is a fixed file header followed by self-describing chunks
 * (type, length, payload, CRC-32).  The layout is specified in docs/format.md.
 * Writers (import, record, sim) write to a temporary name and rename on
 * commit, so an existing output is never left half-written.  The reader checks
 * every length, offset and checksum: a corrupt file is refused with the chunk
 * and byte offset named; a truncated file (no END chunk, or a partial last
 * chunk) is read up to its last complete chunk and eqp_warning() says so.
 *
 * Samples are read in place from a read-only mapping of the file: a sample
 * chunk is an array of struct eq_sample that the caller walks directly.
 */
#ifndef EQP_H
#define EQP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util/eq_error.h"
#include "eq_sample.h"

/* What record writes and report reads when no file is named (perf.data's role). */
#define EQ_DEFAULT_RECORDING "eqprof.eqp"

enum eqp_mode {
	EQP_MODE_ENERGY = 1, /* one sample per energy quantum (board interrupts) */
	EQP_MODE_TIME = 2,   /* one sample per timer tick (jittered timer) */
};

/* What a recording says about itself (the HEAD chunk). */
struct eqp_meta {
	enum eqp_mode mode;
	double quantum_j;     /* energy mode: joules per sample; 0 = unknown (shares only) */
	double nominal_hz;    /* time mode: mean sampling rate; energy mode: 0 */
	double clock_hz;      /* target clock ticks per second (1e9 when time is in ns) */
	int64_t start_unix_ns;/* wall-clock time of the first sample, 0 if unknown */
	const char *target;   /* free text: "iPAQ H3630, PocketPC", "x86_64 Linux 6.1" */
	const char *extra;    /* more "key=value\n" lines (command, host, scenario...); may be NULL */
};

/* One symbol of an embedded symbol table. */
struct eqp_symbol {
	uint64_t addr;        /* module-relative for files, absolute for [kernel.kallsyms] */
	uint64_t size;        /* 0 = up to the next symbol */
	const char *name;
};

/* An embedded symbol table: for modules with no ELF on the host (simulated
 * programs, a target's kernel from kallsyms). */
struct eqp_symtab {
	const char *module;   /* path as it appears in the maps, or "[kernel.kallsyms]" */
	int absolute;         /* 1: addresses are absolute (kernel); 0: offsets into the file */
	size_t nsyms;
	const struct eqp_symbol *syms; /* sorted by addr */
};

struct eqp_maps {
	uint32_t pid;
	uint64_t time;        /* target clock when this address space began (the
				 process's exec or fork; 0 = before the
				 recording); a recorder rewrites a growing map
				 with the same time, so the last chunk of a
				 (pid, time) is the most complete */
	const char *text;     /* /proc/PID/maps format, NUL-terminated */
	size_t len;
};

struct eqp_comm {
	uint32_t pid;
	uint32_t tid;         /* 0 or pid: the process's name; else the name of
				 thread tid only (a thread that named itself) */
	uint64_t time;
	const char *name;
};

struct eqp_lost {
	uint32_t source;      /* ring or CPU the drops happened in */
	uint64_t count;
};

struct eqp_marker {
	uint64_t time;        /* target clock */
	const char *label;
};

/* The board: header once, then one record per quantum it counted. */
struct eqp_board_info {
	double clock_hz;      /* board timestamp ticks per second */
	double e_min_j;       /* energy of one front-end pulse at the nominal voltage */
	uint32_t quantum_pulses; /* mean preload N */
	uint32_t jitter_pct;  /* +-J % */
	uint32_t vcomp;       /* 1 when voltage compensation was on */
	const char *firmware; /* firmware version text */
	double vb_nominal_v;  /* battery voltage E_min refers to; 0 = unknown */
	double dead_time_s;   /* front-end dead time per pulse (charge not counted); 0 = unknown */
	/* A board log whose board reset writes one BINF per segment (docs/format.md). */
	uint32_t segment;     /* 0, 1, ...: this chunk starts segment n */
	uint32_t boot_cause;  /* reset cause (MCUSR) of the boot that began it; 0 = none seen */
	uint64_t time_offset; /* board ticks added to this segment's record times (its clock
				 restarted at the reset): times keep growing across segments */
};

struct eqp_board_rec {        /* 24 bytes, little-endian, stored as is */
	uint64_t time;        /* board clock ticks at the IRQ edge */
	uint32_t seq;         /* quantum number, counts even when records were dropped */
	uint32_t pulses;      /* preload used: pulses in this quantum */
	uint32_t vbat_uv;     /* battery-terminal voltage, microvolts */
	uint16_t flags;       /* EQP_BOARD_F_* */
	uint16_t reserved;
};
#define EQP_BOARD_F_DROPPED 0x1 /* records were dropped before this one */
#define EQP_BOARD_F_LATE    0x2 /* preload was set up late (quantum overran) */
#define EQP_BOARD_F_VCLAMP  0x4 /* battery voltage outside the compensation range: clamped */

/* A sample's call chain: the return addresses of its callers, innermost
 * first: nkernel kernel frames, then nuser user frames (the sample's own pc
 * is not repeated).  A chain of 0 frames means no stack was taken. */
struct eqp_callchain {
	unsigned nkernel, nuser;
	const uint64_t *frames;
};
#define EQP_MAX_CHAIN_FRAMES 1024 /* of each kind (kernel, user) in one chain */

/*
 * The largest numbers a recording's header and board info may hold
 * (docs/format.md): beyond being finite, they keep every energy and power
 * derived from them finite (a quantum over one tick of the fastest clock is
 * at most 1e18 W).  No clock ticks faster than 1 THz, and no quantum is
 * worth more than 1 MJ (a phone's battery holds some 50 kJ).
 */
#define EQP_MAX_CLOCK_HZ   1e12
#define EQP_MAX_QUANTUM_J  1e6

/* A copy of a sample's user stack with its user registers (record
 * --call-graph dwarf), unwound offline from the DWARF CFI of the mapped
 * files (analysis/symbols/unwind.h), as perf does.  abi 0: the sample had
 * no user context (a kernel thread), nothing was copied. */
struct eqp_ustack {
	uint32_t arch;        /* ELF e_machine of the registers (EM_X86_64 = 62) */
	uint64_t regs_mask;   /* which registers: the kernel's sample_regs_user bits for arch */
	unsigned abi;         /* PERF_SAMPLE_REGS_ABI_*: 0 none, 1 32-bit, 2 64-bit */
	unsigned nregs;       /* registers in regs: popcount(regs_mask), 0 when abi is 0 */
	const uint64_t *regs; /* in the mask's bit order */
	uint32_t size;        /* bytes of stack copied, from the stack pointer upwards */
	const unsigned char *stack;
};
#define EQP_MAX_USTACK 65528u /* bytes of one stack copy (the kernel's own limit) */
#define EQP_MAX_USTACK_REGS 64
/*
 * A power-state change (PSTA chunk): from `time` on, `cpu` (or device) is in
 * the state `value` of kind `kind`.  Like Linux's power:cpu_frequency and
 * power:cpu_idle tracepoints; docs/format.md.
 */
struct eqp_pstate {           /* 16 bytes, little-endian, stored as is */
	uint64_t time;        /* target clock */
	uint16_t cpu;         /* CPU number (EQP_PS_FREQ, EQP_PS_IDLE) */
	uint16_t kind;        /* EQP_PS_* */
	uint32_t value;       /* FREQ: kHz; IDLE: 0 running, n idle in C-state n */
};
#define EQP_PS_FREQ 1         /* CPU clock, kHz */
#define EQP_PS_IDLE 2         /* CPU idle state: 0 = running (C0), n = Cn */

/*
 * A device request (DREQ chunk): a disk write, a network send...  issued at
 * `issue` by the code at pc in pid/tid, served until `complete`.  Device
 * names are the header's extra lines "device:N=NAME" (eqp_device_name).
 */
struct eqp_devreq {
	uint64_t issue, complete; /* target clock */
	uint64_t pc;          /* where it was issued (0: unknown) */
	uint32_t pid, tid;
	uint16_t device;      /* number: "device:N=NAME" names it */
	uint16_t flags;       /* EQP_DREQ_F_* */
	uint32_t bytes;
};
#define EQP_DREQ_F_WRITE 0x1  /* data to the device (else from it) */

/* How a board segment ended and what it lost (the BEND chunk, one per segment). */
struct eqp_board_end {
	uint32_t segment;
	uint32_t reason;         /* EQP_BOARD_END_* */
	uint64_t records;        /* records received and written */
	uint64_t missing;        /* records the board counted that are not in the file:
				    seq gaps plus quanta after the last record */
	uint64_t dropped;        /* of those, dropped by the board (UART queue full), per STATUS */
	uint64_t bad_frames;     /* frames from the board the host could not decode */
	uint64_t quanta;         /* quanta the board counted: its last STATUS, or the last
				    record's seq + 1 when that is more; 0 = none */
	uint64_t late;           /* LATE quanta (STATUS) */
	uint64_t late_unrecorded;/* LATE quanta whose record is missing */
	uint64_t board_rx_errors;/* frames the board refused plus its UART overruns (STATUS) */
	uint64_t stalls;         /* times the board went silent past the stall timeout */
	double stall_s;          /* seconds it was silent in those stalls */
};
enum {
	EQP_BOARD_END_STOP = 1,  /* stopped as asked (duration, count, signal) */
	EQP_BOARD_END_RESET = 2, /* the board reset (a new segment may follow) */
	EQP_BOARD_END_LINK = 3,  /* the link failed (device gone, cable pulled) */
	EQP_BOARD_END_SILENT = 4,/* the board stopped answering */
};

/* One segment of a board stream: its BINF, its records, its BEND if written. */
struct eqp_board_segment {
	struct eqp_board_info info;
	size_t first_record;     /* index for eqp_board_record_at() */
	size_t nrecords;
	int has_end;
	struct eqp_board_end end;
};

/*
 * An energy source read alongside the samples (`record -t --energy SOURCE`,
 * docs/energy-sources.md): one ESRC chunk per domain, then its readings in
 * ERDG chunks.  Types as analysis/energy/eseries.h's es_type: 1 counter,
 * 2 store, 3 power.
 */
struct eqp_edomain {
	uint32_t index;       /* 0, 1, ...: readings name their domain by it */
	uint32_t type;        /* 1 counter, 2 store, 3 power */
	double range;         /* counter: wraps after this many J; 0 = never */
	double resolution;    /* J (counter, store) or W (power); 0 = unknown */
	double update_s;      /* the update period the bounds use; 0 = unknown */
	const char *spec;     /* the source as --energy took it ("rapl:package-0") */
	const char *name;     /* "package-0", "BAT0", "ina3221:VDD_CPU" */
	const char *kind;     /* package, core, dram, battery, rail, ... */
	const char *path;     /* where it was read */
	const char *update_how; /* where update_s comes from ("" = unknown) */
};

struct eqp_ereading {         /* 32 bytes, little-endian, stored as is */
	uint64_t time;        /* target clock (the samples' clock) */
	double energy_j;      /* J the domain used since its first reading */
	double raw;           /* the value read: J (counter, store) or W (power) */
	uint32_t domain;      /* eqp_edomain.index */
	uint32_t flags;       /* EQP_EREAD_F_* */
};
#define EQP_EREAD_F_CHANGED 0x1 /* the value differs from the previous reading */

/* ---- writing ---------------------------------------------------------- */

struct eqp_writer;

/* Starts a recording that becomes `path` on eqp_commit(). */
struct eqp_writer *eqp_create(const char *path, const struct eqp_meta *meta,
			      struct eq_error *err);
/* EQP_W_RECORDING: samples that cannot be made again (record, board log).
 * The file is written under a visible temporary name ("PATH.tmp.PID",
 * eqp_writer_file()) that survives the process being killed, every chunk
 * but SAMP is pushed to the kernel at once, and eqp_flush() pushes the
 * samples in hand (call it about once a second).  Without the flag, a
 * killed writer leaves nothing (see outfile.h). */
#define EQP_W_RECORDING 0x1
struct eqp_writer *eqp_create_flags(const char *path, const struct eqp_meta *meta,
				    unsigned flags, struct eq_error *err);
/* Writes the samples in hand as a chunk and pushes everything to the kernel. */
int eqp_flush(struct eqp_writer *w, struct eq_error *err);
/* The name being written now (the temporary, until eqp_commit()). */
const char *eqp_writer_file(const struct eqp_writer *w);
/* GNU build-id (lowercase hex) of a mapped file when it was recorded: the
 * same as a "buildid:PATH" key in the header's extra lines, but written when
 * the file is first seen (a BIDS chunk), so a recorder need not know every
 * file before it starts. */
int eqp_add_buildid(struct eqp_writer *w, const char *path, const char *hex,
		    struct eq_error *err);
int eqp_add_samples(struct eqp_writer *w, const struct eq_sample *s, size_t n,
		    struct eq_error *err);
/* One sample with its call chain (a CHNS chunk follows each sample chunk of
 * a writer that was given chains; samples added without one get none). */
int eqp_add_sample_chain(struct eqp_writer *w, const struct eq_sample *s,
			 const struct eqp_callchain *cc, struct eq_error *err);
/* One sample with its user stack copy (and its call chain, cc may be NULL):
 * a USTK chunk follows each sample chunk (and its CHNS) of a writer that
 * was given stacks; every stack of one writer has the same arch and mask. */
int eqp_add_sample_stack(struct eqp_writer *w, const struct eq_sample *s,
			 const struct eqp_callchain *cc, const struct eqp_ustack *u,
			 struct eq_error *err);
int eqp_add_maps(struct eqp_writer *w, uint32_t pid, uint64_t time,
		 const char *text, size_t len, struct eq_error *err);
int eqp_add_comm(struct eqp_writer *w, uint32_t pid, uint64_t time,
		 const char *name, struct eq_error *err);
/* The name of one thread of pid (tid != pid), from time on. */
int eqp_add_thread_name(struct eqp_writer *w, uint32_t pid, uint32_t tid, uint64_t time,
			const char *name, struct eq_error *err);
int eqp_add_symtab(struct eqp_writer *w, const struct eqp_symtab *t,
		   struct eq_error *err);
/* The bytes of a module that is in no file (the kernel's vdso: an IMAG
 * chunk), under the name its maps give it ("[vdso]"), so offline
 * unwinding can read its call-frame information (at most 64 MiB). */
int eqp_add_image(struct eqp_writer *w, const char *module, const void *data, size_t len,
		  struct eq_error *err);
int eqp_add_lost(struct eqp_writer *w, uint32_t source, uint64_t count,
		 struct eq_error *err);
int eqp_add_marker(struct eqp_writer *w, uint64_t time, const char *label,
		   struct eq_error *err);
int eqp_add_board_info(struct eqp_writer *w, const struct eqp_board_info *b,
		       struct eq_error *err);
int eqp_add_board_records(struct eqp_writer *w, const struct eqp_board_rec *r,
			  size_t n, struct eq_error *err);
int eqp_add_board_end(struct eqp_writer *w, const struct eqp_board_end *e,
		      struct eq_error *err);
/* Power-state changes, in time order per CPU (PSTA chunks of at most
 * EQP_SAMPLES_PER_CHUNK events). */
int eqp_add_pstates(struct eqp_writer *w, const struct eqp_pstate *ps, size_t n,
		    struct eq_error *err);
/* Device requests (DREQ chunks of at most EQP_SAMPLES_PER_CHUNK). */
int eqp_add_devreqs(struct eqp_writer *w, const struct eqp_devreq *r, size_t n,
		    struct eq_error *err);
int eqp_add_energy_domain(struct eqp_writer *w, const struct eqp_edomain *d,
			  struct eq_error *err);
int eqp_add_energy_readings(struct eqp_writer *w, const struct eqp_ereading *r, size_t n,
			    struct eq_error *err);
/* Flushes, writes the END chunk, fsyncs and renames into place; frees w. */
int eqp_commit(struct eqp_writer *w, struct eq_error *err);
/* Removes the temporary file; frees w. */
void eqp_discard(struct eqp_writer *w);
/* Closes the file and leaves it under its temporary name, unfinished but
 * readable (a recording whose writer failed late); frees w. */
void eqp_abandon(struct eqp_writer *w);

/* ---- reading ---------------------------------------------------------- */

struct eqp_file;

struct eqp_file *eqp_open(const char *path, struct eq_error *err);
/*
 * The same, but the CRC of a SAMP chunk is checked when its samples are
 * first asked for (eqp_sample_chunk), while they are in the cache for the
 * pass that asked, instead of in a pass of its own; and a CHNS chunk's CRC
 * and the places of its chains when they are first asked for
 * (eqp_sample_callchain), just before that pass reads them.  Before it
 * prints anything made from the samples, the caller calls eqp_verify(),
 * which checks what is left and fails exactly where eqp_open() would have
 * failed.
 */
struct eqp_file *eqp_open_lazy(const char *path, struct eq_error *err);
/* Every SAMP and CHNS chunk not yet checked is checked: 0, or -1 with err
 * as eqp_open() would have given it (the first bad chunk).  Safe from
 * several threads, as eqp_sample_chunk() is. */
int eqp_verify(const struct eqp_file *f, struct eq_error *err);
/* Same checks over a memory image (fuzzing, tests); buf must outlive f. */
struct eqp_file *eqp_open_mem(const void *buf, size_t len, const char *name,
			      struct eq_error *err);
void eqp_close(struct eqp_file *f);

const char *eqp_path(const struct eqp_file *f);
const struct eqp_meta *eqp_meta(const struct eqp_file *f);
/* Value of "key" in the header's extra lines, or NULL. */
const char *eqp_meta_get(const struct eqp_file *f, const char *key);
/* NULL, or why the file was read only in part (truncated); the caller prints it. */
const char *eqp_warning(const struct eqp_file *f);

/* What the reader did not use, all zero for an intact recording: a partial
 * last chunk (a recording cut short), chunks of types this reader does not
 * know (a newer writer's), bytes after END.  Reports print it in their own
 * header and JSON (eqp_skipped_line(), eqp_skipped_json()). */
struct eqp_skipped {
	uint64_t chunks;      /* chunks not read */
	uint64_t bytes;       /* bytes not read: those chunks, and anything after END */
	uint64_t samples;     /* samples in a partial SAMP chunk (its count field) */
	int truncated;        /* cut short: a partial last chunk, or no END chunk */
};
const struct eqp_skipped *eqp_skipped(const struct eqp_file *f);
/* "1 chunk, 131092 bytes, 4096 samples (the recording was cut short)", or
 * "nothing" for an intact file; returns buf. */
const char *eqp_skipped_line(const struct eqp_skipped *s, char *buf, size_t size);
/* {"chunks": N, "bytes": N, "samples": N, "truncated": BOOL} */
void eqp_skipped_json(FILE *out, const struct eqp_skipped *s);
unsigned eqp_version(const struct eqp_file *f);

uint64_t eqp_nsamples(const struct eqp_file *f);
/* 0 when f holds at least one sample; else -1 with err saying so and, for
 * a recording cut short, where the file ends and what was read before
 * (every command that profiles samples refuses such a file alike). */
int eqp_require_samples(const struct eqp_file *f, struct eq_error *err);
size_t eqp_nsample_chunks(const struct eqp_file *f);
/* Chunk i's samples, in place (8-byte aligned); *n gets their number.  Of a
 * file from eqp_open_lazy(): checked now if not yet, returned even when bad
 * (eqp_verify() says so). */
const struct eq_sample *eqp_sample_chunk(const struct eqp_file *f, size_t i,
					 size_t *n);
/*
 * The same for one pass that checks the chunk as it goes, each piece while
 * it is in the cache for the pass's own work: the samples, unchecked, and in
 * *ck the checksum so far when the chunk is still to be checked.  The pass
 * gives every sample, in order, to eqp_chunk_check_feed() and then calls
 * eqp_chunk_check_end(): the chunk is then checked as eqp_sample_chunk()
 * checks it (eqp_verify() says whether it was bad).
 */
struct eqp_chunk_check {
	uint32_t crc;
	int on;                /* 0: checked already (or not lazily opened) */
};
const struct eq_sample *eqp_sample_chunk_unchecked(const struct eqp_file *f, size_t i,
						   size_t *n, struct eqp_chunk_check *ck);
void eqp_chunk_check_feed(struct eqp_chunk_check *ck, const struct eq_sample *s, size_t n);
void eqp_chunk_check_end(const struct eqp_file *f, size_t i, struct eqp_chunk_check *ck);
/* How many samples chunk i holds (0 past the last), without checking it. */
size_t eqp_sample_chunk_len(const struct eqp_file *f, size_t i);

/* 1 when some samples have call chains (CHNS chunks) or user stack copies
 * to unwind (USTK chunks, analysis/symbols/unwind.h). */
int eqp_has_callchains(const struct eqp_file *f);
/* 1 when some samples have user stack copies (USTK chunks). */
int eqp_has_ustacks(const struct eqp_file *f);
/* Sample i of sample chunk c: its stack copy into *u; returns 1, or 0 when
 * it has none (u->abi 0).  Pointers point into the file's mapping. */
int eqp_sample_ustack(const struct eqp_file *f, size_t c, size_t i, struct eqp_ustack *u);
/* Sample i of sample chunk c: its chain into *cc; returns its number of
 * frames (0: none recorded).  Frames point into the file's mapping.  Of a
 * file from eqp_open_lazy(): the chunk's chains are checked now if not yet,
 * and none is returned when they are bad (eqp_verify() says so). */
int eqp_sample_callchain(const struct eqp_file *f, size_t c, size_t i,
			 struct eqp_callchain *cc);

size_t eqp_nmaps(const struct eqp_file *f);
const struct eqp_maps *eqp_maps_at(const struct eqp_file *f, size_t i);
/* The last maps captured for pid, or NULL. */
const struct eqp_maps *eqp_maps_for(const struct eqp_file *f, uint32_t pid);

size_t eqp_ncomm(const struct eqp_file *f);
const struct eqp_comm *eqp_comm_at(const struct eqp_file *f, size_t i);
/* The last process name recorded for pid (thread names aside), or NULL. */
const char *eqp_comm_for(const struct eqp_file *f, uint32_t pid);

/* The embedded image of module (IMAG; the last one when several), pointing
 * into the open file, with its length in *len; NULL when there is none. */
const void *eqp_image(const struct eqp_file *f, const char *module, size_t *len);

size_t eqp_nsymtabs(const struct eqp_file *f);
const struct eqp_symtab *eqp_symtab_at(const struct eqp_file *f, size_t i);

size_t eqp_nlost(const struct eqp_file *f);
const struct eqp_lost *eqp_lost_at(const struct eqp_file *f, size_t i);
uint64_t eqp_lost_total(const struct eqp_file *f);

size_t eqp_nmarkers(const struct eqp_file *f);
const struct eqp_marker *eqp_marker_at(const struct eqp_file *f, size_t i);

/* Power-state changes (PSTA chunks), in file order; 0 when none recorded. */
size_t eqp_npstates(const struct eqp_file *f);
const struct eqp_pstate *eqp_pstate_at(const struct eqp_file *f, size_t i);

/* Device requests (DREQ chunks), in file order. */
size_t eqp_ndevreqs(const struct eqp_file *f);
const struct eqp_devreq *eqp_devreq_at(const struct eqp_file *f, size_t i);

/* NULL when the recording has no board stream; else the first segment's. */
const struct eqp_board_info *eqp_board_info(const struct eqp_file *f);
size_t eqp_nboard_records(const struct eqp_file *f);
const struct eqp_board_rec *eqp_board_record_at(const struct eqp_file *f, size_t i);
/* Segments in file order: each BINF starts one and owns the BREC records
 * after it (records before the first BINF belong to the first). */
size_t eqp_nboard_segments(const struct eqp_file *f);
const struct eqp_board_segment *eqp_board_segment_at(const struct eqp_file *f, size_t i);

/* Energy-source domains and their readings in file order (time order per
 * domain); none in recordings made without --energy. */
size_t eqp_nenergy_domains(const struct eqp_file *f);
const struct eqp_edomain *eqp_energy_domain_at(const struct eqp_file *f, size_t i);
size_t eqp_nenergy_readings(const struct eqp_file *f);
const struct eqp_ereading *eqp_energy_reading_at(const struct eqp_file *f, size_t i);

#endif
