/* classes.h — LIBSVM's class grouping, shared by the one-vs-one and Crammer–Singer trainers:
 * classes are (int)label values (gs_label_int) in first-appearance order, and a two-class -1/+1
 * problem whose first row is -1 is stored as "1 -1", as svm-train does. */
#ifndef GS_CLASSES_H
#define GS_CLASSES_H

#include "io/data.h"
#include "util/status.h"

typedef struct gs_classes {
    int k;
    int *label;   /* [k] */
    int *count;   /* [k] rows per class */
    int *start;   /* [k+1] first position of each class in order[] */
    int *of_row;  /* [l] class index of each row */
    int *order;   /* [l] rows grouped by class, file order kept within a class */
} gs_classes;

/* @return GS_OK or GS_ERR_NOMEM (c is then zeroed) */
gs_status gs_classes_group(const gs_problem *prob, gs_classes *c);
/* Frees and zeroes; c may be NULL. */
void gs_classes_free(gs_classes *c);

#endif
