/*
 * fw_defaults.h - the board firmware's defaults.
 *
 * These must equal hardware/board.values (the one source of truth for the
 * board's component values); `make -C hardware check` compares them.  The
 * firmware uses them until `eqprof board config` or the EEPROM calibration
 * says otherwise.
 */
#ifndef FW_DEFAULTS_H
#define FW_DEFAULTS_H

#define FW_MCU_CLOCK_HZ      16000000UL /* mcu_clock: ATmega328P crystal */
#define FW_QUANTUM_PULSES    64UL       /* quantum_pulses: default mean preload N */
#define FW_JITTER_PCT        5          /* jitter_pct: preload jitter +-J % */
#define FW_ADC_R_TOP_OHM     100000UL   /* adc_r_top: battery divider, upper leg */
#define FW_ADC_R_BOTTOM_OHM  47000UL    /* adc_r_bottom: battery divider, lower leg */
#define FW_ADC_VREF_V        2.5        /* adc_vref: the board's LM4040 on AREF */
#define FW_UART_BAUD         1000000UL  /* uart_baud: FT232R link */
#define FW_IRQ_PULSE_WIDTH_S 2e-6       /* irq_pulse_width: IRQ output high time */
#define FW_VB_NOMINAL_V      4.07       /* vb_nominal: voltage E_min refers to */

/* Derived integer forms the firmware computes with (no floating point on the AVR). */
#define FW_VB_NOMINAL_UV     4070000UL
#define FW_ADC_VREF_UV       2500000UL
#define FW_E_MIN_PJ          46296250UL /* e_min_high = 46.29625 uJ, in picojoules */
#define FW_IRQ_PULSE_WIDTH_NS 2000U

#endif
