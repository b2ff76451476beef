/* SPDX-License-Identifier: BSD-3-Clause */
/* likwid.h (a stand-in) — the part of LIKWID's API that c/src/counters/src_likwid.c calls,
 * declared as LIKWID 5.2 declares it, so that test_likwid.c can compile that source against
 * its own definitions (a marker region that counts what the test says) on any machine: with or
 * without LIKWID installed, with or without hardware counters. */
#ifndef MM_FAKE_LIKWID_H
#define MM_FAKE_LIKWID_H

void likwid_markerInit(void);
void likwid_markerThreadInit(void);
void likwid_markerClose(void);
int likwid_markerRegisterRegion(const char *regionTag);
int likwid_markerStartRegion(const char *regionTag);
int likwid_markerStopRegion(const char *regionTag);
void likwid_markerGetRegion(const char *regionTag, int *nr_events, double *events, double *time,
                            int *count);
int perfmon_getIdOfActiveGroup(void);
int perfmon_getNumberOfEvents(int groupId);
char *perfmon_getEventName(int groupId, int eventId);
char *perfmon_getCounterName(int groupId, int eventId);

#endif
