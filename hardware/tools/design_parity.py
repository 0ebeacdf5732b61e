#!/usr/bin/python3
"""The schematic's exported netlist connects exactly what tools/design.py
says: every (part, pin) on the net design.py gives it, nothing else.  A
generated schematic whose labels or wire stubs touched by accident would
merge nets silently; this catches it.

usage: design_parity.py NETLIST.net     (prints one TAP line; exit 1 on a difference)
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import design
from intent_check import Netlist


def main():
	if len(sys.argv) != 2:
		sys.exit(__doc__)
	nl = Netlist(sys.argv[1])
	want = {}
	for net, nodes in design.nets(design.parts()).items():
		for ref, pin in nodes:
			if not ref.startswith('FLG'):
				want[(ref, str(pin))] = net
	got = {(r, p): n for (r, p), n in nl.pin_net.items() if not r.startswith('#')}
	bad = []
	for node, net in sorted(want.items()):
		if got.get(node) != net:
			bad.append('%s pin %s: design.py says %s, the schematic has %s' % (node + (net, got.get(node))))
	# nets must not merge: two design nets on one schematic net
	merged = {}
	for node, net in want.items():
		merged.setdefault(got.get(node), set()).add(net)
	for snet, dnets in sorted(merged.items(), key=str):
		if snet is not None and len(dnets) > 1:
			bad.append('schematic net %s joins design nets %s' % (snet, sorted(dnets)))
	print('%s 1 - schematic netlist connects exactly what design.py says (%d pins)'
	      % ('not ok' if bad else 'ok', len(want)))
	for b in bad[:30]:
		print('#   ' + b)
	return 1 if bad else 0


if __name__ == '__main__':
	sys.exit(main())
