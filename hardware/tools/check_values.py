#!/usr/bin/python3
"""One source of truth: compare hardware/board.values with the schematic's
netlist, the SPICE deck, the firmware defaults and the simulator defaults.

usage: check_values.py [--values board.values] NETLIST.net [EQPROF]
Prints one TAP line per consumer; a consumer that is missing is a failure.
"""
import argparse
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import design
import spice_sweep
from sexpr import parse, find, find_all

ROOT = os.path.dirname(design.HW)
SI = {'p': 1e-12, 'n': 1e-9, 'u': 1e-6, 'm': 1e-3, 'k': 1e3, 'M': 1e6}
FW = {'mcu_clock': 'FW_MCU_CLOCK_HZ', 'quantum_pulses': 'FW_QUANTUM_PULSES',
      'jitter_pct': 'FW_JITTER_PCT', 'adc_r_top': 'FW_ADC_R_TOP_OHM',
      'adc_r_bottom': 'FW_ADC_R_BOTTOM_OHM', 'adc_vref': 'FW_ADC_VREF_V',
      'uart_baud': 'FW_UART_BAUD', 'irq_pulse_width': 'FW_IRQ_PULSE_WIDTH_S',
      'vb_nominal': 'FW_VB_NOMINAL_V'}
SIM = ('r_sense_high', 'alpha_high', 'c_int', 'vx', 'dead_time', 'vb_nominal',
       'e_min_high', 'quantum_pulses', 'jitter_pct', 'mcu_clock')

def num(s):
	"""'100m' / '6.8n' / '16MHz' / '47k' -> float."""
	m = re.match(r'^\s*([-+]?[0-9.]+(?:[eE][-+]?\d+)?)\s*([pnumkM]?)', s)
	if not m:
		raise ValueError('not a number: %r' % s)
	return float(m.group(1)) * SI.get(m.group(2), 1)

def close(a, b, tol=1e-3):
	return abs(a - b) <= tol * max(abs(a), abs(b), 1e-30)

def compare(what, got, want):
	"""got/want: {name: value}; returns list of mismatch strings."""
	bad = []
	for name, v in want.items():
		if name not in got:
			bad.append('%s: %s missing' % (what, name))
		elif not close(got[name], v):
			bad.append('%s: %s = %g, board.values says %g' % (what, name, got[name], v))
	return bad

def netlist_values(path):
	"""{board.values name: value} from the BoardValue fields of the netlist;
	the number is the part's Value, or its BoardNumber field when the Value
	is a part name (the amplifier's gm, the reference's voltage)."""
	out = {}
	for c in find_all(find(parse(open(path).read()), 'components'), 'comp'):
		fields = find(c, 'fields')
		f = {find(x, 'name')[1]: x[-1] for x in find_all(fields, 'field')} if fields else {}
		if 'BoardValue' in f:
			out[f['BoardValue']] = num(f.get('BoardNumber', find(c, 'value')[1]))
	return out

def main():
	ap = argparse.ArgumentParser()
	ap.add_argument('--values', default=os.path.join(design.HW, 'board.values'))
	ap.add_argument('netlist')
	ap.add_argument('eqprof', nargs='?', default=os.environ.get('EQPROF', ''))
	args = ap.parse_args()
	netlist, eqprof = args.netlist, args.eqprof
	v = design.read_values(args.values)
	n, failed = 0, 0
	def tap(bad, what):
		nonlocal n, failed
		n += 1
		failed += bool(bad)
		print('%s %d - %s' % ('not ok' if bad else 'ok', n, what))
		for b in bad:
			print('#   ' + b)
	# derived values must follow from the primary ones
	derived = {'alpha_high': v['r_sense_high'] * v['amp_gm'],
		   'alpha_low': (v['r_sense_high'] + v['r_sense_low']) * v['amp_gm'],
		   'vx': 1.5 * v['v_ref'],
		   'e_min_high': v['c_int'] * v['vx'] / 3 / (v['r_sense_high'] * v['amp_gm']) * v['vb_nominal']}
	tap(compare('board.values', v, derived), 'board.values: alpha, Vx and E_min follow from R, gm, C, v_ref, Vb')
	want = {k: v[k] for k in ('r_sense_high', 'r_sense_low', 'c_int', 'adc_r_top', 'adc_r_bottom',
				  'mcu_clock', 'amp_gm', 'r_dis', 'v_ref', 'r_ref_bias')}
	tap(compare('schematic netlist', netlist_values(netlist), want), 'schematic netlist agrees with board.values')
	sp = spice_sweep.params()
	tap(compare('spice/frontend.cir', sp, {k: v[k] for k in ('r_sense_high', 'r_sense_low', 'amp_gm',
			'c_int', 'v_ref', 'r_dis', 'vb_nominal', 'dead_time', 'adc_r_top', 'adc_r_bottom',
			'r_ref_bias')}),
	    'SPICE .param lines agree with board.values')
	hdr = os.path.join(ROOT, 'firmware', 'portable', 'fw_defaults.h')
	if os.path.exists(hdr):
		got = {}
		for m in re.finditer(r'^\s*#\s*define\s+(FW_\w+)\s+\(?\s*([-+0-9.eE]+)[uUlLfF]*\s*\)?', open(hdr).read(), re.M):
			got[m.group(1)] = float(m.group(2))
		bad = compare('fw_defaults.h', {k: got[m] for k, m in FW.items() if m in got},
			      {k: v[k] for k in FW})
	else:
		bad = ['firmware/portable/fw_defaults.h does not exist yet']
	tap(bad, 'firmware defaults agree with board.values')
	got, bad = {}, []
	if eqprof and os.access(eqprof, os.X_OK):
		r = subprocess.run([eqprof, 'sim', '--defaults'], capture_output=True, text=True)
		for line in r.stdout.splitlines():
			parts = line.split()
			if len(parts) >= 2:
				try:
					got[parts[0]] = num(parts[1])
				except ValueError:
					pass
		if r.returncode:
			bad.append('`eqprof sim --defaults` exited %d: %s' % (r.returncode, r.stderr.strip()[:200]))
		bad += compare('eqprof sim --defaults', got, {k: v[k] for k in SIM})
	else:
		bad = ['no eqprof executable (set EQPROF) to ask for `eqprof sim --defaults`']
	tap(bad, 'simulator defaults agree with board.values')
	return 1 if failed else 0

if __name__ == '__main__':
	sys.exit(main())
