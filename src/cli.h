/* cli.h — LIBSVM-style argument scanning helpers shared by the CLIs: checked number readers
 * (double precision like upstream LIBSVM, but garbage is rejected) and the usage texts. */
#ifndef GS_CLI_H
#define GS_CLI_H

/* Parses a whole string as a double (strtod, must consume everything, no overflow).
 * @return 0 on success, -1 otherwise */
int gs_cli_parse_double(const char *s, double *out);
/* Parses a whole string as an int (strtol base 10, range checked). @return 0 or -1 */
int gs_cli_parse_int(const char *s, int *out);

#endif
