/* SPDX-License-Identifier: MIT */
/*
 * eqcm_priv.h - state shared by the sampler (eqcm.c) and the drain
 * (eqcm_drain.c), and the core registers they use (ARMv7-M Architecture
 * Reference Manual, ARM DDI 0403E, B3.2 System Control Space, C1.8 DWT).
 */
#ifndef EQCM_PRIV_H
#define EQCM_PRIV_H

#define EQ_RING_BARE_METAL 1
#include <stdint.h>

static inline void eqcm_dmb(void)
{
	__asm__ __volatile__("dmb" : : : "memory");
}

#define EQ_RING_BARRIER() eqcm_dmb()
#include "eq_ring.h"
#include "eqcm.h"

#define EQCM_REG(a) (*(volatile uint32_t *)(a))
#define SCB_ICSR     EQCM_REG(0xe000ed04u)  /* PENDSTSET: bit 26 */
#define SCB_SHPR3    0xe000ed20u            /* SysTick priority: byte 3 */
#define SCB_DEMCR    EQCM_REG(0xe000edfcu)  /* TRCENA: bit 24 */
#define SYST_CSR     EQCM_REG(0xe000e010u)  /* ENABLE 0, TICKINT 1, CLKSOURCE 2 */
#define SYST_RVR     EQCM_REG(0xe000e014u)
#define SYST_CVR     EQCM_REG(0xe000e018u)
#define NVIC_ISER(n) EQCM_REG(0xe000e100u + 4 * ((unsigned int)(n) >> 5))
#define NVIC_ICER(n) EQCM_REG(0xe000e180u + 4 * ((unsigned int)(n) >> 5))
#define NVIC_ICPR(n) EQCM_REG(0xe000e280u + 4 * ((unsigned int)(n) >> 5))
#define NVIC_IPR(n)  (*(volatile uint8_t *)(0xe000e400u + (unsigned int)(n)))
#define DWT_CTRL     EQCM_REG(0xe0001000u)  /* CYCCNTENA 0, NOCYCCNT 25 */
#define DWT_CYCCNT   EQCM_REG(0xe0001004u)
#define DWT_LAR      EQCM_REG(0xe0001fb0u)  /* Cortex-M7: unlock with 0xc5acce55 */

#define ICSR_PENDSTSET 0x04000000u /* bit 26 */

struct eqcm_state {
	struct eq_ring ring;
	struct eq_sample slots[EQCM_RING_CAPACITY];
	uint32_t lr[EQCM_RING_CAPACITY];  /* stacked LR beside each slot */
	struct eqcm_config cfg;
	int clock;                 /* EQCM_CLOCK_* */
	uint32_t tick_hz;
	/* time base */
	uint32_t cyc_last, cyc_hi; /* DWT: last CYCCNT and the wraps seen */
	uint32_t st_wraps;         /* SysTick: wraps counted by its handler */
	uint32_t st_reload;
	/* sampler */
	volatile uint32_t in_idle;
	uint32_t first_seq;        /* seq of the first sample */
	uint32_t taken, merged, spurious;
	uint32_t rng;
	uint32_t span;             /* time mode: jitter span, timer ticks */
};

extern struct eqcm_state eqcm_s;

/* The time base from a context the time base's own updates cannot
 * preempt (the sampling handlers, or interrupts masked).
 */
uint64_t eqcm_now_locked(void);

#endif /* EQCM_PRIV_H */
