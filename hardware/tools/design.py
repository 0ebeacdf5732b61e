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
POWER_NETS = {'VBAT_IN': 1.5, 'VBAT_RP': 1.5, 'VBAT_F': 1.5, 'VMID': 1.5, 'VBAT_DEV': 1.5}

FP_R = 'Resistor_SMD:R_0805_2012Metric'
FP_C = 'Capacitor_SMD:C_0805_2012Metric'
FP_SHUNT = 'Resistor_SMD:R_Shunt_Vishay_WSK2512_6332Metric_T1.19mm'
FP_TP = 'TestPoint:TestPoint_Pad_D1.5mm'
FP_TB = 'TerminalBlock_Phoenix:TerminalBlock_Phoenix_MKDS-1,5-2-5.08_1x02_P5.08mm_Horizontal'
FP_SOT23 = 'Package_TO_SOT_SMD:SOT-23'
FP_SOT236 = 'Package_TO_SOT_SMD:SOT-23-6'
FP_HDR = 'Connector_PinHeader_2.54mm:PinHeader_1x0%d_P2.54mm_Vertical'

# Orderable parts for the BOM: (manufacturer, part number, rating).  Passives
# carry voltage, dielectric and tolerance (capacitors) or tolerance and power
# (resistors).
def mpn(maker, number, rating=''):
	return {'Manufacturer': maker, 'MPN': number, 'Rating': rating}

R1PCT = {  # Yageo RC0805FR-07xxxL: thick film, 1 %, 0.125 W, 150 V
	'10': '10RL', '33': '33RL', '1k': '1KL', '2.2k': '2K2L', '10k': '10KL', '100k': '100KL'}
def r0805(value):
	return mpn('Yageo', 'RC0805FR-07' + R1PCT[value], '1 %, 0.125 W, 150 V')
C100N = mpn('Yageo', 'CC0805KRX7R9BB104', '50 V, X7R, 10 %')
USBLC6 = mpn('STMicroelectronics', 'USBLC6-2SC6', '5.25 V, 150 nA max leakage, IEC 61000-4-2 8 kV contact')

def parts(v=None):
	"""The whole board.  v: board.values (read if not given)."""
	v = v or read_values()
	r_hi, r_lo = v['r_sense_high'], v['r_sense_low']
	P = []
	def add(*a, **kw):
		P.append(Part(*a, **kw))
	def cap(ref, value, sch, pcb, pins, fields=C100N, fp=FP_C, desc=''):
		add(ref, 'Device:C', value, fp, sch, pcb, pins, dict(fields), desc=desc)
	def res(ref, value, sch, pcb, pins, fields=None, desc=''):
		f = dict(r0805(value))
		f.update(fields or {})
		add(ref, 'Device:R', value, FP_R, sch, pcb, pins, f, desc=desc)

	# --- battery current path: supply -> reverse-polarity FET -> fuse ->
	#     R_low (bypassable) -> R_high -> device
	add('J1', 'Connector_Generic:Conn_01x02', 'BATTERY', FP_TB, (25.4, 50.8), (5, 9, 0),
	    {1: 'VBAT_IN', 2: 'GND'}, mpn('Phoenix Contact', '1715721', 'MKDS 1,5/2-5,08, 13.5 A'),
	    desc='battery or bench supply in')
	add('D2', 'Diode:SMAJ6.0CA', 'SMAJ6.0CA', 'Diode_SMD:D_SMA', (375.92, 38.1), (7.5, 19.5, 0),
	    {1: 'VBAT_IN', 2: 'GND'}, mpn('Littelfuse', 'SMAJ6.0CA', '400 W, V_RWM 6.0 V, bidirectional'),
	    desc='TVS on the battery input; bidirectional: a reversed cell does not make it conduct')
	add('Q1', 'Transistor_FET:AO3401A', 'AO3401A', FP_SOT23, (375.92, 63.5), (15.6, 6, 90),
	    {1: 'GND', 3: 'VBAT_IN', 2: 'VBAT_RP'}, mpn('Alpha & Omega', 'AO3401A', '-30 V, -4 A, <85 mOhm at -2.5 V'),
	    desc='reverse-polarity protection: on when the cell is the right way round, body diode blocks otherwise')
	add('F1', 'Device:Fuse', '1.5A', 'Fuse:Fuse_Littelfuse-NANO2-451_453', (50.8, 45.72), (22, 6, 0),
	    {1: 'VBAT_RP', 2: 'VBAT_F'}, mpn('Littelfuse', '045101.5MRL', '1.5 A fast, 125 V'),
	    desc='fuse upstream of the shunts (seed 001 3.2)')
	add('R2', 'Device:R_Shunt', si(r_lo), FP_SHUNT, (76.2, 48.26), (31, 6, 0),
	    {1: 'VBAT_F', 2: 'SENSE_LOW', 3: 'NC', 4: 'VMID'},
	    dict(mpn('Vishay', 'WSK25121L000FEA', '1 %, 1 W, 4-terminal'), BoardValue='r_sense_low'),
	    desc='low-range shunt, Kelvin')
	add('D3', 'Device:D', 'S1M', 'Diode_SMD:D_SMA', (375.92, 88.9), (27, 17.5, 0),
	    {2: 'VBAT_F', 1: 'VMID'}, mpn('Diodes Inc.', 'S1M-13-F', '1 A, 1000 V, V_F 1.1 V at 1 A'),
	    desc='clamps the low-range shunt above its range: R_low about 0.9 W at the fuse rating')
	add('JP1', 'Jumper:Jumper_2_Open', 'HIGH_RANGE', FP_HDR % 2, (76.2, 30.48), (29.5, 12.5, 90),
	    {1: 'VBAT_F', 2: 'VMID'}, mpn('Wurth Elektronik', '61300211121', '2.54 mm header, plus shunt 60900213421'),
	    desc='fitted: bypass R_low (high range)')
	add('R1', 'Device:R_Shunt', si(r_hi), FP_SHUNT, (101.6, 48.26), (45, 6, 0),
	    {1: 'VMID', 2: 'SENSE_HIGH', 3: 'AMP_RSN', 4: 'VBAT_DEV'},
	    dict(mpn('Vishay', 'WSK2512R1000FEA', '1 %, 1 W, 4-terminal'), BoardValue='r_sense_high'),
	    desc='high-range shunt, Kelvin')
	add('JP2', 'Jumper:Jumper_3_Open', 'RANGE_SENSE', FP_HDR % 3, (88.9, 73.66), (34.5, 19, 90),
	    {1: 'SENSE_LOW', 2: 'AMP_RSP', 3: 'SENSE_HIGH'},
	    mpn('Wurth Elektronik', '61300311121', '2.54 mm header, plus shunt 60900213421'),
	    desc='1-2 low range, 2-3 high range')
	add('J2', 'Connector_Generic:Conn_01x02', 'DEVICE', FP_TB, (137.16, 50.8), (88, 9, 0),
	    {1: 'VBAT_DEV', 2: 'GND'}, mpn('Phoenix Contact', '1715721', 'MKDS 1,5/2-5,08, 13.5 A'),
	    desc="to the device's battery connector")
	add('U8', 'Power_Protection:USBLC6-2SC6', 'USBLC6-2SC6', FP_SOT236, (398.78, 38.1), (78.5, 12.5, 0),
	    {5: 'VBAT_DEV', 2: 'GND', 1: 'NC', 6: 'NC', 3: 'NC', 4: 'NC'},
	    USBLC6,
	    desc='ESD clamp on the device terminal (its V_BUS rail clamp; leakage <= 150 nA is in the measured path)')
	# --- battery-terminal voltage to the ADC (0.1 % thin film: the ratio is
	#     not calibrated, and the compensation divides by this reading)
	add('R4', 'Device:R', si(v['adc_r_top']), FP_R, (190.5, 76.2), (62, 16, 0),
	    {1: 'VBAT_DEV', 2: 'VB_ADC'},
	    dict(mpn('Panasonic', 'ERA-6AEB104V', '0.1 %, 25 ppm/K, 0.125 W, 150 V'), BoardValue='adc_r_top'))
	add('R5', 'Device:R', si(v['adc_r_bottom']), FP_R, (190.5, 106.68), (62, 20, 0),
	    {1: 'VB_ADC', 2: 'GND'},
	    dict(mpn('Panasonic', 'ERA-6AEB473V', '0.1 %, 25 ppm/K, 0.125 W, 150 V'), BoardValue='adc_r_bottom'))
	cap('C5', '100n', (203.2, 106.68), (62, 24, 0), {1: 'VB_ADC', 2: 'GND'})
	# --- current mirror (i_m = alpha * i_s) and integrator, kept together so
	#     that the integrating node is short
	add('U1', 'eqprof:MAX4172', 'MAX4172', 'Package_SO:SOIC-8_3.9x4.9mm_P1.27mm', (50.8, 111.76), (46, 17, 0),
	    # pinout: Maxim MAX4172 data sheet, Pin Description (lib/datasheet-pins.txt)
	    {1: 'AMP_RSP', 2: 'AMP_RSN', 3: 'NC', 4: 'NC', 5: 'GND', 6: 'VCAP', 7: 'NC', 8: '+5V'},
	    dict(mpn('Analog Devices (Maxim)', 'MAX4172ESA+', 'SO-8'), BoardValue='amp_gm',
		 BoardNumber=si(v['amp_gm'], 'S')), desc='high-side current mirror')
	cap('C1', '100n', (15.24, 111.76), (53, 14, 90), {1: '+5V', 2: 'GND'})
	add('C2', 'Device:C', si(v['c_int']), 'Capacitor_SMD:C_1206_3216Metric', (81.28, 121.92), (51, 21.3, 0),
	    {1: 'VCAP', 2: 'GND'},
	    dict(mpn('KEMET', 'C1206C912F5GACTU', '50 V, C0G, 1 %'), BoardValue='c_int', Dielectric='C0G'),
	    desc='integrating capacitor, C0G')
	res('R3', si(v['r_dis']), (96.52, 111.76), (52, 24.2, 180), {1: 'VCAP', 2: 'DISCH'},
	    {'BoardValue': 'r_dis'}, desc='discharge current limit')
	add('U2', 'Timer:TLC555xD', 'TLC555', 'Package_SO:SOIC-8_3.9x4.9mm_P1.27mm', (134.62, 116.84), (46, 25.5, 0),
	    {1: 'GND', 8: '+5V', 4: '+5V', 7: 'DISCH', 6: 'VCAP', 2: 'VCAP', 5: 'VREF', 3: 'PULSE'},
	    mpn('Texas Instruments', 'TLC555CDR', 'SOIC-8'),
	    desc='resets C between v_ref/2 and v_ref (thresholds from the reference on CONT)')
	cap('C3', '100n', (114.3, 137.16), (51.8, 27.2, 0), {1: 'VREF', 2: 'GND'}, desc='reference bypass at CONT')
	cap('C4', '100n', (180.34, 121.92), (52.2, 18.3, 0), {1: '+5V', 2: 'GND'}, desc='555 supply decoupling')
	add('TP2', 'Connector:TestPoint', 'PULSE', FP_TP, (160.02, 139.7), (53, 39, 0), {1: 'PULSE'})
	# --- the reference: 555 thresholds and ADC full scale, independent of VBUS
	add('U9', 'Reference_Voltage:LM4040DBZ-2.5', 'LM4040A25', FP_SOT23, (398.78, 63.5), (55, 30.5, 0),
	    {1: 'VREF', 2: 'GND', 3: 'NC'},
	    dict(mpn('Texas Instruments', 'LM4040A25IDBZR', '2.5 V, 0.1 %, 100 ppm/K'), BoardValue='v_ref',
		 BoardNumber='%gV' % v['v_ref']),
	    desc='2.5 V shunt reference: the 555 CONT pin and the ADC AREF')
	res('R9', si(v['r_ref_bias']), (398.78, 88.9), (55, 34, 0), {1: '+5V', 2: 'VREF'},
	    {'BoardValue': 'r_ref_bias'}, desc='reference bias: 0.8-1.4 mA over VBUS 4.4-5.5 V')
	# --- microcontroller
	mcu = {4: '+5V', 6: '+5V', 18: 'AVCC', 3: 'GND', 5: 'GND', 21: 'GND', 20: 'VREF',
	       7: 'XTAL1', 8: 'XTAL2', 29: 'RESET', 30: 'MCU_RXD', 31: 'MCU_TXD',
	       9: 'PULSE', 13: 'IRQ_5V', 23: 'VB_ADC', 15: 'MOSI', 16: 'MISO', 17: 'SCK'}
	for pin in (19, 22, 12, 14, 24, 25, 26, 27, 28, 32, 1, 2, 10, 11):
		mcu[pin] = 'NC'
	add('U3', 'MCU_Microchip_ATmega:ATmega328P-A', 'ATmega328P-A', 'Package_QFP:TQFP-32_7x7mm_P0.8mm',
	    (256.54, 111.76), (70, 38, 0), mcu, mpn('Microchip', 'ATMEGA328P-AU', 'TQFP-32'),
	    desc='counts pulses on T1 (PD5), IRQ from OC1A (PB1), ADC0 reads Vb against the external AREF')
	# one 100 nF per supply pin, at the pin (Microchip AN2519, DS00002519B, and
	# ATmega328P data sheet DS40002061B: each VCC/GND pair decoupled on its
	# own); intent_check.py --pcb verifies the pairing and the distance
	cap('C6', '100n', (228.6, 66.04), (62.95, 35.45, 0), {1: 'GND', 2: '+5V'}, desc='MCU VCC pin 4 decoupling')
	cap('C17', '100n', (241.3, 66.04), (62.95, 37.55, 0), {1: 'GND', 2: '+5V'}, desc='MCU VCC pin 6 decoupling')
	cap('C7', '100n', (215.9, 66.04), (77.2, 37.3, 90), {1: 'VREF', 2: 'GND'}, desc='AREF bypass')
	res('R10', '10', (398.78, 114.3), (80.6, 38.9, 0), {1: '+5V', 2: 'AVCC'}, desc='AVcc filter')
	add('FLG3', 'power:PWR_FLAG', 'PWR_FLAG', '', (353.06, 114.3), None, {1: 'AVCC'})
	cap('C16', '1u', (375.92, 114.3), (77.0, 40.6, 0), {1: 'AVCC', 2: 'GND'},
	    mpn('Yageo', 'CC0805KKX7R8BB105', '25 V, X7R, 10 %'), desc='AVcc filter: 16 kHz with R10')
	add('Y1', 'Device:Crystal_GND24', si(v['mcu_clock'], 'Hz'), 'Crystal:Crystal_SMD_3225-4Pin_3.2x2.5mm',
	    (304.8, 127), (62.8, 41.2, 90), {3: 'XTAL1', 1: 'XTAL2', 2: 'GND', 4: 'GND'},
	    dict(mpn('Abracon', 'ABM8-16.000MHZ-B2-T', '16 MHz, 20 ppm, C_L 18 pF'), BoardValue='mcu_clock'))
	cap('C8', '27p', (297.18, 144.78), (59.4, 38.0, 90), {1: 'XTAL1', 2: 'GND'},
	    mpn('Yageo', 'CC0805JRNPO9BN270', '50 V, C0G, 5 %'), desc='2 (C_L - 5 pF stray) for C_L = 18 pF')
	cap('C9', '27p', (312.42, 144.78), (63.65, 45.2, 90), {1: 'XTAL2', 2: 'GND'},
	    mpn('Yageo', 'CC0805JRNPO9BN270', '50 V, C0G, 5 %'))
	res('R6', '10k', (325.12, 152.4), (82, 44, 90), {1: '+5V', 2: 'RESET'})
	# Arduino-style auto-reset from DTR only when JP3 is bridged: Linux raises
	# DTR on every open of the tty, which would reset the board (issue 13).
	add('JP3', 'Jumper:SolderJumper_2_Open', 'AUTO_RESET', 'Jumper:SolderJumper-2_P1.3mm_Open_Pad1.0x1.5mm',
	    (340.36, 142.24), (86, 52, 0), {1: 'DTR', 2: 'DTR_C'},
	    desc='open: no reset on port open (default); bridged: DTR auto-reset for a bootloader')
	cap('C10', '100n', (340.36, 160.02), (82, 49, 90), {1: 'DTR_C', 2: 'RESET'},
	    desc='DTR auto-reset coupling, only through JP3')
	add('J5', 'Connector_Generic:Conn_02x03_Odd_Even', 'ISP', 'Connector_PinHeader_2.54mm:PinHeader_2x03_P2.54mm_Vertical',
	    (342.9, 99.06), (89, 41, 0), {1: 'MISO', 2: '+5V', 3: 'SCK', 4: 'MOSI', 5: 'RESET', 6: 'GND'},
	    mpn('Wurth Elektronik', '61200621621', '2x3 2.54 mm header'))
	# --- USB: FT232R bridge, powers the board (its consumption is not measured)
	add('J3', 'Connector:USB_B_Mini', 'USB', 'Connector_USB:USB_Mini-B_Wuerth_65100516121_Horizontal',
	    (25.4, 205.74), (6.6, 58, 270), {1: 'VBUS', 2: 'USB_DM', 3: 'USB_DP', 4: 'NC', 5: 'GND', 6: 'GND'},
	    mpn('Wurth Elektronik', '65100516121', 'mini-B, horizontal'))
	add('U6', 'Power_Protection:USBLC6-2SC6', 'USBLC6-2SC6', FP_SOT236, (375.92, 139.7), (14.5, 56, 90),
	    {1: 'USB_DP', 6: 'USB_DP', 3: 'USB_DM', 4: 'USB_DM', 5: 'VBUS', 2: 'GND'},
	    USBLC6,
	    desc='ESD protection of the USB data lines and VBUS')
	add('F2', 'Device:Polyfuse', '500mA', 'Fuse:Fuse_1206_3216Metric', (48.26, 190.5), (15, 49, 90),
	    {1: 'VBUS', 2: '+5V'}, mpn('Littelfuse', '1206L050YR', '0.5 A hold, 6 V'))
	cap('C11', '10u', (60.96, 215.9), (15, 44, 90), {1: '+5V', 2: 'GND'},
	    mpn('Yageo', 'CC0805KKX5R6BB106', '10 V, X5R, 10 %'))
	ftdi = {20: '+5V', 4: '+5V', 7: 'GND', 18: 'GND', 21: 'GND', 25: 'GND', 26: 'GND',
		17: 'V3V3OUT', 15: 'USB_DP', 16: 'USB_DM', 1: 'MCU_RXD', 5: 'MCU_TXD', 2: 'DTR'}
	for pin in (19, 27, 28, 3, 11, 9, 10, 6, 23, 22, 13, 14, 12):
		ftdi[pin] = 'NC'
	add('U4', 'Interface_USB:FT232RL', 'FT232RL', 'Package_SO:SSOP-28_5.3x10.2mm_P0.65mm',
	    (101.6, 210.82), (27, 57, 180), ftdi, mpn('FTDI', 'FT232RL-REEL', 'SSOP-28'), desc='USB UART bridge')
	cap('C12', '100n', (60.96, 254), (19.5, 52, 0), {1: 'V3V3OUT', 2: 'GND'})
	cap('C13', '100n', (139.7, 185.42), (36, 52, 90), {1: '+5V', 2: 'GND'})
	res('R7', '1k', (154.94, 210.82), (44, 62, 90), {1: '+5V', 2: 'LED_A'})
	add('D1', 'Device:LED', 'PWR', 'LED_SMD:LED_0805_2012Metric', (167.64, 228.6), (49, 62, 90),
	    {2: 'LED_A', 1: 'GND'}, mpn('Wurth Elektronik', '150080GS75000', 'green, 0805'))
	add('FLG1', 'power:PWR_FLAG', 'PWR_FLAG', '', (60.96, 180.34), None, {1: '+5V'})
	# --- IRQ to the target, level-shifted to its I/O voltage
	add('U5', 'Logic_LevelTranslator:SN74LVC1T45DBV', 'SN74LVC1T45', FP_SOT236,
	    (256.54, 205.74), (80, 22, 0), {1: '+5V', 2: 'GND', 3: 'IRQ_5V', 4: 'IRQ_OUT', 5: '+5V', 6: 'VIO'},
	    mpn('Texas Instruments', 'SN74LVC1T45DBVR', 'SOT-23-6'), desc='A (5 V) -> B (target VIO)')
	cap('C14', '100n', (226.06, 190.5), (75, 22, 90), {1: '+5V', 2: 'GND'})
	res('R8', '100k', (233.68, 220.98), (73, 27.5, 0), {1: 'IRQ_5V', 2: 'GND'},
	    desc='holds the translator input low while the MCU resets (PB1 floats)')
	cap('C15', '100n', (287.02, 190.5), (85, 22, 90), {1: 'VIO', 2: 'GND'})
	add('U7', 'Power_Protection:USBLC6-2SC6', 'USBLC6-2SC6', FP_SOT236, (398.78, 139.7), (89.5, 22, 90),
	    {1: 'IRQ_OUT', 6: 'IRQ_OUT', 5: 'VIO', 2: 'GND', 3: 'NC', 4: 'NC'},
	    USBLC6,
	    desc='ESD clamp on the target connector: IRQ to VIO/GND, VIO to GND')
	add('J4', 'Connector_Generic:Conn_01x03', 'TARGET', FP_HDR % 3, (325.12, 208.28), (95, 19, 0),
	    {1: 'IRQ_OUT', 2: 'VIO', 3: 'GND'}, mpn('Wurth Elektronik', '61300311121', '2.54 mm header'),
	    desc='IRQ, target I/O voltage, ground')
	res('R11', '100k', (281.94, 228.6), (91, 27.5, 90), {1: 'IRQ_OUT', 2: 'GND'},
	    desc='pulls the target IRQ input low while U5 is unpowered (USB unplugged: B port high-impedance)')
	add('FLG2', 'power:PWR_FLAG', 'PWR_FLAG', '', (302.26, 228.6), None, {1: 'VIO'})
	add('TP3', 'Connector:TestPoint', 'IRQ', FP_TP, (302.26, 241.3), (95, 30, 0), {1: 'IRQ_OUT'})
	add('TP4', 'Connector:TestPoint', 'GND', FP_TP, (342.9, 241.3), (95, 34, 0), {1: 'GND'})
	add('TP5', 'Connector:TestPoint', 'VB', FP_TP, (203.2, 76.2), (68, 18, 0), {1: 'VB_ADC'})
	add('TP6', 'Connector:TestPoint', 'VREF', FP_TP, (375.92, 165.1), (58.5, 30.5, 0), {1: 'VREF'})
	return P

def nets(P):
	"""net name -> [(ref, pin)], without NC."""
	out = {}
	for p in P:
		for pin, net in p.pins.items():
			if net != 'NC':
				out.setdefault(net, []).append((p.ref, pin))
	return out
