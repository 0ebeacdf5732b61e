"""Minimal S-expression reader/writer for KiCad files.

KiCad's .kicad_sch/.kicad_sym/.kicad_mod files are S-expressions: lists of
symbols, numbers and double-quoted strings.  Lists are Python lists, symbols
are Sym, strings are str, numbers are int/float.
"""
import re

class Sym(str):
	"""A bare (unquoted) S-expression atom such as `yes` or `pin`."""
	pass

_TOKEN = re.compile(r'\s*(?:(\()|(\))|"((?:[^"\\]|\\.)*)"|([^\s()"]+))', re.S)

def parse(text):
	"""Parse one S-expression from text and return it as nested lists."""
	stack, cur, pos = [], None, 0
	while True:
		m = _TOKEN.match(text, pos)
		if not m:
			if text[pos:].strip():
				raise ValueError("bad S-expression near offset %d" % pos)
			break
		pos = m.end()
		if m.group(1):
			new = []
			if cur is not None:
				cur.append(new)
				stack.append(cur)
			cur = new
		elif m.group(2):
			if not stack:
				return cur
			cur = stack.pop()
		elif m.group(3) is not None:
			cur.append(m.group(3).replace('\\"', '"').replace('\\\\', '\\'))
		else:
			atom = m.group(4)
			try:
				cur.append(int(atom))
			except ValueError:
				try:
					cur.append(float(atom))
				except ValueError:
					cur.append(Sym(atom))
	return cur

def _atom(x):
	if isinstance(x, Sym):
		return str(x)
	if isinstance(x, str):
		return '"' + x.replace('\\', '\\\\').replace('"', '\\"').replace('\n', '\\n') + '"'
	if isinstance(x, bool):
		return 'yes' if x else 'no'
	if isinstance(x, float):
		s = ('%.6f' % x).rstrip('0').rstrip('.')
		return s if s not in ('-0', '') else '0'
	return str(x)

def dump(x, indent=0):
	"""Serialise nested lists in KiCad's style: short lists on one line."""
	if not isinstance(x, list):
		return _atom(x)
	flat = '(' + ' '.join(dump(e) if isinstance(e, list) else _atom(e) for e in x) + ')'
	if len(flat) <= 100 and '\n' not in flat:
		return flat
	pad = '\t' * (indent + 1)
	out = '(' + _atom(x[0])
	for e in x[1:]:
		out += '\n' + pad + dump(e, indent + 1)
	return out + '\n' + '\t' * indent + ')'

def find(node, key):
	"""First child list whose head is key, or None."""
	for e in node:
		if isinstance(e, list) and e and e[0] == key:
			return e
	return None

def find_all(node, key):
	return [e for e in node if isinstance(e, list) and e and e[0] == key]

def S(*names):
	"""Symbols for a list head etc.: S('yes') -> Sym('yes')."""
	return Sym(names[0]) if len(names) == 1 else [Sym(n) for n in names]
