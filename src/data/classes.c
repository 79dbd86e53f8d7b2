/* classes.c — LIBSVM's class grouping (see classes.h). */
#include "data/classes.h"

#include <stdlib.h>
#include <string.h>

#include "api/param.h"

void gs_classes_free(gs_classes *c)
{
    if (!c) return;
    free(c->label); free(c->count); free(c->start); free(c->of_row); free(c->order);
    memset(c, 0, sizeof *c);
}

gs_status gs_classes_group(const gs_problem *prob, gs_classes *c)
{
    const int l = prob->l;
    int cap = 16;
    memset(c, 0, sizeof *c);
    c->label = malloc(sizeof(int) * (size_t)cap);
    c->count = malloc(sizeof(int) * (size_t)cap);
    c->of_row = malloc(sizeof(int) * (size_t)(l ? l : 1));
    c->order = malloc(sizeof(int) * (size_t)(l ? l : 1));
    if (!c->label || !c->count || !c->of_row || !c->order) goto nomem;
    for (int i = 0; i < l; i++) {
        const int lab = gs_label_int(prob->y[i]);
        int j = 0;
        while (j < c->k && c->label[j] != lab) j++;
        if (j == c->k) {
            if (c->k == cap) {
                cap *= 2;
                int *a = realloc(c->label, sizeof(int) * (size_t)cap);
                if (!a) goto nomem;
                c->label = a;
                int *b = realloc(c->count, sizeof(int) * (size_t)cap);
                if (!b) goto nomem;
                c->count = b;
            }
            c->label[c->k] = lab;
            c->count[c->k] = 0;
            c->k++;
        }
        c->count[j]++;
        c->of_row[i] = j;
    }
    /* LIBSVM stores a -1/+1 problem whose first row is -1 as "label 1 -1" */
    if (c->k == 2 && c->label[0] == -1 && c->label[1] == 1) {
        c->label[0] = 1; c->label[1] = -1;
        int t = c->count[0]; c->count[0] = c->count[1]; c->count[1] = t;
        for (int i = 0; i < l; i++) c->of_row[i] = 1 - c->of_row[i];
    }
    c->start = malloc(sizeof(int) * (size_t)(c->k + 1));
    if (!c->start) goto nomem;
    c->start[0] = 0;
    for (int j = 0; j < c->k; j++) c->start[j + 1] = c->start[j] + c->count[j];
    {
        int *fillp = calloc((size_t)(c->k ? c->k : 1), sizeof(int));
        if (!fillp) goto nomem;
        for (int i = 0; i < l; i++) c->order[c->start[c->of_row[i]] + fillp[c->of_row[i]]++] = i;
        free(fillp);
    }
    return GS_OK;
nomem:
    gs_classes_free(c);
    return GS_FAIL(GS_ERR_NOMEM, "out of memory grouping classes");
}
