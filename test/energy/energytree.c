/*
 * energytree.c - sysfs trees of real machines' energy sources, driven by a
 * workload with known phase powers, for eqprof's energy-source tests.
 *
 *   energytree make MACHINE DIR
 *       writes DIR as /sys looks on MACHINE (files, symlinks, modes, values
 *       in the kernel's units and formats; see the machines below)
 *   energytree drive MACHINE DIR SHM LOG [--backwards-at S]
 *       advances DIR's counters until `energytree stop SHM`: every domain
 *       uses idle_w watts all the time plus w[phase] watts per second of
 *       CPU time the workload spends in that phase (read from SHM), and is
 *       written the way its hardware updates it (RAPL every 1 ms, the
 *       battery gauge every 15 s, the INA3221 every update_interval).  LOG
 *       gets, every tick, the time (CLOCK_MONOTONIC s) and every domain's
 *       true cumulative energy in J: the truth the tests compare with.
 *       --backwards-at S makes the first counter go back 1 J once the
 *       workload has spent S s of CPU time and the counter is not just
 *       past its wrap (not S s of wall time: a loaded
 *       machine may start the reader later than that, and a counter that
 *       went back before anyone read it is just a lower counter); a
 *       workload run meanwhile ends only once the counter has gone back.
 *   energytree work SHM PHASE:SECONDS...
 *       the workload: PHASE is hot, warm or cool (busy in phase_hot() etc.
 *       for SECONDS of its CPU time) or idle (sleeps SECONDS); it publishes
 *       its CPU time per phase in SHM as it goes, and prints when each
 *       busy phase ends "span NAME T0 T1" (CLOCK_MONOTONIC s) and at exit
 *       one line per phase: "phase NAME cpu_s WALL_S".
 *   energytree stop SHM
 *
 * Machines (values in the units the kernel uses; layouts as the kernel's
 * drivers make them: powercap, power_supply, hwmon class links into
 * /sys/devices):
 *   intel-laptop  RAPL package-0, core, uncore, dram, psys (+ the MMIO
 *                 package zone), max_energy_range_uj 262143328850, counters
 *                 started a few joules below the wrap; BAT0 with energy_now
 *                 (uWh) updated every 15 s; AC; a mouse battery (scope
 *                 Device); hwmon BAT0 (in0/curr1) and acpitz
 *   amd-desktop   RAPL package-0 and core, range 65532610987
 *   intel-server  two sockets: package-0/1 with dram subzones
 *   laptop-charge BAT1 with charge_now (uAh), voltage_now, current_now
 *   jetson        INA3221 (i2c 6-0040): POM_5V_IN, POM_5V_GPU, POM_5V_CPU;
 *                 bus mV in in1-3, mA in curr1-3, shunt uV in in4-6,
 *                 update_interval 26 (ms: 3 channels x 4 samples x 2.2 ms)
 *   amd-lowidle   amd-desktop's RAPL with almost no idle power (50 mW): the
 *                 energy of each phase function is known
 *   perf-fake     the perf power PMU's sysfs description (type 97, which
 *                 no kernel here has)
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define NPHASE 3
static const char *const phase_names[NPHASE] = { "hot", "warm", "cool" };

struct shm {
	uint32_t magic;
	_Atomic int stop, ready;
	_Atomic int back_pending, went_back;   /* --backwards-at: armed, done */
	_Atomic uint64_t cpu_ns[NPHASE];
};
#define SHM_MAGIC 0x45545245u

enum dkind {
	D_RAPL,         /* energy_uj, counter with wrap */
	D_ENERGY_NOW,   /* battery energy_now in uWh, gauge */
	D_CHARGE_NOW,   /* battery charge_now in uAh at a fixed voltage, gauge */
	D_INA,          /* curr mA at a bus voltage mV, averaged over the update */
};

struct dom {
	const char *name;
	const char *file;   /* relative to DIR (the /sys/devices path) */
	enum dkind kind;
	double idle_w, w[NPHASE];
	double update_s;
	long long range_uj; /* D_RAPL */
	double start;       /* D_RAPL: J below the wrap; gauges: J stored at start */
	double volts;       /* D_CHARGE_NOW, D_INA */
};

/* While driving: each domain's true energy, and when it was last written. */
static struct dstate {
	double e, e_written, t_written, next_update;
} st[16];

#define MAXD 12

struct machine {
	const char *name;
	struct dom d[MAXD];
	size_t nd;
};

#define RAPL_INTEL 262143328850LL
#define RAPL_AMD 65532610987LL
#define PC "devices/virtual/powercap/intel-rapl/"
#define BATDIR "devices/LNXSYSTM:00/LNXSYBUS:00/PNP0C0A:00/power_supply/"
#define INADIR "devices/platform/70000000.host1x/7000c700.i2c/i2c-6/6-0040/hwmon/hwmon1/"

static struct machine machines[] = {
	{ "intel-laptop", {
		{ "package-0", PC "intel-rapl:0/energy_uj", D_RAPL, 1.5, { 14, 7, 2.5 }, 1e-3, RAPL_INTEL, 3, 0 },
		{ "core-0", PC "intel-rapl:0/intel-rapl:0:0/energy_uj", D_RAPL, 0.4, { 11, 5, 1.5 }, 1e-3, RAPL_INTEL, 1.2, 0 },
		{ "uncore-0", PC "intel-rapl:0/intel-rapl:0:1/energy_uj", D_RAPL, 0.1, { 0.3, 0.2, 0.1 }, 1e-3, RAPL_INTEL, 50, 0 },
		{ "dram-0", PC "intel-rapl:0/intel-rapl:0:2/energy_uj", D_RAPL, 0.3, { 1.2, 0.8, 0.4 }, 1e-3, RAPL_INTEL, 0.5, 0 },
		{ "psys", PC "intel-rapl:1/energy_uj", D_RAPL, 4, { 18, 9, 3.5 }, 1e-3, RAPL_INTEL, 400, 0 },
		{ "mmio", "devices/virtual/powercap/intel-rapl-mmio/intel-rapl-mmio:0/energy_uj", D_RAPL,
		  1.5, { 14, 7, 2.5 }, 1e-3, RAPL_INTEL, 1000, 0 },
		{ "BAT0", BATDIR "BAT0/energy_now", D_ENERGY_NOW, 6, { 18, 9, 3.5 }, 15, 0, 148442, 0 },
	}, 7 },
	{ "amd-desktop", {
		{ "package-0", PC "intel-rapl:0/energy_uj", D_RAPL, 18, { 40, 25, 20 }, 1e-3, RAPL_AMD, 2, 0 },
		{ "core-0", PC "intel-rapl:0/intel-rapl:0:0/energy_uj", D_RAPL, 2, { 20, 10, 4 }, 1e-3, RAPL_AMD, 7, 0 },
	}, 2 },
	{ "intel-server", {
		{ "package-0", PC "intel-rapl:0/energy_uj", D_RAPL, 40, { 30, 15, 5 }, 1e-3, RAPL_INTEL, 100, 0 },
		{ "dram-0", PC "intel-rapl:0/intel-rapl:0:0/energy_uj", D_RAPL, 8, { 4, 2, 1 }, 1e-3, 65712999613LL, 10, 0 },
		{ "package-1", PC "intel-rapl:1/energy_uj", D_RAPL, 38, { 0, 0, 0 }, 1e-3, RAPL_INTEL, 5000, 0 },
		{ "dram-1", PC "intel-rapl:1/intel-rapl:1:0/energy_uj", D_RAPL, 7, { 0, 0, 0 }, 1e-3, 65712999613LL, 20, 0 },
	}, 4 },
	{ "laptop-charge", {
		{ "BAT1", BATDIR "BAT1/charge_now", D_CHARGE_NOW, 5, { 16, 8, 3 }, 15, 0, 150000, 11.4 },
	}, 1 },
	{ "jetson", {
		{ "ina3221:POM_5V_IN", INADIR "curr1_input", D_INA, 1.8, { 5, 2.5, 1 }, 26e-3, 0, 0, 5.08 },
		{ "ina3221:POM_5V_GPU", INADIR "curr2_input", D_INA, 0.25, { 0, 0, 0 }, 26e-3, 0, 0, 5.04 },
		{ "ina3221:POM_5V_CPU", INADIR "curr3_input", D_INA, 0.4, { 3.5, 1.7, 0.6 }, 26e-3, 0, 0, 5.02 },
	}, 3 },
	/* the AMD desktop's powercap layout with almost no idle power: nearly
	 * every joule comes from the workload's CPU time in a phase, so the
	 * energy of each phase function is known (record --energy's test) */
	{ "amd-lowidle", {
		{ "package-0", PC "intel-rapl:0/energy_uj", D_RAPL, 0.05, { 40, 25, 10 }, 1e-3, RAPL_AMD, 2, 0 },
		{ "core-0", PC "intel-rapl:0/intel-rapl:0:0/energy_uj", D_RAPL, 0.02, { 20, 10, 4 }, 1e-3, RAPL_AMD, 7, 0 },
	}, 2 },
	{ "perf-fake", { { .name = NULL } }, 0 },
};

/* snprintf that truncates quietly (a function: no format-truncation guesses) */
static int fmt(char *buf, size_t size, const char *f, ...) __attribute__((format(printf, 3, 4)));
static int fmt(char *buf, size_t size, const char *f, ...)
{
	va_list ap;
	int n;

	va_start(ap, f);
	n = vsnprintf(buf, size, f, ap);
	va_end(ap);
	return n;
}

static void die(const char *what, const char *a)
{
	fprintf(stderr, "energytree: ");
	fprintf(stderr, what, a);
	fprintf(stderr, "\n");
	exit(1);
}

static struct machine *find_machine(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(machines) / sizeof(machines[0]); i++)
		if (!strcmp(machines[i].name, name))
			return &machines[i];
	die("no machine '%s'", name);
	return NULL;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---- making trees --------------------------------------------------------- */

static const char *root;

static void mkdirs(const char *rel)
{
	char path[1024], *p;

	fmt(path, sizeof(path), "%s/%s", root, rel);
	for (p = path + strlen(root) + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(path, 0755);
			*p = '/';
		}
	mkdir(path, 0755);
}

/* Writes DIR/rel atomically (readers never see half a value) with mode. */
static void put(const char *rel, mode_t mode, const char *f, ...)
	__attribute__((format(printf, 3, 4)));
static void put(const char *rel, mode_t mode, const char *f, ...)
{
	char path[1024], tmp[1100], text[256];
	va_list ap;
	int fd, n;

	va_start(ap, f);
	n = vsnprintf(text, sizeof(text), f, ap);
	va_end(ap);
	fmt(path, sizeof(path), "%s/%s", root, rel);
	fmt(tmp, sizeof(tmp), "%s.tmp", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, mode);
	if (fd < 0 || write(fd, text, (size_t)n) != n || fchmod(fd, mode) < 0 || close(fd) < 0 ||
	    rename(tmp, path) < 0)
		die("cannot write %s", path);
}

static void link_to(const char *rel_link, const char *target)
{
	char path[1024];

	fmt(path, sizeof(path), "%s/%s", root, rel_link);
	unlink(path);
	if (symlink(target, path) < 0)
		die("cannot link %s", path);
}

static void rapl_zone(const char *dir, const char *name, long long range, long long uj,
		      int sub, long long limit_uw)
{
	char f[512];

	mkdirs(dir);
	fmt(f, sizeof(f), "%s/name", dir);
	put(f, 0444, "%s\n", name);
	fmt(f, sizeof(f), "%s/energy_uj", dir);
	put(f, 0400, "%lld\n", uj);  /* root only since Linux 5.10 */
	fmt(f, sizeof(f), "%s/max_energy_range_uj", dir);
	put(f, 0444, "%lld\n", range);
	fmt(f, sizeof(f), "%s/enabled", dir);
	put(f, 0644, "%d\n", sub ? 0 : 1);
	fmt(f, sizeof(f), "%s/constraint_0_name", dir);
	put(f, 0444, "long_term\n");
	fmt(f, sizeof(f), "%s/constraint_0_power_limit_uw", dir);
	put(f, 0644, "%lld\n", limit_uw);
	fmt(f, sizeof(f), "%s/constraint_0_time_window_us", dir);
	put(f, 0644, "%d\n", sub ? 976 : 27983872);
	if (!sub) {
		fmt(f, sizeof(f), "%s/constraint_1_name", dir);
		put(f, 0444, "short_term\n");
		fmt(f, sizeof(f), "%s/constraint_1_power_limit_uw", dir);
		put(f, 0644, "%lld\n", limit_uw * 3);
		fmt(f, sizeof(f), "%s/constraint_1_time_window_us", dir);
		put(f, 0644, "2440\n");
	}
	fmt(f, sizeof(f), "%s/uevent", dir);
	put(f, 0644, "%s", "");
}

static long long rapl_start(const struct dom *d)
{
	return d->range_uj - (long long)(d->start * 1e6);
}

static void make_powercap(const struct machine *m)
{
	const char *cls = "class/powercap";
	size_t i;

	mkdirs(cls);
	mkdirs(PC);
	put(PC "enabled", 0644, "1\n");
	put(PC "uevent", 0644, "%s", "");
	link_to("class/powercap/intel-rapl", "../../devices/virtual/powercap/intel-rapl");
	for (i = 0; i < m->nd; i++) {
		const struct dom *d = &m->d[i];
		char dir[512], id[64], link[600], target[600];
		const char *name = d->name, *slash;
		int sub;

		if (d->kind != D_RAPL)
			continue;
		fmt(dir, sizeof(dir), "%.*s", (int)(strrchr(d->file, '/') - d->file), d->file);
		slash = strrchr(dir, '/');
		fmt(id, sizeof(id), "%s", slash + 1);
		sub = strchr(strchr(id, ':') + 1, ':') != NULL;
		if (!strcmp(name, "mmio")) {
			name = "package-0";
		} else if (sub) {
			/* the zone of "core-0" is called "core" */
			static char base[64];

			fmt(base, sizeof(base), "%.*s", (int)(strrchr(name, '-') - name), name);
			name = base;
		}
		rapl_zone(dir, name, d->range_uj, rapl_start(d), sub, sub ? 0 : 15000000);
		fmt(link, sizeof(link), "%s/%s", cls, id);
		fmt(target, sizeof(target), "../../%s", dir);
		link_to(link, target);
	}
	if (!strcmp(m->name, "intel-laptop")) {
		mkdirs("devices/virtual/powercap/intel-rapl-mmio");
		link_to("class/powercap/intel-rapl-mmio", "../../devices/virtual/powercap/intel-rapl-mmio");
	}
}

static void make_battery(const struct dom *d)
{
	char dir[512], f[600], link[600], target[600];
	fmt(dir, sizeof(dir), "%.*s", (int)(strrchr(d->file, '/') - d->file), d->file);
	mkdirs(dir);
	mkdirs("class/power_supply");
#define BAT(file, mode, ...) do { fmt(f, sizeof(f), "%s/" file, dir); put(f, mode, __VA_ARGS__); } while (0)
	BAT("type", 0444, "Battery\n");
	BAT("status", 0444, "Discharging\n");
	BAT("present", 0444, "1\n");
	BAT("technology", 0444, "Li-poly\n");
	BAT("cycle_count", 0444, "187\n");
	BAT("capacity_level", 0444, "Normal\n");
	BAT("manufacturer", 0444, "SMP\n");
	BAT("serial_number", 0444, " 3107\n");
	BAT("alarm", 0644, "0\n");
	if (d->kind == D_ENERGY_NOW) {
		BAT("model_name", 0444, "01AV431\n");
		BAT("voltage_min_design", 0444, "11580000\n");
		BAT("voltage_now", 0444, "12467000\n");
		BAT("energy_full_design", 0444, "57020000\n");
		BAT("energy_full", 0444, "51960000\n");
		BAT("energy_now", 0444, "%lld\n", (long long)llround(d->start / 3.6e-3));
		BAT("power_now", 0444, "%lld\n", (long long)llround(d->idle_w * 1e6));
		BAT("capacity", 0444, "79\n");
		BAT("uevent", 0644, "POWER_SUPPLY_NAME=BAT0\nPOWER_SUPPLY_TYPE=Battery\n"
		    "POWER_SUPPLY_STATUS=Discharging\nPOWER_SUPPLY_PRESENT=1\n");
	} else {
		BAT("model_name", 0444, "DELL 7FHHV78\n");
		BAT("voltage_min_design", 0444, "11400000\n");
		BAT("voltage_now", 0444, "%lld\n", (long long)llround(d->volts * 1e6));
		BAT("charge_full_design", 0444, "5800000\n");
		BAT("charge_full", 0444, "5134000\n");
		BAT("charge_now", 0444, "%lld\n", (long long)llround(d->start / d->volts / 3.6e-3));
		BAT("current_now", 0444, "%lld\n", (long long)llround(d->idle_w / d->volts * 1e6));
		BAT("capacity", 0444, "71\n");
		BAT("uevent", 0644, "POWER_SUPPLY_NAME=BAT1\nPOWER_SUPPLY_TYPE=Battery\n");
	}
#undef BAT
	fmt(link, sizeof(link), "class/power_supply/%s", strrchr(dir, '/') + 1);
	fmt(target, sizeof(target), "../../%s", dir);
	link_to(link, target);
}

static void make_laptop_extras(void)
{
	/* the charger, a wireless mouse's battery, and hwmon as laptops have it */
	mkdirs("devices/LNXSYSTM:00/LNXSYBUS:00/ACPI0003:00/power_supply/AC");
	put("devices/LNXSYSTM:00/LNXSYBUS:00/ACPI0003:00/power_supply/AC/type", 0444, "Mains\n");
	put("devices/LNXSYSTM:00/LNXSYBUS:00/ACPI0003:00/power_supply/AC/online", 0444, "0\n");
	link_to("class/power_supply/AC", "../../devices/LNXSYSTM:00/LNXSYBUS:00/ACPI0003:00/power_supply/AC");
	mkdirs("devices/pci0000:00/0000:00:14.0/usb1/1-2/1-2:1.2/0003:046D:C52B.0003/"
	       "0003:046D:4082.0004/power_supply/hidpp_battery_0");
#define MOUSE "devices/pci0000:00/0000:00:14.0/usb1/1-2/1-2:1.2/0003:046D:C52B.0003/" \
	"0003:046D:4082.0004/power_supply/hidpp_battery_0/"
	put(MOUSE "type", 0444, "Battery\n");
	put(MOUSE "scope", 0444, "Device\n");
	put(MOUSE "status", 0444, "Discharging\n");
	put(MOUSE "capacity_level", 0444, "Normal\n");
	put(MOUSE "voltage_now", 0444, "3881000\n");
	link_to("class/power_supply/hidpp_battery_0", "../../" MOUSE);
#undef MOUSE
	mkdirs("class/hwmon");
	mkdirs("devices/virtual/thermal/thermal_zone0/hwmon0");
	put("devices/virtual/thermal/thermal_zone0/hwmon0/name", 0444, "acpitz\n");
	put("devices/virtual/thermal/thermal_zone0/hwmon0/temp1_input", 0444, "47000\n");
	link_to("class/hwmon/hwmon0", "../../devices/virtual/thermal/thermal_zone0/hwmon0");
	mkdirs(BATDIR "BAT0/hwmon2");
	put(BATDIR "BAT0/hwmon2/name", 0444, "BAT0\n");
	put(BATDIR "BAT0/hwmon2/in0_input", 0444, "12467\n");
	put(BATDIR "BAT0/hwmon2/curr1_input", 0444, "481\n");
	link_to("class/hwmon/hwmon2", "../../" BATDIR "BAT0/hwmon2");
}

static void ina_write(const struct dom *d, int ch, double watts)
{
	char f[600];
	double ma = watts / d->volts * 1e3;

	fmt(f, sizeof(f), INADIR "curr%d_input", ch);
	put(f, 0444, "%lld\n", (long long)llround(ma));
	/* shunt voltage over the 5 mOhm shunt, uV */
	fmt(f, sizeof(f), INADIR "in%d_input", ch + 3);
	put(f, 0444, "%lld\n", (long long)llround(ma * 1e-3 * 0.005 * 1e6));
}

static void make_jetson(const struct machine *m)
{
	static const char *const labels[3] = { "POM_5V_IN", "POM_5V_GPU", "POM_5V_CPU" };
	char f[600];
	int ch;

	mkdirs(INADIR);
	mkdirs("class/hwmon");
	put(INADIR "name", 0444, "ina3221\n");
	put(INADIR "samples", 0644, "4\n");
	put(INADIR "update_interval", 0644, "26\n");
	put(INADIR "in7_input", 0444, "0\n");
	put(INADIR "in7_label", 0444, "sum of shunt voltages\n");
	for (ch = 1; ch <= 3; ch++) {
		const struct dom *d = &m->d[ch - 1];

		fmt(f, sizeof(f), INADIR "in%d_label", ch);
		put(f, 0444, "%s\n", labels[ch - 1]);
		fmt(f, sizeof(f), INADIR "in%d_enable", ch);
		put(f, 0644, "1\n");
		fmt(f, sizeof(f), INADIR "in%d_input", ch);
		put(f, 0444, "%lld\n", (long long)llround(d->volts * 1e3));
		fmt(f, sizeof(f), INADIR "shunt%d_resistor", ch);
		put(f, 0644, "5000\n");
		fmt(f, sizeof(f), INADIR "curr%d_crit", ch);
		put(f, 0644, "32760\n");
		fmt(f, sizeof(f), INADIR "curr%d_max", ch);
		put(f, 0644, "32760\n");
		ina_write(d, ch, d->idle_w);
	}
	link_to("class/hwmon/hwmon1", "../../" INADIR);
	mkdirs("devices/virtual/thermal/thermal_zone1/hwmon0");
	put("devices/virtual/thermal/thermal_zone1/hwmon0/name", 0444, "thermal-fan-est\n");
	put("devices/virtual/thermal/thermal_zone1/hwmon0/temp1_input", 0444, "36500\n");
	link_to("class/hwmon/hwmon0", "../../devices/virtual/thermal/thermal_zone1/hwmon0");
}

static void make_perf(void)
{
	static const char *const ev[][2] = {
		{ "energy-cores", "event=0x01" }, { "energy-pkg", "event=0x02" },
		{ "energy-ram", "event=0x03" }, { "energy-psys", "event=0x05" },
	};
	char f[256];
	size_t i;

	mkdirs("devices/power/events");
	mkdirs("devices/power/format");
	mkdirs("bus/event_source/devices");
	put("devices/power/type", 0444, "97\n");
	put("devices/power/cpumask", 0444, "0\n");
	put("devices/power/format/event", 0444, "config:0-7\n");
	for (i = 0; i < 4; i++) {
		fmt(f, sizeof(f), "devices/power/events/%s", ev[i][0]);
		put(f, 0444, "%s\n", ev[i][1]);
		fmt(f, sizeof(f), "devices/power/events/%s.scale", ev[i][0]);
		put(f, 0444, "2.3283064365386962890625e-10\n");
		fmt(f, sizeof(f), "devices/power/events/%s.unit", ev[i][0]);
		put(f, 0444, "Joules\n");
	}
	link_to("bus/event_source/devices/power", "../../../devices/power");
}

static int cmd_make(const char *mname, const char *dir)
{
	struct machine *m = find_machine(mname);
	size_t i;

	root = dir;
	mkdir(dir, 0755);
	mkdirs("class");
	mkdirs("devices");
	if (!strcmp(mname, "perf-fake")) {
		make_perf();
		return 0;
	}
	for (i = 0; i < m->nd; i++)
		if (m->d[i].kind == D_RAPL) {
			make_powercap(m);
			break;
		}
	for (i = 0; i < m->nd; i++)
		if (m->d[i].kind == D_ENERGY_NOW || m->d[i].kind == D_CHARGE_NOW)
			make_battery(&m->d[i]);
	if (!strcmp(mname, "intel-laptop"))
		make_laptop_extras();
	if (!strcmp(mname, "jetson"))
		make_jetson(m);
	return 0;
}

/* ---- driving -------------------------------------------------------------- */

static struct shm *map_shm(const char *path, int create)
{
	int fd = open(path, create ? O_RDWR | O_CREAT | O_TRUNC : O_RDWR, 0600);
	struct shm *s;

	if (fd < 0 || (create && ftruncate(fd, sizeof(struct shm)) < 0))
		die("cannot open %s", path);
	s = mmap(NULL, sizeof(*s), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (s == MAP_FAILED)
		die("cannot map %s", path);
	if (create)
		s->magic = SHM_MAGIC;
	else if (s->magic != SHM_MAGIC)
		die("%s is not an energytree shm", path);
	return s;
}

static volatile sig_atomic_t stopped;
static void on_term(int sig)
{
	(void)sig;
	stopped = 1;
}

/* Writes domain d's file from its true energy now (at time t). */
static void publish(struct dom *d, size_t idx, const struct machine *m, double t)
{
	switch (d->kind) {
	case D_RAPL: {
		long long v = (rapl_start(d) + (long long)llround(st[idx].e * 1e6)) % d->range_uj;

		put(d->file, 0400, "%lld\n", v);
		break;
	}
	case D_ENERGY_NOW: {
		char f[600];
		double pw = (st[idx].e - st[idx].e_written) / (t - st[idx].t_written);

		put(d->file, 0444, "%lld\n", (long long)llround((d->start - st[idx].e) / 3.6e-3));
		fmt(f, sizeof(f), "%.*s/power_now", (int)(strrchr(d->file, '/') - d->file), d->file);
		put(f, 0444, "%lld\n", (long long)llround(pw * 1e6));
		break;
	}
	case D_CHARGE_NOW: {
		char f[600];
		double pw = (st[idx].e - st[idx].e_written) / (t - st[idx].t_written);

		put(d->file, 0444, "%lld\n", (long long)llround((d->start - st[idx].e) / d->volts / 3.6e-3));
		fmt(f, sizeof(f), "%.*s/current_now", (int)(strrchr(d->file, '/') - d->file), d->file);
		put(f, 0444, "%lld\n", (long long)llround(pw / d->volts * 1e6));
		break;
	}
	case D_INA:
		/* the average power over the conversion that just ended */
		ina_write(d, (int)idx + 1, (st[idx].e - st[idx].e_written) / (t - st[idx].t_written));
		break;
	}
	(void)m;
	st[idx].e_written = st[idx].e;
	st[idx].t_written = t;
}

static int cmd_drive(const char *mname, const char *dir, const char *shmpath, const char *logpath,
		     double backwards_at)
{
	struct machine *m = find_machine(mname);
	struct shm *s = map_shm(shmpath, 1);
	uint64_t cpu_prev[NPHASE];
	double t0, t_prev, tick = 5e-3, cpu_total = 0;
	FILE *log = fopen(logpath, "w");
	size_t i;
	int k, went_back = 0;

	root = dir;
	if (!log)
		die("cannot write %s", logpath);
	signal(SIGTERM, on_term);
	for (i = 0; i < m->nd; i++)
		if (m->d[i].update_s < tick)
			tick = m->d[i].update_s;
	t0 = t_prev = now();
	for (k = 0; k < NPHASE; k++)
		cpu_prev[k] = atomic_load(&s->cpu_ns[k]);
	for (i = 0; i < m->nd; i++) {
		st[i].t_written = t0;
		st[i].next_update = t0 + m->d[i].update_s;
	}
	fprintf(log, "t");
	for (i = 0; i < m->nd; i++)
		fprintf(log, " %s", m->d[i].name);
	fprintf(log, "\n%.9f", t0);
	for (i = 0; i < m->nd; i++)
		fprintf(log, " 0");
	fprintf(log, "\n");
	fflush(log);
	if (backwards_at > 0)
		atomic_store(&s->back_pending, 1);
	atomic_store(&s->ready, 1);
	while (!atomic_load(&s->stop) && !stopped) {
		double t, dt, dc[NPHASE];
		struct timespec ts = { 0, (long)(tick * 1e9) };

		nanosleep(&ts, NULL);
		t = now();
		dt = t - t_prev;
		for (k = 0; k < NPHASE; k++) {
			uint64_t c = atomic_load(&s->cpu_ns[k]);

			dc[k] = (double)(c - cpu_prev[k]) * 1e-9;
			cpu_total += dc[k];
			cpu_prev[k] = c;
		}
		fprintf(log, "%.9f", t);
		for (i = 0; i < m->nd; i++) {
			struct dom *d = &m->d[i];

			st[i].e += d->idle_w * dt;
			for (k = 0; k < NPHASE; k++)
				st[i].e += d->w[k] * dc[k];
			fprintf(log, " %.9f", st[i].e);
			if (t >= st[i].next_update) {
				publish(d, i, m, t);
				st[i].next_update += d->update_s;
				if (st[i].next_update < t)
					st[i].next_update = t + d->update_s;
			}
		}
		fprintf(log, "\n");
		/* A counter that goes back by 1 J, which no wrap-around explains;
		 * not within 1.5 J after the counter wrapped (package-0 starts 3 J
		 * below its range), where going back 1 J would cross the wrap again
		 * and read as a jump forward by nearly the whole range. */
		if (backwards_at > 0 && !went_back && cpu_total >= backwards_at &&
		    (rapl_start(&m->d[0]) + llround(st[0].e * 1e6)) % m->d[0].range_uj >= 1500000) {
			long long v = rapl_start(&m->d[0]) + (long long)llround(st[0].e * 1e6) - 1000000;

			put(m->d[0].file, 0400, "%lld\n", v % m->d[0].range_uj);
			went_back = 1;
			atomic_store(&s->went_back, 1);
			backwards_at = 1e30;
			st[0].next_update = 1e30;  /* and stays there */
		}
		t_prev = t;
	}
	fclose(log);
	return 0;
}

/* ---- the workload ------------------------------------------------------- */

static volatile uint64_t sink;

static double thread_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Busy for `seconds` of CPU time, publishing it every ~0.1 ms. */
#define PHASE_FN(NAME, K, MUL)                                                        \
	__attribute__((noinline)) static double phase_##NAME(struct shm *s, double seconds) \
	{                                                                             \
		double start = thread_cpu(), last = start, c;                         \
		uint64_t x = sink;                                                    \
		int i;                                                                \
                                                                                      \
		do {                                                                  \
			for (i = 0; i < 100000; i++)                                   \
				x = x * MUL + (uint64_t)i;                            \
			c = thread_cpu();                                             \
			atomic_fetch_add(&s->cpu_ns[K], (uint64_t)llround((c - last) * 1e9)); \
			last = c;                                                     \
		} while (c - start < seconds);                                        \
		sink = x;                                                             \
		return c - start;                                                     \
	}
PHASE_FN(hot, 0, 6364136223846793005ULL)
PHASE_FN(warm, 1, 2862933555777941757ULL)
PHASE_FN(cool, 2, 3202034522624059733ULL)

static int cmd_work(const char *shmpath, int n, char **phases)
{
	struct shm *s = map_shm(shmpath, 0);
	double cpu[NPHASE] = { 0 }, wall[NPHASE] = { 0 }, idle = 0;
	int i;

	for (i = 0; i < n; i++) {
		char name[16];
		double secs, w0 = now();
		int k;

		if (sscanf(phases[i], "%15[a-z]:%lf", name, &secs) != 2)
			die("bad phase '%s' (NAME:SECONDS)", phases[i]);
		if (!strcmp(name, "idle")) {
			struct timespec ts = { (time_t)secs, (long)((secs - (time_t)secs) * 1e9) };

			nanosleep(&ts, NULL);
			idle += now() - w0;
			continue;
		}
		for (k = 0; k < NPHASE && strcmp(name, phase_names[k]); k++)
			;
		if (k == NPHASE)
			die("no phase '%s' (hot, warm, cool, idle)", name);
		cpu[k] += k == 0 ? phase_hot(s, secs) : k == 1 ? phase_warm(s, secs) : phase_cool(s, secs);
		wall[k] += now() - w0;
		printf("span %s %.9f %.9f\n", name, w0, now());
	}
	/*
	 * --backwards-at: the counter may not go back within 1.5 J after its
	 * wrap, which on a loaded machine can outlast the phases; the program
	 * (and so the recording) goes on, idle, until it has gone back (at most
	 * a minute).
	 */
	for (i = 0; i < 60000 && atomic_load(&s->back_pending) && !atomic_load(&s->went_back); i++) {
		struct timespec ts = { 0, 1000000 };

		nanosleep(&ts, NULL);
	}
	for (i = 0; i < NPHASE; i++)
		printf("phase %s %.9f %.9f\n", phase_names[i], cpu[i], wall[i]);
	printf("phase idle 0 %.9f\n", idle);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "make"))
		return cmd_make(argv[2], argv[3]);
	if (argc >= 6 && !strcmp(argv[1], "drive")) {
		double back = 0;

		if (argc == 8 && !strcmp(argv[6], "--backwards-at"))
			back = atof(argv[7]);
		return cmd_drive(argv[2], argv[3], argv[4], argv[5], back);
	}
	if (argc >= 3 && !strcmp(argv[1], "work"))
		return cmd_work(argv[2], argc - 3, argv + 3);
	if (argc == 3 && !strcmp(argv[1], "stop")) {
		atomic_store(&map_shm(argv[2], 0)->stop, 1);
		return 0;
	}
	fprintf(stderr, "usage: energytree make MACHINE DIR | drive MACHINE DIR SHM LOG "
		"[--backwards-at S] | work SHM PHASE:SECONDS... | stop SHM\n");
	return 2;
}
