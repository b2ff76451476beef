# SPDX-License-Identifier: BSD-3-Clause
"""The relative error above which a cost model misses a size whatever its intervals say (used by
``mpimeter.stats.costmodel`` and ``scalingmodel``). Apart from them, which load numpy and scipy,
so that `mpimeter model --help` shows it as a default without loading either."""

ERROR_THRESHOLD = 0.2  # |model − median| / median
