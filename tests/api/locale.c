/* locale.c — svm_load_model and svm_save_model under a locale with ',' decimals: the model must
 * read and come back byte for byte (tests/cli/test_api.sh compares the files).
 *
 *   locale LOCALE model_in model_out      exit 0; 77 when LOCALE is not available */
#include <locale.h>
#include <stdio.h>
#include <string.h>

#include "svm.h"

int main(int argc, char **argv)
{
    if (argc != 4) return 1;
    char half[16];
    if (!setlocale(LC_ALL, argv[1])) return 77;
    snprintf(half, sizeof half, "%g", 0.5);
    if (strcmp(half, "0,5") != 0) return 77; /* not a ',' locale: the test would prove nothing */
    struct svm_model *m = svm_load_model(argv[2]);
    if (!m) {
        fprintf(stderr, "can't open model file %s\n", argv[2]);
        return 1;
    }
    const int rc = svm_save_model(argv[3], m) == 0 ? 0 : 1;
    svm_free_and_destroy_model(&m);
    return rc;
}
