"""A small two-layer grid router (Lee/A*) for the generated board.

The board is a grid of cells (GRID mm).  A track centre may pass through a
cell when every piece of copper of another net is at least
clearance + half the track width (+ a margin covering the grid's
discretisation) away, so routes are DRC-clean by construction.  Moves are
orthogonal; a layer change places a via.  Routes prefer the top layer so
that the bottom layer stays a mostly solid ground pour.
"""
import heapq
import numpy as np

GRID = 0.2		# mm
MARGIN = 0.02		# covers the track edge between two cell centres
CLEARANCE = 0.15
VIA_D, VIA_DRILL = 0.6, 0.3
EDGE_CLEARANCE = 0.3
LAYERS = (0, 1)		# 0 = F.Cu, 1 = B.Cu
LAYER_COST = (1.0, 3.0)
VIA_COST = 25.0

class Shape:
	"""Copper: rect (x0,y0,x1,y1), segment (x0,y0,x1,y1,width) or circle (x,y,d)."""
	def __init__(self, kind, net, layers, geom):
		self.kind, self.net, self.layers, self.geom = kind, net, layers, geom

	def bbox(self):
		g = self.geom
		if self.kind == 'rect':
			return g
		if self.kind == 'seg':
			h = g[4] / 2
			return (min(g[0], g[2]) - h, min(g[1], g[3]) - h, max(g[0], g[2]) + h, max(g[1], g[3]) + h)
		h = g[2] / 2
		return (g[0] - h, g[1] - h, g[0] + h, g[1] + h)

class Router:
	def __init__(self, x0, y0, x1, y1):
		self.x0, self.y0 = x0, y0
		self.nx = int(round((x1 - x0) / GRID)) + 1
		self.ny = int(round((y1 - y0) / GRID)) + 1
		self.xs = x0 + GRID * np.arange(self.nx)
		self.ys = y0 + GRID * np.arange(self.ny)
		self.bounds = (x0, y0, x1, y1)
		self.shapes = []
		self.tracks = []	# (net, layer, (xa, ya), (xb, yb), width)
		self.vias = []		# (net, (x, y))

	def cell(self, x, y):
		return int(round((x - self.x0) / GRID)), int(round((y - self.y0) / GRID))

	def xy(self, ix, iy):
		return self.x0 + ix * GRID, self.y0 + iy * GRID

	def add(self, shape):
		self.shapes.append(shape)

	def _mark(self, mask, shape, r):
		"""Set mask cells whose centre lies within r of shape."""
		bx0, by0, bx1, by1 = shape.bbox()
		i0 = max(0, int((bx0 - r - self.x0) / GRID) - 1)
		i1 = min(self.nx, int((bx1 + r - self.x0) / GRID) + 2)
		j0 = max(0, int((by0 - r - self.y0) / GRID) - 1)
		j1 = min(self.ny, int((by1 + r - self.y0) / GRID) + 2)
		if i0 >= i1 or j0 >= j1:
			return
		X = self.xs[i0:i1][:, None]
		Y = self.ys[j0:j1][None, :]
		g = shape.geom
		if shape.kind == 'rect':
			dx = np.maximum(np.maximum(g[0] - X, X - g[2]), 0)
			dy = np.maximum(np.maximum(g[1] - Y, Y - g[3]), 0)
			d2 = dx * dx + dy * dy
			rr = r
		elif shape.kind == 'circle':
			d2 = (X - g[0]) ** 2 + (Y - g[1]) ** 2
			rr = r + g[2] / 2
		else:
			ax, ay, bx, by, w = g
			vx, vy = bx - ax, by - ay
			L2 = vx * vx + vy * vy
			t = np.clip(((X - ax) * vx + (Y - ay) * vy) / L2, 0, 1) if L2 > 0 else 0 * X
			d2 = (X - ax - t * vx) ** 2 + (Y - ay - t * vy) ** 2
			rr = r + w / 2
		mask[i0:i1, j0:j1] |= d2 < rr * rr

	def blocked(self, net, half_width):
		"""Per layer: cells a track (or via) of net with this half width may not use."""
		masks = [np.zeros((self.nx, self.ny), bool) for _ in LAYERS]
		r = CLEARANCE + half_width + MARGIN
		for s in self.shapes:
			if s.net == net:
				continue
			for l in s.layers:
				self._mark(masks[l], s, r)
		e = EDGE_CLEARANCE + half_width
		x0, y0, x1, y1 = self.bounds
		edge = ((self.xs[:, None] < x0 + e) | (self.xs[:, None] > x1 - e) |
			(self.ys[None, :] < y0 + e) | (self.ys[None, :] > y1 - e))
		for m in masks:
			m |= edge
		return masks

	def access(self, pad, blocked, half_width):
		"""Free cells (layer, i, j) inside pad where a track end may start."""
		x0, y0, x1, y1 = pad.rect
		out = []
		for shrink in (half_width, 0.0):
			i0, j0 = self.cell(x0 + shrink, y0 + shrink)
			i1, j1 = self.cell(x1 - shrink, y1 - shrink)
			for l in pad.layers:
				for i in range(max(i0, 0), min(i1, self.nx - 1) + 1):
					for j in range(max(j0, 0), min(j1, self.ny - 1) + 1):
						x, y = self.xy(i, j)
						if (x0 + shrink - 1e-6 <= x <= x1 - shrink + 1e-6 and
						    y0 + shrink - 1e-6 <= y <= y1 - shrink + 1e-6 and
						    not blocked[l][i, j]):
							out.append((l, i, j))
			if out:
				return out
		# centre of a narrow pad: the nearest cell, joined by a stub
		i, j = self.cell(pad.x, pad.y)
		return [(l, i, j) for l in pad.layers if not blocked[l][i, j]]

	def search(self, sources, targets, blocked, via_blocked, allow_via, layers_ok):
		"""A* from any source cell to any target cell; returns the cell path."""
		tset = set(targets)
		tx = [t[1] for t in targets]
		ty = [t[2] for t in targets]
		bx0, bx1, by0, by1 = min(tx), max(tx), min(ty), max(ty)
		def h(i, j):
			return (max(bx0 - i, 0, i - bx1) + max(by0 - j, 0, j - by1))
		dist, prev, heap = {}, {}, []
		for s in sources:
			dist[s] = 0.0
			heapq.heappush(heap, (h(s[1], s[2]), 0.0, s))
		while heap:
			f, g, cur = heapq.heappop(heap)
			if cur in tset:
				path = [cur]
				while path[-1] in prev:
					path.append(prev[path[-1]])
				return path[::-1]
			if g > dist.get(cur, 1e18):
				continue
			l, i, j = cur
			steps = []
			for di, dj in ((1, 0), (-1, 0), (0, 1), (0, -1)):
				ni, nj = i + di, j + dj
				if 0 <= ni < self.nx and 0 <= nj < self.ny and not blocked[l][ni, nj]:
					steps.append(((l, ni, nj), LAYER_COST[l]))
			if allow_via and not via_blocked[i, j]:
				for ol in layers_ok:
					if ol != l and not blocked[ol][i, j]:
						steps.append(((ol, i, j), VIA_COST))
			for nxt, c in steps:
				ng = g + c
				if ng < dist.get(nxt, 1e18):
					dist[nxt] = ng
					prev[nxt] = cur
					heapq.heappush(heap, (ng + h(nxt[1], nxt[2]), ng, nxt))
		return None

	def commit(self, net, path, width):
		"""Turn a cell path into merged segments and vias; register as copper."""
		segs, vias = [], []
		start = path[0]
		for a, b in zip(path, path[1:]):
			if a[0] != b[0]:
				if start != a:
					segs.append((start, a))
				vias.append(a)
				start = b
		if start != path[-1]:
			segs.append((start, path[-1]))
		if len(path) == 1:
			return
		merged = []
		for s in segs:
			merged.extend(self._straight(s, path))
		for (la, ia, ja), (lb, ib, jb) in merged:
			pa, pb = self.xy(ia, ja), self.xy(ib, jb)
			self.tracks.append((net, la, pa, pb, width))
			self.add(Shape('seg', net, (la,), (pa[0], pa[1], pb[0], pb[1], width)))
		for (l, i, j) in vias:
			self.via(net, self.xy(i, j))

	def via(self, net, p):
		self.vias.append((net, p))
		self.add(Shape('circle', net, LAYERS, (p[0], p[1], VIA_D)))

	@staticmethod
	def _straight(seg, path):
		"""Split a same-layer run of the path into straight pieces."""
		a, b = seg
		ia, ib = path.index(a), path.index(b)
		run = path[ia:ib + 1]
		out, s = [], run[0]
		for k in range(1, len(run) - 1):
			p, c, n = run[k - 1], run[k], run[k + 1]
			if (c[1] - p[1], c[2] - p[2]) != (n[1] - c[1], n[2] - c[2]):
				out.append((s, c))
				s = c
		out.append((s, run[-1]))
		return out

	def stub(self, net, layer, pad, cellxy, width):
		"""Short track from a route's end cell to the pad centre."""
		if abs(cellxy[0] - pad.x) < 1e-6 and abs(cellxy[1] - pad.y) < 1e-6:
			return
		self.tracks.append((net, layer, cellxy, (pad.x, pad.y), width))
		self.add(Shape('seg', net, (layer,), (cellxy[0], cellxy[1], pad.x, pad.y, width)))
