"""The energy-counter board as data: parts, their values, pins and nets.

gen_sch.py turns this into the KiCad schematic and gen_pcb.py into the
routed PCB, so both always describe the same circuit.  Component values
that matter to the measurement (shunts, alpha, C, divider, crystal) are
read from hardware/board.values, the one source of truth.

Each part: ref, lib_id, value, footprint, schematic position (mm, on the
1.27 mm grid), PCB position (mm) and rotation, and pin number -> net
("NC" = deliberately unconnected, gets a no-connect flag).
"""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
HW = os.path.dirname(HERE)

def read_values(path=os.path.join(HW, 'board.values')):
	"""board.values -> {name: float}; raises with file:line on a bad line."""
	vals = {}
	with open(path) as f:
		for n, line in enumerate(f, 1):
			line = line.split('#', 1)[0].strip()
			if not line:
				continue
			parts = line.split()
			if len(parts) < 2:
				raise ValueError('%s:%d: expected "name value unit"' % (path, n))
			try:
				vals[parts[0]] = float(parts[1])
			except ValueError:
				raise ValueError('%s:%d: value of %s is not a number: %r'
						 % (path, n, parts[0], parts[1]))
	return vals

def si(v, unit=''):
	"""0.1 -> '100m', 6.8e-9 -> '6.8n', 47000 -> '47k' (KiCad value style)."""
	for exp, pre in ((1e6, 'M'), (1e3, 'k'), (1, ''), (1e-3, 'm'),
			 (1e-6, 'u'), (1e-9, 'n'), (1e-12, 'p')):
		if abs(v) >= exp * 0.999:
			s = ('%.4g' % (v / exp))
			return s + pre + unit
	return '0' + unit

class Part:
	def __init__(self, ref, lib_id, value, footprint, sch, pcb, pins,
		     fields=None, desc=''):
		self.ref, self.lib_id, self.value = ref, lib_id, value
		self.footprint = footprint
		self.sch = sch		# (x, y) in the schematic, mm
		self.pcb = pcb		# (x, y, rotation degrees) on the board, mm
		self.pins = pins	# {pin number: net name or 'NC'}
		self.fields = fields or {}
		self.desc = desc

# Nets carrying the device's battery current: routed wide on the PCB.
POWER_NETS = {'VBAT_IN': 1.5, 'VBAT_F': 1.5, 'VMID': 1.5, 'VBAT_DEV': 1.5}

FP_R = 'Resistor_SMD:R_0805_2012Metric'
FP_C = 'Capacitor_SMD:C_0805_2012Metric'
FP_SHUNT = 'Resistor_SMD:R_Shunt_Vishay_WSK2512_6332Metric_T1.19mm'
FP_TP = 'TestPoint:TestPoint_Pad_D1.5mm'
FP_TB = 'TerminalBlock_Phoenix:TerminalBlock_Phoenix_MKDS-1,5-2-5.08_1x02_P5.08mm_Horizontal'

def parts(v=None):
	"""The whole board.  v: board.values (read if not given)."""
	v = v or read_values()
	r_hi, r_lo = v['r_sense_high'], v['r_sense_low']
	P = []
	# --- battery current path: supply -> fuse -> R_low (bypassable) -> R_high -> device
	P.append(Part('J1', 'Connector_Generic:Conn_01x02', 'BATTERY', FP_TB, (25.4, 50.8), (5, 9, 0),
		      {1: 'VBAT_IN', 2: 'GND'}, desc='battery or bench supply in'))
	P.append(Part('F1', 'Device:Fuse', '2A', 'Fuse:Fuse_1812_4532Metric', (50.8, 45.72), (19, 6, 0),
		      {1: 'VBAT_IN', 2: 'VBAT_F'}, desc='fuse upstream of the shunts (seed 001 3.2)'))
	P.append(Part('R2', 'Device:R_Shunt', si(r_lo), FP_SHUNT, (76.2, 48.26), (31, 6, 0),
		      {1: 'VBAT_F', 2: 'SENSE_LOW', 3: 'NC', 4: 'VMID'},
		      {'BoardValue': 'r_sense_low'}, desc='low-range shunt, Kelvin'))
	P.append(Part('JP1', 'Jumper:Jumper_2_Open', 'HIGH_RANGE', 'Connector_PinHeader_2.54mm:PinHeader_1x02_P2.54mm_Vertical',
		      (76.2, 30.48), (29.5, 12.5, 90), {1: 'VBAT_F', 2: 'VMID'},
		      desc='fitted: bypass R_low (high range)'))
	P.append(Part('R1', 'Device:R_Shunt', si(r_hi), FP_SHUNT, (101.6, 48.26), (45, 6, 0),
		      {1: 'VMID', 2: 'SENSE_HIGH', 3: 'AMP_RSN', 4: 'VBAT_DEV'},
		      {'BoardValue': 'r_sense_high'}, desc='high-range shunt, Kelvin'))
	P.append(Part('JP2', 'Jumper:Jumper_3_Open', 'RANGE_SENSE', 'Connector_PinHeader_2.54mm:PinHeader_1x03_P2.54mm_Vertical',
		      (88.9, 73.66), (34.5, 19, 90), {1: 'SENSE_LOW', 2: 'AMP_RSP', 3: 'SENSE_HIGH'},
		      desc='1-2 low range, 2-3 high range'))
	P.append(Part('J2', 'Connector_Generic:Conn_01x02', 'DEVICE', FP_TB, (137.16, 50.8), (88, 9, 0),
		      {1: 'VBAT_DEV', 2: 'GND'}, desc="to the device's battery connector"))
	# --- battery-terminal voltage to the ADC
	P.append(Part('R4', 'Device:R', si(v['adc_r_top']), FP_R, (190.5, 76.2), (62, 16, 0),
		      {1: 'VBAT_DEV', 2: 'VB_ADC'}, {'BoardValue': 'adc_r_top'}))
	P.append(Part('R5', 'Device:R', si(v['adc_r_bottom']), FP_R, (190.5, 106.68), (62, 20, 0),
		      {1: 'VB_ADC', 2: 'GND'}, {'BoardValue': 'adc_r_bottom'}))
	P.append(Part('C5', 'Device:C', '100n', FP_C, (203.2, 106.68), (62, 24, 0), {1: 'VB_ADC', 2: 'GND'}))
	# --- current mirror (i_m = alpha * i_s) and integrator
	P.append(Part('U1', 'eqprof:MAX4172', 'MAX4172', 'Package_SO:SOIC-8_3.9x4.9mm_P1.27mm', (50.8, 111.76), (46, 17, 0),
		      # pinout: Maxim MAX4172 data sheet, Pin Description (lib/datasheet-pins.txt)
		      {1: 'AMP_RSP', 2: 'AMP_RSN', 3: 'NC', 4: 'NC', 5: 'GND', 6: 'VCAP', 7: 'NC', 8: '+5V'},
		      {'BoardValue': 'amp_gm', 'gm': si(v['amp_gm'], 'S')}, desc='high-side current mirror'))
	P.append(Part('C1', 'Device:C', '100n', FP_C, (15.24, 111.76), (53, 14, 90), {1: '+5V', 2: 'GND'}))
	P.append(Part('C2', 'Device:C', si(v['c_int']), 'Capacitor_SMD:C_1206_3216Metric', (81.28, 121.92), (45, 25, 0),
		      {1: 'VCAP', 2: 'GND'}, {'BoardValue': 'c_int', 'Dielectric': 'C0G'},
		      desc='integrating capacitor, C0G'))
	P.append(Part('R3', 'Device:R', '47', FP_R, (96.52, 111.76), (52, 25, 90),
		      {1: 'VCAP', 2: 'DISCH'}, {'BoardValue': 'r_dis'}, desc='discharge current limit'))
	P.append(Part('U2', 'Timer:TLC555xD', 'TLC555', 'Package_SO:SOIC-8_3.9x4.9mm_P1.27mm', (134.62, 116.84), (45, 33, 0),
		      {1: 'GND', 8: '+5V', 4: '+5V', 7: 'DISCH', 6: 'VCAP', 2: 'VCAP', 5: 'CTRL', 3: 'PULSE'},
		      desc='resets C between Vx/3 and 2Vx/3'))
	P.append(Part('C3', 'Device:C', '10n', FP_C, (114.3, 137.16), (53, 33, 90), {1: 'CTRL', 2: 'GND'}))
	P.append(Part('C4', 'Device:C', '100n', FP_C, (180.34, 121.92), (37, 33, 90), {1: '+5V', 2: 'GND'}))
	P.append(Part('TP1', 'Connector:TestPoint', 'VCAP', FP_TP, (81.28, 139.7), (38, 25, 0), {1: 'VCAP'}))
	P.append(Part('TP2', 'Connector:TestPoint', 'PULSE', FP_TP, (160.02, 139.7), (53, 39, 0), {1: 'PULSE'}))
	# --- microcontroller
	mcu = {4: '+5V', 6: '+5V', 18: '+5V', 3: 'GND', 5: 'GND', 21: 'GND', 20: 'AREF',
	       7: 'XTAL1', 8: 'XTAL2', 29: 'RESET', 30: 'MCU_RXD', 31: 'MCU_TXD',
	       9: 'PULSE', 13: 'IRQ_5V', 23: 'VB_ADC', 15: 'MOSI', 16: 'MISO', 17: 'SCK'}
	for pin in (19, 22, 12, 14, 24, 25, 26, 27, 28, 32, 1, 2, 10, 11):
		mcu[pin] = 'NC'
	P.append(Part('U3', 'MCU_Microchip_ATmega:ATmega328P-A', 'ATmega328P-A', 'Package_QFP:TQFP-32_7x7mm_P0.8mm',
		      (256.54, 111.76), (70, 38, 0), mcu,
		      desc='counts pulses on T1 (PD5), IRQ from OC1A (PB1), ADC0 reads Vb'))
	P.append(Part('C6', 'Device:C', '100n', FP_C, (228.6, 66.04), (62, 33, 90), {1: '+5V', 2: 'GND'}))
	P.append(Part('C7', 'Device:C', '100n', FP_C, (215.9, 66.04), (78, 31, 90), {1: 'AREF', 2: 'GND'}))
	P.append(Part('Y1', 'Device:Crystal', si(v['mcu_clock'], 'Hz'), 'Crystal:Crystal_SMD_HC49-SD',
		      (304.8, 127), (70, 53, 0), {1: 'XTAL1', 2: 'XTAL2'}, {'BoardValue': 'mcu_clock'}))
	P.append(Part('C8', 'Device:C', '22p', FP_C, (297.18, 144.78), (60, 58, 90), {1: 'XTAL1', 2: 'GND'}))
	P.append(Part('C9', 'Device:C', '22p', FP_C, (312.42, 144.78), (80, 58, 90), {1: 'XTAL2', 2: 'GND'}))
	P.append(Part('R6', 'Device:R', '10k', FP_R, (325.12, 152.4), (82, 44, 90), {1: '+5V', 2: 'RESET'}))
	# Arduino-style auto-reset from DTR only when JP3 is bridged: Linux raises
	# DTR on every open of the tty, which would reset the board (issue 13).
	P.append(Part('JP3', 'Jumper:SolderJumper_2_Open', 'AUTO_RESET', 'Jumper:SolderJumper-2_P1.3mm_Open_Pad1.0x1.5mm',
		      (340.36, 142.24), (86, 52, 0), {1: 'DTR', 2: 'DTR_C'},
		      desc='open: no reset on port open (default); bridged: DTR auto-reset for a bootloader'))
	P.append(Part('C10', 'Device:C', '100n', FP_C, (340.36, 160.02), (82, 49, 90), {1: 'DTR_C', 2: 'RESET'},
		      desc='DTR auto-reset coupling, only through JP3'))
	P.append(Part('J5', 'Connector_Generic:Conn_02x03_Odd_Even', 'ISP', 'Connector_PinHeader_2.54mm:PinHeader_2x03_P2.54mm_Vertical',
		      (342.9, 99.06), (89, 41, 0), {1: 'MISO', 2: '+5V', 3: 'SCK', 4: 'MOSI', 5: 'RESET', 6: 'GND'}))
	# --- USB: FT232R bridge, powers the board (its consumption is not measured)
	P.append(Part('J3', 'Connector:USB_B_Mini', 'USB', 'Connector_USB:USB_Mini-B_Wuerth_65100516121_Horizontal',
		      (25.4, 205.74), (6.6, 58, 270), {1: 'VBUS', 2: 'USB_DM', 3: 'USB_DP', 4: 'NC', 5: 'GND', 6: 'GND'}))
	P.append(Part('F2', 'Device:Polyfuse', '500mA', 'Fuse:Fuse_1206_3216Metric', (48.26, 190.5), (15, 49, 90),
		      {1: 'VBUS', 2: '+5V'}))
	P.append(Part('C11', 'Device:C', '10u', FP_C, (60.96, 215.9), (15, 44, 90), {1: '+5V', 2: 'GND'}))
	ftdi = {20: '+5V', 4: '+5V', 7: 'GND', 18: 'GND', 21: 'GND', 25: 'GND', 26: 'GND',
		17: 'V3V3OUT', 15: 'USB_DP', 16: 'USB_DM', 1: 'MCU_RXD', 5: 'MCU_TXD', 2: 'DTR'}
	for pin in (19, 27, 28, 3, 11, 9, 10, 6, 23, 22, 13, 14, 12):
		ftdi[pin] = 'NC'
	P.append(Part('U4', 'Interface_USB:FT232RL', 'FT232RL', 'Package_SO:SSOP-28_5.3x10.2mm_P0.65mm',
		      (101.6, 210.82), (27, 57, 180), ftdi, desc='USB UART bridge'))
	P.append(Part('C12', 'Device:C', '100n', FP_C, (60.96, 254), (19.5, 54, 0), {1: 'V3V3OUT', 2: 'GND'}))
	P.append(Part('C13', 'Device:C', '100n', FP_C, (139.7, 185.42), (36, 52, 90), {1: '+5V', 2: 'GND'}))
	P.append(Part('R7', 'Device:R', '1k', FP_R, (154.94, 210.82), (44, 62, 90), {1: '+5V', 2: 'LED_A'}))
	P.append(Part('D1', 'Device:LED', 'PWR', 'LED_SMD:LED_0805_2012Metric', (167.64, 228.6), (49, 62, 90),
		      {2: 'LED_A', 1: 'GND'}))
	P.append(Part('FLG1', 'power:PWR_FLAG', 'PWR_FLAG', '', (60.96, 180.34), None, {1: '+5V'}))
	# --- IRQ to the target, level-shifted to its I/O voltage
	P.append(Part('U5', 'Logic_LevelTranslator:SN74LVC1T45DBV', 'SN74LVC1T45', 'Package_TO_SOT_SMD:SOT-23-6',
		      (256.54, 205.74), (80, 22, 0), {1: '+5V', 2: 'GND', 3: 'IRQ_5V', 4: 'IRQ_OUT', 5: '+5V', 6: 'VIO'},
		      desc='A (5 V) -> B (target VIO)'))
	P.append(Part('C14', 'Device:C', '100n', FP_C, (226.06, 190.5), (75, 22, 90), {1: '+5V', 2: 'GND'}))
	P.append(Part('R8', 'Device:R', '100k', FP_R, (233.68, 220.98), (73, 27.5, 0), {1: 'IRQ_5V', 2: 'GND'},
		      desc='holds the translator input low while the MCU resets (PB1 floats)'))
	P.append(Part('C15', 'Device:C', '100n', FP_C, (287.02, 190.5), (85, 22, 90), {1: 'VIO', 2: 'GND'}))
	P.append(Part('J4', 'Connector_Generic:Conn_01x03', 'TARGET', 'Connector_PinHeader_2.54mm:PinHeader_1x03_P2.54mm_Vertical',
		      (325.12, 208.28), (95, 19, 0), {1: 'IRQ_OUT', 2: 'VIO', 3: 'GND'},
		      desc='IRQ, target I/O voltage, ground'))
	P.append(Part('FLG2', 'power:PWR_FLAG', 'PWR_FLAG', '', (302.26, 228.6), None, {1: 'VIO'}))
	P.append(Part('TP3', 'Connector:TestPoint', 'IRQ', FP_TP, (302.26, 241.3), (95, 30, 0), {1: 'IRQ_OUT'}))
	P.append(Part('TP4', 'Connector:TestPoint', 'GND', FP_TP, (342.9, 241.3), (95, 34, 0), {1: 'GND'}))
	P.append(Part('TP5', 'Connector:TestPoint', 'VB', FP_TP, (203.2, 76.2), (68, 18, 0), {1: 'VB_ADC'}))
	return P

def nets(P):
	"""net name -> [(ref, pin)], without NC."""
	out = {}
	for p in P:
		for pin, net in p.pins.items():
			if net != 'NC':
				out.setdefault(net, []).append((p.ref, pin))
	return out
