// SPDX-License-Identifier: MIT
/*
 * demo.c - the example application of docs/target-cortexm.md, on QEMU's
 * mps2-an385 (Cortex-M3; ARM AN385 peripherals: CMSDK UARTs and timers),
 * mps2-an386 (the same with a Cortex-M4) and, built with -DDEMO_NRF51,
 * microbit (Cortex-M0: the nRF51's timers), linked with isr/cortexm's
 * libeqcm.a and no C library.
 *
 * One piece of code, work(), is reached by three paths: path_a() calls it,
 * path_b() calls it, and the application's own timer interrupt
 * (app_timer_handler, Timer1, IRQ 9) calls it.  Every call runs the same
 * instructions at the same address, so the share of work()'s time each
 * path has is its share of the calls, which the application counts and
 * prints at the end: the reference the test holds the samples to.
 *
 * Arguments (QEMU -semihosting-config arg=...):
 *   time | energy         time-driven on Timer0 (IRQ 8) | energy-driven on
 *                         IRQ 16 (AN385: GPIO0 pin 0), edges from outside
 *   semihost=PATH         drain to a semihosting file instead of UART0
 *   prio-low              the sampling IRQ below the application's timer
 *   stall                 stop draining for a while (the ring overflows)
 *   mask                  (energy) critical sections with interrupts masked
 *   secs=N                run for N seconds of target time (default 2)
 *   hz=N                  time-driven rate (default 2000)
 *
 * Energy-driven runs announce their phases on UART1, one byte each
 * ('0' idle and drain, '1' path_a, '2' path_b), for the HIL bridge, which
 * draws each phase's power.
 */
#include <stdint.h>

#include "eqcm.h"

#define REG(a) (*(volatile uint32_t *)(a))
#define NVIC_ISER0 REG(0xe000e100u)
#define NVIC_IPR(n) (*(volatile uint8_t *)(0xe000e400u + (n)))

#ifdef DEMO_NRF51
/*
 * QEMU's microbit (nRF51822, Cortex-M0, ARMv6-M; nRF51 Series Reference
 * Manual v3.0, 18 TIMER): TIMER0 (IRQ 8) samples, TIMER1 (IRQ 9) is the
 * application's, each in 32-bit timer mode at 16 MHz with COMPARE0 clearing
 * the count, so CC[0] is the period.  The drain is semihosting (its UART's
 * TXDRDY event is not the ready bit eqcm_uart_put polls); no energy mode
 * (the HIL bridge drives the mps2's NVIC).
 */
#define SYSCLK 16000000u          /* nRF51 HFCLK: the core and the timers */
#define TIMER0 0x40008000u
#define TIMER1 0x40009000u
#define TIMER_RELOAD(b)  REG((b) + 0x540)  /* CC[0] */
#define TIMER_ACK(b)     REG((b) + 0x140)  /* EVENTS_COMPARE[0]: write 0 */
#define TIMER_ACK_VAL    0u

static void timer_run(uint32_t b, uint32_t period)
{
	REG(b + 0x504) = 0;              /* MODE: timer */
	REG(b + 0x508) = 3;              /* BITMODE: 32 bits */
	REG(b + 0x510) = 0;              /* PRESCALER: 16 MHz */
	REG(b + 0x200) = 1;              /* SHORTS: COMPARE0 -> CLEAR */
	TIMER_RELOAD(b) = period;
	REG(b + 0x304) = 1u << 16;       /* INTENSET: COMPARE0 */
	REG(b + 0x000) = 1;              /* TASKS_START */
}

static void timer_stop(uint32_t b)
{
	REG(b + 0x004) = 1;              /* TASKS_STOP */
}
#else
#define SYSCLK 25000000u          /* QEMU's mps2 SYSCLK_FRQ */
#define UART0 0x40004000u
#define UART1 0x40005000u
#define UART_DATA(b)  REG((b) + 0x0)
#define UART_STATE(b) REG((b) + 0x4)  /* bit 0: TX full */
#define UART_CTRL(b)  REG((b) + 0x8)  /* bit 0: TX enable */
#define UART_BAUD(b)  REG((b) + 0x10)
#define TIMER0 0x40000000u
#define TIMER1 0x40001000u
#define TIMER_CTRL(b)   REG((b) + 0x0)  /* bit 0 enable, bit 3 interrupt enable */
#define TIMER_VALUE(b)  REG((b) + 0x4)
#define TIMER_RELOAD(b) REG((b) + 0x8)
#define TIMER_ACK(b)    REG((b) + 0xc)  /* INTCLR */
#define TIMER_ACK_VAL   1u

static void timer_run(uint32_t b, uint32_t period)
{
	TIMER_RELOAD(b) = period;
	TIMER_VALUE(b) = period;
	TIMER_CTRL(b) = 1 | 8;
}

static void timer_stop(uint32_t b)
{
	TIMER_CTRL(b) = 0;
}
#endif

#define EDGE_IRQ 16
#define APP_TIMER_IRQ 9

/* What the paths did: the reference for the time-driven test. */
volatile uint32_t calls_a, calls_b, calls_h;
/* The board's edges as a hardware counter would count them: the HIL
 * bridge writes it before each edge (a timer clocked by the pin on a real
 * board). */
volatile uint32_t demo_edges;
volatile uint32_t sink_x;

static struct {
	int energy, prio_low, stall, mask;
	uint32_t secs, hz;
	const char *semihost;
} opt = { 0, 0, 0, 0, 2, 2000, 0 };

/* ---- the workload -------------------------------------------------------- */

/* The one piece of code: a leaf, about 1,000 instructions. */
__attribute__((noinline)) void work(void)
{
	uint32_t x = sink_x, i;

	for (i = 0; i < 200; i++)
		x = x * 1103515245u + 12345u;
	sink_x = x;
}

__attribute__((noinline)) void path_a(void)
{
	work();
	calls_a++;
}

__attribute__((noinline)) void path_b(void)
{
	work();
	calls_b++;
}

/* The application's own interrupt: work() from a third path, in handler
 * mode (exception 25). */
void app_timer_handler(void)
{
	int i;

	TIMER_ACK(TIMER1) = TIMER_ACK_VAL;
	for (i = 0; i < 8; i++) {
		work();
		calls_h++;
	}
}

/* ---- output -------------------------------------------------------------- */

#ifdef DEMO_NRF51
static void uart_init(void)
{
}

static void uart1_byte(uint8_t b)
{
	(void)b;
}
#else
static void uart_init(void)
{
	UART_BAUD(UART0) = 16;
	UART_CTRL(UART0) = 1;
	UART_BAUD(UART1) = 16;
	UART_CTRL(UART1) = 1;
}

static void uart1_byte(uint8_t b)
{
	while (UART_STATE(UART1) & 1)
		;
	UART_DATA(UART1) = b;
}
#endif

static int console = -1;

static void say(const char *s)
{
	uint32_t args[3], n = 0;

	if (console < 0) {
		args[0] = (uint32_t)(uintptr_t)":tt";
		args[1] = 4;
		args[2] = 3;
		console = eqcm_semihost_call(EQCM_SH_OPEN, args);
	}
	while (s[n])
		n++;
	args[0] = (uint32_t)console;
	args[1] = (uint32_t)(uintptr_t)s;
	args[2] = n;
	eqcm_semihost_call(EQCM_SH_WRITE, args);
}

static char *put_u32(char *p, uint32_t v)
{
	char t[10];
	int n = 0;

	do {
		t[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		*p++ = t[--n];
	return p;
}

static void say_kv(const char *k, uint32_t v)
{
	char buf[64], *p = buf;

	while (*k)
		*p++ = *k++;
	*p++ = ' ';
	p = put_u32(p, v);
	*p++ = '\n';
	*p = 0;
	say(buf);
}

/* ---- arguments ----------------------------------------------------------- */

static char cmdline[256];

static int starts(const char *s, const char *w)
{
	while (*w)
		if (*s++ != *w++)
			return 0;
	return 1;
}

static uint32_t num(const char *s)
{
	uint32_t v = 0;

	while (*s >= '0' && *s <= '9')
		v = v * 10 + (uint32_t)(*s++ - '0');
	return v;
}

static void parse_args(void)
{
	uint32_t args[2] = { (uint32_t)(uintptr_t)cmdline, sizeof(cmdline) - 1 };
	char *p = cmdline;

	if (eqcm_semihost_call(EQCM_SH_GET_CMDLINE, args) != 0)
		return;
	while (*p) {
		char *w = p;

		while (*p && *p != ' ')
			p++;
		if (*p)
			*p++ = 0;
		if (starts(w, "energy"))
			opt.energy = 1;
		else if (starts(w, "prio-low"))
			opt.prio_low = 1;
		else if (starts(w, "stall"))
			opt.stall = 1;
		else if (starts(w, "mask"))
			opt.mask = 1;
		else if (starts(w, "secs="))
			opt.secs = num(w + 5);
		else if (starts(w, "hz="))
			opt.hz = num(w + 3);
		else if (starts(w, "semihost="))
			opt.semihost = w + 9;
	}
}

/* ---- main ---------------------------------------------------------------- */

#ifndef DEMO_NRF51
static struct eqcm_uart uart0 = {
	(volatile uint32_t *)(UART0 + 0x0), (volatile uint32_t *)(UART0 + 0x4), 1, 0,
};
#endif
static struct eqcm_semihost sh;
static struct eqcm_sink sink;

static void setup(void)
{
	struct eqcm_config c = {
		.mode = opt.energy ? EQCM_MODE_ENERGY : EQCM_MODE_TIME,
		.cpu_hz = SYSCLK,
		.priority = opt.prio_low ? 0xc0 : 0x00,
		.name = "eqcm-demo",
		.irq = EDGE_IRQ,
		.edge_counter = &demo_edges,
		.counter_is_quantum = 1,      /* the bridge writes the board's number */
		.timer_irq = 8,
		.timer_reload = &TIMER_RELOAD(TIMER0),
		.timer_ack = &TIMER_ACK(TIMER0),
		.timer_ack_val = TIMER_ACK_VAL,
		.timer_hz = SYSCLK,
		.period = SYSCLK / (opt.hz ? opt.hz : 2000),
		.jitter_pct = 20,
		.seed = 12345,
	};

	if (eqcm_init(&c) < 0) {
		say("eqcm_init refused the configuration\n");
		return;
	}
	if (opt.semihost && eqcm_semihost_open(&sh, opt.semihost) == 0) {
		sink.put = eqcm_semihost_put;
		sink.flush = eqcm_semihost_flush;
		sink.ctx = &sh;
	} else {
#ifdef DEMO_NRF51
		say("the nRF51 build drains through semihosting only: give semihost=FILE\n");
		return;
#else
		sink.put = eqcm_uart_put;
		sink.ctx = &uart0;
#endif
	}
	eqcm_drain_init(&sink);
	if (!opt.energy)
		timer_run(TIMER0, c.period);
	/* The application's timer (time-driven runs): every 2 ms, between
	 * the sampler (0x00) and the lowest; with prio-low, above the sampler. */
	NVIC_IPR(APP_TIMER_IRQ) = opt.prio_low ? 0x40 : 0x80;
	if (opt.energy) {
		/* each phase's code alone in its phase: the energy test
		 * charges code to phases */
		eqcm_start();
		return;
	}
	timer_run(TIMER1, SYSCLK / 500);
	NVIC_ISER0 = 1u << APP_TIMER_IRQ;
	eqcm_start();
}

static uint64_t ticks(uint32_t ms)
{
	return (uint64_t)SYSCLK / 1000 * ms;
}

static void run_time(void)
{
	uint64_t end = eqcm_now() + ticks(opt.secs * 1000);
	uint64_t stall_from = eqcm_now() + ticks(opt.secs * 400);
	uint64_t stall_to = stall_from + ticks(100);

	uint64_t now = eqcm_now();
	uint32_t round = 0;

	while (now < end) {
		path_a();
		path_a();
		path_a();
		path_b();
		/* the time base is a few device reads: not every round */
		if (++round % 16)
			continue;
		now = eqcm_now();
		if (!opt.stall || now < stall_from || now >= stall_to)
			eqcm_drain_poll();
	}
}

/*
 * Each phase runs its own code only.  Its length is counted on SysTick
 * (24 bits, a wrap every 0.67 s at 25 MHz) read in the phase's own code
 * every 64 calls: a device read ends QEMU's translation block, and an
 * interrupt pending meanwhile is taken right after it, so the reads' samples
 * land in the phase's code rather than in a time function all phases share.
 */
#define SYST_CVR REG(0xe000e018u)

static inline __attribute__((always_inline)) int phase_left(uint32_t *last, uint32_t *left)
{
	uint32_t now = SYST_CVR, d = (*last - now) & 0x00ffffffu;

	*last = now;
	if (d >= *left)
		return 0;
	*left -= d;
	return 1;
}

__attribute__((noinline)) void phase_a(uint32_t ticks)
{
	uint32_t last = SYST_CVR;
	int i;

	while (phase_left(&last, &ticks))
		for (i = 0; i < 64; i++)
			path_a();
}

__attribute__((noinline)) void phase_b(uint32_t ticks)
{
	uint32_t last = SYST_CVR;
	int i;

	while (phase_left(&last, &ticks)) {
		for (i = 0; i < 64; i++)
			path_b();
		if (opt.mask) {
			__asm__ __volatile__("cpsid i" ::: "memory");
			path_b();
			path_b();
			__asm__ __volatile__("cpsie i" ::: "memory");
		}
	}
}

__attribute__((noinline)) void phase_idle(uint64_t until)
{
	while (eqcm_now() < until) {
		eqcm_drain_poll();
		eqcm_idle();
	}
}

static void run_energy(void)
{
	uint64_t end = eqcm_now() + ticks(opt.secs * 1000);

	while (eqcm_now() < end) {
		uart1_byte('1');
		phase_a((uint32_t)ticks(60));
		uart1_byte('2');
		phase_b((uint32_t)ticks(60));
		uart1_byte('0');
		phase_idle(eqcm_now() + ticks(30));
	}
}

int main(void)
{
	struct eqcm_counts k;
	uint32_t args[1] = { 0x20026 };

	parse_args();
	uart_init();
	setup();
	if (opt.energy)
		run_energy();
	else
		run_time();
	eqcm_stop();
	timer_stop(TIMER1);
	eqcm_drain_final();
	eqcm_counts(&k);
	say_kv("calls_a", calls_a);
	say_kv("calls_b", calls_b);
	say_kv("calls_h", calls_h);
	say_kv("next_seq", k.next_seq);
	say_kv("dropped", k.dropped);
	say_kv("merged", k.merged);
	say_kv("spurious", k.spurious);
	eqcm_semihost_call(EQCM_SH_EXIT, (void *)(uintptr_t)args[0]);
	for (;;)
		;
}

/* ---- start-up ------------------------------------------------------------ */

extern uint32_t __data_start, __data_end, __data_load, __bss_start, __bss_end, __stack_top;

void demo_reset(void)
{
	uint32_t *s = &__data_load, *d = &__data_start;

#ifdef __ARM_FP
	/* The FPU (CP10, CP11) on before any floating-point instruction:
	 * the compiler may use its registers for copies. */
	REG(0xe000ed88u) |= 0xfu << 20;
	__asm__ __volatile__("dsb\n isb" ::: "memory");
#endif
	while (d < &__data_end)
		*d++ = *s++;
	for (d = &__bss_start; d < &__bss_end; d++)
		*d = 0;
	main();
}

void demo_fault(void)
{
	say("fault\n");
	eqcm_semihost_call(EQCM_SH_EXIT, (void *)(uintptr_t)0x20023);
	for (;;)
		;
}

void demo_unused(void)
{
	for (;;)
		;
}

/* AN385's 32 interrupts after the 16 system exceptions. */
__attribute__((section(".vectors"), used)) static void (*const vectors[48])(void) = {
	[0] = (void (*)(void))&__stack_top,
	[1] = demo_reset,
	[2] = demo_fault,             /* NMI */
	[3] = demo_fault,             /* HardFault */
	[4] = demo_fault, [5] = demo_fault, [6] = demo_fault,
	[11] = demo_unused,           /* SVCall */
	[14] = demo_unused,           /* PendSV */
	[15] = eqcm_systick_handler,  /* SysTick: the time base when there is no DWT CYCCNT */
	[16 + 8] = eqcm_timer_handler,        /* Timer0: time-driven sampling */
	[16 + APP_TIMER_IRQ] = app_timer_handler,
	[16 + EDGE_IRQ] = eqcm_irq_handler,   /* GPIO0 pin 0: the board's IRQ */
};
