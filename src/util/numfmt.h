/* numfmt.h — printf's "%g", "%.8g" and "%.17g" of a double, byte for byte the C library's text, fast for
 * the common values (a bulk writer such as gpusvm-scale prints tens of millions of them). */
#ifndef GS_NUMFMT_H
#define GS_NUMFMT_H

#include <stddef.h>

/* Room that any result below needs, the terminating NUL included ("-1.7976931348623157e+308"). */
enum { GS_FMT_MAX = 32 };

/* Writes snprintf(out, GS_FMT_MAX, "%g", v) into out (NUL-terminated).
 * @return the length, without the NUL */
size_t gs_fmt_g(double v, char *out);

/* Writes snprintf(out, GS_FMT_MAX, "%.8g", v) into out (NUL-terminated): how model files hold SV
 * values.
 * @return the length, without the NUL */
size_t gs_fmt_g8(double v, char *out);

/* Writes snprintf(out, GS_FMT_MAX, "%.17g", v) into out (NUL-terminated).
 * @return the length, without the NUL */
size_t gs_fmt_g17(double v, char *out);

/* Writes v as Python 3's repr(float) / str(float) does (the shortest decimal that reads back as
 * v; fixed notation with at least one fractional digit, "3.0", when the decimal exponent is in
 * -4..15, else "1e-05", "1.5e+16"; "nan", "inf", "-inf"): how grid.py prints log2c, C and rates,
 * so gpusvm-grid's lines are the same text.
 * @return the length, without the NUL */
size_t gs_fmt_repr(double v, char *out);

#endif
