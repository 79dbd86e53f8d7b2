/* cli.h — LIBSVM-style argument scanning helpers shared by the CLIs: checked number readers
 * (double precision like upstream LIBSVM, but garbage is rejected), long-option matching, the
 * usage texts and --version. */
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

struct gs_param;
/* What gs_cli_train_letter made of an option. */
enum { GS_CLI_OK = 0, GS_CLI_BAD_VALUE = 1, GS_CLI_UNKNOWN = 2, GS_CLI_WEIGHT = 3 };
/* One of svm-train's letter options that take a value, opt = "-s", "-t", "-d", "-g", "-r", "-c",
 * "-n", "-p", "-m", "-e", "-h", "-b" or "-w<label>", with value v ("" is 0, as LIBSVM reads it),
 * into p. -q and -v are the caller's (they differ between the CLIs).
 * @return GS_CLI_OK; GS_CLI_BAD_VALUE (v, or the label of -w, is not a whole number: the caller
 *         prints "Incorrect parameter: <opt> <v>"); GS_CLI_UNKNOWN (not such a letter); GS_CLI_WEIGHT
 *         (the weight table's error, in gs_last_error) */
int gs_cli_train_letter(const char *opt, const char *v, struct gs_param *p);

/* LIBSVM's svm-train usage, byte-identical except the program name (gpusvm-train), then a blank
 * line and gpusvm's long options (device, solver tunables, process) and notes. Printed
 * for --help and, as LIBSVM does, for a bad command line. */
void gs_cli_usage_train(FILE *f);
/* LIBSVM's svm-predict usage, byte-identical except the program name (gpusvm-predict), and
 * nothing more: what a bad command line prints, as svm-predict does. */
void gs_cli_usage_predict(FILE *f);
/* gpusvm-predict --help: gs_cli_usage_predict, a blank line, the long options both CLIs take
 * (--device, --list-devices, --verbose, --device-memory, --fast-exit, --version, --help) and notes
 * on gpusvm-predict's own behaviour. */
void gs_cli_help_predict(FILE *f);
/* --version: "gpusvm <GPUSVM_VERSION>" (include/svm.h) and a line with the OpenCL API and zlib it was built with. */
void gs_cli_version(FILE *f);

#endif
