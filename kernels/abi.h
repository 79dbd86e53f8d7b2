/* abi.h — the tables the host and the OpenCL kernels share, defined once. Valid C11 (src/ includes
 * it as "kernels/abi.h") and OpenCL C 1.2 (gs_ocl_build puts it after kernels/common.cl in front of
 * every program, so kernel files use it without an #include).
 *
 * Fixed-size entries are structs of 32- and 64-bit integers, widest fields first, so neither
 * compiler has padding to add; tests/device/test_abi.c has the device report every struct's size
 * and field offsets (GS_ABI_LAYOUTS below) and compares them with the host's. Layouts of variable
 * length (the Crammer-Singer readback and update buffers) are offset macros, which both languages
 * evaluate alike. Names start with gs_abi_ / GS_ so that they cannot clash with a kernel file's
 * own (predict.cl's RT). */
#ifndef GS_ABI_H
#define GS_ABI_H

#ifdef __OPENCL_VERSION__
typedef int gs_abi_i32;
typedef ulong gs_abi_u64;
#else
#include <stdint.h>
typedef int32_t gs_abi_i32;
typedef uint64_t gs_abi_u64;
#endif

/* ---- the solver's program (kernels/solver.cl) ------------------------------------------------ */

/* The parts kernels/solver.cl's kernels are split into (-DGS_PART=1..GS_SOLVER_PARTS), so that
 * separate processes can build them at once (src/device/ocl.h gs_ocl_build_parts). */
#define GS_SOLVER_PARTS 4

/* ---- the solver's round readback (src/train/solver.c, kernels/solver.cl k_readback, k_gram) ---- */

/* Per active problem, in doubles: a head of GS_RB_HEAD(q) (gap parts, n_new; per slot its G,
 * position, the new slots and its kernel row), and after every problem's head each one's matrix
 * in GS_RB_KWS(q): the upper triangle of the working set's q x q kernel matrix, row by row, as
 * floats, entry (a, b) with a <= b at GS_RB_TRI(q, a, b) (row a starts after q + (q-1) + ...). */
#define GS_RB_HEAD(q) (4 + 4 * (q))
#define GS_RB_KWS(q) (((long)(q) * ((q) + 1) / 2 + 1) / 2)
#define GS_RB_TRI(q, a, b) ((long)(a) * (2 * (q) - (a) + 1) / 2 + ((b) - (a)))
/* or, for a batch that reads the matrices whole (k_readback's parts bit 4), q x q floats */
#define GS_RB_KWS_FULL(q) (((long)(q) * (q) + 1) / 2)

/* ---- prediction (src/predict/predictor.c, kernels/predict.cl pred_sum) ------------------------ */

/* One side of a decision value: SVs [first, end) in model order, each times its coefficient in
 * column col of sv_coef. */
typedef struct gs_abi_pair_side {
    gs_abi_i32 first, end, col;
} gs_abi_pair_side;

/* Pair table entry, one per decision value: class i's SVs then class j's (one-vs-one), or every SV
 * and an empty second side (one-class, regression, Crammer-Singer's per-class values). */
typedef struct gs_abi_pair {
    gs_abi_pair_side side[2];
} gs_abi_pair;

/* ---- Crammer-Singer (src/train/cs.c, kernels/cs.cl) ----------------------------------------- */

/* Radix selection of the q-th largest 64-bit key: GS_CS_NPASS passes of 11 bits from the top (9 in
 * the last), histograms of GS_CS_NBINS bins. */
#define GS_CS_NPASS 6
#define GS_CS_NBINS 2048

/* The selection's state on the device (one per run; the host only allocates and never reads it). */
typedef struct gs_abi_cs_state {
    gs_abi_u64 prefix;   /* the threshold key's digits found so far */
    gs_abi_u64 mask;     /* their bits */
    gs_abi_u64 need;     /* keys still wanted inside the prefix */
    gs_abi_u64 selected; /* rows selected this round, min(q, eligible) */
    gs_abi_u64 low;      /* the smallest eligible key (from the largest violation) */
} gs_abi_cs_state;

/* Readback buffer of a round, in doubles (q slots, k classes): a header, then the slots' rows, the
 * new slots, the slots' gradients; then, as floats from double GS_CS_RB_DOUBLES(q, k) on, the new
 * Gram entries gram[e * q + s] = K(new slot e, slot s) for e < n_new. */
#define GS_CS_RB_GAP 0                                 /* the largest violation */
#define GS_CS_RB_SELECTED 1                            /* rows selected this round */
#define GS_CS_RB_NNEW 2                                /* slots that got a new row (n_new) */
#define GS_CS_RB_HEAD 4                                /* header doubles ([3] is 0) */
#define GS_CS_RB_WS_POS(q) GS_CS_RB_HEAD               /* [q] row of each slot, -1 when empty */
#define GS_CS_RB_NEW_SLOTS(q) (GS_CS_RB_HEAD + (q))    /* [q] the new slots, -1 past n_new */
#define GS_CS_RB_G(q) (GS_CS_RB_HEAD + 2 * (q))        /* [q * k] gradients, slot-major */
#define GS_CS_RB_DOUBLES(q, k) (GS_CS_RB_HEAD + 2 * (q) + (q) * (k))

/* Update buffer of a round, in doubles (nupd changed slots, q slots, k classes): the changes dA,
 * slot-major [nupd * k], then the changed slots' numbers [nupd], then the alphas of every slot
 * [q * k] (the rows holding slot s take them). */
#define GS_CS_UPD_SLOTS(nupd, k) ((nupd) * (k))
#define GS_CS_UPD_ALPHAS(nupd, k) ((nupd) * (k) + (nupd))
#define GS_CS_UPD_DOUBLES(nupd, q, k) (GS_CS_UPD_ALPHAS(nupd, k) + (q) * (k))

/* ---- the working-set solver (src/train/solver.c, kernels/solver.cl) -------------------------- */

/* Problem table entry (ptab[p]): problem p of a batch. */
typedef struct gs_abi_problem {
    gs_abi_i32 a0, na;    /* clusters [a0, a0 + na) of the shared layout, then */
    gs_abi_i32 b0, nb;    /* clusters [b0, b0 + nb) */
    gs_abi_i32 npos;      /* its positions, (na + nb) * WG */
    gs_abi_i32 poff;      /* where its per-position arrays (y, G, alpha, in_ws, slot_of) start */
    gs_abi_i32 unused[2]; /* padding: no field reads them */
} gs_abi_problem;

/* Round table entry (rt[a]): active problem a of a round. The host sends the table at the
 * head of the update buffer (doubles), so the table and the updates are one transfer. */
typedef struct gs_abi_round {
    gs_abi_i32 pid;       /* its problem */
    gs_abi_i32 nupd;      /* update records */
    gs_abi_i32 uoff;      /* where they start in the update buffer (doubles, past the table) */
    gs_abi_i32 q_new;     /* slots that take new rows this round */
    gs_abi_i32 q_next;    /* and next round */
    gs_abi_i32 head;      /* the working set's ring head */
    gs_abi_i32 k_up;      /* rows wanted from the "up" list */
    gs_abi_i32 k_low;     /* and from the "low" list */
    gs_abi_i32 ch0;       /* its first virtual chunk */
    gs_abi_i32 nch;       /* its chunks */
    gs_abi_i32 sel;       /* 0: select over every row (the C rule); +1 / -1: over that sign's rows
                           * alone (the nu rule, one sign a round), the gap also that sign's */
} gs_abi_round;

/* Certification table entry (ctab[a]): problem a of a certification pass. */
typedef struct gs_abi_cert {
    gs_abi_i32 prob;      /* its batch index */
    gs_abi_i32 n;         /* its SVs this pass */
    gs_abi_i32 nold;      /* columns its U block held before */
    gs_abi_i32 ngrp;      /* k_cert's groups for its rows: its own, so that its sums do not depend on
                             the problems beside it (on this device or another) */
    gs_abi_i32 nsv;       /* its SVs over all passes (the host's bound factor, solver.c cert_out) */
} gs_abi_cert;

/* Every struct above and its fields, for the layout check: S(type) names a struct, F(type, field)
 * one of its fields. A field added above belongs here too. */
#define GS_ABI_LAYOUTS(S, F)                                                                       \
    S(gs_abi_pair_side) F(gs_abi_pair_side, first) F(gs_abi_pair_side, end)                       \
    F(gs_abi_pair_side, col)                                                                       \
    S(gs_abi_pair) F(gs_abi_pair, side[0]) F(gs_abi_pair, side[1])                                 \
    F(gs_abi_pair, side[1].col)                                                                    \
    S(gs_abi_cs_state) F(gs_abi_cs_state, prefix) F(gs_abi_cs_state, mask)                         \
    F(gs_abi_cs_state, need) F(gs_abi_cs_state, selected) F(gs_abi_cs_state, low)                  \
    S(gs_abi_problem) F(gs_abi_problem, a0) F(gs_abi_problem, na) F(gs_abi_problem, b0)            \
    F(gs_abi_problem, nb) F(gs_abi_problem, npos) F(gs_abi_problem, poff)                          \
    F(gs_abi_problem, unused)                                                                      \
    S(gs_abi_round) F(gs_abi_round, pid) F(gs_abi_round, nupd) F(gs_abi_round, uoff)               \
    F(gs_abi_round, q_new) F(gs_abi_round, q_next) F(gs_abi_round, head) F(gs_abi_round, k_up)     \
    F(gs_abi_round, k_low) F(gs_abi_round, ch0) F(gs_abi_round, nch) F(gs_abi_round, sel)          \
    S(gs_abi_cert) F(gs_abi_cert, prob) F(gs_abi_cert, n) F(gs_abi_cert, nold)                     \
    F(gs_abi_cert, ngrp) F(gs_abi_cert, nsv)

#endif
