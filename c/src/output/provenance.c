/* SPDX-License-Identifier: BSD-3-Clause */
/* provenance.c — what meta.json records about the machine, the MPI library and the load
 * around a launch.
 *
 * What: at the start (collective) the MPI library version (all lines) and standard version,
 * every rank's host, pid and CPU affinity gathered to rank 0, kernel, CPU model and TSC flags,
 * frequency governor if readable, MPI-related environment, load average, the machine's busy
 * CPU time (/proc/stat) and the process's own CPU time; at the end (collective) the load
 * average again, the wall time and the CPU time used by other processes during the launch:
 *   other_cpu_s = (busy CPU of rank 0's host during the launch)
 *                 − (CPU time of the ranks on rank 0's host during the launch), clamped ≥ 0.
 * own_cpu_s is summed over all ranks (MPI_Reduce).
 * Why: Hoefler & Belli 2015, rule 9 (report the environment: software versions, placement,
 * system state) and rule 10 on interference from other processes: a launch that shared the
 * machine with a busy neighbour is visible in its own metadata.
 * Cost: a few small file reads per rank, one MPI_Gather of nprocs·~520 bytes, a broadcast of a
 * host name and a reduction of two doubles. None of it is inside a timed region. */
#define _GNU_SOURCE /* sched_getaffinity and CPU_ISSET are GNU extensions of <sched.h> */
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "mm_output.h"
#include "mm_procstat.h"

#include "build_info.h"

extern char **environ;

static double mm__mono_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void mm__utc_now(char *out, size_t len) {
    time_t now = time(NULL);
    struct tm tm;
    if (!gmtime_r(&now, &tm) || strftime(out, len, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0) out[0] = '\0';
}

static void mm__loadavg(double v[3]) {
    if (getloadavg(v, 3) != 3) v[0] = v[1] = v[2] = NAN;
}

static double mm__own_cpu_s(void) {
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0) return NAN;
    return (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
           (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
}

/* Removes trailing white space in place. */
static void mm__rstrip(char *s) {
    size_t n = strlen(s);
    while (n && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' ' || s[n - 1] == '\t'))
        s[--n] = '\0';
}

/* Is `word` one of the space-separated words of `list`? */
static int mm__has_word(const char *list, const char *word) {
    size_t n = strlen(word);
    for (const char *p = strstr(list, word); p; p = strstr(p + 1, word)) {
        int starts = p == list || p[-1] == ' ' || p[-1] == '\t';
        int ends = p[n] == '\0' || p[n] == ' ' || p[n] == '\n' || p[n] == '\t';
        if (starts && ends) return 1;
    }
    return 0;
}

/* CPU model and TSC flags from /proc/cpuinfo (first processor). */
static void mm__cpuinfo(mm_provenance *p) {
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[8192];
    int have_model = 0, have_flags = 0;
    while ((!have_model || !have_flags) && fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (!colon) continue;
        char *value = colon + 1;
        while (*value == ' ' || *value == '\t') value++;
        mm__rstrip(value);
        if (!have_model && strncmp(line, "model name", 10) == 0) {
            snprintf(p->cpu_model, sizeof p->cpu_model, "%s", value);
            have_model = 1;
        } else if (!have_flags && strncmp(line, "flags", 5) == 0) {
            static const char *const tsc[] = {"constant_tsc", "nonstop_tsc", "rdtscp"};
            size_t used = 0;
            for (size_t i = 0; i < sizeof tsc / sizeof tsc[0]; i++) {
                if (!mm__has_word(value, tsc[i])) continue;
                int w = snprintf(p->tsc_flags + used, sizeof p->tsc_flags - used, "%s%s",
                                 used ? " " : "", tsc[i]);
                if (w > 0) used += (size_t)w;
            }
            have_flags = 1;
        }
    }
    fclose(f);
}

static void mm__read_first_line(const char *file, char *out, size_t len) {
    out[0] = '\0';
    FILE *f = fopen(file, "r");
    if (!f) return;
    if (!fgets(out, (int)len, f)) out[0] = '\0';
    fclose(f);
    mm__rstrip(out);
}

/* A set of CPUs ("bit c set: CPU c") as "0-1,3"; empty for none. */
static void mm__cpu_list(const unsigned char *bits, int ncpus, char *out, size_t len) {
    out[0] = '\0';
#define MM__HAS(c) ((bits[(c) / 8] >> ((c) % 8)) & 1)
    size_t used = 0;
    for (int c = 0; c < ncpus; c++) {
        if (!MM__HAS(c)) continue;
        int last = c;
        while (last + 1 < ncpus && MM__HAS(last + 1)) last++;
        int w = last > c ? snprintf(out + used, len - used, "%s%d-%d", used ? "," : "", c, last)
                         : snprintf(out + used, len - used, "%s%d", used ? "," : "", c);
        if (w < 0 || (size_t)w >= len - used) { /* does not fit: keep whole items only */
            out[used] = '\0';
            return;
        }
        used += (size_t)w;
        c = last;
    }
#undef MM__HAS
}

/* This process's CPU affinity as "0-1,3"; empty when unknown. */
static void mm__affinity_list(char *out, size_t len) {
    out[0] = '\0';
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0) return;
    unsigned char bits[128] = {0};
    for (int c = 0; c < CPU_SETSIZE && c < 1024; c++)
        if (CPU_ISSET(c, &set)) bits[c / 8] |= (unsigned char)(1u << (c % 8));
    mm__cpu_list(bits, 1024, out, len);
}

void mm_cpu_track_note(mm_cpu_track *t) {
    int c = sched_getcpu();
    if (c < 0 || c >= 1024) return;
    if (t->last >= 0 && c != t->last) t->changes++;
    t->last = c;
    t->seen[c / 8] |= (unsigned char)(1u << (c % 8));
}

/* The current frequency of the CPU this process runs on, in kHz; 0 when unreadable (no cpufreq
 * in this kernel or VM). */
static double mm__cpu_khz(void) {
    int c = sched_getcpu();
    if (c < 0) return 0;
    char path[96], line[64];
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_cur_freq", c);
    mm__read_first_line(path, line, sizeof line);
    return line[0] ? strtod(line, NULL) : 0;
}

/* The library's name as the build folders name it (io/bench_binaries.py); SimGrid's SMPI says
 * "SMPI Version 3.32. Copyright The SimGrid Team ...". */
static void mm__library_kind(const char *version, char *out, size_t len) {
    if (strncmp(version, "SMPI Version", 12) == 0)
        snprintf(out, len, "smpi");
    else if (strstr(version, "Open MPI"))
        snprintf(out, len, "openmpi");
    else if (strstr(version, "MPICH"))
        snprintf(out, len, "mpich");
    else
        snprintf(out, len, "unknown");
}

void mm_provenance_collect(mm_provenance *p, MPI_Comm comm, int read_mpit) {
    memset(p, 0, sizeof *p);
    int rank, nprocs;
    MM_MPI(&p->err, MPI_Comm_rank(comm, &rank));
    MM_MPI(&p->err, MPI_Comm_size(comm, &nprocs));
    p->nprocs = nprocs;
    p->pid = (int)getpid();
    p->mono_start_s = mm__mono_s();
    mm__utc_now(p->wall_start, sizeof p->wall_start);
    mm__loadavg(p->loadavg_start);
    p->busy_cpu_s_start = mm_procstat_busy_s("/proc/stat");
    p->own_cpu_s_start = mm__own_cpu_s();
    p->loadavg_end[0] = p->loadavg_end[1] = p->loadavg_end[2] = NAN;
    p->other_cpu_s = p->own_cpu_s = p->wall_s = NAN;

    char version[MPI_MAX_LIBRARY_VERSION_STRING + 1];
    int vlen = 0;
    MM_MPI(&p->err, MPI_Get_library_version(version, &vlen));
    version[vlen > 0 && vlen <= MPI_MAX_LIBRARY_VERSION_STRING ? vlen : 0] = '\0';
    mm__rstrip(version);
    p->library_version_full = strdup(version);
    mm__library_kind(version, p->mpi_library, sizeof p->mpi_library);
    int major = 0, minor = 0;
    MM_MPI(&p->err, MPI_Get_version(&major, &minor));
    snprintf(p->mpi_version, sizeof p->mpi_version, "MPI %d.%d", major, minor);

    snprintf(p->compiler, sizeof p->compiler, "%s", MM_COMPILER);
    snprintf(p->flags, sizeof p->flags, "%s", MM_COMPILE_FLAGS);
    snprintf(p->mpicc, sizeof p->mpicc, "%s", MM_MPICC);
    snprintf(p->git_revision, sizeof p->git_revision, "%s", MM_GIT_REVISION);

    struct utsname u;
    if (uname(&u) == 0) {
        char kernel[sizeof u.sysname + sizeof u.release + sizeof u.version + sizeof u.machine];
        snprintf(kernel, sizeof kernel, "%s %s %s %s", u.sysname, u.release, u.version,
                 u.machine);
        snprintf(p->kernel, sizeof p->kernel, "%.*s", (int)sizeof p->kernel - 1, kernel);
    }
    mm__cpuinfo(p);
    mm__read_first_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", p->governor,
                        sizeof p->governor);
    long ncpus = sysconf(_SC_NPROCESSORS_ONLN);
    p->ncpus = ncpus > 0 ? (int)ncpus : 0;

    mm_rank_info mine;
    memset(&mine, 0, sizeof mine);
    if (gethostname(mine.host, sizeof mine.host - 1) != 0)
        snprintf(mine.host, sizeof mine.host, "?");
    mine.pid = p->pid;
    mm__affinity_list(mine.cpus, sizeof mine.cpus);
    p->cpu.last = -1;
    mm_cpu_track_note(&p->cpu);
    p->khz_start = mm__cpu_khz();
    if (rank == 0) p->ranks = calloc((size_t)nprocs, sizeof *p->ranks);
    /* out of memory for the rank table: every rank skips the gather, and the launch fails on
     * the error recorded here (never a gather into NULL) */
    if (!mm_all_ok(comm, rank != 0 || p->ranks)) {
        p->nomem = 1;
    } else {
        MM_MPI(&p->err, MPI_Gather(&mine, (int)sizeof mine, MPI_BYTE, p->ranks, (int)sizeof mine,
                                   MPI_BYTE, 0, comm));
    }
    if (rank == 0) {
        mm_environment_json(&p->environment_json, environ);
        /* the MPI_T session costs ~0.2 s with Open MPI 4.1 (it opens every component of every
         * framework): a campaign reads it in its first launch only (--mpit-from) */
        if (read_mpit) mm_mpit_collect(&p->mpit);
    }
}

void mm_provenance_finish(mm_provenance *p, MPI_Comm comm) {
    int rank;
    MM_MPI(&p->err, MPI_Comm_rank(comm, &rank));
    /* Which ranks share rank 0's machine: their CPU time is inside its /proc/stat. */
    char host0[256] = {0}, host[256] = {0};
    if (gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
    if (rank == 0) memcpy(host0, host, sizeof host0);
    MM_MPI(&p->err, MPI_Bcast(host0, (int)sizeof host0, MPI_CHAR, 0, comm));
    double own = mm__own_cpu_s() - p->own_cpu_s_start;
    double mine[2] = {own, strcmp(host, host0) == 0 ? own : 0.0}, sum[2] = {0, 0};
    MM_MPI(&p->err, MPI_Reduce(mine, sum, 2, MPI_DOUBLE, MPI_SUM, 0, comm));
    /* every rank's CPUs seen and frequency, into rank 0's table */
    mm_cpu_track_note(&p->cpu);
    mm_rank_info me;
    memset(&me, 0, sizeof me);
    mm__cpu_list(p->cpu.seen, 1024, me.cpus_seen, sizeof me.cpus_seen);
    me.cpu_changes = p->cpu.changes;
    me.khz_start = p->khz_start;
    me.khz_end = mm__cpu_khz();
    mm_rank_info *all = rank == 0 ? calloc((size_t)p->nprocs, sizeof *all) : NULL;
    int ok = mm_all_ok(comm, rank != 0 || all);
    if (ok && MM_MPI(&p->err, MPI_Gather(&me, (int)sizeof me, MPI_BYTE, all, (int)sizeof me,
                                         MPI_BYTE, 0, comm)) == MPI_SUCCESS && rank == 0 && p->ranks) {
        for (int r = 0; r < p->nprocs; r++) {
            memcpy(p->ranks[r].cpus_seen, all[r].cpus_seen, sizeof all[r].cpus_seen);
            p->ranks[r].cpu_changes = all[r].cpu_changes;
            p->ranks[r].khz_start = all[r].khz_start;
            p->ranks[r].khz_end = all[r].khz_end;
        }
    }
    free(all);
    if (rank != 0) return;
    mm__loadavg(p->loadavg_end);
    p->wall_s = mm__mono_s() - p->mono_start_s;
    p->own_cpu_s = sum[0];
    double busy = mm_procstat_busy_s("/proc/stat") - p->busy_cpu_s_start; /* NaN when unknown */
#ifdef MM_SIMGRID
    /* Under SimGrid's SMPI the wall time is simulated: this machine's CPU time over it measures
     * nothing of the simulated cluster (all its ranks are the one simulator process). Unknown. */
    busy = NAN;
#endif
    double other = busy - sum[1];
    p->other_cpu_s = other > 0 ? other : (isnan(other) ? NAN : 0.0);
    mm__utc_now(p->wall_end, sizeof p->wall_end);
}

void mm_provenance_free(mm_provenance *p) {
    free(p->library_version_full);
    free(p->ranks);
    free(p->probes);
    p->probes = NULL;
    mm_buf_free(&p->environment_json);
    mm_buf_free(&p->mpit.selected);
    p->library_version_full = NULL;
    p->ranks = NULL;
}
