/* SPDX-License-Identifier: BSD-3-Clause */
/* mm_procstat.h — the machine's busy CPU time from /proc/stat and the share of it other
 * processes used (common/procstat.c): the launch-wide figure (output/provenance.c) and the
 * per-block one (bench/other_cpu.c) read it the same way. */
#ifndef MM_PROCSTAT_H
#define MM_PROCSTAT_H
#include <stddef.h>
#include <stdint.h>

#include "mm_error.h"

/* The busy ticks of the first "cpu" line of /proc/stat text: user + nice + system + irq +
 * softirq + steal (guest time is already inside user; idle and iowait are not busy). At least
 * the first four fields must be there. 0, or MM_E_INPUT when the text does not start with such
 * a line. */
mm_status mm_procstat_busy_ticks(const char *text, uint64_t *busy_ticks);
/* The machine's busy CPU seconds since boot, read from `path` ("/proc/stat"); NaN when it is
 * unreadable. One open, one read of its first bytes, one close: no stdio buffer. */
double mm_procstat_busy_s(const char *path);
/* The CPU share other processes used over an interval: (busy − own) / (wall × ncpus), clamped to
 * [0, 1]; busy is the machine's busy CPU time, own the CPU time of this launch's ranks on the
 * machine, all in seconds. NaN when a figure is unknown (NaN) or wall or ncpus is not > 0. */
double mm_other_cpu_share(double busy_s, double own_s, double wall_s, int ncpus);

#endif
