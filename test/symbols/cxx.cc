/*
 * cxx.cc - C++ names: a member function of a class template in a
 * namespace, and an overload, each run for MS ms of CPU time.  perf and
 * c++filt print them demangled, with their parameters.
 *
 *   cxx MS
 */
#include "work.h"

volatile unsigned long sink;

namespace geometry {
template <typename T> struct Accumulator {
	__attribute__((noinline)) static void add(T step)
	{
		for (unsigned long i = 0; i < 20000; i++)
			sink += (unsigned long)(step * (T)i);
	}
};

__attribute__((noinline)) void scale(double f)
{
	for (unsigned long i = 0; i < 20000; i++)
		sink ^= (unsigned long)(f * (double)i);
}
} // namespace geometry

static void step_add() { geometry::Accumulator<long>::add(3); }
static void step_scale() { geometry::scale(1.5); }

int main(int argc, char **argv)
{
	double ms = argc > 1 ? atof(argv[1]) : 300;

	work_for(step_add, ms);
	work_for(step_scale, ms);
	return 0;
}
