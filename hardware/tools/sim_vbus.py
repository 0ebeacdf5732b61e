#!/usr/bin/python3
"""The USB rail in the simulator: E_min and the battery reading over VBUS.

The simulator (`eqprof sim`, sim/frontend.c and sim/counter_builtin.c)
models the board's one reference through `vx`: the 555's thresholds
(Vx/3 = CONT/2, so vx = 1.5 V(CONT)) and the ADC's AREF (vx / 1.5, the same
node; the firmware's conversion assumes adc_vref).  It does not know VBUS.
This script takes, at each VBUS of spice_sweep.VBUS (4.5-5.5 V), V(CONT)
and V(AREF) from the SPICE deck (hardware/spice/frontend.cir: the LM4040's
dynamic impedance and bias, the 555's divider on CONT and the AREF input
resistance, all from their data sheets), checks that they are one node,
runs the simulator with vx = 1.5 V(CONT) and the board's voltage
compensation on, and reads from its truth (truth.json):

  E_min      = true energy / pulses          (what one pulse is worth)
  quantum    = true energy / IRQs            (what one compensated IRQ is worth)
  reading    = E_min / quantum, relative to VBUS 5 V
               (the compensation sizes N as vb_nominal / reading, so the
               energy of a quantum goes as E_min / reading)

and checks that each stays within 0.5 % of its value at 5.0 V.  With
--refmode 0 it runs the issue-13 board (thresholds at 2/3 VBUS, AREF =
AVcc = VBUS, which the firmware then took for 5.0 V): both move as VBUS,
which the simulator's one reference reproduces with vx = 3.75 V * VBUS / 5
(E_min and AREF each x VBUS / 5 V); it must fail.

usage: sim_vbus.py EQPROF [--refmode 0|1] [--csv OUT]
Prints TAP; exit 1 when a check fails or the simulator cannot be run.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import design
import spice_sweep

SCENARIO = 'Idle'	# a near-constant load: its pulses and IRQs are many and steady
LOAD = 0.1		# A on the high range for the SPICE operating point
SIM_SET = ['vcomp=on', 'quantum_pulses=16', 'jitter_pct=0', 'range=high']
ISSUE13_AREF = 5.0	# V the issue-13 firmware assumed for AREF = AVcc


def node_voltages(p, vbus, refmode):
	"""vx to give the simulator for this VBUS, from SPICE."""
	r = spice_sweep.run_point(LOAD, 0, p, vbus, refmode)
	vals = design.read_values()
	if refmode:
		# the simulator has one reference for CONT and AREF: so must the board
		if abs(r['v_aref'] / r['v_cont'] - 1) > 1e-4:
			raise RuntimeError('SPICE: V(AREF) %.5f V and V(CONT) %.5f V at VBUS %g V are not one node'
					   % (r['v_aref'], r['v_cont'], vbus))
		return 1.5 * r['v_cont'], r
	# issue-13 board: CONT at 2/3 VBUS and AREF = VBUS, both relative to
	# what the firmware assumed at 5 V
	return vals['vx'] * r['v_aref'] / ISSUE13_AREF, r


def run_sim(eqprof, vx):
	with tempfile.TemporaryDirectory() as d:
		cmd = [eqprof, 'sim', SCENARIO, '-o', d, '-q', '--seed', '1', '--set', 'vx=%.9g' % vx]
		for s in SIM_SET:
			cmd += ['--set', s]
		r = subprocess.run(cmd, capture_output=True, text=True)
		if r.returncode != 0:
			raise RuntimeError('%s failed (exit %d): %s' % (' '.join(cmd), r.returncode,
									 (r.stderr or r.stdout).strip()))
		with open(os.path.join(d, 'truth.json')) as f:
			t = json.load(f)
	return t['energy_j'], t['pulses'], t['quanta']


def sweep(eqprof, refmode=1, p=None):
	"""Rows (vbus, V(CONT), V(AREF), E_min, reading rel, quantum rel) and the
	worst deviations from VBUS 5.0 V of E_min, the reading and the quantum."""
	p = p or spice_sweep.params()
	rows = []
	for vb in spice_sweep.VBUS:
		vx, r = node_voltages(p, vb, refmode)
		e, pulses, quanta = run_sim(eqprof, vx)
		rows.append([vb, r['v_cont'], r['v_aref'], e / pulses, e / quanta])
	ref = next(r for r in rows if r[0] == 5.0)
	out = []
	for vb, cont, aref, emin, quantum in rows:
		e_rel, q_rel = emin / ref[3], quantum / ref[4]
		out.append([vb, cont, aref, emin, e_rel / q_rel, q_rel])
	dev = [max(abs(r[3] / ref[3] - 1) for r in out), max(abs(r[4] - 1) for r in out),
	       max(abs(r[5] - 1) for r in out)]
	return out, dev


def main():
	ap = argparse.ArgumentParser()
	ap.add_argument('eqprof')
	ap.add_argument('--refmode', type=int, default=1)
	ap.add_argument('--csv')
	args = ap.parse_args()
	if not os.access(args.eqprof, os.X_OK):
		print('not ok 1 - simulator over VBUS: no eqprof executable at %s (build it: make)' % args.eqprof)
		return 1
	try:
		rows, dev = sweep(args.eqprof, args.refmode)
	except RuntimeError as e:
		print('not ok 1 - simulator over VBUS: %s' % e)
		return 1
	ok = max(dev) <= spice_sweep.VBUS_LIMIT
	print('%s 1 - simulator (%s), VBUS %g-%g V: E_min within %.3f%%, battery reading within %.3f%%, '
	      'compensated quantum within %.3f%% (limit %.1f%%)'
	      % ('ok' if ok else 'not ok', 'LM4040 on CONT and AREF' if args.refmode else 'issue-13 board',
		 spice_sweep.VBUS[0], spice_sweep.VBUS[-1], dev[0] * 100, dev[1] * 100, dev[2] * 100,
		 spice_sweep.VBUS_LIMIT * 100))
	for r in rows:
		print('# VBUS %.2f V  CONT %.5f V  AREF %.5f V  sim E_min %.6g J  reading x%.5f  quantum x%.5f' % tuple(r))
	if args.csv:
		tmp = args.csv + '.tmp'
		with open(tmp, 'w') as f:
			f.write('vbus_V,v_cont_V,v_aref_V,sim_e_min_J,reading_rel,quantum_rel\n')
			for r in rows:
				f.write('%g,%.6f,%.6f,%.7g,%.6f,%.6f\n' % tuple(r))
		os.replace(tmp, args.csv)
	return 0 if ok else 1


if __name__ == '__main__':
	sys.exit(main())
