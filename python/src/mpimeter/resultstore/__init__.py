# SPDX-License-Identifier: BSD-3-Clause
"""The results store: one DuckDB file, chosen by the user, that holds campaigns from many
machines, MPI libraries and dates side by side (SKaMPI's result database, Reussner et al. 1998
§2, §5) — not to be confused with a campaign's own ``campaign.duckdb`` cache
(``mpimeter.io.store``), which one campaign rewrites on every read.

- ``schema``: the file, its tables and version; opening only what is a store;
- ``identity``: what identifies a campaign (its id) and the machine it ran on;
- ``ingest``: a campaign → its rows, added in one transaction (``mpimeter store add``);
- ``queries``: the list of campaigns and read-only SQL (``mpimeter store list|query``).

The site made from a store is ``mpimeter.site``.
"""
