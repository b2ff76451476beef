/* SPDX-License-Identifier: BSD-3-Clause */
/* parse_internal.h — what parse.c (the parser), its checkers (parse_*.c) and the option table
 * (options.c, whose rows name the setters) share. Internal to c/src/app/. */
#ifndef MM_PARSE_INTERNAL_H
#define MM_PARSE_INTERNAL_H
#include <stddef.h>

#include "mm_config.h"

#include "mm_error.h"
#include "mm_ops.h"

/* --nrep N or auto[:RULE]: the rule, or the number (through the option table). 0 or MM_E_INPUT. */
mm_status mm__config_parse_nrep(const mm_option_spec *o, const char *value, mm_config *cfg, char *err,
                                size_t len);
/* --sizes auto:MIN:MAX[:xFACTOR]: the initial grid into cfg->sizes and the bounds. 0 or MM_E_INPUT. */
mm_status mm__config_parse_sizes_auto(const char *value, mm_config *cfg, char *err, size_t len);
/* The one-sided ops' options against --ops, --sizes and --datatype (parse_rma.c), and
 * cfg->rma.used: 0 or MM_E_INPUT. */
mm_status mm__config_check_rma(mm_config *cfg, int type_size, char *err, size_t len);
/* --cart-dims auto or D1,D2,...: into cfg->topo.cart_dims (0 or MM_E_INPUT); and, with the
 * number of ranks, whether the topology holds them (0 or MM_E_INPUT). parse_rma.c. */
mm_status mm__parse_cart_dims(const mm_option_spec *o, const char *value, mm_config *cfg, char *err, size_t len);
mm_status mm__config_check_cart(const mm_config *cfg, int nprocs, char *err, size_t len);
/* --graph-file: the file read into cfg->topo.graph_text and checked to be a graph (cfg->topo.graph); and,
 * with a communicator's number of ranks, whether the graph holds them. 0 or MM_E_INPUT. parse_graph.c. */
mm_status mm__config_read_graph(mm_config *cfg, char *err, size_t len);
mm_status mm__config_check_graph(const mm_config *cfg, int nprocs, char *err, size_t len);
/* After all options: the rule's options only with --nrep auto (and --nrep-confidence only with
 * ci), --nrep-min at most --nrep-max, then nrep = --nrep-max; --sizes-* only with --sizes auto,
 * an operation that takes a size, and room in the plan. `seen`/`given`: per option of the table,
 * whether and with which value it was given. 0 or MM_E_INPUT. */
mm_status mm__config_check_adaptive(mm_config *cfg, const char *seen, const char *const *given, char *err,
                                    size_t len);

/* --batch and --nprocs against --procsync, --ops and the other options (parse_space.c): 0 or
 * MM_E_INPUT. */
mm_status mm__config_check_space(const mm_config *cfg, char *err, size_t len);

/* parse_validate.c: the checks that need the registries, once after every option was read */
mm_status mm__config_validate(mm_config *cfg, int seen_clocksync, char *err, size_t len);
/* ... and the two that need to know which options were given (seen: one count per table row) */
mm_status mm__config_check_modes(const mm_config *cfg, const char *seen, char *err, size_t len);
/* No --out (quick.c): cfg->output.quick, and ascending order and no copy probe unless given; --force
 * without --out refused. 0, or MM_E_INPUT with a message. */
mm_status mm__config_quick_defaults(mm_config *cfg, const char *seen, const mm_option_spec *table,
                                    char *err, size_t len);
mm_status mm__config_check_scoped_options(const mm_config *cfg, const char *seen, char *err, size_t len);
/* Is `option` (its name without "--") one that shapes only some operations' tests? 1 or 0. */
int mm_option_op_scoped(const char *option);
/* Does the op-scoped option shape op's tests? 1 or 0 (0 for an option that is not op-scoped). */
int mm_option_applies_to_op(const char *option, const mm_op *op);
/* The clock sync's and the start methods' options refused where the launch runs neither (after
 * mm__config_validate resolved --clocksync auto): 0 or MM_E_INPUT. */
mm_status mm__config_check_method_options(const mm_config *cfg, const char *seen, char *err, size_t len);
/* --list-algorithms --ops LIST: every name an operation of the registry (0 or MM_E_INPUT). */
mm_status mm__config_check_op_names(const mm_config *cfg, char *err, size_t len);
/* --root and --nprocs against the launch's number of ranks (parse_space.c): 0 or MM_E_INPUT. */
mm_status mm__config_check_space_nprocs(const mm_config *cfg, int nprocs, char *err, size_t len);

/* ---- the setters of the option table's rows (options.c) beyond the generic ones ---- */
/* each returns 0 or MM_E_INPUT */
#define MM__SETTER(fn) int fn(const mm_option_spec *o, const char *value, mm_config *cfg, char *err, size_t len)
MM__SETTER(mm__set_mode_sync_check);
MM__SETTER(mm__set_mode_list_ops);
MM__SETTER(mm__set_mode_describe);
MM__SETTER(mm__set_mode_list_pvars);
MM__SETTER(mm__set_mode_list_algorithms);
MM__SETTER(mm__set_mode_help);
MM__SETTER(mm__set_mode_version);
MM__SETTER(mm__set_ops);
MM__SETTER(mm__set_clocksync);
MM__SETTER(mm__set_sizes);
MM__SETTER(mm__set_seed);
MM__SETTER(mm__set_window_us);
MM__SETTER(mm__set_resync_s);
MM__SETTER(mm__set_rma_sync); /* parse_rma.c */
MM__SETTER(mm__set_progress);
MM__SETTER(mm__set_quiet);
MM__SETTER(mm__set_mpit_pvars);
MM__SETTER(mm__set_papi);
MM__SETTER(mm__set_likwid);
MM__SETTER(mm__set_check_at); /* parse.c */
MM__SETTER(mm__set_inject_fault); /* parse_setters.c */
MM__SETTER(mm__set_pair);     /* parse.c */
#undef MM__SETTER

/* Splits text at commas into at most max names; empty items refused (parse_setters.c). */
mm_status mm__split_names(const char *opt, const char *text, char (*names)[MM_NAME_LEN], int max, int *n,
                          char *err, size_t len);

#endif
