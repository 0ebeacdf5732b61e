/*
 * builtin_scenarios.c - embeds sim/scenarios/NAME.scn into the program (the
 * assembler's .incbin reads them at build time; sim/module.mk makes this
 * object depend on them), so built-in scenarios work from any directory and
 * after `make install`.
 */
#include "sim_builtin.h"

#include <string.h>
#include <strings.h>

#define EMBED(sym, file) \
	__asm__(".section .rodata\n" \
		".global " #sym "\n" #sym ":\n" \
		".incbin \"sim/scenarios/" file "\"\n" \
		".global " #sym "_end\n" #sym "_end:\n" \
		".byte 0\n" \
		".previous\n"); \
	extern const char sym[], sym##_end[]
EMBED(sim_scn_0, "Idle.scn");
EMBED(sim_scn_1, "Idle-Low.scn");
EMBED(sim_scn_2, "Idle-Super.scn");
EMBED(sim_scn_3, "Idle-Conn.scn");
EMBED(sim_scn_4, "CPU-cached.scn");
EMBED(sim_scn_5, "CPU-uncached.scn");
EMBED(sim_scn_6, "Music.scn");
EMBED(sim_scn_7, "Music-Silent.scn");
EMBED(sim_scn_8, "Music-Loudest.scn");
EMBED(sim_scn_9, "Movie.scn");
EMBED(sim_scn_10, "Record.scn");
EMBED(sim_scn_11, "Game.scn");
EMBED(sim_scn_12, "Download.scn");
EMBED(sim_scn_13, "CPU-cached+Game.scn");
EMBED(sim_scn_14, "Itsy-2freq.scn");
EMBED(sim_scn_15, "Itsy-6freq.scn");
EMBED(sim_scn_16, "ROM-exec.scn");

static struct sim_builtin_scn table[] = {
	{ "Idle", "builtin:Idle", sim_scn_0, 0 },
	{ "Idle-Low", "builtin:Idle-Low", sim_scn_1, 0 },
	{ "Idle-Super", "builtin:Idle-Super", sim_scn_2, 0 },
	{ "Idle-Conn", "builtin:Idle-Conn", sim_scn_3, 0 },
	{ "CPU-cached", "builtin:CPU-cached", sim_scn_4, 0 },
	{ "CPU-uncached", "builtin:CPU-uncached", sim_scn_5, 0 },
	{ "Music", "builtin:Music", sim_scn_6, 0 },
	{ "Music-Silent", "builtin:Music-Silent", sim_scn_7, 0 },
	{ "Music-Loudest", "builtin:Music-Loudest", sim_scn_8, 0 },
	{ "Movie", "builtin:Movie", sim_scn_9, 0 },
	{ "Record", "builtin:Record", sim_scn_10, 0 },
	{ "Game", "builtin:Game", sim_scn_11, 0 },
	{ "Download", "builtin:Download", sim_scn_12, 0 },
	{ "CPU-cached+Game", "builtin:CPU-cached+Game", sim_scn_13, 0 },
	{ "Itsy-2freq", "builtin:Itsy-2freq", sim_scn_14, 0 },
	{ "Itsy-6freq", "builtin:Itsy-6freq", sim_scn_15, 0 },
	{ "ROM-exec", "builtin:ROM-exec", sim_scn_16, 0 },
};
static const char *const ends[] = {
	sim_scn_0_end,
	sim_scn_1_end,
	sim_scn_2_end,
	sim_scn_3_end,
	sim_scn_4_end,
	sim_scn_5_end,
	sim_scn_6_end,
	sim_scn_7_end,
	sim_scn_8_end,
	sim_scn_9_end,
	sim_scn_10_end,
	sim_scn_11_end,
	sim_scn_12_end,
	sim_scn_13_end,
	sim_scn_14_end,
	sim_scn_15_end,
	sim_scn_16_end,
};
#define NSCN (sizeof(table) / sizeof(table[0]))

size_t sim_builtin_count(void)
{
	return NSCN;
}

const struct sim_builtin_scn *sim_builtin_at(size_t i)
{
	if (i >= NSCN)
		return NULL;
	table[i].len = (size_t)(ends[i] - table[i].text);
	return &table[i];
}

const struct sim_builtin_scn *sim_builtin_find(const char *name)
{
	size_t i;

	for (i = 0; i < NSCN; i++)
		if (!strcasecmp(table[i].name, name))
			return sim_builtin_at(i);
	return NULL;
}
