# SPDX-License-Identifier: BSD-3-Clause
# An mpimeter campaign as a ReFrame performance check (mpimeter.reframe_checks).
#
#   reframe -C examples/reframe/settings.py -c examples/reframe/mpimeter_check.py -r
#
# Each performance variable is the median of the launch medians of one (op, size) in µs; the
# check fails when it lies outside its reference ± tolerance (a fixed fraction, ReFrame's
# convention). The log gives the measurement's 95 % interval beside each value.
import reframe as rfm

from mpimeter.reframe_checks import MpimeterCampaign


@rfm.simple_test
class AllreduceLatency(MpimeterCampaign):
    descr = 'MPI_Allreduce at 8 B and 1 KiB on 2 ranks, Open MPI, 10 launches'
    ops = 'allreduce'
    sizes = '8,1024'
    np = 2
    launches = 10
    nrep = 300
    mpi = 'openmpi'
    # references from a baseline campaign (mpimeter analyze BASELINE --format json: median_ns / 1000)
    references_us = {'allreduce_8': 0.6, 'allreduce_1024': 1.0}
    tolerance = 0.10  # ±10 % of each reference
