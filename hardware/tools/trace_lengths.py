#!/usr/bin/python3
"""Track length of the board's sensitive nets, from the routed PCB.

The integrating node (VCAP: amplifier OUT, C_int, 555 THRES/TRIG, discharge
resistor, test point) and the crystal nets pick up charge and noise in
proportion to their length; they must stay short.

usage: trace_lengths.py BOARD.kicad_pcb    (TAP; exit 1 when a net is over its limit)
Needs KiCad's pcbnew Python module (run with /usr/bin/python3).
"""
import sys

import pcbnew

LIMITS = {'VCAP': 25.0, 'XTAL1': 10.0, 'XTAL2': 10.0}	# mm (issue 13: were 45.9, 25.3, 30.8 mm)


def lengths(path):
	board = pcbnew.LoadBoard(path)
	out = {}
	for t in board.GetTracks():
		name = t.GetNetname().lstrip('/')
		if t.Type() == pcbnew.PCB_TRACE_T:
			out[name] = out.get(name, 0.0) + pcbnew.ToMM(t.GetLength())
	return out


def main():
	if len(sys.argv) != 2:
		sys.exit(__doc__)
	got = lengths(sys.argv[1])
	bad = 0
	for n, (net, limit) in enumerate(sorted(LIMITS.items()), 1):
		ok = net in got and got[net] <= limit
		bad += not ok
		print('%s %d - %s track length %.1f mm (limit %.0f mm)'
		      % ('ok' if ok else 'not ok', n, net, got.get(net, float('nan')), limit))
	return 1 if bad else 0


if __name__ == '__main__':
	sys.exit(main())
