#!/usr/bin/python3
"""Write hardware/eqprof-counter.kicad_pcb: place, route, pour, fill.

Nets and symbol links come from the schematic's exported netlist (so the
board is in parity with the schematic), positions from design.py.  Routing
is router.py's grid router; ground is poured on both layers.  Needs KiCad's
pcbnew Python module (Debian package kicad) and python3-numpy.

usage: gen_pcb.py NETLIST.net OUT.kicad_pcb
"""
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np
import pcbnew
import design
import router as R
from sexpr import parse, find, find_all

FPDIR = os.environ.get('KICAD9_FOOTPRINT_DIR', '/usr/share/kicad/footprints')
OX, OY = 100.0, 60.0		# board origin on the page, mm
W, H = 100.0, 70.0		# board size, mm
SIGNAL_W = 0.2
GND_W = 0.2
HOLE_CLEARANCE = 0.25

def mm(v):
	return pcbnew.FromMM(v)

def pt(x, y):
	return pcbnew.VECTOR2I(mm(x), mm(y))

def read_netlist(path):
	"""(components {ref: (value, footprint, uuid)}, nets {name: [(ref, pin)]})."""
	t = parse(open(path).read())
	comps = {}
	for c in find_all(find(t, 'components'), 'comp'):
		ref = find(c, 'ref')[1]
		ts = find(c, 'tstamps')
		comps[ref] = (find(c, 'value')[1], find(c, 'footprint')[1], ts[1] if ts else '')
	nets = {}
	for n in find_all(find(t, 'nets'), 'net'):
		nets[find(n, 'name')[1]] = [(find(x, 'ref')[1], str(find(x, 'pin')[1]))
					    for x in find_all(n, 'node')]
	return comps, nets

class Pad:
	def __init__(self, p):
		bb = p.GetBoundingBox()
		self.rect = (pcbnew.ToMM(bb.GetLeft()), pcbnew.ToMM(bb.GetTop()),
			     pcbnew.ToMM(bb.GetRight()), pcbnew.ToMM(bb.GetBottom()))
		self.x, self.y = pcbnew.ToMM(p.GetPosition().x), pcbnew.ToMM(p.GetPosition().y)
		ls = p.GetLayerSet()
		self.layers = tuple(l for l, kl in ((0, pcbnew.F_Cu), (1, pcbnew.B_Cu)) if ls.Contains(kl))
		self.net = p.GetNetname()
		self.name = '%s.%s' % (p.GetParentFootprint().GetReference(), p.GetNumber())
		self.npth = p.GetAttribute() == pcbnew.PAD_ATTRIB_NPTH
		self.hole = pcbnew.ToMM(p.GetDrillSize().x) if self.npth else 0

def place(board, comps, nets):
	netinfo = {}
	for name in nets:
		ni = pcbnew.NETINFO_ITEM(board, name)
		board.Add(ni)
		netinfo[name] = ni
	pin_net = {(r, p): n for n, nodes in nets.items() for r, p in nodes}
	parts = {p.ref: p for p in design.parts()}
	for ref, (value, fpid, ts) in sorted(comps.items()):
		lib, name = fpid.split(':')
		fp = pcbnew.FootprintLoad(os.path.join(FPDIR, lib + '.pretty'), name)
		fp.SetFPID(pcbnew.LIB_ID(lib, name))
		fp.SetReference(ref)
		fp.SetValue(value)
		fp.SetPath(pcbnew.KIID_PATH('/' + ts))
		fp.SetSheetname('Root')
		fp.SetSheetfile('eqprof-counter.kicad_sch')
		x, y, rot = parts[ref].pcb
		fp.SetPosition(pt(OX + x, OY + y))
		fp.SetOrientationDegrees(rot)
		for pad in fp.Pads():
			net = pin_net.get((ref, pad.GetNumber()))
			if net:
				pad.SetNet(netinfo[net])
		board.Add(fp)
	return netinfo

def outline(board):
	corners = [(0, 0), (W, 0), (W, H), (0, H)]
	for (ax, ay), (bx, by) in zip(corners, corners[1:] + corners[:1]):
		s = pcbnew.PCB_SHAPE(board)
		s.SetShape(pcbnew.SHAPE_T_SEGMENT)
		s.SetLayer(pcbnew.Edge_Cuts)
		s.SetWidth(mm(0.1))
		s.SetStart(pt(OX + ax, OY + ay))
		s.SetEnd(pt(OX + bx, OY + by))
		board.Add(s)

def check_courtyards(board):
	"""Refuse overlapping parts before spending time routing."""
	boxes = []
	for fp in board.GetFootprints():
		poly = fp.GetCourtyard(pcbnew.F_CrtYd)
		bb = poly.BBox()
		boxes.append((fp.GetReference(), bb))
	bad = [(a, b) for i, (a, ba) in enumerate(boxes) for b, bb in boxes[i + 1:] if ba.Intersects(bb)]
	for a, b in bad:
		print('courtyard overlap: %s and %s' % (a, b), file=sys.stderr)
	board_box = pcbnew.BOX2I(pt(OX, OY), pt(W, H))
	for ref, bb in boxes:
		if not board_box.Contains(bb) and not ref.startswith('J3'):
			print('%s courtyard leaves the board' % ref, file=sys.stderr)
	return not bad

def make_router(board):
	"""A router loaded with every pad as an obstacle; pads grouped by net."""
	rt = R.Router(OX, OY, OX + W, OY + H)
	pads_by_net = {}
	for fp in board.GetFootprints():
		for p in fp.Pads():
			pad = Pad(p)
			if pad.npth:
				rt.add(R.Shape('circle', None, R.LAYERS, (pad.x, pad.y, pad.hole + 2 * (HOLE_CLEARANCE - R.CLEARANCE))))
				continue
			rt.add(R.Shape('rect', pad.net, pad.layers, pad.rect))
			if pad.net and not pad.net.startswith('unconnected-'):
				pads_by_net.setdefault(pad.net, []).append(pad)
	# Reserve the FT232R's belly for its ground pins: signals routed there
	# would fence in its middle ground pins.
	u4 = board.FindFootprintByReference('U4').GetPosition()
	ux, uy = pcbnew.ToMM(u4.x), pcbnew.ToMM(u4.y)
	rt.add(R.Shape('rect', '/GND', (0,), (ux - 2.5, uy - 2.6, ux + 2.5, uy + 1.2)))
	u3 = board.FindFootprintByReference('U3').GetPosition()
	ux, uy = pcbnew.ToMM(u3.x), pcbnew.ToMM(u3.y)
	rt.add(R.Shape('rect', '/GND', (0,), (ux - 2.6, uy - 2.6, ux + 2.6, uy + 2.6)))
	return rt, pads_by_net

def route(board, rt, pads_by_net, promoted=()):
	"""Route every net; returns the list of connections that failed."""
	failed = []
	# wide battery-current nets, then the supply and ground escapes of the
	# fine-pitch parts, then signals from the shortest up
	first = {n: k for k, n in enumerate(['/' + p for p in design.POWER_NETS])}
	for k, n in enumerate(tuple(promoted) + ('/USB_DP', '/USB_DM', '/V3V3OUT', '/+5V')):
		first.setdefault(n, 50 + k)
	first['/GND'] = 100
	order = sorted(pads_by_net, key=lambda n: (first.get(n, 99), spread(pads_by_net[n])))
	for net in order:
		pads = pads_by_net[net]
		if net == '/GND':
			failed += ground_vias(rt, pads)
			continue
		if len(pads) < 2:
			continue
		width = design.POWER_NETS.get(net.lstrip('/'), GND_W if net == '/GND' else SIGNAL_W)
		power = net.lstrip('/') in design.POWER_NETS
		blocked = rt.blocked(net, width / 2)
		vb = rt.blocked(net, R.VIA_D / 2)
		via_blocked = vb[0] | vb[1]
		layers_ok = (0,) if power else R.LAYERS
		acc = {id(p): [c for c in rt.access(p, blocked, width / 2) if c[0] in layers_ok] for p in pads}
		start = min(pads, key=lambda p: (p.x - cx(pads)) ** 2 + (p.y - cy(pads)) ** 2)
		tree = {c: start for c in acc[id(start)]}
		todo = [p for p in pads if p is not start]
		while todo:
			todo.sort(key=lambda p: min(abs(p.x - t.x) + abs(p.y - t.y) for t in set(tree.values()) if t is not None))
			p = todo.pop(0)
			if not acc[id(p)] or not tree:
				failed.append((net, p.name, 'no free cell on the pad'))
				continue
			path = rt.search(acc[id(p)], list(tree), blocked, via_blocked, not power, layers_ok)
			if not path:
				failed.append((net, p.name, 'no path'))
				continue
			rt.commit(net, path, width)
			rt.stub(net, path[0][0], p, rt.xy(path[0][1], path[0][2]), width)
			end = tree[path[-1]]
			if end is not None:
				rt.stub(net, path[-1][0], end, rt.xy(path[-1][1], path[-1][2]), width)
			for c in path:
				tree.setdefault(c, None)
			for c in acc[id(p)]:
				tree.setdefault(c, p)
	return failed

def ground_vias(rt, pads):
	"""Join each top-only ground pad to its own via into the poured planes."""
	failed = []
	net = '/GND'
	blocked = rt.blocked(net, GND_W / 2)
	for p in pads:
		if p.layers != (0,):
			continue		# through-hole: the pours reach it on both layers
		vb = rt.blocked(net, R.VIA_D / 2)
		ok = ~(vb[0] | vb[1])
		i0, j0 = rt.cell(p.x, p.y)
		targets = [(0, i, j) for i in range(i0 - 20, i0 + 21) for j in range(j0 - 20, j0 + 21)
			   if 0 <= i < rt.nx and 0 <= j < rt.ny and ok[i, j] and not blocked[0][i, j]
			   and not (p.rect[0] - 0.3 < rt.xy(i, j)[0] < p.rect[2] + 0.3 and
				    p.rect[1] - 0.3 < rt.xy(i, j)[1] < p.rect[3] + 0.3)]
		near = [v for _, v in rt.vias if abs(v[0] - p.x) < 4 and abs(v[1] - p.y) < 4]
		targets = [t for t in targets if all((rt.xy(t[1], t[2])[0] - v[0]) ** 2 +
						     (rt.xy(t[1], t[2])[1] - v[1]) ** 2 > 1.0 for v in near)]
		acc = rt.access(p, blocked, GND_W / 2)
		path = targets and acc and rt.search(acc, targets, blocked, None, False, (0,))
		near_gnd = ground_cells(rt, i0, j0, 20)
		if not path and acc and near_gnd:	# hemmed in: join a neighbouring ground track
			path = rt.search(acc, near_gnd, blocked, None, False, (0,))
		if not path and acc:	# last resort: a longer route, vias allowed, to any ground via
			vias = [(l,) + rt.cell(*v) for n, v in rt.vias if n == net for l in R.LAYERS]
			vb = rt.blocked(net, R.VIA_D / 2)
			path = vias and rt.search(acc, vias, blocked, vb[0] | vb[1], True, R.LAYERS)
			near_gnd = vias
		if not path:
			failed.append((net, p.name, 'no room for a ground via'))
			continue
		rt.commit(net, path, GND_W)
		rt.stub(net, 0, p, rt.xy(path[0][1], path[0][2]), GND_W)
		if path[-1] not in near_gnd:
			rt.via(net, rt.xy(path[-1][1], path[-1][2]))
		blocked = rt.blocked(net, GND_W / 2)
	return failed

def ground_cells(rt, i0, j0, n):
	"""Top-layer cells of ground tracks within n cells of (i0, j0)."""
	out = []
	for net, l, a, b, w in rt.tracks:
		if net != '/GND' or l != 0:
			continue
		(ia, ja), (ib, jb) = rt.cell(*a), rt.cell(*b)
		if ia != ib and ja != jb:
			continue
		for i in range(min(ia, ib), max(ia, ib) + 1):
			for j in range(min(ja, jb), max(ja, jb) + 1):
				if abs(i - i0) <= n and abs(j - j0) <= n:
					out.append((0, i, j))
	return out

def stitch(rt, pitch=6.0):
	"""Ground vias on a grid wherever they fit, tying the top pour's pieces
	to the bottom plane (and keeping them from being removed as islands)."""
	vb = rt.blocked('/GND', R.VIA_D / 2 + 0.1)
	own = np.zeros_like(vb[0])
	for sh in rt.shapes:	# keep clear of ground vias and through-hole pads too
		if sh.net == '/GND' and (sh.kind == 'circle' or len(sh.layers) == 2):
			rt._mark(own, sh, 0.9)
	free = ~(vb[0] | vb[1] | own)
	step = int(round(pitch / R.GRID))
	for i in range(step // 2, rt.nx, step):
		for j in range(step // 2, rt.ny, step):
			if free[i, j]:
				rt.via('/GND', rt.xy(i, j))

def cx(pads):
	return sum(p.x for p in pads) / len(pads)

def cy(pads):
	return sum(p.y for p in pads) / len(pads)

def spread(pads):
	return (max(p.x for p in pads) - min(p.x for p in pads) +
		max(p.y for p in pads) - min(p.y for p in pads))

def emit(board, rt, netinfo):
	layer = {0: pcbnew.F_Cu, 1: pcbnew.B_Cu}
	for net, l, a, b, w in rt.tracks:
		t = pcbnew.PCB_TRACK(board)
		t.SetStart(pt(*a))
		t.SetEnd(pt(*b))
		t.SetWidth(mm(w))
		t.SetLayer(layer[l])
		t.SetNet(netinfo[net])
		board.Add(t)
	for net, p in rt.vias:
		v = pcbnew.PCB_VIA(board)
		v.SetPosition(pt(*p))
		v.SetWidth(mm(R.VIA_D))
		v.SetDrill(mm(R.VIA_DRILL))
		v.SetNet(netinfo[net])
		board.Add(v)

def pour(board, netinfo):
	for kl in (pcbnew.F_Cu, pcbnew.B_Cu):
		z = pcbnew.ZONE(board)
		z.SetLayer(kl)
		z.SetNet(netinfo['/GND'])
		o = z.Outline()
		o.NewOutline()
		for x, y in ((0.3, 0.3), (W - 0.3, 0.3), (W - 0.3, H - 0.3), (0.3, H - 0.3)):
			o.Append(mm(OX + x), mm(OY + y))
		z.SetLocalClearance(mm(0.25))
		z.SetMinThickness(mm(0.25))
		z.SetThermalReliefGap(mm(0.3))
		z.SetThermalReliefSpokeWidth(mm(0.4))
		z.SetPadConnection(pcbnew.ZONE_CONNECTION_FULL)
		z.SetIslandRemovalMode(pcbnew.ISLAND_REMOVAL_MODE_ALWAYS)
		board.Add(z)

def main(netlist, out):
	comps, nets = read_netlist(netlist)
	board = pcbnew.BOARD()
	board.SetCopperLayerCount(2)
	netinfo = place(board, comps, nets)
	outline(board)
	if not check_courtyards(board):
		sys.exit('gen_pcb: fix the placement in design.py')
	promoted = []
	for attempt in range(5):
		rt, pads_by_net = make_router(board)
		failed = route(board, rt, pads_by_net, promoted)
		if not failed:
			break
		for f in failed:
			print('attempt %d unrouted: %s %s (%s)' % ((attempt + 1,) + f), file=sys.stderr)
		# rip up and retry with the nets that failed routed first
		promoted = [f[0] for f in failed if f[0] != '/GND'] + [n for n in promoted
								      if n not in [f[0] for f in failed]]
	stitch(rt)
	emit(board, rt, netinfo)
	pour(board, netinfo)
	# The zone filler needs a board loaded with its project settings (the
	# net classes in eqprof-counter.kicad_pro): fill in a scratch project.
	scratch = tempfile.mkdtemp(prefix='gen_pcb.')
	tmp = os.path.join(scratch, 'eqprof-counter.kicad_pcb')
	shutil.copy(os.path.join(design.HW, 'eqprof-counter.kicad_pro'), scratch)
	pcbnew.SaveBoard(tmp, board)
	board = pcbnew.LoadBoard(tmp)
	pcbnew.ZONE_FILLER(board).Fill(board.Zones())
	board.BuildConnectivity()
	left = board.GetConnectivity().GetUnconnectedCount(True)
	pcbnew.SaveBoard(tmp, board)
	shutil.copy(tmp, out + '.tmp')
	os.replace(out + '.tmp', out)
	shutil.rmtree(scratch)
	print('gen_pcb: %d tracks, %d vias, %d unrouted connections, %d unconnected after pour'
	      % (len(rt.tracks), len(rt.vias), len(failed), left))
	return 1 if failed or left else 0

if __name__ == '__main__':
	if len(sys.argv) != 3:
		sys.exit(__doc__)
	sys.exit(main(sys.argv[1], sys.argv[2]))
