// SPDX-License-Identifier: MIT
/*
 * eqcm.c - the sampling handlers and the time base (eqcm.h).
 *
 * The handlers enter through a few instructions of assembly that pick the
 * stack the hardware stacked the interrupted context on (EXC_RETURN bit 2:
 * PSP, else MSP) and branch (not call) to C with that frame: the C function
 * returns straight to the exception return.  The frame is R0-R3, R12, LR,
 * PC, xPSR at word 0..7 (ARMv7-M ARM B1.5.6), also with an FPU's extended
 * frame.
 */
#include "eqcm_priv.h"

struct eqcm_state eqcm_s;
volatile uint32_t eqcm_edges_taken;

/* ---- time base --------------------------------------------------------- */

/*
 * DWT CYCCNT, when the core has one that counts.  ARMv6-M has none (its
 * DWT has no cycle counter: ARMv6-M ARM, ARM DDI 0419, C1.8), so the
 * registers are not touched there.  Elsewhere TRCENA must stick in DEMCR
 * (where the debug extension is not implemented it does not: QEMU 7.2
 * leaves DEMCR unimplemented, read as zero), NOCYCCNT must be clear, and
 * the counter must move.
 */
static int dwt_start(void)
{
#if defined(__ARM_ARCH_6M__)
	return 0;
#else
	uint32_t a, b;

	SCB_DEMCR |= 1u << 24;        /* TRCENA: DWT and ITM on */
	if (!(SCB_DEMCR & (1u << 24)))
		return 0;
	DWT_LAR = 0xc5acce55u;        /* unlock (Cortex-M7; ignored elsewhere) */
	if (DWT_CTRL & (1u << 25))    /* NOCYCCNT */
		return 0;
	DWT_CYCCNT = 0;
	DWT_CTRL |= 1u;               /* CYCCNTENA */
	a = DWT_CYCCNT;
	__asm__ __volatile__("nop\n nop\n nop\n nop\n nop\n nop\n nop\n nop");
	b = DWT_CYCCNT;
	return b != a;
#endif
}

static void systick_start(void)
{
	if (!(SYST_CSR & 1u)) {
		/* free, so ours: the longest period, the core's clock */
		SYST_RVR = 0x00ffffffu;
		SYST_CVR = 0;
		SYST_CSR = 1u | 2u | 4u;
	} else {
		SYST_CSR |= 2u;       /* the application's: keep its reload, make it interrupt */
	}
	eqcm_s.st_reload = SYST_RVR & 0x00ffffffu;
}

uint64_t eqcm_now_locked(void)
{
	if (eqcm_s.clock == EQCM_CLOCK_DWT) {
		uint32_t c = DWT_CYCCNT;

		if (c < eqcm_s.cyc_last)
			eqcm_s.cyc_hi++;
		eqcm_s.cyc_last = c;
		return (uint64_t)eqcm_s.cyc_hi << 32 | c;
	}
	{
		/*
		 * A wrap the SysTick handler has not counted yet shows as
		 * PENDSTSET.  If the counter reloaded between the two reads,
		 * the first was taken before that wrap.
		 */
		uint32_t w = eqcm_s.st_wraps, r = eqcm_s.st_reload;
		uint32_t v1 = SYST_CVR, pend = SCB_ICSR & ICSR_PENDSTSET, v2 = SYST_CVR;

		if (pend && v2 <= v1)
			w++;
		return (uint64_t)w * (r + 1) + (r - v1);
	}
}

uint64_t eqcm_now(void)
{
	uint32_t primask;
	uint64_t t;

	__asm__ __volatile__("mrs %0, primask\n cpsid i" : "=r"(primask) :: "memory");
	t = eqcm_now_locked();
	__asm__ __volatile__("msr primask, %0" :: "r"(primask) : "memory");
	return t;
}

void eqcm_systick_wrap(void)
{
	eqcm_s.st_wraps++;
}

void eqcm_systick_handler(void)
{
	eqcm_s.st_wraps++;
}

/* ---- the sample -------------------------------------------------------- */

/* Builds and pushes the sample of the interrupted context in frame. */
static __always_inline void
take(const uint32_t *frame, uint64_t t, uint16_t flags)
{
	struct eq_ring *r = &eqcm_s.ring;
	struct eq_sample s;
	uint32_t head = r->head;

	s.time = t;
	s.pc = frame[6];
	s.pid = 1;
	s.tid = frame[7] & 0x1ffu;    /* IPSR of the interrupted context */
	s.seq = 0;
	s.cpu = 0;
	/* idle: waiting in eqcm_idle(), not in a handler that woke it */
	s.flags = flags | (eqcm_s.in_idle && !s.tid ? EQ_F_IDLE : 0);
	/* The LR beside the slot the push will fill, before it publishes it. */
	if (head - eq_load_acquire(&r->tail) <= r->mask)
		eqcm_s.lr[head & r->mask] = frame[5];
	eq_ring_push(r, &s);
}

/* The board's edge.  Called from eqcm_irq_handler with the stacked frame. */
void eqcm_energy_sample(const uint32_t *frame)
{
	uint64_t t = eqcm_now_locked();
	const struct eqcm_config *c = &eqcm_s.cfg;

	if (c->ack_reg)
		*c->ack_reg = c->ack_val;
	if (c->edge_counter) {
		uint32_t n = *c->edge_counter, d = n - eqcm_s.taken;

		eqcm_s.taken = n;
		eqcm_edges_taken = n;
		if (d == 0) {
			/*
			 * No edge since the last sample: this interrupt's edge
			 * was already counted, sampled as the latest of several
			 * (an edge between the ack and the counter's read of
			 * the handler before).  Nothing new to sample.
			 */
			eqcm_s.spurious++;
			return;
		} else if (d > 1) {
			eqcm_s.merged += d - 1;
			eq_ring_lose(&eqcm_s.ring, d - 1);
		}
	}
	take(frame, t, EQ_F_ENERGY);
}

/* xorshift32 (Marsaglia 2003): the jitter's draws. */
static inline uint32_t draw(void)
{
	uint32_t x = eqcm_s.rng;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	eqcm_s.rng = x;
	return x;
}

/* The sampling timer.  The next period goes into the reload register: on
 * timers that load it at the next wrap (CMSDK, STM32 ARR with preload) it
 * is the period after the current one, still an independent draw.
 */
void eqcm_time_sample(const uint32_t *frame)
{
	uint64_t t = eqcm_now_locked();
	const struct eqcm_config *c = &eqcm_s.cfg;

	if (c->timer_ack)
		*c->timer_ack = c->timer_ack_val;
	if (eqcm_s.span) {
		uint32_t u = (uint32_t)(((uint64_t)draw() * (2 * eqcm_s.span + 1)) >> 32);

		*c->timer_reload = c->period - eqcm_s.span + u;
	}
	take(frame, t, 0);
}

/*
 * The entries: r0 = the stacked frame (EXC_RETURN bit 2 set: the process
 * stack), then a branch, so the C function returns from the exception.
 */
#if defined(__ARM_ARCH_6M__) || defined(__ARM_ARCH_8M_BASE__)
#define EQCM_FRAME_TO_R0 \
	"	movs	r0, #4\n	mov	r1, lr\n" \
	"	tst	r0, r1\n	beq	1f\n" \
	"	mrs	r0, psp\n	b	2f\n1:	mrs	r0, msp\n2:\n"
#else
#define EQCM_FRAME_TO_R0 \
	"	tst	lr, #4\n	ite	eq\n	mrseq	r0, msp\n	mrsne	r0, psp\n"
#endif

__attribute__((naked)) void eqcm_irq_handler(void)
{
	__asm__ __volatile__(EQCM_FRAME_TO_R0 "	b	eqcm_energy_sample\n");
}

__attribute__((naked)) void eqcm_timer_handler(void)
{
	__asm__ __volatile__(EQCM_FRAME_TO_R0 "	b	eqcm_time_sample\n");
}

/* ---- set up ------------------------------------------------------------ */

static void set_priority(int irq, uint8_t prio)
{
	NVIC_IPR(irq) = prio;
}

int eqcm_init(const struct eqcm_config *c)
{
	int irq = c->mode == EQCM_MODE_ENERGY ? c->irq : c->timer_irq;
	uint32_t first;

	if ((c->mode != EQCM_MODE_ENERGY && c->mode != EQCM_MODE_TIME) || irq < 0 ||
	    c->jitter_pct > 50 || (c->mode == EQCM_MODE_TIME && (!c->timer_reload || !c->period)))
		return -1;
	eqcm_s.cfg = *c;
	/*
	 * One read of the counter numbers the ring and counts the edges
	 * taken: it may move between two (an edge, or QEMU's HIL bridge
	 * writing it), and then every sample's seq would be off by as much.
	 */
	first = c->edge_counter ? *c->edge_counter : 0;
	if (eq_ring_init(&eqcm_s.ring, eqcm_s.slots, EQCM_RING_CAPACITY, first) < 0)
		return -1;
	eqcm_s.taken = first;
	eqcm_s.first_seq = eqcm_s.taken;
	eqcm_edges_taken = eqcm_s.taken;
	eqcm_s.merged = 0;
	eqcm_s.spurious = 0;
	eqcm_s.rng = c->seed ? c->seed : 0x2545f491u;
	eqcm_s.span = c->mode == EQCM_MODE_TIME ?
		(uint32_t)((uint64_t)c->period * c->jitter_pct / 100) : 0;
	if (!c->force_systick && dwt_start()) {
		eqcm_s.clock = EQCM_CLOCK_DWT;
		eqcm_s.tick_hz = c->cpu_hz;
	} else {
		eqcm_s.clock = EQCM_CLOCK_SYSTICK;
		eqcm_s.tick_hz = c->systick_hz ? c->systick_hz : c->cpu_hz;
		systick_start();
		/* SysTick below the sampling IRQ: the sampler reads the
		 * pending wrap instead of being delayed by the handler.
		 */
		*(volatile uint8_t *)(SCB_SHPR3 + 3) = 0xff;
	}
	eqcm_s.cyc_last = 0;
	eqcm_s.cyc_hi = 0;
	set_priority(irq, c->priority);
	NVIC_ICPR(irq) = 1u << (irq & 31);
	return eqcm_s.clock;
}

void eqcm_start(void)
{
	int irq = eqcm_s.cfg.mode == EQCM_MODE_ENERGY ? eqcm_s.cfg.irq : eqcm_s.cfg.timer_irq;

	NVIC_ISER(irq) = 1u << (irq & 31);
}

void eqcm_stop(void)
{
	int irq = eqcm_s.cfg.mode == EQCM_MODE_ENERGY ? eqcm_s.cfg.irq : eqcm_s.cfg.timer_irq;

	NVIC_ICER(irq) = 1u << (irq & 31);
	__asm__ __volatile__("dsb\n isb" ::: "memory");
}

void eqcm_idle(void)
{
	eqcm_s.in_idle = 1;
	__asm__ __volatile__("dsb\n wfi" ::: "memory");
	eqcm_s.in_idle = 0;
}

void eqcm_counts(struct eqcm_counts *out)
{
	uint32_t primask;

	__asm__ __volatile__("mrs %0, primask\n cpsid i" : "=r"(primask) :: "memory");
	out->next_seq = eqcm_s.ring.next_seq;
	out->dropped = eq_ring_dropped(&eqcm_s.ring);
	out->merged = eqcm_s.merged;
	out->spurious = eqcm_s.spurious;
	out->taken = eqcm_s.taken;
	__asm__ __volatile__("msr primask, %0" :: "r"(primask) : "memory");
}
