/* SPDX-License-Identifier: BSD-3-Clause */
/* procstat.c — the machine's busy CPU time (/proc/stat) and the share of it other processes
 * used, for the launch-wide load (output/provenance.c) and the per-block one (bench/
 * other_cpu.c).
 * Resolution: /proc/stat counts in clock ticks (sysconf(_SC_CLK_TCK), 100 per second on Linux:
 * 10 ms), the kernel charging a whole tick to whatever ran when it fell; an interval much
 * shorter than a tick per CPU reads 0 or a whole tick (Roth 2021, §4.4).
 * Cost: one open, one read of 256 bytes and one close; the kernel renders the whole file for
 * the read (every CPU's line and the interrupt counts): measured 3 µs (minimum) to 5–8 µs (mean)
 * on a 2-CPU Linux 6.18 VM (docs/ALGORITHMS.md, "Other processes' CPU per block"). */
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "mm_error.h"
#include "mm_procstat.h"

mm_status mm_procstat_busy_ticks(const char *text, uint64_t *busy_ticks) {
    unsigned long long f[8] = {0}; /* user nice system idle iowait irq softirq steal */
    /* the machine's line, not a CPU's ("cpu0 ..."), which the blank after "cpu" tells apart */
    if (strncmp(text, "cpu", 3) != 0 || (text[3] != ' ' && text[3] != '\t')) return MM_E_INPUT;
    int n = sscanf(text, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &f[0], &f[1], &f[2], &f[3],
                   &f[4], &f[5], &f[6], &f[7]);
    if (n < 4) return MM_E_INPUT;
    *busy_ticks = (uint64_t)(f[0] + f[1] + f[2] + f[5] + f[6] + f[7]);
    return 0;
}

double mm_procstat_busy_s(const char *path) {
    char text[256];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return NAN;
    ssize_t got = read(fd, text, sizeof text - 1);
    close(fd);
    long hz = sysconf(_SC_CLK_TCK);
    uint64_t busy = 0;
    if (got <= 0 || hz <= 0) return NAN;
    text[got] = '\0';
    if (mm_procstat_busy_ticks(text, &busy) != 0) return NAN;
    return (double)busy / (double)hz;
}

double mm_other_cpu_share(double busy_s, double own_s, double wall_s, int ncpus) {
    if (isnan(busy_s) || isnan(own_s) || !(wall_s > 0) || ncpus <= 0) return NAN;
    double share = (busy_s - own_s) / (wall_s * (double)ncpus);
    return share < 0 ? 0.0 : share > 1 ? 1.0 : share;
}
