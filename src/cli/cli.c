/* cli.c — checked number readers, long-option matching, the usage texts and --version of the CLIs. */
#include "cli/cli.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "api/param.h"
#include "device/ocl.h" /* CL_TARGET_OPENCL_VERSION, the OpenCL API gpusvm is built against */
#include "svm.h" /* GPUSVM_VERSION, what the library reports too */

int gs_cli_parse_double(const char *s, double *out)
{
    char *end = NULL;
    errno = 0;
    const double v = strtod(s, &end);
    /* end == s also covers "" and white space only. */
    if (end == s || *end != '\0' || errno == ERANGE || !isfinite(v)) return -1;
    *out = v;
    return 0;
}

int gs_cli_parse_int(const char *s, int *out)
{
    char *end = NULL;
    errno = 0;
    const long v = strtol(s, &end, 10);
    if (end == s || *end != '\0' || errno == ERANGE || v < INT_MIN || v > INT_MAX) return -1;
    *out = (int)v;
    return 0;
}

int gs_cli_parse_u64(const char *s, uint64_t *out)
{
    /* strtoull accepts "-1" and wraps it around: only plain digits are allowed here. */
    if (*s < '0' || *s > '9') return -1;
    char *end = NULL;
    errno = 0;
    const unsigned long long v = strtoull(s, &end, 10);
    if (*end != '\0' || errno == ERANGE || v > UINT64_MAX) return -1;
    *out = (uint64_t)v;
    return 0;
}

int gs_cli_long(int argc, char **argv, int *i, const char *name, const char **value)
{
    const char *a = argv[*i];
    const size_t n = strlen(name);
    if (a[0] != '-' || a[1] != '-' || strncmp(a + 2, name, n) != 0) return 0;
    const char *rest = a + 2 + n;
    if (!value) return *rest == '\0';
    if (*rest == '=') {
        *value = rest + 1;
        return 1;
    }
    if (*rest != '\0') return 0;
    if (*i + 1 < argc) {
        *i += 1;
        *value = argv[*i];
    } else {
        *value = NULL;
    }
    return 1;
}

/* LIBSVM letter options take "" as 0 (atoi/atof, and Debian's checked parse agree on that). */
static int letter_double(const char *s, double *out)
{
    if (*s == '\0') { *out = 0; return 0; }
    return gs_cli_parse_double(s, out);
}

static int letter_int(const char *s, int *out)
{
    if (*s == '\0') { *out = 0; return 0; }
    return gs_cli_parse_int(s, out);
}

int gs_cli_train_letter(const char *opt, const char *v, gs_param *p)
{
    int bad = 0;
    switch (opt[1]) {
    case 's': bad = letter_int(v, &p->svm_type); break;
    case 't': bad = letter_int(v, &p->kernel_type); break;
    case 'd': bad = letter_int(v, &p->degree); break;
    case 'g': bad = letter_double(v, &p->gamma); break;
    case 'r': bad = letter_double(v, &p->coef0); break;
    case 'c': bad = letter_double(v, &p->C); break;
    case 'n': bad = letter_double(v, &p->nu); break;
    case 'p': bad = letter_double(v, &p->p); break;
    case 'm': bad = letter_double(v, &p->cache_size); break;
    case 'e': bad = letter_double(v, &p->eps); break;
    case 'h': bad = letter_int(v, &p->shrinking); break;
    case 'b': bad = letter_int(v, &p->probability); break;
    case 'w': {
        int label = 0;
        double w = 0;
        bad = letter_int(opt + 2, &label) || letter_double(v, &w);
        if (!bad && gs_param_add_weight(p, label, w) != GS_OK) return GS_CLI_WEIGHT;
        break;
    }
    default:
        return GS_CLI_UNKNOWN;
    }
    return bad ? GS_CLI_BAD_VALUE : GS_CLI_OK;
}

/* LIBSVM's text (svm-train.c exit_with_help), kept byte for byte: scripts and the golden replay
 * compare it. Only the program name differs. */
static const char k_train_usage[] =
    "Usage: gpusvm-train [options] training_set_file [model_file]\n"
    "options:\n"
    "-s svm_type : set type of SVM (default 0)\n"
    "\t0 -- C-SVC\t\t(multi-class classification)\n"
    "\t1 -- nu-SVC\t\t(multi-class classification)\n"
    "\t2 -- one-class SVM\n"
    "\t3 -- epsilon-SVR\t(regression)\n"
    "\t4 -- nu-SVR\t\t(regression)\n"
    "-t kernel_type : set type of kernel function (default 2)\n"
    "\t0 -- linear: u'*v\n"
    "\t1 -- polynomial: (gamma*u'*v + coef0)^degree\n"
    "\t2 -- radial basis function: exp(-gamma*|u-v|^2)\n"
    "\t3 -- sigmoid: tanh(gamma*u'*v + coef0)\n"
    "\t4 -- precomputed kernel (kernel values in training_set_file)\n"
    "-d degree : set degree in kernel function (default 3)\n"
    "-g gamma : set gamma in kernel function (default 1/num_features)\n"
    "-r coef0 : set coef0 in kernel function (default 0)\n"
    "-c cost : set the parameter C of C-SVC, epsilon-SVR, and nu-SVR (default 1)\n"
    "-n nu : set the parameter nu of nu-SVC, one-class SVM, and nu-SVR (default 0.5)\n"
    "-p epsilon : set the epsilon in loss function of epsilon-SVR (default 0.1)\n"
    "-m cachesize : set cache memory size in MB (default 100)\n"
    "-e epsilon : set tolerance of termination criterion (default 0.001)\n"
    "-h shrinking : whether to use the shrinking heuristics, 0 or 1 (default 1)\n"
    "-b probability_estimates : whether to train a SVC or SVR model for probability estimates, 0 or 1 (default 0)\n"
    "-wi weight : set the parameter C of class i to weight*C, for C-SVC (default 1)\n"
    "-v n: n-fold cross validation mode\n"
    "-q : quiet mode (no outputs)\n";

static const char k_predict_usage[] =
    "Usage: gpusvm-predict [options] test_file model_file output_file\n"
    "options:\n"
    "-b probability_estimates: whether to predict probability estimates, 0 or 1 (default 0); for one-class SVM only 0 is supported\n"
    "-q : quiet mode (no outputs)\n";

static const char k_device_usage[] =
    "gpusvm options:\n"
    "--device N|NAME|LIST : OpenCL device by --list-devices index or by a substring of\n"
    "\t\"platform / device\" (default: env GPUSVM_DEVICE, else the first GPU, else any device);\n"
    "\tseveral as a comma-separated list (0,1) or all (every GPU, else every device): training\n"
    "\tdeals one-vs-one pairs, -v and -b 1 folds and grid cells out over them, prediction splits\n"
    "\tthe rows; the answers are one device's\n"
    "--list-devices : print the OpenCL devices and exit\n"
    "--verbose : print the device and per-phase timings on stderr\n"
    "--device-memory N : use at most N MB of device memory (data that does not fit is refused\n"
    "\tbefore any work, with the bytes needed and available)\n"
    "--no-kernel-cache : compile the OpenCL programs, neither loading nor storing them in the\n"
    "\tkernel cache (default folder: env GPUSVM_KERNEL_CACHE=DIR, else $XDG_CACHE_HOME/gpusvm,\n"
    "\telse ~/.cache/gpusvm; GPUSVM_KERNEL_CACHE=0 turns it off)\n";

/* the process options both CLIs take, after each one's own */
static const char k_process_usage[] =
    "--fast-exit : once the output is written, exit without waiting for the OpenCL driver's\n"
    "\tteardown: a forked child releases the device after this process has ended (also env\n"
    "\tGPUSVM_FAST_EXIT=1; default: the device is released here, before the exit)\n"
    "--version : print the version and exit\n"
    "--help : print this text and exit\n";

static const char k_train_tuning_usage[] =
    "--ws-size N : working-set size, even, 2..1024 (default: 768 keeping 384 for two classes,\n"
    "              128..512 by pair size for one-vs-one pairs)\n"
    "--ws-keep N : working-set entries kept from the previous iteration, 0..ws-size-2 (default: half)\n"
    "--clusters N : active clusters of the sparsity-pattern clustering (default 64)\n"
    "--cluster-size N : rows per cluster, a power of two from 32 to 1024 (default 256)\n"
    "--seed N : seed of the clustering order (default 1)\n"
    "--multiclass ovo|cs : one-vs-one C-SVC like LIBSVM (default), or Crammer-Singer: one joint\n"
    "\tmulticlass problem, model type cs_svc (gpusvm-predict reads it, svm-predict refuses it);\n"
    "\tonly -s 0, no -b 1, -wi, -v or -t 4; --ws-size examples per round (default 1024),\n"
    "\t--ws-keep unused\n"
    "--one-class-prob : with -s 2 -b 1, train LIBSVM 3.30+'s one-class probability model\n"
    "\t(prob_density_marks; gpusvm-predict -b 1 reads it, 3.24's svm-predict refuses it) instead\n"
    "\tof 3.24's \"one-class SVM probability output not supported yet\"\n";

static const char k_train_notes[] =
    "training_set_file \"-\" reads standard input (default model file: stdin.model).\n"
    "Every model is certified before it is written: its gradients recomputed in double on the\n"
    "device, LIBSVM's stopping gap < -e checked on them, training resumed where it is not.\n"
    "Notes: -m is accepted and checked but unused (no cache of kernel values is kept); -h 1\n"
    "shrinks a two-class C-SVC, one-class or epsilon-SVR problem of 100,000 rows or more (its later\n"
    "rounds over the rows that can still violate, every row certified at the end). Numbers are read\n"
    "in double precision; text after a number is an error (\"-c 1x\").\n";

void gs_cli_usage_train(FILE *f)
{
    fputs(k_train_usage, f);
    fputs("\n", f);
    fputs(k_device_usage, f);
    fputs(k_train_tuning_usage, f);
    fputs(k_process_usage, f);
    fputs(k_train_notes, f);
}

static const char k_predict_notes[] =
    "test_file \"-\" reads standard input (plain or gzip). The output file is written to a\n"
    "temporary beside it and renamed at the end: a failed run leaves no partial output.\n";

void gs_cli_usage_predict(FILE *f) { fputs(k_predict_usage, f); }

void gs_cli_help_predict(FILE *f)
{
    fputs(k_predict_usage, f);
    fputs("\n", f);
    fputs(k_device_usage, f);
    fputs(k_process_usage, f);
    fputs(k_predict_notes, f);
}

void gs_cli_version(FILE *f)
{
    fprintf(f, "gpusvm %s\n", GPUSVM_VERSION);
    /* the headers' versions; zlib's library can be newer than its header (zlibVersion) */
    fprintf(f, "built with the OpenCL %d.%d API and zlib %s", CL_TARGET_OPENCL_VERSION / 100,
            CL_TARGET_OPENCL_VERSION / 10 % 10, ZLIB_VERSION);
    if (strcmp(zlibVersion(), ZLIB_VERSION) != 0) fprintf(f, " (running zlib %s)", zlibVersion());
    fputs("\n", f);
}
