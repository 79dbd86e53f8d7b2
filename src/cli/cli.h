/* cli.h — LIBSVM-style argument scanning helpers shared by the CLIs: checked number readers
 * (double precision like upstream LIBSVM, but garbage is rejected), long-option matching and the
 * usage texts. */
#ifndef GS_CLI_H
#define GS_CLI_H

#include <stdint.h>
#include <stdio.h>

/* Parses a whole string as a finite double (strtod: leading white space, decimal, exponent and hex
 * forms allowed). Rejected: an empty string, trailing characters ("1x"), overflow or underflow
 * (ERANGE), "nan" and "inf".
 * @return 0 on success, -1 otherwise (*out untouched) */
int gs_cli_parse_double(const char *s, double *out);
/* Parses a whole string as an int (strtol base 10, range checked; empty or "1.5" rejected).
 * @return 0 or -1 (*out untouched) */
int gs_cli_parse_int(const char *s, int *out);
/* Parses a whole string as an unsigned 64-bit decimal number (no sign allowed). @return 0 or -1 */
int gs_cli_parse_u64(const char *s, uint64_t *out);

/* Matches argv[*i] against the long option "--<name>". With value == NULL the option takes no
 * value and only the exact "--<name>" matches. Otherwise "--<name>=V" and "--<name> V" match:
 * *value is V (for the second form *i is advanced to V), or NULL when "--<name>" is the last
 * argument (the caller reports the missing value).
 * @return 1 when matched, 0 otherwise */
int gs_cli_long(int argc, char **argv, int *i, const char *name, const char **value);

/* LIBSVM's svm-train usage, byte-identical except the program name (gpusvm-train), then a blank
 * line and gpusvm's long options (gs_cli_usage_device's lines and the solver tunables). */
void gs_cli_usage_train(FILE *f);
/* LIBSVM's svm-predict usage, byte-identical except the program name (gpusvm-predict). Nothing is
 * appended: gpusvm-predict adds gs_cli_usage_device (or its own lines) when it has long options. */
void gs_cli_usage_predict(FILE *f);
/* The device long options (--device, --list-devices, --verbose), one line each, starting with a
 * "gpusvm options:" heading. */
void gs_cli_usage_device(FILE *f);

#endif
