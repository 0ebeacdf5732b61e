/* SPDX-License-Identifier: MIT */
/*
 * eqcm.h - eqprof's sampler for bare-metal Cortex-M targets
 * (docs/target-cortexm.md).
 *
 * A firmware developer links libeqcm.a and firmware/portable/proto.c into the
 * application, puts eqcm_irq_handler() (energy-driven: the board's IRQ line
 * on an EXTI/GPIO interrupt) or eqcm_timer_handler() (time-driven: a
 * hardware timer) into the vector table, calls eqcm_init() and
 * eqcm_drain_poll() from the main loop.
 *
 * The handler reads the stacked PC, LR and xPSR of the interrupted context
 * and the time (DWT CYCCNT where the core has one that counts, SysTick
 * otherwise), and pushes one struct eq_sample into isr/core's ring:
 *
 *   time   ticks of the time base (tick_hz in the TINFO message)
 *   pc     the stacked PC: the instruction that was interrupted
 *   pid    1: the application (one address space); 0 is never used
 *   tid    the exception number the interrupted code ran in (the stacked
 *          xPSR's IPSR field): 0 thread mode, 15 SysTick, 16 + n IRQ n;
 *          so samples taken inside other handlers are marked
 *   seq    from the ring; with an edge counter, the board's edge number
 *   flags  EQ_F_ENERGY (energy-driven), EQ_F_IDLE (in eqcm_idle()),
 *          EQ_F_LOST (samples were lost just before this one)
 *
 * The stacked LR goes beside the sample (an array parallel to the ring's
 * slots) into the TSAMPLE frame; the host turns it into a caller where the
 * ELF's call-frame information says LR holds the return address.
 *
 * No libc: the library uses only its own code, isr/core's ring and the
 * protocol codec (whose struct copies may compile to memcpy/memset, which
 * libgcc-based bare-metal toolchains and newlib provide).
 *
 * RAM: EQCM_RING_CAPACITY samples (a power of two, a build option of the
 * library: make -C isr/cortexm RING=N; default 64) of 32 bytes plus 4 bytes
 * of LR each, and 476 bytes of ring header, configuration and the drain's
 * frame in flight: 2780 bytes at 64, 1052 at 16 (make -C isr/cortexm size).
 */
#ifndef EQCM_H
#define EQCM_H

#include <stdint.h>

#ifndef EQCM_RING_CAPACITY
#define EQCM_RING_CAPACITY 64
#endif

#define EQCM_MODE_ENERGY 1  /* FW_TMODE_ENERGY */
#define EQCM_MODE_TIME   2  /* FW_TMODE_TIME */

struct eqcm_config {
	int mode;                        /* EQCM_MODE_* */
	uint32_t cpu_hz;                 /* core clock: DWT CYCCNT counts it */
	uint32_t systick_hz;             /* SysTick's clock (CLKSOURCE=1: cpu_hz); 0: cpu_hz */
	int force_systick;               /* 1: SysTick time base even when DWT CYCCNT counts */
	uint8_t priority;                /* NVIC priority byte of the sampling IRQ: 0 is the
					  * highest; it must be above (numerically below)
					  * every handler the samples should see
					  */
	const char *name;                /* the application's name (16 bytes are sent) */

	/* Energy-driven: the board's IRQ line on an EXTI/GPIO interrupt. */
	int irq;                         /* its NVIC number (IRQn) */
	volatile uint32_t *ack_reg;      /* written ack_val first thing: the peripheral's
					  * pending flag (EXTI->PR = 1 << line); NULL: none
					  */
	uint32_t ack_val;
	const volatile uint32_t *edge_counter; /* a hardware count of the line's edges
						* (a timer clocked by the pin), or NULL:
						* then edges that merged are not counted
						*/
	int counter_is_quantum;          /* 1: edge_counter holds the board's own quantum
					  * number (written there by QEMU's HIL bridge, or a
					  * counter reset with the board's count): eqprof
					  * merge then pairs samples with the board's records
					  * by number; 0: by their timing
					  */

	/* Time-driven: a periodic hardware timer. */
	int timer_irq;                   /* its NVIC number */
	volatile uint32_t *timer_reload; /* the next period goes here (reload, ARR) */
	volatile uint32_t *timer_ack;    /* interrupt clear register, or NULL */
	uint32_t timer_ack_val;
	uint32_t timer_hz;               /* the timer's clock */
	uint32_t period;                 /* mean period, timer ticks */
	uint8_t jitter_pct;              /* each period drawn within +-jitter_pct % (0..50) */
	uint32_t seed;                   /* of the jitter's xorshift32; 0: a fixed one */
};

/* Time bases (FW_TCLOCK_*). */
#define EQCM_CLOCK_DWT     1
#define EQCM_CLOCK_SYSTICK 2

/*
 * Sets up the time base and the ring and the sampling IRQ's priority, the
 * IRQ itself still disabled.  Returns EQCM_CLOCK_DWT or EQCM_CLOCK_SYSTICK,
 * or -1 for a bad config (mode, capacity, jitter over 50 %).  With SysTick
 * as the time base, the application routes SysTick to
 * eqcm_systick_handler() or calls eqcm_systick_wrap() from its own
 * handler; a SysTick the application already runs keeps its reload.
 */
int eqcm_init(const struct eqcm_config *c);
void eqcm_start(void);  /* enables the sampling IRQ */
void eqcm_stop(void);   /* disables it; samples already taken stay in the ring */

/* Vector table entries. */
void eqcm_irq_handler(void);      /* energy-driven: the board's edge */
void eqcm_timer_handler(void);    /* time-driven: the sampling timer */
void eqcm_systick_handler(void);  /* SysTick, when it is the time base */
void eqcm_systick_wrap(void);     /* the same, from the application's SysTick handler */

/* The time base now, in ticks (interrupts masked for a moment). */
uint64_t eqcm_now(void);
/* WFI, with samples taken meanwhile flagged EQ_F_IDLE. */
void eqcm_idle(void);

/* What the sampler counted so far. */
struct eqcm_counts {
	uint32_t next_seq;   /* seq of the next sample: taken + lost */
	uint32_t dropped;    /* lost: ring full, plus merged edges */
	uint32_t merged;     /* edges that merged before the handler ran */
	uint32_t spurious;   /* interrupts with no new edge on the counter */
	uint32_t taken;      /* edges accounted for (the edge counter's last value) */
};

void eqcm_counts(struct eqcm_counts *out);
/* The edge counter's value the handler last accounted for (edge_counter
 * configs): a debugger, or the HIL bridge's lockstep, reads it.
 */
extern volatile uint32_t eqcm_edges_taken;

/* ---- the drain: ring -> frames (firmware/portable's codec) -> a sink ---- */

/*
 * A byte sink.  put() takes up to n bytes without waiting and returns how
 * many it took (0: full now); flush(), if any, pushes out what put()
 * buffered.  Both run in thread mode (the main loop).
 */
struct eqcm_sink {
	uint32_t (*put)(void *ctx, const uint8_t *p, uint32_t n);
	void (*flush)(void *ctx);
	void *ctx;
};

void eqcm_drain_init(const struct eqcm_sink *sink);
/*
 * Sends what the sink takes now: a TINFO first (and every 1024 frames),
 * the samples as TSAMPLE frames, a TSTATUS whenever the counters changed or
 * every 256 samples.  Never waits on a UART.  Returns the bytes sent.
 * Call it at least once every 2^32 ticks (43 s at 100 MHz): it also keeps
 * the 64-bit time base.
 */
uint32_t eqcm_drain_poll(void);
/* After eqcm_stop(): everything left, then the final TSTATUS; waits. */
void eqcm_drain_final(void);

/* A memory-mapped UART: a byte goes to *data when (*status & ready_mask)
 * == ready_val (CMSDK UART: STATE, mask 1 (TX full), value 0).
 */
struct eqcm_uart {
	volatile uint32_t *data;
	const volatile uint32_t *status;
	uint32_t ready_mask, ready_val;
};

uint32_t eqcm_uart_put(void *uart, const uint8_t *p, uint32_t n);

/* Semihosting (a debugger, or QEMU -semihosting): frames are buffered and
 * written to a file on the host.  The core halts for each write.
 */
struct eqcm_semihost {
	int handle;
	uint32_t n;
	uint8_t buf[256];
};

int eqcm_semihost_open(struct eqcm_semihost *s, const char *path); /* 0 or -1 */
uint32_t eqcm_semihost_put(void *s, const uint8_t *p, uint32_t n);
void eqcm_semihost_flush(void *s);
/* Semihosting calls the examples use (ARM's semihosting specification). */
int eqcm_semihost_call(int op, void *arg);
#define EQCM_SH_OPEN        0x01
#define EQCM_SH_WRITE       0x05
#define EQCM_SH_GET_CMDLINE 0x15
#define EQCM_SH_EXIT        0x18

#endif /* EQCM_H */
