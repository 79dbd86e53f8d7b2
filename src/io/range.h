/* range.h — svm-scale's range files (what "-s" saves and "-r" restores): a validating reader and a
 * writer of svm-scale 3.24's exact text (compat §5.3):
 *
 *     y                      only with y scaling
 *     y_lower y_upper        %.17g %.17g
 *     y_min y_max            %.17g %.17g
 *     x
 *     lower upper            %.17g %.17g
 *     index min max          %d %.17g %.17g, one line per feature that varies
 *
 * svm-scale reads these with fscanf and stops silently at the first thing it cannot parse, or skips
 * the whole x section when the "x" is not where it looks. The reader here takes exactly the files
 * svm-scale reads whole and gives the same numbers; anything else is an error naming file:line. */
#ifndef GS_RANGE_H
#define GS_RANGE_H

#include <stddef.h>
#include <stdint.h>

#include "util/status.h"

typedef struct gs_range_feature {
    int32_t index; /* >= 0 (svm-scale never writes 0, but reads and applies it) */
    double min, max;
} gs_range_feature;

typedef struct gs_range {
    int has_y;               /* the y section is there */
    double y_lower, y_upper; /* y section: the labels' target interval ... */
    double y_min, y_max;     /* ... and the labels' range in the data it was made from */
    double lower, upper;     /* the features' target interval */
    int64_t n;               /* feature lines */
    gs_range_feature *f;     /* [n], in file order: svm-scale writes ascending indices, and applies
                                any order it reads (a repeated index: the last line counts) */
    int32_t max_index;       /* the largest index in f, 0 when n == 0 */
} gs_range;

/* Reads and validates a range file (plain text). Accepted: the layout above with any white space
 * ("\r\n" line ends, tabs, blank lines among the feature lines), numbers as C's scanf("%lf") reads
 * them whole (nan and inf included), indices 0..INT32_MAX. Refused, as GS_ERR_FORMAT
 * "<path>:<line>: <what>": a missing or misplaced "y"/"x" line (an empty file among them), a line
 * with more or fewer numbers than its place needs, a token that is not a whole number, a negative
 * or out-of-range index, a NUL byte, a number longer than 4096 characters.
 * On error *out is left empty (all zero).
 * @return GS_OK, GS_ERR_IO "can't open file <path>" (svm-scale's text), GS_ERR_FORMAT or
 *         GS_ERR_NOMEM */
gs_status gs_range_read(const char *path, gs_range *out);

/* The same from memory; name stands for the path in messages. text need not be NUL-terminated. */
gs_status gs_range_parse(const char *text, size_t len, const char *name, gs_range *out);

/* Writes r as svm-scale writes it, through util/atomic_file.h (a temporary file beside path renamed
 * over it: a failure leaves no partial file; a symlink's target is replaced, the mode kept).
 * @return GS_OK, GS_ERR_IO "can't open file <path>" when it cannot be created (svm-scale's text)
 *         or atomic_file's "cannot write <path>: <reason>", GS_ERR_NOMEM */
gs_status gs_range_write(const char *path, const gs_range *r);

/* The text gs_range_write writes, in a malloc'd buffer (*text, *len; NUL-terminated).
 * @return GS_OK or GS_ERR_NOMEM */
gs_status gs_range_format(const gs_range *r, char **text, size_t *len);

/* Frees f and zeroes *r; r may be NULL. */
void gs_range_free(gs_range *r);

#endif
