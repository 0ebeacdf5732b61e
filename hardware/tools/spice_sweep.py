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
linearity error.

It then sweeps the USB rail (VBUS 4.5-5.5 V) at one load per range and
checks that E_min, the battery voltage the firmware reads (ADC against AREF)
and the energy of a compensated quantum (E_min over the reading) each stay
within 0.5 % of their value at 5.0 V.  --refmode 0 runs the same sweep on
the issue-13 board (555 thresholds and AREF from VBUS) for comparison.

Prints TAP lines (one per check) and writes the tables to the CSV files
named by --csv and --vbus-csv.  Exit status 1 when a check fails.
"""
import argparse
import os
import re
import resource
import signal
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
VBUS = [4.5, 4.75, 5.0, 5.25, 5.5]
VBUS_LOADS = {'high': 0.1, 'low': 0.05}
VBUS_LIMIT = 0.005
OVERLOAD = (1.0, 1.5)	# A on the low range: a burst, and the fuse's rating
R_LOW_RATING = 1.0	# W: Vishay WSK2512 1 ohm
CPU_LIMIT = 300	# s of CPU time one ngspice run may take (a hang guard)

def params(path=DECK):
	"""The .param name = value lines of the deck (numbers only)."""
	out = {}
	for line in open(path):
		m = re.match(r'\s*\.param\s+(\w+)\s*=\s*([-+0-9.eE]+)\s*$', line)
		if m:
			out[m.group(1)] = float(m.group(2))
	return out

def thresholds(p, vbus=5.0, refmode=1):
	"""The 555's (upper, lower) thresholds: CONT on the reference, or the
	555's own 2/3 VDD on the issue-13 board."""
	cont = p['v_ref'] if refmode else 2.0 / 3.0 * vbus
	return cont, cont / 2


def run_point(i_load, low, p, vbus=5.0, refmode=1):
	"""{'period', 'dead', 'vb_read', 'v_dev'} from one ngspice run."""
	alpha = (p['r_sense_high'] + (p['r_sense_low'] if low else 0)) * p['amp_gm']
	hi, lo = thresholds(p, vbus, refmode)
	swing = (hi - lo) * 1.3
	t_est = p['c_int'] * swing / (alpha * (abs(i_load) or 1e-3)) + 4 * p['dead_time']
	tstop = t_est * (PERIODS + 4)
	tmax = min(t_est / 1500, 400e-9)
	r_sensed = p['r_sense_high'] + (p['r_sense_low'] if low else 0)
	deck = '\n'.join([
		'* eqprof front end: %g A, %s range, VBUS %g V, %s' % (i_load, 'low' if low else 'high', vbus,
								      'reference' if refmode else 'issue-13 board'),
		'.param iload = %g' % i_load,
		'.param lowrange = %d' % low,
		'.param vbus = %g' % vbus,
		'.param refmode = %d' % refmode,
		'.include %s' % DECK,
		'.options method=gear trtol=1 reltol=1e-4 chgtol=1e-18',
		# ngspice reads /proc/meminfo at every time point it keeps in
		# memory (about half of a point's CPU time); the points are small
		'.options no_mem_check',
		# start on the DC operating point of the slow nodes (uic skips it)
		'.ic v(vcap)=%g v(q)=1 v(d)=1 v(cont)=%g v(vref)=%g v(vsen)=%g v(vsr)=%g'
		% (lo + 0.05, hi, p['v_ref'] if refmode else 0, max(i_load, 0) * r_sensed, max(i_load, 0) * r_sensed),
		'.tran %g %g 0 %g uic' % (tmax, tstop, tmax),
		'.meas tran ta when v(q)=0.5 rise=2',
		'.meas tran tb when v(q)=0.5 rise=%d' % (PERIODS + 2),
		'.meas tran son when v(d)=0.3 fall=3',
		'.meas tran soff when v(d)=0.3 rise=3',
		'.meas tran vbr avg v(vbread) from=%g to=%g' % (tstop / 2, tstop),
		'.meas tran vdv avg v(vdev) from=%g to=%g' % (tstop / 2, tstop),
		'.meas tran vlow avg v(vlow) from=%g to=%g' % (tstop / 2, tstop),
		'.meas tran vsns avg v(vsr) from=%g to=%g' % (tstop / 2, tstop),
		'.meas tran vcont avg v(cont) from=%g to=%g' % (tstop / 2, tstop),
		'.meas tran varef avg v(aref) from=%g to=%g' % (tstop / 2, tstop),
		'.end', ''])
	with tempfile.NamedTemporaryFile('w', suffix='.cir', delete=False) as f:
		f.write(deck)
	try:
		# A hang guard on CPU time, not wall time: a point needs a few CPU
		# seconds, but on a loaded machine minutes of wall time.
		r = subprocess.run(['ngspice', '-b', f.name], capture_output=True, text=True,
				   preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_CPU, (CPU_LIMIT, CPU_LIMIT)))
	finally:
		os.unlink(f.name)
	log = r.stdout + r.stderr
	if r.returncode < 0 and -r.returncode in (signal.SIGXCPU, signal.SIGKILL):
		raise RuntimeError('ngspice: no result in %d s of CPU time at %g A (%s range, VBUS %g V)'
				   % (CPU_LIMIT, i_load, 'low' if low else 'high', vbus))
	got = {}
	for name in ('ta', 'tb', 'son', 'soff', 'vbr', 'vdv', 'vlow', 'vsns', 'vcont', 'varef'):
		m = re.search(r'^%s\s*=\s*([-+0-9.eE]+)' % name, log, re.M)
		if not m:
			raise RuntimeError('ngspice: measurement %s failed at %g A (%s range, VBUS %g V):\n%s'
					   % (name, i_load, 'low' if low else 'high', vbus, log[-2000:]))
		got[name] = float(m.group(1))
	return {'period': (got['tb'] - got['ta']) / PERIODS, 'dead': got['soff'] - got['son'],
		'vb_read': got['vbr'], 'v_dev': got['vdv'], 'v_low': got['vlow'], 'v_sense': got['vsns'],
		'v_cont': got['vcont'], 'v_aref': got['varef']}


def vbus_sweep(p, rng, refmode=1):
	"""Rows (vbus, rate, E_min, V_b read, quantum) and the worst deviations
	from VBUS = 5.0 V of E_min, the reading and the compensated quantum."""
	i = VBUS_LOADS[rng]
	rows = []
	for vb in VBUS:
		r = run_point(i, rng == 'low', p, vb, refmode)
		f = 1 / r['period']
		rows.append([vb, f, i * r['v_dev'] / f, r['vb_read']])
	ref = next(r for r in rows if r[0] == 5.0)
	for r in rows:
		# the firmware sizes N for a quantum from E_min scaled by its reading
		# of V_b: the energy a compensated quantum really holds goes as
		# E_min(VBUS) / reading(VBUS)
		r.append((r[2] / ref[2]) / (r[3] / ref[3]))
	dev = [max(abs(r[k] / ref[k] - 1) for r in rows) for k in (2, 3)]
	dev.append(max(abs(r[4] - 1) for r in rows))
	return rows, dev


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
	ap.add_argument('--vbus-csv', help='write the VBUS sweep table here')
	ap.add_argument('--refmode', type=int, default=1,
			help='1: the reference on CONT and AREF (this board); 0: the issue-13 board (VBUS sweep only)')
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
	for rng in ('high', 'low') if args.refmode else ():
		low = rng == 'low'
		alpha = (p['r_sense_high'] + (p['r_sense_low'] if low else 0)) * p['amp_gm']
		e_ideal = p['c_int'] * p['v_ref'] / 2 / alpha * p['vb_nominal']
		pts, deads = [], []
		for i in LOADS:
			r = run_point(i, low, p)
			pts.append((i, 1 / r['period']))
			deads.append(r['dead'])
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
	# overload of the low range: the S1M across R_low must hold its power
	# within the shunt's 1 W rating up to the fuse's 2 A
	for i in (OVERLOAD if args.refmode else ()):
		r = run_point(i, 1, p)
		p_low = r['v_low'] ** 2 / p['r_sense_low']
		tap(p_low <= R_LOW_RATING, 'low range overload %g A: R_low %.2f V, %.2f W (rating %.1f W), clamp diode '
		    '%.2f A, amplifier input %.2f V' % (i, r['v_low'], p_low, R_LOW_RATING, i - r['v_low'] / p['r_sense_low'],
							  r['v_sense']))
	vrows = []
	for rng in ('high', 'low'):
		rows_v, dev = vbus_sweep(p, rng, args.refmode)
		vrows += [[rng] + r for r in rows_v]
		tap(max(dev) <= VBUS_LIMIT, '%s range, %g A, VBUS %g-%g V: E_min within %.3f%%, battery reading within '
		    '%.3f%%, compensated quantum within %.3f%% (limit %.1f%%)'
		    % (rng, VBUS_LOADS[rng], VBUS[0], VBUS[-1], dev[0] * 100, dev[1] * 100, dev[2] * 100, VBUS_LIMIT * 100))
	if args.vbus_csv:
		tmp = args.vbus_csv + '.tmp'
		with open(tmp, 'w') as f:
			f.write('range,vbus_V,pulse_rate_Hz,e_min_J,vb_read_V,quantum_rel\n')
			for r in vrows:
				f.write('%s,%g,%.7g,%.7g,%.6g,%.6f\n' % tuple(r))
		os.replace(tmp, args.vbus_csv)
	for r in vrows:
		print('# VBUS %-4s %.2f V  %10.6g Hz  E_min %.6g J  V_b read %.5f V  quantum x%.5f' % tuple(r))
	if args.csv and rows:
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
