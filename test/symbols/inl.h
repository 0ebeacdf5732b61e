/* inl.h - code that inl.c's outer() inlines from another file. */
static inline __attribute__((always_inline)) unsigned long mix(unsigned long v)
{
	for (int i = 0; i < 200; i++)
		v = v * 6364136223846793005ul + 1442695040888963407ul;
	return v;
}
