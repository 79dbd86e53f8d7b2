/* rowsplit.h — the host's arithmetic of one problem split by rows over several devices (solver.c,
 * gs_solver_batch_rows): which device owns which chunks of the problem's positions, and how the
 * devices' picks merge into the working-set picks a single device makes. */
#ifndef GS_ROWSPLIT_H
#define GS_ROWSPLIT_H

#include <stdint.h>

/* Deals nch chunks (weights w[0..nch), the work each carries) to nd <= nch devices in order:
 * device d owns chunks [ch[d], ch[d+1]), ch[0] = 0, ch[nd] = nch, every device at least one, each
 * boundary the first chunk where the running weight would pass d / nd of the total. */
void gs_rowsplit_deal(const double *w, int nch, int nd, int *ch);

/* Words of one device's picks: its selection state (8: list L's count at [4L + 3]), its picks'
 * positions (2q: list 0 from 0, list 1 from q, each ascending) and their keys (2q, alike). */
#define GS_ROWSPLIT_PICK_WORDS(q) (8 + 4 * (size_t)(q))

/* Merges nd devices' picks (picks[d]: device d's GS_ROWSPLIT_PICK_WORDS(q) words, each device's
 * lists the largest keys of its own positions, ties to the smaller position; device d's positions
 * all below device d + 1's, as gs_rowsplit_deal deals them) into one device's:
 * per list L the want[L] largest keys of all (fewer when fewer are picked), ties to the smaller
 * position, in ascending position order, into mcand (list 1 from q) with the counts at mstate[3]
 * and mstate[7] (the other words 0). Each device's picks include its share of the overall
 * largest, so these are the picks one device makes over every position. scratch: nd q words. */
void gs_rowsplit_merge(const uint32_t *const *picks, int nd, int q, const int want[2], uint32_t mstate[8],
                       int32_t *mcand, uint64_t *scratch);

#endif
