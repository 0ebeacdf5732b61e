#!/usr/bin/python3
"""Check the board's netlist against what the board must do, trusting no
symbol's pin numbers.

Which physical pin of a part does what comes from hardware/lib/datasheet-pins.txt
(tables transcribed from the manufacturers' datasheets, cited there); the
netlist only says which pin number sits on which net.  So a symbol drawn
with wrong pin numbers (issue 13: the MAX4172's RS- floating, its OUT
unconnected and its ground pin on the integrating capacitor) fails here
even though ERC, DRC and the SPICE sweep pass.

usage: intent_check.py [--pcb BOARD.kicad_pcb] NETLIST.net   checks of the design's intent
						 (with --pcb: decoupling distances too)
       intent_check.py --symbols LIB.kicad_sym   a symbol library against the tables
Prints one TAP line per check; exit status 1 when one fails.
"""
import argparse
import math
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sexpr import parse, find, find_all

HW = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TABLES = os.path.join(HW, 'lib', 'datasheet-pins.txt')
KICAD_LIBS = os.environ.get('KICAD9_SYMBOL_DIR', '/usr/share/kicad/symbols')

# Voltage range of each supply net (V): what the parts on it must tolerate.
SUPPLIES = {
	'GND': (0.0, 0.0),
	'+5V': (4.4, 5.5),	# USB VBUS 4.5-5.5 V (the check's sweep), less the polyfuse's drop
	'VIO': (1.65, 5.5),	# the target's I/O rail on J4 (SN74LVC1T45 VCCB range)
	'VREF': (2.48, 2.52),	# LM4040 2.5 V shunt reference (C grade +-0.5 %, plus load regulation)
}
# Datasheet operating ranges of the supplies (same sources as the pin tables).
SUPPLY_RANGE = {
	('eqprof:MAX4172', 'V+'): (3.0, 32.0),		# MAX4172 page 1: 3.0 V to 32 V supply
	('Timer:TLC555xD', 'VDD'): (2.0, 15.0),	# TLC555-Q1 pin table: VDD 2 V to 15 V
	('Logic_LevelTranslator:SN74LVC1T45DBV', 'VCCA'): (1.65, 5.5),
	('Logic_LevelTranslator:SN74LVC1T45DBV', 'VCCB'): (1.65, 5.5),
	('MCU_Microchip_ATmega:ATmega328P-A', 'VCC'): (4.5, 5.5),	# 16 MHz needs 4.5-5.5 V (8161D table 28-1)
}
# Decoupling: every MCU supply pin (VCC, VCC, AVCC) has a capacitor of its
# own to GND, on the pin's net, whose pad lies within this distance of the
# pin's pad (centre to centre).  Microchip AN2519 (DS00002519B) section 2.1:
# one 100 nF per supply pin, as close to the pin as possible; ATmega328P data
# sheet DS40002061B, ADC chapter, Analog Noise Canceling Techniques (AVCC
# through an LC/RC filter from VCC, decoupled at the pin).
DECOUPLE_MM = 3.0
DECOUPLE_C = (47e-9, 220e-9)	# a 100 nF class capacitor (the filter's 1 uF at AVCC also counts)
# The target's IRQ input (B side of the SN74LVC1T45, J4 pin 1) floats when
# U5 is unpowered (partial power-down: both ports high-impedance, SCES515
# section 8.3.2), so it needs a pull-down to GND:
#   high level: at V_CCB up to 5.5 V the resistor may draw at most 100 uA, the
#     load at which SCES515 (table 6.5) guarantees V_OH >= V_CCB - 0.1 V:
#     R >= 5.5 V / 100 uA = 55 kOhm;
#   low level: U5's I_off (B port, +-2 uA max at -40..85 C) + U7's leakage
#     (USBLC6-2SC6, 150 nA max) + a typical 1.8-3.3 V GPIO's input leakage
#     (+-1 uA) may lift it by at most 0.3 V_CCB at the lowest V_CCB (1.65 V):
#     R <= 0.495 V / 3.15 uA = 157 kOhm;
#   decay: from V_CCB to V_IL = 0.3 V_CCB within 20 us, with U5's B-port
#     C_io (10 pF budget), U7 (3.5 pF max), J4, the trace, a 30 cm lead and
#     the target pin (60 pF in all): R <= 20 us / (60 pF ln(1/0.3)) = 277 kOhm.
IRQ_PULL_R = (55e3, 157e3)
IRQ_C_TOTAL = 60e-12
IRQ_DECAY_MAX = 20e-6
MAX4172_HEADROOM = 1.2	# MAX4172 page 6: OUT must stay at or below V+ - 1.2 V
# Parts that conduct between their two pins for the reset-path check; a
# jumper that is open unless someone fits or solders it does not.
OPEN_BY_DEFAULT = ('Jumper:SolderJumper_2_Open', 'Jumper:Jumper_2_Open')


class Table:
	def __init__(self, lib_id):
		self.lib_id, self.package, self.source, self.complete = lib_id, '', '', False
		self.cite = ''		# short form of source for messages
		self.pins = {}		# number -> (datasheet name, symbol name)

	def number(self, name):
		"""Pin numbers whose datasheet name is name (or starts with name/)."""
		return [n for n, (ds, _) in self.pins.items()
			if ds == name or ds.split('/')[0] == name or name in ds.split('/')]


def load_tables(path=TABLES):
	tables, cur = {}, None
	for n, line in enumerate(open(path), 1):
		line = line.strip()
		if not line or line.startswith('#'):	# no trailing comments: pin names contain '#'
			continue
		key, _, rest = line.partition(' ')
		if key == 'part':
			cur = tables[rest.strip()] = Table(rest.strip())
		elif cur is None:
			raise ValueError('%s:%d: %r before the first "part" line' % (path, n, line))
		elif key in ('package', 'source', 'cite'):
			setattr(cur, key, rest.strip())
		elif key == 'complete':
			cur.complete = rest.strip() == 'yes'
		else:
			f = line.split()
			cur.pins[f[0]] = (f[1], f[2] if len(f) > 2 else f[1])
	for t in tables.values():
		if not t.source:
			raise ValueError('%s: table %s cites no source' % (path, t.lib_id))
	return tables


class Netlist:
	def __init__(self, path):
		t = parse(open(path).read())
		self.comps = {}		# ref -> {'lib_id', 'value', 'footprint'}
		for c in find_all(find(t, 'components'), 'comp'):
			ls = find(c, 'libsource')
			self.comps[find(c, 'ref')[1]] = {
				'lib_id': '%s:%s' % (find(ls, 'lib')[1], find(ls, 'part')[1]),
				'value': find(c, 'value')[1]}
		self.libparts = {}	# lib_id -> {number: symbol pin name}
		for lp in find_all(find(t, 'libparts'), 'libpart'):
			pins = find(lp, 'pins')
			self.libparts['%s:%s' % (find(lp, 'lib')[1], find(lp, 'part')[1])] = {
				str(find(p, 'num')[1]): find(p, 'name')[1] for p in find_all(pins, 'pin')} if pins else {}
		self.nets = {}		# name -> [(ref, pin)]
		self.pin_net = {}	# (ref, pin) -> name
		for n in find_all(find(t, 'nets'), 'net'):
			name = find(n, 'name')[1].lstrip('/')
			nodes = [(find(x, 'ref')[1], str(find(x, 'pin')[1])) for x in find_all(n, 'node')]
			self.nets[name] = nodes
			for node in nodes:
				self.pin_net[node] = name

	def refs(self, lib_id=None, value=None):
		return sorted(r for r, c in self.comps.items()
			      if (lib_id is None or c['lib_id'] == lib_id) and (value is None or c['value'] == value))

	def net(self, ref, pin):
		"""Net of a pin; None when the pin is on no net or alone on its net."""
		name = self.pin_net.get((ref, str(pin)))
		if name is None or name.startswith('unconnected-') or len(self.nets.get(name, [])) < 2:
			return None
		return name


class Checker:
	def __init__(self, nl, tables, pcb=None):
		self.nl, self.tables, self.pcb = nl, tables, pcb
		self.detail = []
		self.n = self.failed = 0

	def tap(self, problems, what):
		self.n += 1
		self.failed += bool(problems)
		print('%s %d - %s' % ('not ok' if problems else 'ok', self.n, what))
		for p in problems:
			print('#   ' + p)

	def pin(self, ref, name):
		"""The net of ref's pin called name in its datasheet (None: unconnected)."""
		lib_id = self.nl.comps[ref]['lib_id']
		t = self.tables.get(lib_id)
		if t is None:
			raise KeyError('%s (%s) has no datasheet pin table' % (ref, lib_id))
		nums = t.number(name)
		if not nums:
			raise KeyError('%s: its datasheet table (%s) has no pin %s' % (ref, lib_id, name))
		nets = {self.nl.net(ref, p) for p in nums}
		if len(nets) > 1:
			return '<%s: pins %s on different nets %s>' % (name, nums, sorted(map(str, nets)))
		return nets.pop()

	def one(self, lib_id, problems, what):
		refs = self.nl.refs(lib_id)
		if len(refs) != 1:
			problems.append('expected one %s (%s), found %s' % (what, lib_id, refs or 'none'))
			return None
		return refs[0]

	def connector(self, value, problems):
		refs = self.nl.refs(value=value)
		if len(refs) != 1:
			problems.append('expected one connector valued %s, found %s' % (value, refs or 'none'))
			return None
		return refs[0]

	def others(self, net, exclude=()):
		return [(r, p) for r, p in self.nl.nets.get(net, []) if r not in exclude]

	def two_terminal(self, ref):
		"""(net a, net b) of a two-pin part, None otherwise."""
		pins = sorted(p for (r, p) in self.nl.pin_net if r == ref)
		if len(pins) != 2:
			return None
		return tuple(self.nl.pin_net[(ref, p)] for p in pins)

	def parts_between(self, a, b, prefix):
		"""Two-pin parts whose reference starts with prefix, between nets a and b."""
		out = []
		for ref in self.nl.comps:
			if ref.startswith(prefix):
				ends = self.two_terminal(ref)
				if ends and set(ends) == {a, b}:
					out.append(ref)
		return out

	def supply_ok(self, ref, name, problems):
		net = self.pin(ref, name)
		lib_id = self.nl.comps[ref]['lib_id']
		if net not in SUPPLIES:
			problems.append('%s %s is on %s, not on a supply net (%s)' % (ref, name, net, ', '.join(SUPPLIES)))
			return None
		lo, hi = SUPPLIES[net]
		rng = SUPPLY_RANGE.get((lib_id, name))
		if rng and not (rng[0] <= lo and hi <= rng[1]):
			problems.append('%s %s on %s (%.2f-%.2f V) outside its datasheet range %.2f-%.2f V'
					% (ref, name, net, lo, hi, rng[0], rng[1]))
		return net

	# ---- the checks --------------------------------------------------------

	def symbols_match_tables(self):
		"""Every symbol from outside KiCad's library has a table; every symbol
		with a table agrees with it pin by pin."""
		problems = []
		for lib_id in sorted({c['lib_id'] for c in self.nl.comps.values()}):
			lib = lib_id.split(':')[0]
			if not os.path.exists(os.path.join(KICAD_LIBS, lib + '.kicad_sym')) and lib_id not in self.tables:
				problems.append('%s is not from KiCad\'s library and has no datasheet pin table in %s'
						% (lib_id, os.path.relpath(TABLES, HW)))
			if lib_id in self.tables:
				problems += compare_symbol(self.tables[lib_id], self.nl.libparts.get(lib_id, {}))
		self.tap(problems, 'every symbol outside KiCad\'s library has a datasheet pin table; '
			 'symbols agree with their tables (%d tables)' % len(self.tables))

	def battery_path(self):
		"""The shunts, in order from the battery connector to the device."""
		problems = []
		j1, j2 = self.connector('BATTERY', problems), self.connector('DEVICE', problems)
		if problems:
			return None, None, problems
		start, end = self.nl.net(j1, 1), self.nl.net(j2, 1)
		# walk the series path: every part in it has exactly two current
		# terminals (fuse, FET drain-source, shunt force pins)
		dist, order, frontier = {start: 0}, [start], [start]
		edges = {}
		for ref, c in self.nl.comps.items():
			if c['lib_id'] == 'Device:R_Shunt':
				edges[ref] = (self.nl.net(ref, 1), self.nl.net(ref, 4))
			elif c['lib_id'].startswith('Transistor_FET:'):
				edges[ref] = (self.pin(ref, 'D'), self.pin(ref, 'S'))
			elif c['lib_id'] in ('Device:Fuse',):
				edges[ref] = self.two_terminal(ref)
		while frontier:
			nxt = []
			for net in frontier:
				for ref, (a, b) in edges.items():
					for x, y in ((a, b), (b, a)):
						if x == net and y not in dist:
							dist[y] = dist[net] + 1
							order.append(y)
							nxt.append(y)
			frontier = nxt
		if end not in dist:
			problems.append('no series path of fuse, FET and shunts from %s+ (%s) to %s+ (%s)'
					% (j1, start, j2, end))
			return None, None, problems
		shunts = sorted((r for r, c in self.nl.comps.items() if c['lib_id'] == 'Device:R_Shunt'),
				key=lambda r: min(dist.get(n, 1e9) for n in edges[r]))
		return shunts, dist, problems

	def amplifier(self):
		problems = []
		u = self.one('eqprof:MAX4172', problems, 'current-sense amplifier')
		shunts, dist, p2 = self.battery_path()
		problems += p2
		if u is None or not shunts:
			self.tap(problems, 'amplifier: sense inputs across the shunts, output on the integrator')
			return
		rsp, rsn = self.pin(u, 'RS+'), self.pin(u, 'RS-')
		# Kelvin taps: sense pin 2 sits at force pin 1, sense pin 3 at force pin 4
		taps = {}
		for s in shunts:
			f1, f4 = self.nl.net(s, 1), self.nl.net(s, 4)
			up, down = (2, 3) if dist.get(f1, 1e9) < dist.get(f4, 1e9) else (3, 2)
			for pin, side in ((up, 'upstream'), (down, 'downstream')):
				if self.nl.net(s, pin):
					taps[self.nl.net(s, pin)] = (s, side)
		if rsn is None:
			problems.append('%s RS- is unconnected' % u)
		elif rsn not in taps or taps[rsn][1] != 'downstream':
			problems.append('%s RS- is on %s, not on a shunt\'s load-side Kelvin tap %s'
					% (u, rsn, sorted(t for t, v in taps.items() if v[1] == 'downstream')))
		# RS+ directly on an upstream tap, or on the common pin of a range
		# jumper whose positions each reach one
		choices = [rsp]
		jumpers = [r for r, p in self.nl.nets.get(rsp, []) if self.nl.comps[r]['lib_id'] == 'Jumper:Jumper_3_Open']
		if rsp in taps:
			choices = [rsp]
		elif jumpers:
			jp = jumpers[0]
			choices = [self.nl.net(jp, 1), self.nl.net(jp, 3)]
		for c in choices:
			if c is None:
				problems.append('%s RS+ is unconnected' % u)
			elif c not in taps or taps[c][1] != 'upstream':
				problems.append('%s RS+ reaches %s, not a shunt\'s supply-side Kelvin tap' % (u, c))
			elif rsn in taps:
				# the sensed section must run downstream, from RS+'s shunt to RS-'s
				a, b = shunts.index(taps[c][0]), shunts.index(taps[rsn][0])
				if a > b:
					problems.append('%s senses backwards: RS+ tap on %s is downstream of RS- tap on %s'
							% (u, taps[c][0], taps[rsn][0]))
		if self.pin(u, 'GND') != 'GND':
			problems.append('%s GND pin is on %s, not on GND' % (u, self.pin(u, 'GND')))
		vplus = self.supply_ok(u, 'V+', problems)
		out = self.pin(u, 'OUT')
		caps = [r for r, p in self.nl.nets.get(out, []) if r.startswith('C')
			and set(self.two_terminal(r) or ()) == {out, 'GND'}]
		if not out:
			problems.append('%s OUT is unconnected' % u)
		elif not caps:
			problems.append('%s OUT is on %s, which has no integrating capacitor to GND' % (u, out))
		timer = self.nl.refs('Timer:TLC555xD')
		if out and timer and (self.pin(timer[0], 'THRES') != out or self.pin(timer[0], 'TRIG') != out):
			problems.append('%s OUT (%s) is not the 555\'s THRES/TRIG node' % (u, out))
		# output compliance: the 555's upper threshold must stay below V+ - 1.2 V
		# at every supply voltage (V+ and the 555 may share a supply and track)
		if vplus in SUPPLIES and timer:
			for v in SUPPLIES[vplus]:
				hi = self.threshold(timer[0], vplus, v)
				if hi is not None and hi > v - MAX4172_HEADROOM:
					problems.append('%s OUT must reach the 555 threshold %.2f V but its compliance is '
							'V+ - %.1f V = %.2f V at V+ = %.2f V'
							% (u, hi, MAX4172_HEADROOM, v - MAX4172_HEADROOM, v))
		self.tap(problems, 'amplifier %s: RS+/RS- on the supply/load side Kelvin taps of the shunts, '
			 'GND on ground, V+ in its 3-32 V range, OUT on the integrating capacitor within its '
			 'compliance' % u)

	def threshold(self, t, net, v):
		"""The 555's upper threshold (worst case) when supply net is at v:
		CONT forced by a reference, or 2/3 of VDD when CONT only has a
		capacitor (datasheet: THRES > CONT sets the output low)."""
		cont = self.pin(t, 'CONT')
		if cont in SUPPLIES:
			return SUPPLIES[cont][1]
		vdd = self.pin(t, 'VDD')
		if vdd == net:
			return 2.0 / 3.0 * v
		if vdd in SUPPLIES:
			return 2.0 / 3.0 * SUPPLIES[vdd][1]
		return None

	def timer(self):
		problems = []
		t = self.one('Timer:TLC555xD', problems, '555 timer')
		mcu = self.one('MCU_Microchip_ATmega:ATmega328P-A', problems, 'microcontroller')
		if t and mcu:
			cap = self.pin(t, 'THRES')
			if not cap or self.pin(t, 'TRIG') != cap:
				problems.append('%s THRES (%s) and TRIG (%s) are not both on the capacitor'
						% (t, cap, self.pin(t, 'TRIG')))
			disch = self.pin(t, 'DISCH')
			if not self.parts_between(disch, cap, 'R'):
				problems.append('%s DISCH (%s) does not reach the capacitor %s through a resistor'
						% (t, disch, cap))
			if self.pin(t, 'GND') != 'GND':
				problems.append('%s GND is on %s' % (t, self.pin(t, 'GND')))
			self.supply_ok(t, 'VDD', problems)
			if self.pin(t, 'RESET') not in SUPPLIES or self.pin(t, 'RESET') == 'GND':
				problems.append('%s RESET is on %s: tie it high' % (t, self.pin(t, 'RESET')))
			out, t1 = self.pin(t, 'OUT'), self.pin(mcu, 'PD5/T1')
			if not out or out != t1:
				problems.append('%s OUT (%s) is not on %s PD5/T1 (%s), the counter\'s clock input'
						% (t, out, mcu, t1))
		self.tap(problems, '555: THRES and TRIG on the capacitor, DISCH through a resistor, '
			 'OUT on the MCU\'s T1 input')

	def irq(self):
		problems = []
		mcu = self.one('MCU_Microchip_ATmega:ATmega328P-A', problems, 'microcontroller')
		ls = self.one('Logic_LevelTranslator:SN74LVC1T45DBV', problems, 'level translator')
		j4 = self.connector('TARGET', problems)
		if mcu and ls and j4:
			oc1a = self.pin(mcu, 'PB1/OC1A')
			if oc1a != self.pin(ls, 'A'):
				problems.append('%s PB1/OC1A (%s) is not on %s A (%s)' % (mcu, oc1a, ls, self.pin(ls, 'A')))
			vcca = self.supply_ok(ls, 'VCCA', problems)
			if vcca != self.pin(mcu, 'VCC'):
				problems.append('%s VCCA (%s) is not the MCU\'s supply (%s)' % (ls, vcca, self.pin(mcu, 'VCC')))
			if self.pin(ls, 'DIR') != vcca:
				problems.append('%s DIR is on %s: it must be high (VCCA) for A -> B' % (ls, self.pin(ls, 'DIR')))
			b, vccb = self.pin(ls, 'B'), self.pin(ls, 'VCCB')
			j4nets = {self.nl.net(j4, p) for p in ('1', '2', '3')}
			if not b or b not in j4nets:
				problems.append('%s B (%s) does not reach the target connector %s' % (ls, b, j4))
			if not vccb or vccb not in j4nets:
				problems.append('%s VCCB (%s) is not the target\'s I/O rail on %s' % (ls, vccb, j4))
			else:
				self.supply_ok(ls, 'VCCB', problems)
			if oc1a and not self.parts_between(oc1a, 'GND', 'R'):
				problems.append('%s A (%s) has no pull-down to GND: a resetting MCU leaves it floating'
						% (ls, oc1a))
			pulls = self.parts_between(b, 'GND', 'R') if b else []
			if b and not pulls:
				problems.append('%s B (%s, the target\'s IRQ input) has no pull-down to GND: it floats '
						'when USB is unplugged (U5 partial power-down)' % (ls, b))
			for r in pulls:
				val = parse_value(self.nl.comps[r]['value'])
				if val is None or not IRQ_PULL_R[0] <= val <= IRQ_PULL_R[1]:
					problems.append('%s B pull-down %s = %s outside %.0f-%.0f kOhm (V_OH at 100 uA, '
							'leakage at 1.65 V)' % (ls, r, self.nl.comps[r]['value'],
										 IRQ_PULL_R[0] / 1e3, IRQ_PULL_R[1] / 1e3))
				elif val * IRQ_C_TOTAL * math.log(1 / 0.3) > IRQ_DECAY_MAX:
					problems.append('%s B pull-down %s: decay to V_IL takes %.1f us (limit %.0f us)'
							% (ls, r, val * IRQ_C_TOTAL * math.log(1 / 0.3) * 1e6, IRQ_DECAY_MAX * 1e6))
		self.tap(problems, 'IRQ: MCU OC1A -> level translator A -> B -> target connector, '
			 'DIR high, B side on the target rail, pull-downs on A and on B')

	def decoupling(self):
		"""Each MCU supply pin has its own capacitor to GND on its net; with
		the PCB (--pcb), that capacitor's pad is within DECOUPLE_MM of the pin."""
		problems = []
		mcu = self.one('MCU_Microchip_ATmega:ATmega328P-A', problems, 'microcontroller')
		if mcu:
			t = self.tables[self.nl.comps[mcu]['lib_id']]
			pins = sorted((n for n, (ds, _) in t.pins.items() if ds in ('VCC', 'AVCC')), key=int)
			cand = {}
			for n in pins:
				net = self.nl.net(mcu, n)
				caps = [c for c in self.parts_between(net, 'GND', 'C') if net and
					(lambda v: v is not None and DECOUPLE_C[0] <= v <= 1.1e-6)(parse_value(self.nl.comps[c]['value']))]
				if self.pcb is not None:
					near = []
					for c in caps:
						d = self.pcb.distance((mcu, n), c, net)
						if d is not None and d <= DECOUPLE_MM:
							near.append((d, c))
					self.detail.append('%s pin %s (%s, %s): %s' % (mcu, n, t.pins[n][0], net, ', '.join(
						'%s %.2f mm' % (c, d) for d, c in sorted(near)) or 'none within %.1f mm' % DECOUPLE_MM))
					caps = [c for d, c in sorted(near)]
				cand[n] = caps
				if not caps:
					problems.append('%s pin %s (%s on %s) has no 100 nF-class capacitor (47 nF-1 uF) to GND%s'
							% (mcu, n, t.pins[n][0], net,
							   ' within %.1f mm of the pin' % DECOUPLE_MM if self.pcb else ''))
			match = {}	# capacitor -> pin: one capacitor per pin (augmenting paths)
			def assign(n, seen):
				for c in cand[n]:
					if c not in seen:
						seen.add(c)
						if c not in match or assign(match[c], seen):
							match[c] = n
							return True
				return False
			for n in pins:
				if cand[n] and not assign(n, set()):
					problems.append('%s pin %s (%s) shares its capacitor (%s) with another supply pin: '
							'each needs its own' % (mcu, n, t.pins[n][0], ', '.join(cand[n])))
			for c, n in sorted(match.items(), key=lambda x: int(x[1])):
				self.detail.append('%s pin %s decoupled by %s' % (mcu, n, c))
		self.tap(problems, 'decoupling: each MCU supply pin (VCC, VCC, AVCC) has its own 100 nF to GND'
			 + (' within %.1f mm of the pin' % DECOUPLE_MM if self.pcb else ' (netlist only: no --pcb)'))
		for d in self.detail:
			print('#   ' + d)
		self.detail = []

	def uart(self):
		problems = []
		mcu = self.one('MCU_Microchip_ATmega:ATmega328P-A', problems, 'microcontroller')
		ft = self.one('Interface_USB:FT232RL', problems, 'USB UART')
		if mcu and ft:
			for a, b in (('PD1/TXD', 'RXD'), ('PD0/RXD', 'TXD')):
				if not self.pin(mcu, a) or self.pin(mcu, a) != self.pin(ft, b):
					problems.append('%s %s (%s) is not on %s %s (%s)'
							% (mcu, a, self.pin(mcu, a), ft, b, self.pin(ft, b)))
		self.tap(problems, 'UART crossed: MCU TXD -> FT232R RXD, FT232R TXD -> MCU RXD')

	def no_reset_on_open(self):
		"""No path of fitted parts from the FT232R's DTR to the MCU's RESET:
		two-pin parts (R, C, L, fuses, diodes, fitted jumpers) conduct, a
		jumper that is open by default does not."""
		problems = []
		mcu = self.one('MCU_Microchip_ATmega:ATmega328P-A', problems, 'microcontroller')
		ft = self.one('Interface_USB:FT232RL', problems, 'USB UART')
		if mcu and ft:
			dtr, rst = self.pin(ft, 'DTR#'), self.pin(mcu, 'PC6/RESET')
			seen, frontier, via = {dtr}, [dtr], {dtr: []}
			while frontier and dtr:
				nxt = []
				for net in frontier:
					for ref, _ in self.nl.nets.get(net, []):
						c = self.nl.comps[ref]
						ends = self.two_terminal(ref)
						if (not ends or c['lib_id'] in OPEN_BY_DEFAULT
						    or not c['lib_id'].startswith(('Device:', 'Jumper:'))):
							continue
						for other in ends:
							if other not in seen and other != 'GND':
								seen.add(other)
								via[other] = via[net] + [ref]
								nxt.append(other)
				frontier = nxt
			if rst in seen:
				problems.append('DTR (%s) reaches RESET (%s) through %s: opening the port resets the board'
						% (dtr, rst, ' -> '.join(via[rst])))
		self.tap(problems, 'no reset on port open: DTR reaches RESET only through a jumper that is open by default')

	def battery_adc(self):
		problems = []
		mcu = self.one('MCU_Microchip_ATmega:ATmega328P-A', problems, 'microcontroller')
		j2 = self.connector('DEVICE', problems)
		if mcu and j2:
			adc, dev = self.pin(mcu, 'PC0/ADC0'), self.nl.net(j2, 1)
			if not adc or not self.parts_between(dev, adc, 'R') or not self.parts_between(adc, 'GND', 'R'):
				problems.append('%s ADC0 (%s) is not a divider from the device terminal %s to GND'
						% (mcu, adc, dev))
		self.tap(problems, 'battery voltage: the device-side terminal through a divider to ADC0')


def parse_value(s):
	"""'100k' -> 1e5, '100n' -> 1e-7, '4k7' -> 4700; None if not a number."""
	mult = {'p': 1e-12, 'n': 1e-9, 'u': 1e-6, 'µ': 1e-6, 'm': 1e-3, 'k': 1e3, 'K': 1e3, 'M': 1e6, 'R': 1.0}
	m = re.match(r'^([0-9.]+)([pnuµmkKMR]?)([0-9]*)', s.strip())
	if not m:
		return None
	try:
		v = float(m.group(1) + ('.' + m.group(3) if m.group(3) else ''))
	except ValueError:
		return None
	return v * mult.get(m.group(2), 1.0)


class Pcb:
	"""Pad positions of a routed board (KiCad's pcbnew module)."""
	def __init__(self, path):
		import pcbnew
		self.pads = {}		# (ref, pad number) -> (x mm, y mm, net)
		for fp in pcbnew.LoadBoard(path).GetFootprints():
			for p in fp.Pads():
				pos = p.GetPosition()
				self.pads[(fp.GetReference(), p.GetNumber())] = (
					pcbnew.ToMM(pos.x), pcbnew.ToMM(pos.y), p.GetNetname().lstrip('/'))

	def distance(self, pin, ref, net):
		"""Distance (mm) from pin (ref, number) to ref's pad on net; None if absent."""
		if pin not in self.pads:
			return None
		x, y, _ = self.pads[pin]
		ds = [math.hypot(px - x, py - y) for (r, _), (px, py, n) in self.pads.items() if r == ref and n == net]
		return min(ds) if ds else None


def compare_symbol(table, symbol_pins):
	"""Differences between a datasheet table and a symbol's {number: name}."""
	problems = []
	for num, (ds, want) in sorted(table.pins.items(), key=lambda x: int(x[0])):
		got = symbol_pins.get(num)
		if got is None:
			problems.append('%s pin %s (%s in the datasheet) is missing from the symbol' % (table.lib_id, num, ds))
		elif want != '-' and got != want:
			problems.append('%s pin %s is %s in the datasheet (%s) but "%s" in the symbol'
					% (table.lib_id, num, ds, table.cite or table.source, got))
		elif want == '-' and got not in ('~', ''):
			problems.append('%s pin %s: symbol names it %s' % (table.lib_id, num, got))
	if table.complete:
		for num in sorted(set(symbol_pins) - set(table.pins), key=lambda x: int(x) if x.isdigit() else 0):
			problems.append('%s: the symbol has pin %s (%s) that the datasheet package does not'
					% (table.lib_id, num, symbol_pins[num]))
	return problems


def symbol_library_pins(path):
	"""{symbol name: {number: pin name}} of a .kicad_sym file."""
	out = {}
	for sym in find_all(parse(open(path).read()), 'symbol'):
		pins = {}
		for unit in find_all(sym, 'symbol'):
			for p in find_all(unit, 'pin'):
				pins[str(find(p, 'number')[1])] = find(p, 'name')[1]
		out[sym[1]] = pins
	return out


def main():
	ap = argparse.ArgumentParser()
	ap.add_argument('--tables', default=TABLES)
	ap.add_argument('--symbols', help='check a symbol library against the tables instead')
	ap.add_argument('--pcb', help='the routed board: check decoupling distances on it')
	ap.add_argument('netlist', nargs='?')
	args = ap.parse_args()
	tables = load_tables(args.tables)
	if args.symbols:
		lib = os.path.basename(args.symbols).split('.')[0]
		n = failed = 0
		for name, pins in sorted(symbol_library_pins(args.symbols).items()):
			lib_id = 'eqprof:' + name if 'eqprof:' + name in tables else '%s:%s' % (lib, name)
			n += 1
			if lib_id not in tables:
				print('not ok %d - %s: no datasheet pin table' % (n, name))
				failed += 1
				continue
			problems = compare_symbol(tables[lib_id], pins)
			failed += bool(problems)
			print('%s %d - symbol %s agrees with %s' % ('not ok' if problems else 'ok', n, name,
								     tables[lib_id].cite or tables[lib_id].source))
			for p in problems:
				print('#   ' + p)
		return 1 if failed else 0
	if not args.netlist:
		ap.error('give a netlist (kicad-cli sch export netlist) or --symbols LIB')
	ck = Checker(Netlist(args.netlist), tables, Pcb(args.pcb) if args.pcb else None)
	for check in (ck.symbols_match_tables, ck.amplifier, ck.timer, ck.irq, ck.uart,
		      ck.no_reset_on_open, ck.battery_adc, ck.decoupling):
		try:
			check()
		except KeyError as e:
			ck.tap([str(e)], check.__name__)
	print('# %d intent checks, %d failed' % (ck.n, ck.failed))
	return 1 if ck.failed else 0


if __name__ == '__main__':
	sys.exit(main())
