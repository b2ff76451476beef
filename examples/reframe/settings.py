# SPDX-License-Identifier: BSD-3-Clause
# ReFrame configuration for mpimeter's checks on one machine (ReFrame's local scheduler).
#
#   reframe -C examples/reframe/settings.py -c examples/reframe/mpimeter_check.py -r
#
# On a cluster, add a partition with your scheduler (e.g. 'scheduler': 'slurm',
# 'access': ['-p batch']) and run the check with launcher='srun' (mpimeter then starts each
# launch with srun inside the job's allocation); the check sets ReFrame's own launcher to
# 'local' because mpimeter starts the ranks itself.
site_configuration = {
    'systems': [
        {
            'name': 'local',
            'descr': 'this machine',
            'hostnames': ['.*'],
            'partitions': [
                {
                    'name': 'default',
                    'scheduler': 'local',
                    'launcher': 'local',
                    'environs': ['builtin'],  # ReFrame's own environment, not redefined here
                    'max_jobs': 1,  # one campaign at a time: they would disturb each other's timings
                },
            ],
        },
    ],
}
