#!/usr/bin/python3
"""Write hardware/eqprof-counter.kicad_sch from design.py.

Every pin gets a short wire stub ending in a net label (or a no-connect
flag), so the schematic reads as labelled blocks and the connectivity is
exactly the design's net list.  Library symbols are copied from the KiCad
libraries (flattened when they `extends` another) into lib_symbols, as
KiCad itself does.
"""
import math
import os
import sys
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sexpr import parse, dump, find, find_all, Sym
import design

SYMDIR = os.environ.get('KICAD9_SYMBOL_DIR', '/usr/share/kicad/symbols')
PROJECT = 'eqprof-counter'
NS = uuid.UUID('6c1d8f0e-3b1a-4b8e-9d57-2f0c4a1e7e11')

def uid(*names):
	"""Stable UUIDs so regenerating gives a reviewable diff."""
	return str(uuid.uuid5(NS, '/'.join(str(n) for n in names)))

_libs = {}
def _lib(lib):
	if lib not in _libs:
		path = (os.path.join(design.HW, 'lib', lib + '.kicad_sym') if lib == 'eqprof'
			else os.path.join(SYMDIR, lib + '.kicad_sym'))
		_libs[lib] = {s[1]: s for s in find_all(parse(open(path).read()), 'symbol')}
	return _libs[lib]

def lib_symbol(lib_id):
	"""The library symbol named Lib:Name, flattened, ready for lib_symbols."""
	lib, name = lib_id.split(':')
	sym = _lib(lib)[name]
	ext = find(sym, 'extends')
	if ext is None:
		out = list(sym)
	else:
		parent = _lib(lib)[ext[1]]
		child_props = {p[1]: p for p in find_all(sym, 'property')}
		out = []
		for e in parent:
			if isinstance(e, list) and e[0] == 'property' and e[1] in child_props:
				out.append(child_props.pop(e[1]))
			elif isinstance(e, list) and e[0] == 'symbol':
				sub = list(e)
				sub[1] = name + sub[1][len(ext[1]):]
				out.append(sub)
			else:
				out.append(e)
		# properties only the child has go before the unit bodies
		at = max(i for i, e in enumerate(out) if isinstance(e, list) and e[0] == 'property') + 1
		out[at:at] = list(child_props.values())
	out[1] = lib_id
	return out

def pins_of(sym):
	"""[(number, name, type, x, y, angle, hidden)] of units 0 and 1, style 1."""
	res = []
	for sub in find_all(sym, 'symbol'):
		unit, style = sub[1].rsplit('_', 2)[-2:]
		if unit not in ('0', '1') or style not in ('0', '1'):
			continue
		for p in find_all(sub, 'pin'):
			at = find(p, 'at')
			hide = find(p, 'hide')
			res.append((str(find(p, 'number')[1]), find(p, 'name')[1], str(p[1]),
				    at[1], at[2], at[3] if len(at) > 3 else 0,
				    bool(hide and hide[1] == 'yes') or 'hide' in p))
	return res

def effects(justify=None, hide=False):
	e = [Sym('effects'), [Sym('font'), [Sym('size'), 1.27, 1.27]]]
	if justify:
		e.append([Sym('justify')] + [Sym(j) for j in justify.split()])
	if hide:
		e.append([Sym('hide'), Sym('yes')])
	return e

def prop(name, value, x, y, justify=None, hide=False, angle=0):
	return [Sym('property'), name, value, [Sym('at'), x, y, angle], effects(justify, hide)]

# parts that are copper on the board, not bought: test points, solder jumpers
NOT_IN_BOM = ('Connector:TestPoint', 'Jumper:SolderJumper_2_Open')

def r2(v):
	return round(v, 2)

class Sheet:
	def __init__(self):
		self.root = uid('root')
		self.items = []

	def wire(self, a, b):
		self.items.append([Sym('wire'), [Sym('pts'), [Sym('xy'), r2(a[0]), r2(a[1])],
						    [Sym('xy'), r2(b[0]), r2(b[1])]],
				   [Sym('stroke'), [Sym('width'), 0], [Sym('type'), Sym('default')]],
				   [Sym('uuid'), uid('wire', a, b)]])

	def label(self, net, at, angle):
		just = 'right bottom' if angle in (180, 270) else 'left bottom'
		self.items.append([Sym('label'), net, [Sym('at'), r2(at[0]), r2(at[1]), angle],
				   [Sym('fields_autoplaced'), Sym('yes')], effects(just),
				   [Sym('uuid'), uid('label', net, at)]])

	def no_connect(self, at):
		self.items.append([Sym('no_connect'), [Sym('at'), r2(at[0]), r2(at[1])],
				   [Sym('uuid'), uid('nc', at)]])

	def text(self, s, x, y):
		self.items.append([Sym('text'), s, [Sym('exclude_from_sim'), Sym('no')],
				   [Sym('at'), x, y, 0], effects('left bottom'), [Sym('uuid'), uid('text', s)]])

	def place(self, part, sym):
		"""Instance of part, stubs and labels on all its pins."""
		x, y = part.sch
		pins = pins_of(sym)
		known = {num for num, *_ in pins}
		missing = [n for n in map(str, part.pins) if n not in known]
		if missing:
			raise SystemExit('%s: design names pins %s that %s does not have'
					 % (part.ref, missing, part.lib_id))
		by_pos = {}
		for num, name, typ, px, py, ang, hidden in pins:
			by_pos.setdefault((px, py, ang), []).append((num, typ, hidden))
		for (px, py, ang), group in sorted(by_pos.items()):
			nets = {part.pins.get(int(n), part.pins.get(n)) for n, _, _ in group}
			nets.discard(None)
			if not nets:
				if all(t == 'no_connect' for _, t, _ in group):
					continue
				raise SystemExit('%s: pin(s) %s not assigned a net (use NC)'
						 % (part.ref, [n for n, _, _ in group]))
			if len(nets) > 1:
				raise SystemExit('%s: stacked pins %s on different nets %s'
						 % (part.ref, [n for n, _, _ in group], nets))
			net = nets.pop()
			pt = (x + px, y - py)
			if net == 'NC':
				self.no_connect(pt)
				continue
			if part.ref.startswith('FLG'):
				end = pt
				self.wire((pt[0], pt[1]), (pt[0], pt[1] + 2.54))
				self.label(net, (pt[0], pt[1] + 2.54), 270)
				continue
			dx, dy = -math.cos(math.radians(ang)), math.sin(math.radians(ang))
			end = (pt[0] + 2.54 * round(dx), pt[1] + 2.54 * round(dy))
			self.wire(pt, end)
			angle = {(1, 0): 0, (-1, 0): 180, (0, -1): 90, (0, 1): 270}[(round(dx), round(dy))]
			self.label(net, end, angle)
		ys = [y - py for _, _, _, _, py, _, _ in pins] or [y]
		xs = [x + px for _, _, _, px, _, _, _ in pins] or [x]
		top, bot, right = min(ys + [y - 2.54]), max(ys + [y + 2.54]), max(xs + [x])
		ref = part.ref if not part.ref.startswith('FLG') else '#FLG0' + part.ref[3:]
		power = part.lib_id.startswith('power:')
		inst = [Sym('symbol'), [Sym('lib_id'), part.lib_id], [Sym('at'), x, y, 0], [Sym('unit'), 1],
			[Sym('exclude_from_sim'), Sym('no')],
			[Sym('in_bom'), Sym('no' if power or part.lib_id in NOT_IN_BOM else 'yes')],
			[Sym('on_board'), Sym('no' if power else 'yes')],
			[Sym('dnp'), Sym('no')], [Sym('uuid'), self.sym_uuid(part)]]
		two_pin = len(pins) <= 2 and not power
		if two_pin:
			inst.append(prop('Reference', ref, r2(x + 2.54), r2(y - 1.27), 'left'))
			inst.append(prop('Value', part.value, r2(x + 2.54), r2(y + 1.27), 'left'))
		elif power:
			inst.append(prop('Reference', ref, x, r2(y - 6.35), hide=True))
			inst.append(prop('Value', part.value, r2(x + 1.27), r2(y - 3.81), 'left'))
		else:
			inst.append(prop('Reference', ref, r2(right - 2.54), r2(top - 3.81), 'left'))
			inst.append(prop('Value', part.value, r2(right - 2.54), r2(bot + 3.81), 'left'))
		inst.append(prop('Footprint', part.footprint, x, y, hide=True))
		ds = find_all(sym, 'property')
		datasheet = next((p[2] for p in ds if p[1] == 'Datasheet'), '~')
		descr = part.desc or next((p[2] for p in ds if p[1] == 'Description'), '')
		inst.append(prop('Datasheet', datasheet, x, y, hide=True))
		inst.append(prop('Description', descr, x, y, hide=True))
		for k, val in part.fields.items():
			inst.append(prop(k, val, x, y, hide=True))
		for num, *_ in pins:
			inst.append([Sym('pin'), num, [Sym('uuid'), uid(part.ref, 'pin', num)]])
		inst.append([Sym('instances'), [Sym('project'), PROJECT,
			     [Sym('path'), '/' + self.root, [Sym('reference'), ref], [Sym('unit'), 1]]]])
		self.items.append(inst)

	@staticmethod
	def sym_uuid(part):
		return uid('symbol', part.ref)

NOTES = [
	('Battery current path: supply -> F1 -> R2 (low range, bypassed by JP1) -> R1 -> device.\n'
	 'Kelvin sense taps feed U1 RS+/RS-; JP2 picks which tap is RS+ (1-2 low, 2-3 high range).', 17.78, 22.86),
	('Current mirror and integrator: i_m = alpha * i_s charges C2 (C0G);\n'
	 'the CMOS 555 discharges it from 2Vx/3 to Vx/3: one pulse = one E_min.', 17.78, 93.98),
	('ATmega328P: Timer1 counts pulses on T1 (PD5); OC1A (PB1) gives the IRQ edge;\n'
	 'ADC0 (PC0) reads the battery-terminal voltage through R4/R5.', 213.36, 50.8),
	('USB: FT232RL bridge; the board runs from USB VBUS, not from the measured battery.', 17.78, 172.72),
	('IRQ to the target through a 74LVC1T45, B side powered from the target I/O rail (J4 pin 2).', 213.36, 172.72),
]

def main(out):
	P = design.parts()
	used = []
	for p in P:
		if p.lib_id not in used:
			used.append(p.lib_id)
	syms = {lid: lib_symbol(lid) for lid in used}
	sh = Sheet()
	for text, x, y in NOTES:
		sh.text(text, x, y)
	for p in P:
		sh.place(p, syms[p.lib_id])
	doc = [Sym('kicad_sch'), [Sym('version'), 20250114], [Sym('generator'), 'eeschema'],
	       [Sym('generator_version'), '9.0'], [Sym('uuid'), sh.root], [Sym('paper'), 'A3'],
	       [Sym('title_block'), [Sym('title'), 'eqprof energy counter'], [Sym('rev'), '1'],
		[Sym('company'), 'eqprof'],
		[Sym('comment'), 1, 'Generated: hardware/tools/gen_sch.py (design.py, board.values)']],
	       [Sym('lib_symbols')] + [syms[l] for l in used]]
	doc += sh.items
	doc.append([Sym('sheet_instances'), [Sym('path'), '/', [Sym('page'), '1']]])
	doc.append([Sym('embedded_fonts'), Sym('no')])
	tmp = out + '.tmp'
	with open(tmp, 'w') as f:
		f.write(dump(doc) + '\n')
	os.replace(tmp, out)

if __name__ == '__main__':
	main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(design.HW, 'eqprof-counter.kicad_sch'))
