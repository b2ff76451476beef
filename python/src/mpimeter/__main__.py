# SPDX-License-Identifier: BSD-3-Clause
from mpimeter.cli import main

main()
