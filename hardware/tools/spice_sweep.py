#!/usr/bin/python3
"""Sweep the SPICE front end over load current on both ranges.

For each load (1 mA .. 2 A) and range it runs ngspice in batch mode on
hardware/spice/frontend.cir, measures the pulse period and the discharge
(dead) time from the log (ngspice exits 0 even when a .meas fails, so a
missing measurement is an error here), and derives:

  E_min(measured) = (I_load / f) * Vb        (charge per pulse times Vb)
  E_min(ideal)    = C * (Vx/3) / alpha * Vb  (seed 001, equations 1 and 2)

then applies the documented dead-time correction f' = f / (1 - f*t_d) and
the two-point calibration (gain and offset, per range) and reports the
linearity error.  Prints TAP lines (one per check) and writes the table to
the CSV named by --csv.  Exit status 1 when a check fails.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import design

DECK = os.path.join(design.HW, 'spice', 'frontend.cir')
LOADS = [1e-3, 2e-3, 5e-3, 10e-3, 20e-3, 50e-3, 100e-3, 200e-3, 500e-3, 1.0, 2.0]
PERIODS = 8
# two-point calibration loads and the range over which linearity is judged
CAL = {'high': (20e-3, 1.0), 'low': (2e-3, 100e-3)}
JUDGE = {'high': (10e-3, 1.0), 'low': (10e-3, 100e-3)}
LIMIT = 0.01

def params(path=DECK):
	"""The .param name = value lines of the deck (numbers only)."""
	out = {}
	for line in open(path):
		m = re.match(r'\s*\.param\s+(\w+)\s*=\s*([-+0-9.eE]+)\s*$', line)
		if m:
			out[m.group(1)] = float(m.group(2))
	return out

def run_point(i_load, low, p):
	"""(period, dead time) from one ngspice run."""
	alpha = (p['r_sense_high'] + (p['r_sense_low'] if low else 0)) * p['amp_gm']
	swing = p['vx'] / 3 * 1.3
	t_est = p['c_int'] * swing / (alpha * i_load) + 4 * p['dead_time']
	tstop = t_est * (PERIODS + 4)
	tmax = min(t_est / 1500, 400e-9)
	deck = '\n'.join([
		'* eqprof front end: %g A, %s range' % (i_load, 'low' if low else 'high'),
		'.param iload = %g' % i_load,
		'.param lowrange = %d' % low,
		'.include %s' % DECK,
		'.options method=gear trtol=1 reltol=1e-4 chgtol=1e-18',
		'.ic v(vcap)=%g v(q)=1 v(d)=1' % (p['vx'] / 3 + 0.05),
		'.tran %g %g 0 %g uic' % (tmax, tstop, tmax),
		'.meas tran ta when v(q)=0.5 rise=2',
		'.meas tran tb when v(q)=0.5 rise=%d' % (PERIODS + 2),
		'.meas tran son when v(d)=0.3 fall=3',
		'.meas tran soff when v(d)=0.3 rise=3',
		'.end', ''])
	with tempfile.NamedTemporaryFile('w', suffix='.cir', delete=False) as f:
		f.write(deck)
	try:
		r = subprocess.run(['ngspice', '-b', f.name], capture_output=True, text=True, timeout=120)
	finally:
		os.unlink(f.name)
	log = r.stdout + r.stderr
	got = {}
	for name in ('ta', 'tb', 'son', 'soff'):
		m = re.search(r'^%s\s*=\s*([-+0-9.eE]+)' % name, log, re.M)
		if not m:
			raise RuntimeError('ngspice: measurement %s failed at %g A (%s range):\n%s'
					   % (name, i_load, 'low' if low else 'high', log[-2000:]))
		got[name] = float(m.group(1))
	return (got['tb'] - got['ta']) / PERIODS, got['soff'] - got['son']

def calibrate(points, t_d, cal):
	"""Gain and offset from two loads: I = a * f' + b, f' dead-time corrected."""
	(i1, f1), (i2, f2) = [(i, f / (1 - f * t_d)) for i, f in
			      (min(points, key=lambda q: abs(q[0] - c)) for c in cal)]
	a = (i2 - i1) / (f2 - f1)
	return a, i1 - a * f1

def worst_error(pts, t_d, cal, judge):
	a, b = calibrate(pts, t_d, cal)
	return max(abs((a * f / (1 - f * t_d) + b) / i - 1) for i, f in pts
		   if judge[0] * 0.999 <= i <= judge[1] * 1.001)

def best_dead_time(pts, cal, judge):
	"""The dead time (0..1 us, 1 ns steps) whose correction fits the sweep best."""
	return min((k * 1e-9 for k in range(0, 1001)),
		   key=lambda t: worst_error(pts, t, cal, judge))

def main():
	ap = argparse.ArgumentParser()
	ap.add_argument('--csv', help='write the sweep table here')
	args = ap.parse_args()
	p = params()
	vals = design.read_values()
	t_d = vals['dead_time']
	rows, ok_all, n = [], True, 0
	def tap(ok, what):
		nonlocal n, ok_all
		n += 1
		ok_all &= ok
		print('%s %d - %s' % ('ok' if ok else 'not ok', n, what))
	for rng in ('high', 'low'):
		low = rng == 'low'
		alpha = (p['r_sense_high'] + (p['r_sense_low'] if low else 0)) * p['amp_gm']
		e_ideal = p['c_int'] * p['vx'] / 3 / alpha * p['vb_nominal']
		pts, deads = [], []
		for i in LOADS:
			period, dead = run_point(i, low, p)
			pts.append((i, 1 / period))
			deads.append(dead)
		a, b = calibrate(pts, t_d, CAL[rng])
		worst = 0.0
		for (i, f), dead in zip(pts, deads):
			e_meas = i / f * p['vb_nominal']
			raw = e_meas / e_ideal - 1
			i_est = a * f / (1 - f * t_d) + b
			err = i_est / i - 1
			lo, hi = JUDGE[rng]
			judged = lo * 0.999 <= i <= hi * 1.001
			if judged:
				worst = max(worst, abs(err))
			rows.append((rng, i, f, e_meas, e_ideal, raw, dead, err, judged))
		# the dead-time error: rate lost at the top of the judged range
		top = JUDGE[rng][1]
		f1a = dict(pts)[top]
		tap(worst <= LIMIT, '%s range: linearity after calibration and dead-time correction '
		    '%.3f%% (limit %.1f%%) over %g..%g A' % (rng, worst * 100, LIMIT * 100, *JUDGE[rng]))
		meas_dead = sum(deads) / len(deads)
		fit = best_dead_time(pts, CAL[rng], JUDGE[rng])
		tap(abs(fit - t_d) <= 0.10 * t_d, '%s range: dead time fitted to the sweep %.0f ns '
		    '(discharge switch on %.0f ns) matches board.values dead_time %.0f ns (+-10%%); '
		    'rate lost to it at %g A %.2f%%' % (rng, fit * 1e9, meas_dead * 1e9, t_d * 1e9, top, f1a * t_d * 100))
	if args.csv:
		tmp = args.csv + '.tmp'
		with open(tmp, 'w') as f:
			f.write('range,i_load_A,pulse_rate_Hz,e_min_measured_J,e_min_ideal_J,'
				'raw_error_pct,dead_time_ns,error_after_cal_pct,judged\n')
			for r in rows:
				f.write('%s,%g,%.6g,%.6g,%.6g,%.3f,%.1f,%.4f,%s\n'
					% (r[0], r[1], r[2], r[3], r[4], r[5] * 100, r[6] * 1e9, r[7] * 100,
					   'yes' if r[8] else 'no'))
		os.replace(tmp, args.csv)
	for r in rows:
		print('# %-4s %8.4g A  %10.5g Hz  E_min %.4g J (ideal %.4g, %+.2f%%)  dead %.0f ns  cal err %+.3f%%'
		      % (r[0], r[1], r[2], r[3], r[4], r[5] * 100, r[6] * 1e9, r[7] * 100))
	return 0 if ok_all else 1

if __name__ == '__main__':
	sys.exit(main())
