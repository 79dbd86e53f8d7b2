/* shrink.h — LIBSVM's shrinking (-h 1) for one large problem (two-class C-SVC, one-class,
 * epsilon-SVR): after a stage of rounds the rows that cannot be part of a violating pair are left
 * out, and the rest are clustered and laid out anew, so later rounds compute kernel rows and
 * gradients over fewer rows. Every row's exact gradient is computed at the end and the usual
 * certification decides (gs_run_certify): a row left out that violates makes it resume on every
 * row, so the answer is eps-optimal as without shrinking, though not the same bits. */
#ifndef GS_SHRINK_H
#define GS_SHRINK_H

#include <stdint.h>

#include "api/param.h"
#include "io/data.h"
#include "train/run.h"

/* Whether gs_shrink_certified is used for a problem of l rows: C-SVC (the trainer asks only for a lone
 * two-class problem), one-class or epsilon-SVR (not the nu rule's types), -h 1, at least
 * tuning.shrink_min rows, and not -t 4 (whose rows name their columns by serial number). */
int gs_shrink_wanted(const gs_param *param, int32_t l);

/* Solves and certifies item (one problem over all of cl's rows, which are rows's rows in order,
 * signs ysign; its variables one per row, or two for epsilon-SVR) as gs_run_certified does, from
 * its start in stages whose rounds stop once the gap is below 1000, 100 and 10 times eps and then
 * eps (the subproblems always solving for eps: a stage is the same descent, cut); after each of the
 * first three, LIBSVM's rule leaves out every row whose variables are all at a bound with -y G
 * beyond the other side's extreme (a stage that would keep more than three quarters of its rows
 * goes on over the same ones). Then every variable's exact gradient (gs_run_start_gradients) and
 * the certification over every row (gs_run_certify); item->res counts every stage and resume.
 * @return GS_OK or the solver's error */
gs_status gs_shrink_certified(gs_run_pool *p, const gs_param *param, const gs_problem *rows,
                              const struct gs_clustered *cl, const int8_t *ysign, gs_run_item *item, int alone,
                              const gs_log *log, gs_train_stats *stats);

#endif
