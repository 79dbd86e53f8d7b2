/* scale.c — gpusvm-scale: LIBSVM 3.24's svm-scale, with its arguments, messages, exit codes and
 * output byte for byte (compat §5), at reader speed. The only place (with the other mains) that
 * exits.
 *
 * Argument scanning is svm-scale's: options while an argument starts with '-', its second
 * character names the option, the next argument is its value (two for -y), then exactly one data
 * file, else the usage on stdout and exit 1. Checks in svm-scale's order: "inconsistent lower/upper
 * specification", "cannot use -r and -s simultaneously", the usage, "can't open file" (data, then
 * restore file, then save file), all exit 1; "ERROR: failed to read labels" and "ERROR: failed to
 * read scaling parameters" exit 255 (svm-scale returns -1).
 *
 * Where we differ, on purpose:
 *  - Option values are read in double precision like upstream (Debian's strtof rounds -l 0.1 to
 *    0.10000000149011612); a value that is not a whole number ("-l abc", "-l 1x", nan, inf) is
 *    "Incorrect parameter: -l abc", exit 1 (Debian prints the usage, upstream's atof reads a
 *    prefix or 0); an empty value is 0 as in both. A missing value ("-l" last) prints the usage,
 *    exit 1 (svm-scale crashes, or prints the usage for -s and -r).
 *  - --help (the usage and gpusvm's notes, exit 0) and --version. A lone "-" as the data file reads
 *    standard input (svm-scale: "unknown option"); gzip input is read decoded.
 *  - A range file that svm-scale would read only in part (it stops silently at the first line it
 *    cannot parse, or skips the x section) is refused: "ERROR: failed to read scaling parameters"
 *    and a second line naming file:line, exit 255 (range.h).
 *  - A negative feature index, which svm-scale stores outside its arrays (it crashes), is
 *    "ERROR: negative feature index N at line L of F", exit 1, after svm-scale's index warning.
 *  - A directory as data or range file "can't open file" (svm-scale reads it as empty).
 *  - The -s file is written through a temporary file and renamed; a write error is reported. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "io/range.h"
#include "io/scale.h"
#include "util/status.h"

enum { KEEP_GOING = -1 };

/* svm-scale's exit_with_help text, byte for byte but for the program name. */
static const char k_usage[] =
    "Usage: gpusvm-scale [options] data_filename\n"
    "options:\n"
    "-l lower : x scaling lower limit (default -1)\n"
    "-u upper : x scaling upper limit (default +1)\n"
    "-y y_lower y_upper : y scaling limits (default: no y scaling)\n"
    "-s save_filename : save scaling parameters to save_filename\n"
    "-r restore_filename : restore scaling parameters from restore_filename\n";

static const char k_help_more[] =
    "\n"
    "gpusvm options:\n"
    "--help : print this text and exit\n"
    "--version : print the version and exit\n"
    "data_filename \"-\" reads standard input; gzip files are read decoded. The output (stdout),\n"
    "the range file, the warnings and the errors are svm-scale 3.24's. Option values are read in\n"
    "double precision; text after a number is an error (\"-l 1x\"). A range file that svm-scale\n"
    "would read only in part is refused, naming file:line.\n";

typedef struct scale_opts {
    gs_scale_param param;
    const char *save;
    const char *restore;
    const char *data;
} scale_opts;

static int usage_exit(void)
{
    fputs(k_usage, stdout);
    return 1;
}

/* An option value: "" is 0 (atof and Debian's checked parse agree), else a whole finite number. */
static int option_value(const char *opt, const char *v, double *out)
{
    if (*v == '\0') {
        *out = 0;
        return 0;
    }
    if (gs_cli_parse_double(v, out) == 0) return 0;
    fprintf(stderr, "Incorrect parameter: %s %s\n", opt, v);
    return -1;
}

/* svm-scale's option loop. @return KEEP_GOING with o filled, or the exit code */
static int parse_args(int argc, char **argv, scale_opts *o)
{
    int i;
    for (i = 1; i < argc; i++) {
        const char *opt = argv[i];
        if (opt[0] != '-' || strcmp(opt, "-") == 0) break; /* "-": the data file, standard input */
        if (strcmp(opt, "--help") == 0) {
            fputs(k_usage, stdout);
            fputs(k_help_more, stdout);
            return 0;
        }
        if (strcmp(opt, "--version") == 0) {
            gs_cli_version(stdout);
            return 0;
        }
        const int need = opt[1] == 'y' ? 2 : 1;
        if (strchr("luysr", opt[1]) == NULL || opt[1] == '\0') {
            fprintf(stderr, "unknown option\n");
            return usage_exit();
        }
        if (i + need >= argc) {
            /* svm-scale: -s/-r take the missing value as NULL and go on to its checks (then the
             * usage); -l/-u/-y crash */
            if (opt[1] != 's' && opt[1] != 'r') return usage_exit();
            i = argc + 1;
            break;
        }
        const char *v = argv[++i];
        switch (opt[1]) {
        case 'l':
            if (option_value(opt, v, &o->param.lower) != 0) return 1;
            break;
        case 'u':
            if (option_value(opt, v, &o->param.upper) != 0) return 1;
            break;
        case 'y':
            if (option_value(opt, v, &o->param.y_lower) != 0) return 1;
            v = argv[++i];
            if (option_value(opt, v, &o->param.y_upper) != 0) return 1;
            o->param.y_scaling = 1;
            break;
        case 's': o->save = v; break;
        default: o->restore = v; break;
        }
    }
    if (!(o->param.upper > o->param.lower) || (o->param.y_scaling && !(o->param.y_upper > o->param.y_lower))) {
        fprintf(stderr, "inconsistent lower/upper specification\n");
        return 1;
    }
    if (o->restore && o->save) {
        fprintf(stderr, "cannot use -r and -s simultaneously\n");
        return 1;
    }
    if (argc != i + 1) return usage_exit();
    o->data = argv[i];
    return KEEP_GOING;
}

/* The library's message, and the exit code for it: 1 (svm-scale's exit(1) cases). */
static int fail_exit(void)
{
    fprintf(stderr, "%s\n", gs_last_error());
    return 1;
}

/* Pass 2.5 and 3 once the scan is done: restore or save, then the output. @return the exit code */
static int finish(const scale_opts *o, gs_scaler *sc, const gs_range *restored)
{
    gs_scale_param p = o->param;
    const gs_scale_summary *sum = gs_scaler_summary(sc);
    if (restored) {
        int32_t *warn = NULL;
        int64_t nwarn = 0;
        if (gs_scaler_restore(sc, restored, &p, &warn, &nwarn) != GS_OK) return fail_exit();
        for (int64_t k = 0; k < nwarn; k++)
            fprintf(stderr,
                    "WARNING: feature index %d appeared in file %s was not seen in the scaling factor "
                    "file %s. The feature is scaled to 0.\n",
                    (int)warn[k], o->data, o->restore);
        free(warn);
    }
    if (o->save) {
        gs_range r;
        if (gs_scaler_ranges(sc, &p, &r) != GS_OK) return fail_exit();
        const gs_status st = gs_range_write(o->save, &r);
        gs_range_free(&r);
        if (st != GS_OK) return fail_exit();
        if (sum->min_index < 1)
            fprintf(stderr, "WARNING: scaling factors with indices smaller than 1 are not stored to the file %s.\n",
                    o->save);
    }
    int64_t new_nonzeros = 0;
    const gs_status st = gs_scaler_write(sc, &p, stdout, &new_nonzeros);
    if (st == GS_ERR_FORMAT) { /* the file changed between the passes */
        fprintf(stderr, "%s\n", gs_last_error());
        return 255;
    }
    if (st != GS_OK) return fail_exit();
    if (new_nonzeros > sum->nonzeros)
        fprintf(stderr,
                "WARNING: original #nonzeros %lld\n"
                "       > new      #nonzeros %lld\n"
                "If feature values are non-negative and sparse, use -l 0 rather than the default -l -1\n",
                (long long)sum->nonzeros, (long long)new_nonzeros);
    return 0;
}

/* Opens the data (and the range file), scans, and reports what svm-scale reports before pass
 * 2.5. @return the exit code */
static int run(const scale_opts *o)
{
    int rc = 1;
    gs_scaler *sc = NULL;
    gs_range range = {0};
    gs_status range_st = GS_OK;
    char range_msg[1024] = "";
    const char *tmpdir = getenv("TMPDIR");

    const gs_scale_opts so = {tmpdir && *tmpdir ? tmpdir : "/tmp", 0, 0};
    if (gs_scaler_open(o->data, &so, &sc) != GS_OK) return fail_exit();
    if (o->restore) {
        range_st = gs_range_read(o->restore, &range);
        if (range_st == GS_ERR_FORMAT) {
            snprintf(range_msg, sizeof range_msg, "%s", gs_last_error());
        } else if (range_st != GS_OK) {
            rc = fail_exit();
            goto cleanup;
        }
    }
    if (gs_scaler_scan(sc, range_st == GS_OK ? range.max_index : 0) != GS_OK) {
        rc = fail_exit();
        goto cleanup;
    }
    const gs_scale_summary *sum = gs_scaler_summary(sc);
    if (sum->min_index < 1)
        fprintf(stderr, "WARNING: minimal feature index is %d, but indices should start from 1\n",
                (int)sum->min_index);
    /* svm-scale's pass 2 stops at the first bad label; at a negative index it would crash */
    if (sum->bad_label_line && (!sum->neg_index_line || sum->bad_label_line <= sum->neg_index_line)) {
        fprintf(stderr, "ERROR: failed to read labels\n");
        rc = 255;
        goto cleanup;
    }
    if (sum->neg_index_line) {
        fprintf(stderr, "ERROR: negative feature index %d at line %lld of %s\n", (int)sum->neg_index,
                (long long)sum->neg_index_line, o->data);
        goto cleanup;
    }
    if (range_st != GS_OK) {
        fprintf(stderr, "ERROR: failed to read scaling parameters\n%s\n", range_msg);
        rc = 255;
        goto cleanup;
    }
    rc = finish(o, sc, o->restore ? &range : NULL);
cleanup:
    gs_range_free(&range);
    gs_scaler_close(sc);
    return rc;
}

int main(int argc, char **argv)
{
    scale_opts o = {.param = {.lower = -1.0, .upper = 1.0}};
    const int rc = parse_args(argc, argv, &o);
    if (rc != KEEP_GOING) return rc;
    return run(&o);
}
