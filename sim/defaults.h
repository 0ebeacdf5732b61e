/*
 * defaults.h - the simulator's default component values.
 *
 * The board values are those of hardware/board.values (same names, base SI
 * units); `make -C hardware check` compares `eqprof sim --defaults` with that
 * file, so change both together.  The remaining defaults describe the
 * simulated handheld and its software (seed 001: iPAQ H3630 on a bench
 * supply, 64 KB sample buffer, ~349 Hz jittered timer) and are documented in
 * docs/simulator.md.
 */
#ifndef SIM_DEFAULTS_H
#define SIM_DEFAULTS_H

/* ---- hardware/board.values ------------------------------------------- */
#define SIM_DEF_R_SENSE_HIGH    0.1       /* Ohm */
#define SIM_DEF_R_SENSE_LOW     1.0       /* Ohm */
#define SIM_DEF_AMP_GM          0.01      /* S */
#define SIM_DEF_ALPHA_HIGH      0.001     /* i_m / i_s */
#define SIM_DEF_ALPHA_LOW       0.011
#define SIM_DEF_C_INT           9.1e-9    /* F */
#define SIM_DEF_VX              3.75      /* V: 1.5 v_ref, thresholds v_ref and v_ref/2 */
#define SIM_DEF_DEAD_TIME       300e-9    /* s */
#define SIM_DEF_VB_NOMINAL      4.07      /* V */
#define SIM_DEF_E_MIN_HIGH      46.29625e-6 /* J */
#define SIM_DEF_MCU_CLOCK       16e6      /* Hz */
#define SIM_DEF_QUANTUM_PULSES  64
#define SIM_DEF_JITTER_PCT      5
#define SIM_DEF_ADC_R_TOP       100e3     /* Ohm */
#define SIM_DEF_ADC_R_BOTTOM    47e3      /* Ohm */
#define SIM_DEF_ADC_VREF        2.5       /* V */
#define SIM_DEF_V_REF           2.5       /* V: the board's reference (CONT and AREF) */
#define SIM_DEF_R_REF_BIAS      2200      /* Ohm */
#define SIM_DEF_R_DIS           33        /* Ohm */
#define SIM_DEF_UART_BAUD       1000000
#define SIM_DEF_IRQ_PULSE_WIDTH 2e-6      /* s */

/* ---- the simulated device and its supply ------------------------------ */
#define SIM_DEF_SUPPLY          4.15      /* V, bench supply */
#define SIM_DEF_R_SOURCE        0.05      /* Ohm: supply leads and connector */
#define SIM_DEF_R_FUSE          0.2       /* Ohm: the handheld's fuse */
#define SIM_DEF_GAIN_ERR        0.0       /* relative mirror gain error (calibrated out) */
#define SIM_DEF_MIRROR_OFFSET   0.0       /* A at the mirror output (calibrated out) */
#define SIM_DEF_MIRROR_NOISE    2e-9      /* A/sqrt(Hz) at the mirror output */
#define SIM_DEF_VCOMP           0         /* board voltage compensation off */
/* 1/V: the device's power rises this much per volt of terminal voltage
 * above vb_nominal (seed 001 A.1.1, Figure 14: power falls as Vb drops).
 * 6.8%/V reproduces the paper's S = 1.6% (Equation 3) for a 140 mV drop
 * from 4.07 V; its text gives about 3% over 4.2-3.8 V (7.5%/V). */
#define SIM_DEF_POWER_VSENS     0.068
#define SIM_LOW_RANGE_MAX_A     0.2       /* A: the low range's full scale (board.values) */

/* ---- target interrupt path and sampling software ----------------------- */
#define SIM_DEF_CPU_HZ          206e6     /* StrongARM SA1110 */
#define SIM_DEF_IRQ_LAT_MIN     0         /* s: fixed part, edge to the core (A.2: ns) */
#define SIM_DEF_IRQ_LAT_MAX     0         /* s */
#define SIM_DEF_IRQ_LAT_CYC_MIN 206       /* cycles to the first ISR instruction: */
#define SIM_DEF_IRQ_LAT_CYC_MAX 824       /*   1-4 us at 206 MHz, 3.5-14 us at 59 MHz */
/* Other interrupt sources: the OS tick of Windows CE (1 ms), its handler
 * running with interrupts off; the sampling ISR cannot see it (blind spot). */
#define SIM_DEF_IRQ_OTHER_HZ    1000.0
#define SIM_DEF_IRQ_OTHER_CYCLES 200      /* ~1 us at 206 MHz */
/* Interrupt-disabled regions in the running code (critical sections):
 * none by default (no figure in seed 001); a sampling interrupt waits for
 * the region's end. */
/* A frequency switch stalls the core while the PLL relocks (about 150 us
 * on the SA-1100/1110; no figure in seed 001), interrupts held, drawing
 * dvfs_power of CPU power besides the rest. */
#define SIM_DEF_DVFS_TIME       150e-6
#define SIM_DEF_DVFS_POWER      0.05
#define SIM_DEF_IRQOFF_HZ       0.0
#define SIM_DEF_IRQOFF_CYCLES   2000
/* Clocks: the board's 16 MHz crystal (ABM8-16.000MHZ-B2, hardware/prices.csv)
 * is +-20 ppm; the target's, a +-50 ppm crystal, at its limit.  The
 * target's clock reads target_clock_offset when the board starts. */
#define SIM_DEF_BOARD_PPM       20.0
#define SIM_DEF_TARGET_PPM      (-50.0)
#define SIM_DEF_TARGET_OFFSET   0.0
#define SIM_DEF_SKEW_INSNS      1         /* A.2: the sample names the next instruction */
#define SIM_DEF_INSN_BYTES      4
#define SIM_DEF_SKEW_INSNS_MAX  0         /* <= skew_insns: always skew_insns (SA-1110) */
/* Where in a procedure the time goes: a hot loop takes this share of it
 * over this share of the code (the classic 80/20); 0: uniform. */
#define SIM_DEF_PC_HOT_SHARE    0.8
#define SIM_DEF_PC_HOT_SPAN     0.2
#define SIM_DEF_ISR_CYCLES      2000      /* ~10 us at 206 MHz */
#define SIM_DEF_ISR_POWER       0.9       /* W of CPU activity while in the ISR */
#define SIM_DEF_RING_SAMPLES    2048      /* 64 KB of 32-byte samples */
#define SIM_DEF_DRAIN_PERIOD    0.1       /* s between recorder drains */
/* The recorder's CPU per drain: waking up and its system calls, plus
 * copying and writing each sample; about 0.1% of the time at 206 MHz with
 * ~35 samples a drain, as the paper's collector (0.11% of the samples). */
#define SIM_DEF_DRAIN_CYCLES    10000
#define SIM_DEF_DRAIN_CYCLES_PER_SAMPLE 300
#define SIM_DEF_TIME_HZ         349.0     /* time-driven sampling rate */
#define SIM_DEF_TIME_JITTER_PCT 5.0       /* +-% of the timer period */
#define SIM_DEF_SLICE           1e-3      /* s: procedure switch granularity */
#define SIM_DEF_TRACE_BIN       0.0       /* s: truth trace bin, 0 = duration/2000 */

#endif
