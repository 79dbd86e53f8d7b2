/* abi.c — the layout of svm.h's types: sizes, every field's offset, the enum values and the
 * version. tests/cli/test_api.sh compiles it once with gpusvm's include/svm.h and once with
 * Debian's LIBSVM svm.h and requires the same output (binary compatibility). */
#include <stddef.h>
#include <stdio.h>

#include "svm.h"

#define OFF(type, field) printf("%s.%s %zu %zu\n", #type, #field, offsetof(struct type, field), \
                                sizeof(((struct type *)0)->field))

int main(void)
{
    printf("LIBSVM_VERSION %d\n", LIBSVM_VERSION);
    printf("svm_type %d %d %d %d %d\n", C_SVC, NU_SVC, ONE_CLASS, EPSILON_SVR, NU_SVR);
    printf("kernel_type %d %d %d %d %d\n", LINEAR, POLY, RBF, SIGMOID, PRECOMPUTED);
    printf("sizeof svm_node %zu svm_problem %zu svm_parameter %zu svm_model %zu\n", sizeof(struct svm_node),
           sizeof(struct svm_problem), sizeof(struct svm_parameter), sizeof(struct svm_model));
    OFF(svm_node, index); OFF(svm_node, value);
    OFF(svm_problem, l); OFF(svm_problem, y); OFF(svm_problem, x);
    OFF(svm_parameter, svm_type); OFF(svm_parameter, kernel_type); OFF(svm_parameter, degree);
    OFF(svm_parameter, gamma); OFF(svm_parameter, coef0); OFF(svm_parameter, cache_size);
    OFF(svm_parameter, eps); OFF(svm_parameter, C); OFF(svm_parameter, nr_weight);
    OFF(svm_parameter, weight_label); OFF(svm_parameter, weight); OFF(svm_parameter, nu);
    OFF(svm_parameter, p); OFF(svm_parameter, shrinking); OFF(svm_parameter, probability);
    OFF(svm_model, param); OFF(svm_model, nr_class); OFF(svm_model, l); OFF(svm_model, SV);
    OFF(svm_model, sv_coef); OFF(svm_model, rho); OFF(svm_model, probA); OFF(svm_model, probB);
    OFF(svm_model, sv_indices); OFF(svm_model, label); OFF(svm_model, nSV); OFF(svm_model, free_sv);
    return 0;
}
