/* scale.h — svm-scale's passes over a data file (compat §5), with its output byte for byte: a scan
 * (svm-scale's passes 1 and 2: indices, labels, per-feature min and max), the range file applied
 * or made (pass 2.5), and the scaled text (pass 3). The data file is plain or gzip; it is read
 * twice, so standard input and other unseekable inputs are copied to a temporary file while the
 * scan reads them.
 *
 * Use: gs_scaler_open; gs_scaler_scan; look at gs_scaler_summary (warnings and svm-scale's
 * errors are the caller's to print); gs_scaler_restore or gs_scaler_ranges + gs_range_write; then
 * gs_scaler_write; gs_scaler_close. Nothing here prints. */
#ifndef GS_SCALE_H
#define GS_SCALE_H

#include <stdint.h>
#include <stdio.h>

#include "io/range.h"
#include "util/status.h"

/* The scaling asked for: svm-scale's -l -u -y (a restored range file replaces them). */
typedef struct gs_scale_param {
    double lower, upper;     /* feature target interval, svm-scale's default -1, 1 */
    int y_scaling;           /* scale the labels too */
    double y_lower, y_upper; /* label target interval (with y_scaling) */
} gs_scale_param;

/* What the scan found, as svm-scale's passes 1 and 2 see the file. */
typedef struct gs_scale_summary {
    int64_t lines;          /* lines read */
    int32_t max_index;      /* largest index of pass 1 (which also counts pairs like "2:x"), and
                               of the range file given to the scan; 0 when none */
    int32_t min_index;      /* smallest index of pass 1, 1 when none is smaller (svm-scale warns
                               when < 1) */
    int64_t nonzeros;       /* pass 1's pairs: svm-scale's "original #nonzeros" */
    int64_t bad_label_line; /* first line whose label svm-scale cannot read ("ERROR: failed to read
                               labels", a blank line among them), 0 when none */
    int64_t neg_index_line; /* first line with a negative index svm-scale would store (it writes
                               outside its arrays and crashes), 0 when none */
    int32_t neg_index;      /* that index */
} gs_scale_summary;

typedef struct gs_scaler gs_scaler;

/* How to read. All zero (or a NULL pointer) is fine. */
typedef struct gs_scale_opts {
    const char *spool_dir; /* where an unseekable input is copied; NULL: "/tmp" */
    int threads;           /* parsing threads; 0: one per CPU this process may use, at most 8 */
    size_t chunk_bytes;    /* input read per chunk; 0: 2 MiB (tests use a few bytes) */
} gs_scale_opts;

/* Opens the data file (path "-": standard input). An input that is not a regular file (standard
 * input, a pipe, a device) is copied to an unlinked temporary file in opts->spool_dir while it is
 * scanned (created here, so a directory that takes no file fails now).
 * @return GS_OK, or GS_ERR_IO "can't open file <path>" (svm-scale's text; a directory too) or
 *         "can't read <path>: no temporary copy in <dir> (<why>)", GS_ERR_NOMEM */
gs_status gs_scaler_open(const char *path, const gs_scale_opts *opts, gs_scaler **out);

/* Reads the whole file once: svm-scale's passes 1 and 2. range_max_index is the largest index of a
 * range file to be restored (svm-scale counts it in its arrays' size), else 0. A bad label or a
 * negative index is not an error here: the summary tells, and the caller decides.
 * @return GS_OK, GS_ERR_IO "can't read input file <path>: <why>" (a gzip file cut short among
 *         them; or the temporary copy could not be written), GS_ERR_NOMEM "can't allocate enough
 *         memory" */
gs_status gs_scaler_scan(gs_scaler *s, int32_t range_max_index);

/* The scan's findings (valid after gs_scaler_scan). */
const gs_scale_summary *gs_scaler_summary(const gs_scaler *s);

/* Pass 2.5 with "-r": the range file's y section (if any) and x section replace p's values and the
 * data's label and feature ranges, in svm-scale's order; each index that varies in the data but is
 * absent from the file is listed in *warn (malloc'd, *nwarn entries, in svm-scale's order of
 * warning; free it) and then ignored, as svm-scale does.
 * @return GS_OK or GS_ERR_NOMEM */
gs_status gs_scaler_restore(gs_scaler *s, const gs_range *r, gs_scale_param *p, int32_t **warn,
                            int64_t *nwarn);

/* Pass 2.5 with "-s": the range file svm-scale would save for p (features 1..max_index whose min
 * and max differ, the y section with p->y_scaling). Free it with gs_range_free.
 * @return GS_OK or GS_ERR_NOMEM */
gs_status gs_scaler_ranges(const gs_scaler *s, const gs_scale_param *p, gs_range *out);

/* Pass 3: reads the file again and writes the scaled lines to out, as svm-scale prints them.
 * *new_nonzeros: the pairs printed (svm-scale's "new #nonzeros").
 * @return GS_OK, GS_ERR_IO (reading: as gs_scaler_scan; writing: "can't write output: <why>"),
 *         GS_ERR_FORMAT "ERROR: failed to read labels" when the file changed since the scan,
 *         GS_ERR_NOMEM */
gs_status gs_scaler_write(gs_scaler *s, const gs_scale_param *p, FILE *out, int64_t *new_nonzeros);

/* Closes the file and frees everything; s may be NULL. */
void gs_scaler_close(gs_scaler *s);

#endif
