/* SPDX-License-Identifier: BSD-3-Clause */
/* pvar.c — one MPI_T performance variable (MPI-3.1 §14.3.7): what the library says of it, whether
 * mpimeter can read it, a trial read in a probe process, and the sum of its elements.
 *
 * What: the library describes each variable (name, class, datatype, binding, continuous); mpimeter
 *   reads numeric ones bound to nothing or to its communicator, summing a per-peer array into one
 *   value. Whether a variable can really be read is decided by trying: a session, a handle, a
 *   start when it is not continuous, a read — in a child process, because some variables crash
 *   the library when their component is not in use (Open MPI 4.1.4: allocating a handle of
 *   mtl_psm2_* without PSM2 dereferences a null module). The child ends with the crash; the launch
 *   learns which variable it was and goes on without it.
 * Why: `--mpit-pvars all` must never take a launch down, and a named variable that cannot be read
 *   is bad input (exit 2, nothing written), not a crash in the middle of a measurement.
 * Cost: one fork per variable that crashes, plus one; a trial is a few MPI_T calls. Before the
 *   tests, never during them. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "counters_internal.h"
#include "mm_error.h"

#ifdef MM_SIMGRID
/* SimGrid's SMPI (3.32) has no MPI_T interface: no variable exists. */
mm_status mm_pvar_init(void) { return MM_E_FAILED; }
void mm_pvar_finalize(void) {}
int mm_pvar_count(void) { return 0; }
mm_status mm_pvar_describe(int index, mm_pvar_desc *d) { (void)index; (void)d; return MM_E_FAILED; }
mm_status mm_pvar_find(const char *name, mm_pvar_desc *d) { (void)name; (void)d; return MM_E_FAILED; }
const char *mm_pvar_class_word(int klass) { (void)klass; return "?"; }
const char *mm_pvar_bind_word(int bind) { (void)bind; return "?"; }
int mm_pvar_type(MPI_Datatype dt, size_t *width, int *is_double, const char **word) {
    (void)dt; (void)width; (void)is_double; (void)word;
    return 0;
}
int mm_pvar_why_not(const mm_pvar_desc *d, char *why, size_t len) {
    (void)d;
    snprintf(why, len, "this build (SimGrid SMPI) has no MPI_T interface");
    return 1;
}
mm_counter_value mm_pvar_sum(const void *buf, int count, MPI_Datatype dt) {
    (void)buf; (void)count; (void)dt;
    mm_counter_value v = {0};
    return v;
}
void mm_pvar_probe(const mm_pvar_desc *d, int n, MPI_Comm comm, int *ok, int *elements,
                   char (*why)[MM_PVAR_WHY_LEN]) {
    (void)d; (void)comm;
    for (int i = 0; i < n; i++) {
        ok[i] = 0;
        elements[i] = 0;
        snprintf(why[i], MM_PVAR_WHY_LEN, "no MPI_T in this build");
    }
}
const char *mm_pvar_error_word(int rc, char *buf, size_t len) {
    snprintf(buf, len, "error %d", rc);
    return buf;
}
#else

mm_status mm_pvar_init(void) {
    int provided = 0;
    return MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS ? 0 : MM_E_FAILED;
}

/* MPI_T stays initialized until the process ends (MPI_Finalize tears it down): MPICH 4.0.2
 * crashes in MPI_T_cvar_get_num when MPI_T is initialized again after a finalize brought its
 * count to zero, which the launch's provenance (output/mpit.c) then does. Sessions and handles
 * are freed as usual; an unbalanced MPI_T_init_thread only keeps the interface's tables. */
void mm_pvar_finalize(void) {}

int mm_pvar_count(void) {
    int n = 0;
    return MPI_T_pvar_get_num(&n) == MPI_SUCCESS && n > 0 ? n : 0;
}

mm_status mm_pvar_describe(int index, mm_pvar_desc *d) {
    memset(d, 0, sizeof *d);
    int name_len = (int)sizeof d->name, desc_len = (int)sizeof d->description;
    int verbosity = 0, atomic = 0;
    MPI_T_enum et;
    if (MPI_T_pvar_get_info(index, d->name, &name_len, &verbosity, &d->klass, &d->dt, &et,
                            d->description, &desc_len, &d->bind, &d->readonly, &d->continuous,
                            &atomic) != MPI_SUCCESS)
        return MM_E_FAILED;
    d->index = index;
    d->name[sizeof d->name - 1] = '\0';
    d->description[sizeof d->description - 1] = '\0';
    /* one line: descriptions are shown in tables and messages */
    for (char *p = d->description; *p; p++)
        if (*p == '\n' || *p == '\r' || *p == '\t') *p = ' ';
    return d->name[0] ? 0 : MM_E_FAILED;
}

mm_status mm_pvar_find(const char *name, mm_pvar_desc *d) {
    int n = mm_pvar_count();
    for (int i = 0; i < n; i++)
        if (mm_pvar_describe(i, d) == 0 && strcmp(d->name, name) == 0) return 0;
    return MM_E_FAILED;
}

const char *mm_pvar_class_word(int klass) {
    static const struct {
        int klass;
        const char *word;
    } words[] = {
        {MPI_T_PVAR_CLASS_STATE, "state"},       {MPI_T_PVAR_CLASS_LEVEL, "level"},
        {MPI_T_PVAR_CLASS_SIZE, "size"},         {MPI_T_PVAR_CLASS_PERCENTAGE, "percentage"},
        {MPI_T_PVAR_CLASS_HIGHWATERMARK, "highwatermark"},
        {MPI_T_PVAR_CLASS_LOWWATERMARK, "lowwatermark"},
        {MPI_T_PVAR_CLASS_COUNTER, "counter"},   {MPI_T_PVAR_CLASS_AGGREGATE, "aggregate"},
        {MPI_T_PVAR_CLASS_TIMER, "timer"},       {MPI_T_PVAR_CLASS_GENERIC, "generic"},
    };
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (words[i].klass == klass) return words[i].word;
    return "unknown";
}

const char *mm_pvar_bind_word(int bind) {
    static const struct {
        int bind;
        const char *word;
    } words[] = {
        {MPI_T_BIND_NO_OBJECT, "none"},       {MPI_T_BIND_MPI_COMM, "communicator"},
        {MPI_T_BIND_MPI_DATATYPE, "datatype"}, {MPI_T_BIND_MPI_ERRHANDLER, "errhandler"},
        {MPI_T_BIND_MPI_FILE, "file"},         {MPI_T_BIND_MPI_GROUP, "group"},
        {MPI_T_BIND_MPI_OP, "op"},             {MPI_T_BIND_MPI_REQUEST, "request"},
        {MPI_T_BIND_MPI_WIN, "window"},        {MPI_T_BIND_MPI_MESSAGE, "message"},
        {MPI_T_BIND_MPI_INFO, "info"},
    };
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (words[i].bind == bind) return words[i].word;
    return "unknown";
}

int mm_pvar_type(MPI_Datatype dt, size_t *width, int *is_double, const char **word) {
    /* a chain of comparisons: predefined handles are not constant expressions in every library */
    size_t w = 0;
    int d = 0;
    const char *name = NULL;
    if (dt == MPI_INT) w = sizeof(int), name = "int";
    else if (dt == MPI_UNSIGNED) w = sizeof(unsigned), name = "unsigned";
    else if (dt == MPI_LONG) w = sizeof(long), name = "long";
    else if (dt == MPI_UNSIGNED_LONG) w = sizeof(unsigned long), name = "unsigned long";
    else if (dt == MPI_LONG_LONG) w = sizeof(long long), name = "long long";
    else if (dt == MPI_UNSIGNED_LONG_LONG) w = sizeof(unsigned long long), name = "unsigned long long";
    else if (dt == MPI_COUNT) w = sizeof(MPI_Count), name = "count";
    else if (dt == MPI_DOUBLE) w = sizeof(double), d = 1, name = "double";
    if (!name) return 0;
    if (width) *width = w;
    if (is_double) *is_double = d;
    if (word) *word = name;
    return 1;
}

int mm_pvar_why_not(const mm_pvar_desc *d, char *why, size_t len) {
    if (!mm_pvar_type(d->dt, NULL, NULL, NULL)) {
        snprintf(why, len, "its datatype is %s, not a number", d->dt == MPI_CHAR ? "char (text)" : "not numeric");
        return 1;
    }
    if (d->bind != MPI_T_BIND_NO_OBJECT && d->bind != MPI_T_BIND_MPI_COMM) {
        snprintf(why, len, "it is bound to an MPI %s; mpimeter binds variables to nothing or to "
                 "its communicator only", mm_pvar_bind_word(d->bind));
        return 1;
    }
    return 0;
}

mm_counter_value mm_pvar_sum(const void *buf, int count, MPI_Datatype dt) {
    mm_counter_value v = {0};
    uint64_t u = 0; /* unsigned sums wrap like the counters they add up */
    int64_t s = 0;
    double f = 0.0;
    for (int i = 0; i < count; i++) {
        if (dt == MPI_INT) s += ((const int *)buf)[i];
        else if (dt == MPI_UNSIGNED) u += ((const unsigned *)buf)[i];
        else if (dt == MPI_LONG) s += ((const long *)buf)[i];
        else if (dt == MPI_UNSIGNED_LONG) u += ((const unsigned long *)buf)[i];
        else if (dt == MPI_LONG_LONG) s += ((const long long *)buf)[i];
        else if (dt == MPI_UNSIGNED_LONG_LONG) u += ((const unsigned long long *)buf)[i];
        else if (dt == MPI_COUNT) s += (int64_t)((const MPI_Count *)buf)[i];
        else if (dt == MPI_DOUBLE) f += ((const double *)buf)[i];
    }
    if (dt == MPI_DOUBLE)
        v.d = f;
    else
        v.i = (int64_t)(u + (uint64_t)s);
    return v;
}

const char *mm_pvar_error_word(int rc, char *buf, size_t len) {
    static const struct {
        int rc;
        const char *word;
    } words[] = {
        {MPI_T_ERR_NOT_INITIALIZED, "MPI_T_ERR_NOT_INITIALIZED"},
        {MPI_T_ERR_INVALID_INDEX, "MPI_T_ERR_INVALID_INDEX"},
        {MPI_T_ERR_INVALID_HANDLE, "MPI_T_ERR_INVALID_HANDLE"},
        {MPI_T_ERR_OUT_OF_HANDLES, "MPI_T_ERR_OUT_OF_HANDLES"},
        {MPI_T_ERR_OUT_OF_SESSIONS, "MPI_T_ERR_OUT_OF_SESSIONS"},
        {MPI_T_ERR_INVALID_SESSION, "MPI_T_ERR_INVALID_SESSION"},
        {MPI_T_ERR_PVAR_NO_STARTSTOP, "MPI_T_ERR_PVAR_NO_STARTSTOP"},
        {MPI_T_ERR_PVAR_NO_ATOMIC, "MPI_T_ERR_PVAR_NO_ATOMIC"},
        {MPI_T_ERR_INVALID, "MPI_T_ERR_INVALID"},
    };
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (words[i].rc == rc) return words[i].word;
    snprintf(buf, len, "error %d", rc);
    return buf;
}

/* The trial: session, handle (bound to comm when the variable is), start, read, stop, free. */
static mm_status mm__try(const mm_pvar_desc *d, MPI_Comm comm, int *elements, char *why, size_t len) {
    char word[32];
    MPI_T_pvar_session s;
    int rc = MPI_T_pvar_session_create(&s);
    if (rc != MPI_SUCCESS) {
        snprintf(why, len, "MPI_T_pvar_session_create failed (%s)", mm_pvar_error_word(rc, word, sizeof word));
        return MM_E_FAILED;
    }
    MPI_Comm c = comm;
    MPI_T_pvar_handle h;
    int count = 0;
    mm_status result = MM_E_FAILED;
    size_t width = 0;
    mm_pvar_type(d->dt, &width, NULL, NULL);
    rc = MPI_T_pvar_handle_alloc(s, d->index, d->bind == MPI_T_BIND_MPI_COMM ? (void *)&c : NULL,
                                 &h, &count);
    *elements = rc == MPI_SUCCESS ? count : 0;
    if (rc != MPI_SUCCESS) {
        snprintf(why, len, "MPI_T_pvar_handle_alloc failed (%s)", mm_pvar_error_word(rc, word, sizeof word));
    } else if (count < 1 || count > MM_PVAR_MAX_ELEMENTS) {
        snprintf(why, len, "a read returns %d values (mpimeter reads 1 to %d)", count, MM_PVAR_MAX_ELEMENTS);
        MPI_T_pvar_handle_free(s, &h);
    } else {
        void *buf = calloc((size_t)count, width);
        rc = d->continuous ? MPI_SUCCESS : MPI_T_pvar_start(s, h);
        if (!buf)
            snprintf(why, len, "out of memory");
        else if (rc != MPI_SUCCESS)
            snprintf(why, len, "MPI_T_pvar_start failed (%s)", mm_pvar_error_word(rc, word, sizeof word));
        else if ((rc = MPI_T_pvar_read(s, h, buf)) != MPI_SUCCESS)
            snprintf(why, len, "MPI_T_pvar_read failed (%s)", mm_pvar_error_word(rc, word, sizeof word));
        else
            result = MM_OK;
        if (!d->continuous) MPI_T_pvar_stop(s, h);
        free(buf);
        MPI_T_pvar_handle_free(s, &h);
    }
    MPI_T_pvar_session_free(&s);
    return result;
}

/* What the probe process reports: a trial started, or its result (one write each, smaller than
 * PIPE_BUF, so that it arrives whole). */
typedef struct mm__probe_msg {
    int k;
    int done; /* 0: trial k started; 1: trial k finished */
    int ok;
    int elements; /* values one read returns */
    char why[MM_PVAR_WHY_LEN];
} mm__probe_msg;

enum { MM__PROBE_TIMEOUT_MS = 10000 };

static void mm__probe_child(int fd, const mm_pvar_desc *d, int from, int n, MPI_Comm comm) {
    /* die quietly with the signal: the library's own handlers would print a backtrace */
    static const int sigs[] = {SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) signal(sigs[i], SIG_DFL);
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    for (int k = from; k < n; k++) {
        mm__probe_msg m;
        memset(&m, 0, sizeof m);
        m.k = k;
        if (write(fd, &m, sizeof m) != (ssize_t)sizeof m) _exit(3);
        m.done = 1;
        m.ok = mm__try(&d[k], comm, &m.elements, m.why, sizeof m.why) == 0;
        if (write(fd, &m, sizeof m) != (ssize_t)sizeof m) _exit(3);
    }
    _exit(0);
}

/* One probe process from trial `from` on; returns the next trial to start from (n: all done). */
static int mm__probe_from(const mm_pvar_desc *d, int from, int n, MPI_Comm comm, int *ok,
                          int *elements, char (*why)[MM_PVAR_WHY_LEN]) {
    int fds[2];
    if (pipe(fds) != 0) {
        for (int k = from; k < n; k++) {
            ok[k] = 0;
            snprintf(why[k], MM_PVAR_WHY_LEN, "no probe process (pipe: %s)", strerror(errno));
        }
        return n;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        for (int k = from; k < n; k++) {
            ok[k] = 0;
            snprintf(why[k], MM_PVAR_WHY_LEN, "no probe process (fork: %s)", strerror(errno));
        }
        return n;
    }
    if (pid == 0) {
        close(fds[0]);
        mm__probe_child(fds[1], d, from, n, comm);
    }
    close(fds[1]);
    int current = -1, next = from, timed_out = 0;
    for (;;) {
        struct pollfd p = {fds[0], POLLIN, 0};
        int r = poll(&p, 1, MM__PROBE_TIMEOUT_MS);
        if (r < 0 && errno == EINTR) continue;
        if (r == 0) {
            timed_out = 1;
            kill(pid, SIGKILL);
            break;
        }
        mm__probe_msg m;
        ssize_t got = read(fds[0], &m, sizeof m);
        if (got < 0 && errno == EINTR) continue;
        if (got != (ssize_t)sizeof m || m.k < from || m.k >= n) break; /* end of the child */
        if (!m.done) {
            current = m.k;
            continue;
        }
        ok[m.k] = m.ok;
        elements[m.k] = m.elements;
        m.why[MM_PVAR_WHY_LEN - 1] = '\0';
        snprintf(why[m.k], MM_PVAR_WHY_LEN, "%s", m.ok ? "" : m.why);
        current = -1;
        next = m.k + 1;
    }
    close(fds[0]);
    int status = 0;
    pid_t waited;
    while ((waited = waitpid(pid, &status, 0)) < 0 && errno == EINTR) {
    }
    int k = current >= 0 ? current : next;
    if (k >= n) return n;
    ok[k] = 0;
    if (timed_out)
        snprintf(why[k], MM_PVAR_WHY_LEN, "a trial read did not return within %d s",
                 MM__PROBE_TIMEOUT_MS / 1000);
    else if (waited == pid && WIFSIGNALED(status))
        snprintf(why[k], MM_PVAR_WHY_LEN, "a trial read crashed the library (signal %d in a probe "
                 "process)", WTERMSIG(status));
    else
        snprintf(why[k], MM_PVAR_WHY_LEN, "the probe process ended during a trial read");
    return k + 1;
}

void mm_pvar_probe(const mm_pvar_desc *d, int n, MPI_Comm comm, int *ok, int *elements,
                   char (*why)[MM_PVAR_WHY_LEN]) {
    for (int k = 0; k < n; k++) elements[k] = 0;
    for (int from = 0; from < n;) from = mm__probe_from(d, from, n, comm, ok, elements, why);
}

#endif
