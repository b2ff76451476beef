# SPDX-License-Identifier: BSD-3-Clause
"""The static site of a results store (``mpimeter site -o DIR``): browsable without a server or
network — an index by machine × library × operation, a page per operation comparing every
machine and library, a page per campaign with its report, and the history of each series with
the campaigns the gate would have failed marked (SKaMPI's web database of results, Reussner et
al. 1998 §2; airspeed-velocity's benchmark history).

- ``data``: what the site shows, read from the store (untrusted: escaped, hashed file names);
- ``history``: each series' campaigns gated against the one before;
- ``pages``: the HTML of each page and the folder layout;
- ``build``: the output folder's rules and the swap that leaves it whole.
"""
