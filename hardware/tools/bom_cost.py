#!/usr/bin/python3
"""Cost estimate from the BOM: price each BOM line from hardware/prices.csv.

usage: bom_cost.py BOM.csv [OUT.md [POS.csv]]
A line is priced by its MPN, else its Value, else a footprint prefix.

It also checks that the BOM is complete for assembly: every line names a
manufacturer and part number, every resistor and capacitor its rating
(voltage, dielectric, tolerance), and every part the BOM lists sits in the
pick-and-place file (POS.csv, from kicad-cli pcb export pos) unless it is
through-hole.
Writes a Markdown table (stdout or OUT.md, atomically).  Exit 1, naming the
line, when a BOM line has no price, so the estimate cannot silently drift
from the BOM.
"""
import csv
import os
import re
import sys

HW = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

def load_prices(path=os.path.join(HW, 'prices.csv')):
	rows = [l for l in open(path) if not l.startswith('#')]
	return [(r['match'], float(r['unit_eur']), r['part']) for r in csv.DictReader(rows)]

def price_of(value, footprint, prices, mpn=''):
	"""Price by manufacturer part number, else by value, else by footprint."""
	for match, eur, part in prices:
		if mpn and match == mpn:
			return eur, part
	for match, eur, part in prices:
		if match == value:
			return eur, part
	for match, eur, part in prices:
		if match.endswith('*') and footprint.startswith(match[:-1]):
			return eur, part
	return None

RE_VOLT = re.compile(r'\b\d+(\.\d+)? ?V\b')
RE_TOL = re.compile(r'\b\d+(\.\d+)? ?%')
RE_WATT = re.compile(r'\b\d+(\.\d+)? ?W\b')
RE_DIELECTRIC = re.compile(r'\b(C0G|NP0|X5R|X6S|X7R|X7S|X8R|Y5V)\b')

def rating_gaps(footprint, rating):
	"""What an assembler needs of a passive's rating and this one lacks:
	capacitors voltage, dielectric and tolerance; resistors tolerance and
	power, and voltage unless a 4-terminal shunt (whose limit is its power)."""
	need = []
	if footprint.startswith('Capacitor_SMD:'):
		need = [(RE_VOLT, 'has no voltage'), (RE_DIELECTRIC, 'has no dielectric'), (RE_TOL, 'has no tolerance')]
	elif footprint.startswith('Resistor_SMD:'):
		need = [(RE_TOL, 'has no tolerance'), (RE_WATT, 'has no power rating')]
		if 'Shunt' not in footprint:
			need.append((RE_VOLT, 'has no voltage rating'))
	return [what for rx, what in need if not rx.search(rating)]

def THT(footprint):
	"""Through-hole parts are hand-fitted: not in the pick-and-place file."""
	return footprint.startswith(('Connector_PinHeader', 'TerminalBlock'))

def expand(refs):
	"""'C1,C4-C7' -> ['C1', 'C4', 'C5', 'C6', 'C7']."""
	out = []
	for part in refs.split(','):
		part = part.strip()
		if '-' in part:
			a, b = part.split('-')
			pre = a.rstrip('0123456789')
			out += ['%s%d' % (pre, k) for k in range(int(a[len(pre):]), int(b[len(pre):]) + 1)]
		elif part:
			out.append(part)
	return out

def main():
	if len(sys.argv) not in (2, 3, 4):
		sys.exit(__doc__)
	prices = load_prices()
	out, total, missing = [], 0.0, []
	placed = None
	if len(sys.argv) == 4:
		with open(sys.argv[3]) as f:
			placed = {r['Ref'] for r in csv.DictReader(f)}
	with open(sys.argv[1]) as f:
		for n, row in enumerate(csv.DictReader(f), 2):
			where = '%s:%d: %s' % (sys.argv[1], n, row['Reference'])
			if not row.get('MPN') or not row.get('Manufacturer'):
				missing.append('%s has no manufacturer part number (add it in tools/design.py)' % where)
			for m in rating_gaps(row['Footprint'], row.get('Rating', '')):
				missing.append('%s: rating "%s" %s (add it in tools/design.py)' % (where, row.get('Rating', ''), m))
			if placed is not None and not THT(row['Footprint']):
				for ref in expand(row['Reference']):
					if ref not in placed:
						missing.append('%s: %s is not in the pick-and-place file' % (where, ref))
			qty = int(row['QUANTITY'])
			p = price_of(row['Value'], row['Footprint'], prices, row.get('MPN', ''))
			if p is None:
				missing.append('%s:%d: no price for %s %s (add it to hardware/prices.csv)'
					       % (sys.argv[1], n, row['Reference'], row['Value']))
				continue
			out.append((row['Reference'], qty, p[1], p[0], p[0] * qty))
			total += p[0] * qty
	pcb = price_of('PCB', '', prices)
	out.append(('-', 1, pcb[1], pcb[0], pcb[0]))
	total += pcb[0]
	lines = ['| references | qty | part | unit € | € |', '|---|---|---|---|---|']
	lines += ['| %s | %d | %s | %.2f | %.2f |' % r for r in out]
	lines.append('| **total** | | | | **%.2f** |' % total)
	text = '\n'.join(lines) + '\n'
	if len(sys.argv) >= 3:		# OUT.md, with or without POS.csv after it
		tmp = sys.argv[2] + '.tmp'
		with open(tmp, 'w') as f:
			f.write(text)
		os.replace(tmp, sys.argv[2])
	else:
		sys.stdout.write(text)
	for m in missing:
		print(m, file=sys.stderr)
	return 1 if missing else 0

if __name__ == '__main__':
	sys.exit(main())
